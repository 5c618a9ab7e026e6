import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { looksLikeZip, readZip } from './zip-archive.js';

const CSV = 'a,b,c\n'.repeat(500);

/** A zip written by fflate, an independent implementation of the format. */
function zip(files: Record<string, [string, number]>, comment?: string): Buffer {
  const input = Object.fromEntries(Object.entries(files).map(([name, [text, level]]) => [name, [strToU8(text), { level: level as 0 | 6 }]]));
  return Buffer.from(zipSync(input as Parameters<typeof zipSync>[0], comment ? { comment } : {}));
}

function failure(bytes: Buffer): string {
  try {
    readZip(bytes, 'f.zip');
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('read');
}

describe('readZip', () => {
  it('reads deflated and stored entries, leaving directories out', () => {
    const bytes = zip({ 'BTCUSDT-1s-2026-04-13.csv': [CSV, 6], 'notes/': ['', 0], 'notes/readme.txt': ['hello', 0] }, 'a comment');
    expect(looksLikeZip(bytes)).toBe(true);
    const entries = readZip(bytes, 'f.zip');
    expect(entries.map((e) => e.name)).toEqual(['BTCUSDT-1s-2026-04-13.csv', 'notes/readme.txt']);
    expect(entries[0]!.data.toString()).toBe(CSV);
    expect(entries[1]!.data.toString()).toBe('hello');
  });

  it('refuses a truncated zip', () => {
    const bytes = zip({ 'a.csv': [CSV, 6] });
    for (const cut of [bytes.length - 1, bytes.length - 30, Math.floor(bytes.length / 2), 10]) {
      expect(failure(bytes.subarray(0, cut))).toBe('f.zip: truncated or damaged zip (its central directory is missing or cut short)');
    }
  });

  it('refuses an entry whose bytes changed (CRC), an encrypted one, and an unknown compression', () => {
    const stored = zip({ 'a.csv': [CSV, 0] });
    const changed = Buffer.from(stored);
    changed[60] = changed[60]! ^ 0x01;
    expect(failure(changed)).toBe('f.zip: a.csv in the zip is damaged (its size or CRC does not match)');
    const dir = stored.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    const encrypted = Buffer.from(stored);
    encrypted.writeUInt16LE(1, dir + 8);
    expect(failure(encrypted)).toBe('f.zip: a.csv in the zip is encrypted');
    const bzip = Buffer.from(stored);
    bzip.writeUInt16LE(12, dir + 10);
    expect(failure(bzip)).toBe('f.zip: a.csv in the zip uses compression method 12; only stored and deflated entries are read');
  });

  it('does not take a CSV for a zip', () => {
    expect(looksLikeZip(Buffer.from(CSV))).toBe(false);
    expect(looksLikeZip(Buffer.from('PK'))).toBe(false);
  });
});

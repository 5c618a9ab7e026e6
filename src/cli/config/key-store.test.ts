import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY_ROTATION_MS } from '../../domain/plans.js';
import { UsageError } from '../../errors.js';
import { keyNameArg as checkKeyName } from '../../domain/arguments.js';
import { KeyStore } from './key-store.js';

const T0 = Date.UTC(2025, 0, 1);
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'msnap-keys-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('KeyStore', () => {
  it('writes its file in the given directory with mode 0600', () => {
    const store = new KeyStore(dir);
    store.add('prod', 'msk_live_abcdefgh12345678', 'http://127.0.0.1:9999', T0);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(store.path, 'utf8')) as { active: string };
    expect(saved.active).toBe('prod');
  });

  it('makes the added key active, switches with use, and on removing the active one makes the newest other active', () => {
    const store = new KeyStore(dir);
    expect(store.active()).toBeUndefined();
    expect(store.add('a', 'key-a', undefined, T0)).toEqual({ replaced: false });
    store.add('b', 'key-b', 'http://127.0.0.1:1', T0);
    expect(store.active()).toEqual({ name: 'b', key: 'key-b', baseUrl: 'http://127.0.0.1:1', addedAt: T0 });
    store.use('a');
    expect(store.active()?.key).toBe('key-a');
    expect(store.add('a', 'key-a2', undefined, T0 + 1)).toEqual({ replaced: true });
    expect(store.remove('a')).toBe('b');
    expect(store.active()?.name).toBe('b');
    expect(new KeyStore(dir).list(T0).map((k) => k.name)).toEqual(['b']);
    expect(store.remove('b')).toBeUndefined();
    expect(store.active()).toBeUndefined();
  });

  it('keeps the base URL of a replaced key unless a new one is given', () => {
    const store = new KeyStore(dir);
    store.add('prod', 'k1', 'https://api.example.test', T0);
    expect(store.add('prod', 'k2', undefined, T0 + 1)).toEqual({ replaced: true, baseUrl: 'https://api.example.test' });
    expect(store.active()).toEqual({ name: 'prod', key: 'k2', baseUrl: 'https://api.example.test', addedAt: T0 + 1 });
    expect(store.add('prod', 'k3', 'http://127.0.0.1:1', T0 + 2).baseUrl).toBe('http://127.0.0.1:1');
  });

  it('names a corrupt or unusable config file in one usage line', () => {
    writeFileSync(join(dir, 'config.json'), '{"profiles": {');
    let err: unknown;
    try {
      new KeyStore(dir).active();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(`cannot use the config file ${join(dir, 'config.json')}: it is not valid JSON`);
    const other = mkdtempSync(join(tmpdir(), 'msnap-keys-dir-'));
    mkdirSync(join(other, 'config.json'));
    try {
      expect(() => new KeyStore(other).list(T0)).toThrow(/^cannot use the config file .*config\.json: it is a directory$/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('flags keys for rotation once they are 90 days old', () => {
    const store = new KeyStore(dir);
    store.add('old', 'k1', undefined, T0);
    store.add('new', 'k2', undefined, T0 + 1000);
    const at = T0 + KEY_ROTATION_MS;
    const byName = Object.fromEntries(store.list(at).map((k) => [k.name, k]));
    expect(byName.old?.rotationDue).toBe(true);
    expect(byName.new?.rotationDue).toBe(false);
    expect(byName.new?.active).toBe(true);
    expect(store.list(T0 + KEY_ROTATION_MS - 1).some((k) => k.rotationDue)).toBe(false);
  });

  it('refuses unknown names and bad names with usage errors', () => {
    const store = new KeyStore(dir);
    expect(() => store.use('nope')).toThrow(UsageError);
    expect(() => store.remove('nope')).toThrow(/no stored key named 'nope'/);
    expect(() => checkKeyName('a.b')).toThrow(UsageError);
    expect(() => checkKeyName('')).toThrow(UsageError);
    expect(checkKeyName('prod_1')).toBe('prod_1');
  });
});

// Parquet, flat orderbook columns and batch `at` through the built CLI against a real seeded
// `msnap serve`; each Parquet file is read back with an independent reader (hyparquet).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, CLEAN_ENV } from './support/msnap-process.js';
import { startSeededService, type SeededService } from './support/seeded-service.js';

let svc: SeededService;

beforeAll(async () => {
  svc = await startSeededService('outputs', ['--days', '1', '--seed', '4', '--full', '5m=3,15m=1,1hr=0,4hr=0,24hr=0']);
});
afterAll(async () => svc?.close());

function readParquet(file: string): ArrayBuffer {
  const buf = readFileSync(file);
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

function ndjson(text: string): Record<string, unknown>[] {
  return text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('Parquet output', () => {
  it('snapshots -o FILE.parquet holds the same rows and values as the NDJSON export, typed', async () => {
    const file = path.join(svc.dir, 'btc.parquet');
    const written = await svc.run(['snapshots', 'BTC', '5m', '--last', '3', '-o', file]);
    expect(written.exitCode).toBe(0);
    const reference = ndjson((await svc.run(['snapshots', 'BTC', '5m', '--last', '3', '--ndjson'])).stdout);
    expect(reference.length).toBeGreaterThan(4000);
    const [said, took] = written.stderr.split(' in ');
    expect(said).toBe(`msnap: ${reference.length.toLocaleString('en-US')} snapshots of 3 markets written to ${file}`);
    expect(took).toMatch(/^\d+\.\d s$/);

    const bytes = readParquet(file);
    const meta = parquetMetadata(bytes);
    const types = Object.fromEntries(meta.schema.slice(1).map((e) => [e.name, [e.type, e.logical_type?.type ?? null]]));
    expect(types).toEqual({
      id: ['INT64', null],
      market_id: ['BYTE_ARRAY', 'STRING'],
      time: ['INT64', 'TIMESTAMP'],
      price: ['DOUBLE', null],
      price_up: ['DOUBLE', null],
      price_down: ['DOUBLE', null],
    });
    expect(meta.row_groups[0]!.columns[0]!.meta_data!.codec).toBe('SNAPPY');
    const rows = await parquetReadObjects({ file: bytes });
    expect(rows.map((r) => ({ ...r, id: Number(r['id']), time: (r['time'] as Date).getTime() }))).toEqual(reference);
    expect(readdirSync(svc.dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('--orderbook in Parquet and --orderbook-columns in CSV give the flat levels of the nested orderbooks', async () => {
    // The newer of the two newest markets may have just opened (a 5-minute boundary during the
    // run): take the one with more books so far.
    const ids = ndjson((await svc.run(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '2', '--ndjson'])).stdout).map((m) => m['market_id'] as string);
    const read = async (id: string) => {
      const nested = ndjson((await svc.run(['snapshots', id, '--orderbook', '--ndjson'])).stdout);
      return { id, nested, withBook: nested.filter((s) => s['orderbook_up'] !== undefined && s['orderbook_up'] !== null) };
    };
    const both = [await read(ids[0]!), await read(ids[1]!)].sort((a, b) => b.withBook.length - a.withBook.length);
    const { id, nested, withBook } = both[0]!;
    expect(withBook.length).toBeGreaterThan(100);

    const file = path.join(svc.dir, 'book.parquet');
    expect((await svc.run(['snapshots', id, '--orderbook', '-o', file, '--compression', 'gzip'])).exitCode).toBe(0);
    const bytes = readParquet(file);
    expect(parquetMetadata(bytes).row_groups[0]!.columns[0]!.meta_data!.codec).toBe('GZIP');
    const rows = await parquetReadObjects({
      file: bytes,
      compressors: { GZIP: (input: Uint8Array, size: number) => new Uint8Array(gunzipSync(input)).subarray(0, size) },
    });
    const csv = (await svc.run(['snapshots', id, '--orderbook-columns', '--csv'])).stdout.trim().split('\n');
    const header = csv[0]!.split(',');
    expect(header.slice(0, 8)).toEqual(['id', 'market_id', 'time', 'price', 'price_up', 'price_down', 'up_bid_px_0', 'up_bid_sz_0']);
    expect(header.at(-1)).toBe('down_ask_sz_7');
    expect(header).toHaveLength(70);
    expect(rows).toHaveLength(nested.length);
    expect(csv).toHaveLength(nested.length + 1);

    for (const [i, s] of nested.entries()) {
      const flat = rows[i]!;
      const cells = csv[i + 1]!.split(',');
      for (const side of ['up', 'down'] as const) {
        const book = s[`orderbook_${side}`] as { bids: { price: number; size: number }[]; asks: { price: number; size: number }[] } | undefined;
        for (const [short, key] of [['bid', 'bids'], ['ask', 'asks']] as const) {
          for (let lvl = 0; lvl < 8; lvl++) {
            const level = book?.[key][lvl];
            const px = `${side}_${short}_px_${lvl}`;
            const sz = `${side}_${short}_sz_${lvl}`;
            expect(flat[px]).toBe(level ? level.price : null);
            expect(flat[sz]).toBe(level ? level.size : null);
            expect(cells[header.indexOf(px)]).toBe(level ? String(level.price) : '');
          }
        }
      }
    }
  });

  it('markets --format parquet to a pipe equals the NDJSON listing, nulls kept', async () => {
    const args = ['markets', '--coin', 'ETH', '--type', '5m', '--limit', '5'];
    const file = path.join(svc.dir, 'm.parquet');
    // The newest market (winner null) resolves at a 5-minute boundary: compare a listing that did
    // not change while the Parquet file was written (the same NDJSON before and after it).
    let reference: unknown[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = (await svc.run([...args, '--ndjson'])).stdout;
      expect((await svc.run([...args, '--format', 'parquet', '-o', file])).exitCode).toBe(0);
      reference = ndjson(before);
      if ((await svc.run([...args, '--ndjson'])).stdout === before) break;
    }
    const rows = await parquetReadObjects({ file: readParquet(file) });
    const asJson = rows.map((r) => ({
      ...r,
      start_time: (r['start_time'] as Date).getTime(),
      end_time: (r['end_time'] as Date).getTime(),
      snapshot_count: Number(r['snapshot_count']),
    }));
    expect(asJson).toEqual(reference);
    expect(rows.some((r) => r['winner'] === null)).toBe(true);
  });

  it('--compression without Parquet, and a failed Parquet export, leave nothing behind', async () => {
    const bad = await svc.run(['snapshots', 'BTC', '5m', '--csv', '--compression', 'gzip']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe('msnap: --compression applies to Parquet output (-o FILE.parquet or --format parquet)');
    const file = path.join(svc.dir, 'never.parquet');
    const down = await svc.run(['snapshots', 'BTC', '5m', '-o', file], { env: { MSNAP_BASE_URL: 'http://127.0.0.1:1' } });
    expect(down.exitCode).toBe(7);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(svc.dir).filter((f) => f.startsWith('never.parquet'))).toEqual([]);
  });
});

describe('batch at --times', () => {
  it('answers one row per line, in order, with an error row for each bad line', async () => {
    const markets = ndjson((await svc.run(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3', '--ndjson'])).stdout);
    const older = markets[2]!;
    const start = older['start_time'] as number;
    const lines = [String(start + 1000), 'yesterday', '', new Date(start + 60_000).toISOString(), String(start + 100_000_000)];
    const timesFile = path.join(svc.dir, 'times.txt');
    writeFileSync(timesFile, `${lines.join('\n')}\n`);
    const r = await svc.run(['at', older['market_id'] as string, '--times', timesFile, '--ndjson']);
    expect(r.exitCode).toBe(0);
    const rows = ndjson(r.stdout);
    expect(rows.map((x) => x['line'])).toEqual([1, 2, 4, 5]);
    const single = ndjson((await svc.run(['at', older['market_id'] as string, String(start + 1000), '--ndjson'])).stdout)[0]!;
    expect(rows[0]).toMatchObject({ line: 1, market_id: older['market_id'], ts: start + 1000, error: null });
    expect(rows[0]!['snapshot']).toEqual(single['snapshot']);
    expect(rows[1]).toMatchObject({ line: 2, error: expect.stringMatching(/^TIME: 'yesterday' is not a time/) });
    expect(rows[2]).toMatchObject({ line: 4, ts: start + 60_000, delta_ms: 0, error: null });
    expect(rows[3]).toMatchObject({ line: 5, error: expect.stringMatching(/.+/) });
    expect(r.stderr).toMatch(/^msnap: note: 2 of 4 lines failed/m);
  });

  it('reads market_id,time CSV from stdin and writes CSV with the line numbers', async () => {
    const markets = ndjson((await svc.run(['markets', '--coin', 'ETH', '--type', '5m', '--limit', '2', '--ndjson'])).stdout);
    const [a, b] = markets as [Record<string, unknown>, Record<string, unknown>];
    const input = `market_id,time\n${a['market_id']},${a['start_time'] as number + 250}\nnot-a-market,1\n${b['market_id']},${b['start_time'] as number + 500}\n`;
    const r = await svc.run(['at', '--times', '-', '--csv'], { input });
    expect(r.exitCode).toBe(0);
    const out = r.stdout.trim().split('\n');
    expect(out[0]).toBe('line,market_id,ts,delta_ms,id,time,price,price_up,price_down,error');
    expect(out[1]).toMatch(new RegExp(`^2,${a['market_id']},${a['start_time'] as number + 250},0,`));
    expect(out[2]).toMatch(/^3,not-a-market,,,,,,,,'not-a-market' is not a market id/);
    expect(out[3]).toMatch(new RegExp(`^4,${b['market_id']},${b['start_time'] as number + 500},0,`));
  });
});

// A real terminal: util-linux `script` runs the CLI on a pty whose width `stty` sets.
const HAS_SCRIPT = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function onTerminal(args: string[], env: Record<string, string | undefined>, cols: number): Promise<string> {
  const quoted = args.map((a) => `'${a}'`).join(' ');
  return execa('script', ['-qec', `stty cols ${cols}; node '${BIN}' ${quoted}`, '/dev/null'], {
    env: { ...CLEAN_ENV, ...svc.env, ...env },
    reject: false,
    timeout: 60_000,
  }).then((r) => String(r.stdout));
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

describe('msnap chart', () => {
  it('piped: fits --width, no escape codes, the time axis labelled', async () => {
    const r = await svc.run(['chart', 'BTC', '5m', '--width', '64', '--height', '6']);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^btc-updown-5m-\d+  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d-\d\d:\d\d:\d\d UTC/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(64);
    expect(lines.at(-1)).toMatch(/^\s+\d\d:\d\d:\d\d\s+\d\d:\d\d:\d\d\s+\d\d:\d\d:\d\d$/);
    expect(r.stdout).not.toMatch(ANSI);
    expect((await svc.run(['chart', 'BTC', '5m', '--width', '10'])).exitCode).toBe(2);
    expect((await svc.run(['chart', 'BTC', '5m', '--csv'])).exitCode).toBe(2);
  });

  it.skipIf(!HAS_SCRIPT)('on a terminal: fitted to its width, coloured, and plain with NO_COLOR', async () => {
    const colored = await onTerminal(['chart', 'ETH', '5m', '--height', '5'], { NO_COLOR: undefined }, 72);
    expect(colored).toMatch(ANSI);
    const visible = colored.replace(ANSI, '').split(/\r?\n/);
    expect(visible.length).toBeGreaterThan(10);
    for (const line of visible) expect(line.length).toBeLessThanOrEqual(72);
    expect(Math.max(...visible.map((l) => l.trimEnd().length))).toBeGreaterThan(60);
    const plain = await onTerminal(['chart', 'ETH', '5m', '--height', '5'], { NO_COLOR: '1' }, 72);
    expect(plain).not.toMatch(ANSI);
    expect(plain.split(/\r?\n/)).toEqual(visible);
  });
});

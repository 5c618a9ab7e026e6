import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputError } from '../../errors.js';
import { MockAgent } from 'undici';
import { normalizeSnapshot } from '../../client/normalize.js';
import { rowKeys } from '../../client/pages/snapshot-page-scan.js';
import { pageOf, type RowPage, type SnapshotPage } from '../../client/pages/row-page.js';
import { readSnapshotPage } from '../../client/pages/snapshot-page.js';
import { Transport } from '../../client/transport/transport.js';
import type { Snapshot } from '../../domain/market.js';
import { openAtomicFile } from './files/atomic-file.js';
import type { RowLayout } from '../../domain/row-layout.js';
import { createExporter, type TextSource } from './exporter.js';
import { snapshotSchema } from './schemas/record-schemas.js';
import type { RecordSchema } from './schemas/schema.js';
import { OutputSink } from './files/sink.js';
import { expectSameOutput } from '../../test-support/fast-path.js';

interface Row {
  n: number;
}
const schema: RecordSchema<Row> = { columns: [{ name: 'n', value: (r) => r.n }] };

/** A stdout stand-in: collects text; after `failAfter` writes it fails like a closed pipe. */
function pipe(failAfter = Infinity, code = 'EPIPE'): Writable & { text: string } {
  let writes = 0;
  const w = new Writable({
    highWaterMark: 8,
    write(chunk: Buffer, _enc, cb) {
      writes += 1;
      if (writes > failAfter) return cb(Object.assign(new Error(`write ${code}`), { code }));
      w.text += chunk.toString();
      setImmediate(cb);
    },
  }) as Writable & { text: string };
  w.text = '';
  return w;
}

async function* counted(n: number, seen: { pulled: number; returned: boolean }): AsyncGenerator<Row> {
  try {
    for (let i = 1; i <= n; i += 1) {
      seen.pulled = i;
      await new Promise((r) => setImmediate(r));
      yield { n: i };
    }
  } finally {
    seen.returned = true;
  }
}

describe('exporter', () => {
  it('writes CSV, NDJSON and JSON lists through a slow stream, honouring backpressure', async () => {
    for (const [format, expected] of [
      ['csv', 'n\n1\n2\n3\n'],
      ['ndjson', '{"n":1}\n{"n":2}\n{"n":3}\n'],
      ['json', '[\n{"n":1},\n{"n":2},\n{"n":3}\n]\n'],
    ] as const) {
      const out = pipe();
      const result = await createExporter({ format, sink: new OutputSink(out), color: false }).list(schema, [
        { n: 1 },
        { n: 2 },
        { n: 3 },
      ]);
      expect(result).toEqual({ rows: 3, readerGone: false });
      await new Promise((r) => out.end(r));
      expect(out.text).toBe(expected);
    }
  });

  it('writes pages (empty ones, and ones longer than a render slice) as the same bytes as rows', async () => {
    const all = Array.from({ length: 1234 }, (_, i) => ({ n: i % 3 === 0 ? i : -i / 7 }));
    async function* pages(): AsyncGenerator<RowPage<Row>> {
      yield pageOf(all.slice(0, 1));
      yield pageOf([]);
      yield pageOf(all.slice(1, 1100));
      yield pageOf(all.slice(1100));
    }
    for (const format of ['csv', 'ndjson', 'json', 'table'] as const) {
      const byRow = pipe();
      const rowResult = await createExporter({ format, sink: new OutputSink(byRow), color: false }).list(schema, all);
      const byPage = pipe();
      const pageResult = await createExporter({ format, sink: new OutputSink(byPage), color: false }).listPages(schema, pages());
      await Promise.all([new Promise((r) => byRow.end(r)), new Promise((r) => byPage.end(r))]);
      expect(pageResult).toEqual({ rows: all.length, readerGone: false });
      expect(rowResult).toEqual(pageResult);
      expect(byPage.text).toBe(byRow.text);
      expect(byPage.text.length).toBeGreaterThan(all.length);
    }
  });

  it('takes a source\'s own text where the schema has a layout for the format, and the records elsewhere', async () => {
    const layoutSchema: RecordSchema<Row> = { ...schema, textLayout: (format) => ({ format }) as unknown as RowLayout };
    const asked: string[] = [];
    // The source's rows as the records path would write them: CSV/NDJSON lines, JSON items joined by ",\n".
    const text: TextSource = (layout) => {
      const format = (layout as unknown as { format: string }).format;
      asked.push(format);
      const line = (n: number) => (format === 'csv' ? `${n}\n` : format === 'ndjson' ? `{"n":${n}}\n` : `{"n":${n}}`);
      const join = format === 'json' ? ',\n' : '';
      return (async function* () {
        yield { text: [1, 2].map(line).join(join), rows: 2 };
        yield { text: '', rows: 0 };
        yield { text: Buffer.from([3].map(line).join(join)), rows: 1 };
      })();
    };
    for (const format of ['csv', 'ndjson', 'json', 'table'] as const) {
      let recordsRead = false;
      async function* records(): AsyncGenerator<RowPage<Row>> {
        recordsRead = true;
        yield pageOf([{ n: 1 }, { n: 2 }, { n: 3 }]);
      }
      const viaText = pipe();
      const r = await createExporter({ format, sink: new OutputSink(viaText), color: false }).listPages(layoutSchema, records(), { text });
      const viaRows = pipe();
      await createExporter({ format, sink: new OutputSink(viaRows), color: false }).list(schema, [{ n: 1 }, { n: 2 }, { n: 3 }]);
      await Promise.all([new Promise((done) => viaText.end(done)), new Promise((done) => viaRows.end(done))]);
      expect(r).toEqual({ rows: 3, readerGone: false });
      expect(viaText.text, format).toBe(viaRows.text);
      expect(recordsRead, format).toBe(format === 'table');
    }
    expect(asked).toEqual(['csv', 'ndjson', 'json']);
    // An empty source: the header, or [].
    const empty = pipe();
    await createExporter({ format: 'json', sink: new OutputSink(empty), color: false }).listPages(layoutSchema, [], { text: () => (async function* () {})() });
    expect(empty.text).toBe('[]\n');
  });

  it('stops pulling rows once the reader is gone (EPIPE), without an error', async () => {
    const out = pipe(2);
    const seen = { pulled: 0, returned: false };
    const result = await createExporter({ format: 'ndjson', sink: new OutputSink(out), color: false }).list(
      schema,
      counted(1000, seen),
    );
    expect(result.readerGone).toBe(true);
    expect(seen.returned).toBe(true);
    expect(seen.pulled).toBeLessThan(10);
    expect(out.text).toBe('{"n":1}\n{"n":2}\n');
  });

  it('fails the run on other write errors, with one line naming the output (exit 10)', async () => {
    const out = pipe(1, 'ENOSPC');
    const exporter = createExporter({ format: 'ndjson', sink: new OutputSink(out, 'out.ndjson'), color: false });
    const err = await exporter.list(schema, counted(50, { pulled: 0, returned: false })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutputError);
    expect(err).toMatchObject({ message: 'cannot write out.ndjson: no space left on device', exitCode: 10 });
  });

  it('caps a table and says so', async () => {
    const out = pipe();
    const notes: string[] = [];
    const seen = { pulled: 0, returned: false };
    const result = await createExporter({
      format: 'table',
      sink: new OutputSink(out),
      color: false,
      tableRowCap: 2,
      onNote: (m) => notes.push(m),
    }).list(schema, counted(100, seen));
    expect(result.rows).toBe(2);
    expect(seen.returned).toBe(true);
    expect(out.text.split('\n').filter((l) => l.startsWith('│ '))).toEqual(['│ n │', '│ 1 │', '│ 2 │']);
    expect(notes).toEqual(['showing the first 2 rows; use --csv, --ndjson, --json or -o FILE for all of them']);
  });

  it('writes nothing at all when the first page fails (no header-only CSV, no lone [)', async () => {
    for (const format of ['csv', 'json', 'ndjson'] as const) {
      const out = pipe();
      async function* failing(): AsyncGenerator<RowPage<Row>> {
        await new Promise((r) => setImmediate(r));
        throw new Error('403 outside the window');
      }
      const exporter = createExporter({ format, sink: new OutputSink(out), color: false });
      await expect(exporter.listPages(schema, failing())).rejects.toThrow(/403/);
      expect(out.text, format).toBe('');
    }
  });

  it('still writes the header (or []) of an empty list', async () => {
    const csv = pipe();
    await createExporter({ format: 'csv', sink: new OutputSink(csv), color: false }).list(schema, []);
    expect(csv.text).toBe('n\n');
    const json = pipe();
    await createExporter({ format: 'json', sink: new OutputSink(json), color: false }).list(schema, []);
    expect(json.text).toBe('[]\n');
  });

  it('fits a table to the terminal width, dropping columns in the schema order, and says what it hid', async () => {
    interface Wide {
      id: string;
      detail: string;
      extra: string;
    }
    const wide: RecordSchema<Wide> = {
      columns: [
        { name: 'id', value: (r) => r.id },
        { name: 'detail', value: (r) => r.detail, dropOrder: 2 },
        { name: 'extra', value: (r) => r.extra, dropOrder: 1 },
      ],
    };
    const rows = [{ id: 'x'.repeat(20), detail: 'd'.repeat(30), extra: 'e'.repeat(30) }];
    const out = pipe();
    const notes: string[] = [];
    await createExporter({ format: 'table', sink: new OutputSink(out), color: false, tableWidth: 60, onNote: (m) => notes.push(m) }).list(wide, rows);
    const lines = out.text.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(60);
    expect(out.text).toContain('detail');
    expect(out.text).not.toContain('extra');
    // Wrapped to the 60 columns too, continuation lines under the text after `msnap: `.
    expect(notes).toEqual(['table fitted to 60 columns (hidden: extra); --wide\n       shows everything, --csv/--json every field']);

    const unfitted = pipe();
    await createExporter({ format: 'table', sink: new OutputSink(unfitted), color: false }).list(wide, rows);
    expect(unfitted.text).toContain('extra');
  });

  it('writes single results in each format', async () => {
    const texts: string[] = [];
    for (const format of ['csv', 'ndjson', 'json'] as const) {
      const out = pipe();
      await createExporter({ format, sink: new OutputSink(out), color: false }).record(schema, { n: 7 });
      await new Promise((r) => out.end(r));
      texts.push(out.text);
    }
    expect(texts).toEqual(['n\n7\n', '{"n":7}\n', '{\n  "n": 7\n}\n']);
  });

  it("writes a client page's ready CSV where it is the schema's own text, and renders the rows everywhere else", async () => {
    const id = 'btc-updown-5m-1763769600';
    let built = 0;
    const transport = new Transport({ baseUrl: 'http://127.0.0.1:8787', apiKey: 'k', dispatcher: new MockAgent(), pacing: false });
    /** A page as the client hands it on, read from a body of `n` rows from `from`. */
    const clientPage = (from: number, n: number): SnapshotPage => {
      const rows = Array.from({ length: n }, (_, k) => ({ id: from + k, market_id: id, time: 1_763_769_600_000 + (from + k) * 125, price: 97_000.5 + (from + k) / 8, price_up: 0.5, price_down: 0.5 }));
      const bytes = Buffer.from(JSON.stringify({ snapshots: rows, total: 2000 }));
      const answer = { bytes, ms: 1, rate: {}, status: 200, url: '', headers: {} };
      return readSnapshotPage(transport, answer, '/x', rowKeys(['price']), (raw) => {
        built++;
        return normalizeSnapshot(raw, id);
      }).page;
    };
    async function* pages(): AsyncGenerator<SnapshotPage> {
      yield clientPage(0, 700);
      yield clientPage(700, 1300);
    }
    const plain = pageOf([...clientPage(0, 700).rows(), ...clientPage(700, 1300).rows()]);
    // Its own text for `price` is not the ready text: such a schema never takes it.
    const rounded: RecordSchema<Snapshot> = {
      columns: snapshotSchema(false).columns.map((c) => (c.name === 'price' ? { ...c, value: (s: Snapshot) => Math.round(s.price) } : c)),
    };
    for (const [format, s, buildsRows] of [
      ['csv', snapshotSchema(false), false],
      ['csv', rounded, true],
      ['csv', snapshotSchema('flat'), true],
      ['ndjson', snapshotSchema(false), true],
      ['json', snapshotSchema(false), true],
    ] as const) {
      const expected = pipe();
      await createExporter({ format, sink: new OutputSink(expected), color: false }).listPages(s as RecordSchema<Snapshot>, [plain]);
      built = 0;
      const out = pipe();
      const result = await createExporter({ format, sink: new OutputSink(out), color: false }).listPages(s as RecordSchema<Snapshot>, pages());
      await Promise.all([new Promise((r) => expected.end(r)), new Promise((r) => out.end(r))]);
      expect(result).toEqual({ rows: 2000, readerGone: false });
      // The ready path builds no row at all; the others build every row.
      if (buildsRows) expect(out.text).toBe(expected.text);
      else expectSameOutput(`${format} from the ready CSV`, out.text, expected.text, built === 0);
      expect(built, `${format} ${s === rounded ? 'rounded' : ''}`).toBe(buildsRows ? 2000 : 0);
    }
  });
});

describe('atomic -o file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'msnap-out-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('renames the temp file onto the target on success', async () => {
    const target = join(dir, 'out.csv');
    const file = await openAtomicFile(target, 4242);
    expect(file.tempPath).toBe(join(dir, 'out.csv.tmp-4242'));
    file.stream.write('a\n');
    expect(existsSync(target)).toBe(false);
    await file.commit();
    expect(readFileSync(target, 'utf8')).toBe('a\n');
    expect(readdirSync(dir)).toEqual(['out.csv']);
  });

  it('on failure deletes the temp file and leaves an existing target untouched', async () => {
    const target = join(dir, 'out.csv');
    writeFileSync(target, 'old\n');
    const file = await openAtomicFile(target, 1);
    file.stream.write('partial');
    await file.abort();
    expect(readdirSync(dir)).toEqual(['out.csv']);
    expect(readFileSync(target, 'utf8')).toBe('old\n');
  });

  it('on an interrupt runs the registered cleanup that deletes the temp file', async () => {
    let cleanup: (() => void) | undefined;
    const file = await openAtomicFile(join(dir, 'x.ndjson'), 2, (fn) => {
      cleanup = fn;
      return () => {
        cleanup = undefined;
      };
    });
    file.stream.write('partial');
    expect(readdirSync(dir)).toEqual(['x.ndjson.tmp-2']);
    cleanup?.();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a target in a missing directory with a usage error', async () => {
    await expect(openAtomicFile(join(dir, 'no', 'such', 'f.csv'), 1)).rejects.toThrow(/cannot write/);
  });
});

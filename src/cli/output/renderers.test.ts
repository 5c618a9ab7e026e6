import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { csvHeader, csvLines, csvRow } from './csv.js';
import { resolveFormat } from './format.js';
import { jsonArrayEnd, jsonArrayItem, jsonArrayItems, jsonRecord, ndjsonLine, ndjsonLines } from './json.js';
import { cellText, isoCell, machineColumns, type CellValue, type RecordSchema } from './schemas/schema.js';
import { renderRecordTable, renderTable } from './terminal/table.js';
import { progressText } from './terminal/progress.js';
import { UsageError } from '../../errors.js';

interface Row {
  id: number;
  name: string;
  time: number;
  note: string | null;
  book?: { bids: number[][] };
}

const schema: RecordSchema<Row> = {
  columns: [
    { name: 'id', value: (r) => r.id },
    { name: 'name', value: (r) => r.name },
    { name: 'time', value: (r) => r.time, table: (r) => isoCell(r.time) },
    { name: 'note', value: (r) => r.note, table: false },
    { name: 'book', value: (r) => r.book },
  ],
};
const rows: Row[] = [
  { id: 1, name: 'plain', time: 1763769600125, note: null },
  { id: 2, name: 'has, comma "quoted"', time: 1763769600250, note: 'x', book: { bids: [[0.5, 10]] } },
];
const ANSI = /\u001b\[/;

describe('CSV', () => {
  it('writes the header and rows with RFC 4180 quoting, null as empty, objects as JSON', () => {
    const text = csvHeader(schema) + rows.map((r) => csvRow(schema, r)).join('');
    expect(text).toBe(
      'id,name,time,note,book\n' +
        '1,plain,1763769600125,,\n' +
        '2,"has, comma ""quoted""",1763769600250,x,"{""bids"":[[0.5,10]]}"\n',
    );
  });
});

// Awkward values for every cell: separators, quotes, line breaks, empties, JSON objects, numbers
// in exponent form, and repeats (a repeated string reuses its rendered text).
const TRICKY: CellValue[] = [
  'plain', 'has,comma', 'has "quotes"', '"', '""', 'line\nbreak', 'cr\rhere', 'crlf\r\n', ',', '', ' padded ',
  '\t=1+2', 'ünïcødé €', null, undefined, true, false, 0, -0, -1.5, 1e-7, 1e21, 97123.45, 1763769600125, Number.MAX_SAFE_INTEGER,
  { bids: [[0.5, 10]], asks: [] }, { note: 'a,"b"\nc' }, [1, 'x,y'], 'plain', 'has,comma', 'plain', null,
];
interface Wide {
  a: CellValue;
  b: CellValue;
  c: CellValue;
}
const wide: RecordSchema<Wide> = {
  columns: [
    { name: 'a', value: (r) => r.a },
    { name: 'b,"odd" name', value: (r) => r.b },
    { name: 'hidden', value: () => 'x', tableOnly: true },
    { name: 'c', value: (r) => r.c },
  ],
};
const wideRows: Wide[] = TRICKY.flatMap((a, i) => [
  { a, b: TRICKY[(i * 7) % TRICKY.length], c: TRICKY[(i * 11 + 3) % TRICKY.length] },
  { a: 'same', b: a, c: a },
]);

describe('CSV pages', () => {
  it('equal csv-stringify row by row for tricky values, header included', () => {
    const columns = machineColumns(wide);
    const former =
      stringify([columns.map((c) => c.name)]) +
      wideRows.map((r) => stringify([columns.map((c) => cellText(c.value(r)))])).join('');
    const render = csvLines(wide);
    // Pages of several sizes through one renderer (its per-column memory crosses pages).
    const paged = [wideRows.slice(0, 1), wideRows.slice(1, 2), wideRows.slice(2, 30), wideRows.slice(30)].map((p) => render(p)).join('');
    expect(csvHeader(wide) + paged).toBe(former);
    expect(csvHeader(wide) + wideRows.map((r) => csvRow(wide, r)).join('')).toBe(former);
    expect(render([])).toBe('');
  });

  it('render snapshots with orderbooks the way csv-stringify does', () => {
    type Snap = { id: number; market_id: string; price: number; orderbook_up?: object };
    const snapSchema: RecordSchema<Snap> = {
      columns: [
        { name: 'id', value: (s) => s.id },
        { name: 'market_id', value: (s) => s.market_id },
        { name: 'price', value: (s) => s.price },
        { name: 'orderbook_up', value: (s) => s.orderbook_up },
      ],
    };
    const snaps: Snap[] = [
      { id: 1, market_id: 'btc-updown-5m-1763769600', price: 97000.25, orderbook_up: { bids: [{ price: 0.51, size: 120.5 }], asks: [{ price: 0.52, size: 3 }] } },
      { id: 2, market_id: 'btc-updown-5m-1763769600', price: 0.1 + 0.2 },
    ];
    expect(csvLines(snapSchema)(snaps)).toBe(
      stringify(snaps.map((s) => snapSchema.columns.map((c) => cellText(c.value(s))))),
    );
    expect(csvLines(snapSchema)(snaps)).toBe(
      '1,btc-updown-5m-1763769600,97000.25,"{""bids"":[{""price"":0.51,""size"":120.5}],""asks"":[{""price"":0.52,""size"":3}]}"\n' +
        '2,btc-updown-5m-1763769600,0.30000000000000004,\n',
    );
  });
});

describe('NDJSON and JSON', () => {
  it('pages equal the row-by-row lines for tricky values', () => {
    const lines = ndjsonLines(wide);
    expect(lines(wideRows.slice(0, 5)) + lines(wideRows.slice(5))).toBe(wideRows.map((r) => ndjsonLine(wide, r)).join(''));
    const items = jsonArrayItems(wide);
    const paged = items(wideRows.slice(0, 1), 0) + items(wideRows.slice(1, 9), 1) + items(wideRows.slice(9), 9);
    expect(paged).toBe(wideRows.map((r, i) => jsonArrayItem(wide, r, i)).join(''));
    expect(JSON.parse(paged + jsonArrayEnd(wideRows.length))).toHaveLength(wideRows.length);
  });


  it('writes one compact object per line, leaving absent fields out', () => {
    expect(rows.map((r) => ndjsonLine(schema, r)).join('')).toBe(
      '{"id":1,"name":"plain","time":1763769600125,"note":null}\n' +
        '{"id":2,"name":"has, comma \\"quoted\\"","time":1763769600250,"note":"x","book":{"bids":[[0.5,10]]}}\n',
    );
  });

  it('streams a JSON array that parses back to the rows, and [] when empty', () => {
    const text = rows.map((r, i) => jsonArrayItem(schema, r, i)).join('') + jsonArrayEnd(rows.length);
    const parsed = JSON.parse(text) as Row[];
    expect(parsed).toHaveLength(2);
    expect(parsed[1]?.book).toEqual({ bids: [[0.5, 10]] });
    expect(jsonArrayEnd(0)).toBe('[]\n');
    expect(JSON.parse(jsonArrayEnd(0))).toEqual([]);
  });

  it('writes a single result as an indented object', () => {
    expect(jsonRecord(schema, rows[0]!)).toBe(
      '{\n  "id": 1,\n  "name": "plain",\n  "time": 1763769600125,\n  "note": null\n}\n',
    );
  });
});

describe('tables', () => {
  it('without colour: exact text, ISO times, hidden columns left out, no ANSI codes', () => {
    const text = renderTable(schema, rows, { color: false });
    expect(text).not.toMatch(ANSI);
    expect(text).toBe(
      [
        '┌────┬─────────────────────┬──────────────────────────┬─────────────────────┐',
        '│ id │ name                │ time                     │ book                │',
        '├────┼─────────────────────┼──────────────────────────┼─────────────────────┤',
        '│ 1  │ plain               │ 2025-11-22T00:00:00.125Z │                     │',
        '├────┼─────────────────────┼──────────────────────────┼─────────────────────┤',
        '│ 2  │ has, comma "quoted" │ 2025-11-22T00:00:00.250Z │ {"bids":[[0.5,10]]} │',
        '└────┴─────────────────────┴──────────────────────────┴─────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('with colour: the header carries ANSI codes', () => {
    expect(renderTable(schema, rows, { color: true })).toMatch(ANSI);
  });

  it('renders a single result as label/value rows', () => {
    const text = renderRecordTable(schema, rows[0]!, { color: false });
    expect(text).not.toMatch(ANSI);
    expect(text).toContain('│ name │ plain');
    expect(text).not.toContain('note');
  });
});

describe('resolveFormat', () => {
  it('uses a table on a terminal and NDJSON in a pipe when nothing is asked', () => {
    expect(resolveFormat({}, true)).toBe('table');
    expect(resolveFormat({}, false)).toBe('ndjson');
  });

  it('honours the flag, the shorthands and the -o extension, in that order', () => {
    expect(resolveFormat({ format: 'CSV' }, true)).toBe('csv');
    expect(resolveFormat({ json: true }, false)).toBe('json');
    expect(resolveFormat({ output: 'a.csv' }, true)).toBe('csv');
    expect(resolveFormat({ output: 'a.jsonl' }, true)).toBe('ndjson');
    expect(resolveFormat({ output: 'a' }, true)).toBe('ndjson');
    expect(resolveFormat({ output: 'a.csv', ndjson: true }, true)).toBe('ndjson');
  });

  it('refuses an -o extension it does not write instead of filling it with another format', () => {
    expect(() => resolveFormat({ output: 'a.data' }, true)).toThrow(/cannot tell the output format from '\.data'/);
    expect(() => resolveFormat({ output: 'a.xlsx' }, false)).toThrow(UsageError);
    expect(() => resolveFormat({ output: 'a.txt' }, true)).toThrow(UsageError);
    expect(resolveFormat({ output: 'a.parquet', csv: true }, true)).toBe('csv');
  });

  it('writes Parquet to a .parquet file or a pipe, never to a terminal', () => {
    expect(resolveFormat({ output: 'a.parquet' }, false)).toBe('parquet');
    expect(resolveFormat({ output: 'A.PARQUET' }, false)).toBe('parquet');
    expect(resolveFormat({ format: 'parquet' }, false)).toBe('parquet');
    expect(() => resolveFormat({ format: 'parquet' }, true)).toThrow(/^Parquet is binary: write it to a file/);
  });

  it('refuses unknown and conflicting formats', () => {
    expect(() => resolveFormat({ format: 'xml' }, true)).toThrow(UsageError);
    expect(() => resolveFormat({ csv: true, json: true }, true)).toThrow(/conflicting/);
    expect(resolveFormat({ csv: true, format: 'csv' }, true)).toBe('csv');
  });
});

describe('progressText', () => {
  it('shows pages, rows of total, rate and ETA', () => {
    expect(progressText('snapshots', { pages: 2, rows: 2000, total: 6000 }, 1000)).toBe(
      'snapshots: page 2 · 2,000/6,000 rows · 2,000 rows/s · ETA 2s',
    );
    expect(progressText('markets', { pages: 1, rows: 10 }, 0)).toBe('markets: page 1 · 10 rows · 0 rows/s');
  });

  it('never promises less than the key\'s limits allow (the minute cap after a fast start)', () => {
    // 2,000 rows/s so far would say 2 s; the pacer says the rest cannot be sent within 40 s.
    expect(progressText('snapshots', { pages: 2, rows: 2000, total: 6000, paceMs: 40_000 }, 1000)).toBe(
      'snapshots: page 2 · 2,000/6,000 rows · 2,000 rows/s · ETA 40s',
    );
    expect(progressText('snapshots', { pages: 2, rows: 2000, total: 6000, paceMs: 500 }, 1000)).toContain('ETA 2s');
  });
});

import { describe, expect, it } from 'vitest';
import { csvHeader, csvRow } from './csv.js';
import { resolveFormat } from './format.js';
import { jsonArrayEnd, jsonArrayItem, jsonRecord, ndjsonLine } from './json.js';
import { isoCell, type RecordSchema } from './schema.js';
import { renderRecordTable, renderTable } from './table.js';
import { progressText } from './progress.js';
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

describe('NDJSON and JSON', () => {
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
    expect(resolveFormat({ output: 'a.data' }, true)).toBe('ndjson');
    expect(resolveFormat({ output: 'a.csv', ndjson: true }, true)).toBe('ndjson');
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
});

import { describe, expect, it } from 'vitest';
import { toScaled } from '../core/price-scale.js';
import { parseCsvRecord } from './csv-line.js';
import { canonicalField, parseImportRecord, type ImportedSnapshot } from './import-row.js';
import { csvColumns, PlainSnapshotParser } from './plain-row.js';

const ID = 'btc-updown-5m-1763769600';
const START = 1_763_769_600_000;
const END = START + 300_000;

function parser(): PlainSnapshotParser {
  const p = new PlainSnapshotParser();
  p.setMarket(ID, START, END);
  return p;
}

/** What the general path stores for a record, or undefined when it rejects it. */
function general(rec: Record<string, unknown>): number[] | undefined {
  try {
    const row = parseImportRecord(rec) as ImportedSnapshot;
    if (row.kind !== 'snapshot' || row.marketId !== ID || row.time < START || row.time >= END) return undefined;
    return [row.time - START, toScaled(row.price), toScaled(row.priceUp), toScaled(row.priceDown)];
  } catch {
    return undefined;
  }
}

const fast = (p: PlainSnapshotParser) => [p.t, p.price, p.priceUp, p.priceDown];

// Number texts the fast path must read exactly like Number(), or leave to the general path.
const NUMBERS = ['0', '1', '0.5', '0.55', '0.5012', '0.50123', '1.0', '1.0001', '00.5', '.5', '5.', '1e2', '-0', '-1', '+1',
  '97123.45', '97123.4512', '3500.1', '0.0001', '99999999999.9999', '123456789012', '0x10', ' 1', ''];
const TIMES = [String(START), String(START + 125), String(END), String(START - 1), `0${START}`, `${START}.0`, `${START}e0`, '2025-11-22T00:00:00Z'];

describe('PlainSnapshotParser', () => {
  it('reads NDJSON exactly as JSON.parse plus the general parser would, or declines', () => {
    const p = parser();
    let accepted = 0;
    let declined = 0;
    for (const time of TIMES) {
      for (const price of NUMBERS) {
        for (const prob of ['0.5', '1', '0', '1.5', '0.12345', '1e-1']) {
          const line = `{"id":123,"market_id":"${ID}","time":${time},"price":${price},"price_up":${prob},"price_down":0.49}`;
          let rec: Record<string, unknown> | undefined;
          try {
            rec = JSON.parse(line) as Record<string, unknown>;
          } catch {
            rec = undefined;
          }
          const expected = rec === undefined ? undefined : general(rec);
          if (p.ndjson(line)) {
            accepted++;
            expect(fast(p), line).toEqual(expected);
          } else {
            declined++;
          }
        }
      }
    }
    expect(accepted).toBeGreaterThan(50);
    expect(declined).toBeGreaterThan(500);
  });

  it('takes msnap\'s own NDJSON lines and declines every other shape', () => {
    const p = parser();
    const line = `{"id":176376960012,"market_id":"${ID}","time":${START + 125},"price":97123.45,"price_up":0.53,"price_down":0.47}`;
    expect(p.ndjson(line)).toBe(true);
    expect(fast(p)).toEqual([125, 971234500, 5300, 4700]);
    for (const other of [
      line.replace('{"id":176376960012,', '{'),
      line.replace('"id":176376960012', '"id":"176376960012"'),
      line.replace('"id":176376960012', '"id":0176376960012'),
      line.replace(':97123.45', ': 97123.45'),
      line.replace('97123.45', '"97123.45"'),
      line.replace('"price":', '"btc_price":'),
      line.replace(ID, 'eth-updown-5m-1763769600'),
      line.replace('}', ',"orderbook_up":{"bids":[],"asks":[]}}'),
      line.replace('}', '} '),
      line.slice(0, -1),
      `${line}}`,
    ]) {
      expect(p.ndjson(other), other).toBe(false);
    }
    expect(new PlainSnapshotParser().ndjson(line)).toBe(false);
  });

  it('reads CSV fields exactly as the general parser would, or declines', () => {
    const header = ['id', 'market_id', 'time', 'price', 'price_up', 'price_down', 'orderbook_up', 'orderbook_down'];
    const cols = csvColumns(header)!;
    const p = parser();
    let accepted = 0;
    for (const time of TIMES) {
      for (const price of NUMBERS) {
        for (const ob of ['', '{}']) {
          const line = `1,${ID},${time},${price},0.5,${price === '0.5' ? '0.50' : '0.5'},${ob},`;
          const fields = parseCsvRecord(line)!;
          const rec: Record<string, unknown> = {};
          header.forEach((h, i) => (rec[h] = fields[i]));
          const expected = general(rec);
          if (p.csv(line, cols)) {
            accepted++;
            expect(fast(p), line).toEqual(expected);
          }
        }
      }
    }
    expect(accepted).toBeGreaterThan(20);
    const line = `1,${ID},${START},97000.5,0.5,0.51,,`;
    expect(p.csv(line, cols)).toBe(true);
    for (const other of [`1,${ID},${START},97000.5,0.5,0.51,`, `1,${ID},${START},97000.5,0.5,0.51,,,`, `1,"${ID}",${START},97000.5,0.5,0.51,,`]) {
      expect(p.csv(other, cols), other).toBe(false);
    }
  });

  it('needs the snapshot columns once each in the header', () => {
    expect(csvColumns(['market_id', 'time', 'price', 'price_up', 'price_down'])).toEqual({
      count: 5, id: -1, marketId: 0, time: 1, price: 2, priceUp: 3, priceDown: 4, orderbookUp: -1, orderbookDown: -1,
    });
    expect(csvColumns(['market_id', 'time', 'price_up', 'price_down'])).toBeUndefined();
    expect(csvColumns(['market_id', 'time', 'price', 'price_up', 'price_down', 'price'])).toBeUndefined();
    expect(csvColumns(['btc_price', 'market_id', 'time', 'price_up', 'price_down'].map(canonicalField))).toEqual({
      count: 5, id: -1, marketId: 1, time: 2, price: 0, priceUp: 3, priceDown: 4, orderbookUp: -1, orderbookDown: -1,
    });
  });
});

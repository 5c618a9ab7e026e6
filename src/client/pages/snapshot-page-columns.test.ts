// The column scan: the numbers it reads are JSON.parse's, it takes exactly the numbers the CSV
// scan copies, and any page not in the compact form is left (untouched) to the CSV scan.
import { describe, expect, it } from 'vitest';
import { copyNumber } from './json-bytes.js';
import { numberAt, scanSnapshotColumns } from './snapshot-page-columns.js';
import { rowKeys } from './snapshot-page-scan.js';

const V1 = rowKeys(['price']);
const V4_ETH = rowKeys(['eth_price', 'price']);
const ID = 'eth-updown-15m-1763769600';

let seed = 5;
const random = (): number => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;

function row(i: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 91_234_567 + i, market_id: ID, time: 1_763_769_600_000 + i * 125, price: 3_123.51 + i / 4, price_up: 0.531, price_down: 0.469, ...over };
}

/** The columns of a scanned body as rows of the contract's fields, to compare with JSON.parse. */
function rowsOf(body: Buffer, keys = V1): Record<string, unknown>[] | undefined {
  const before = Buffer.from(body);
  const scanned = scanSnapshotColumns(body, keys);
  // A refused body is left as it came; a taken one holds the columns where its rows were.
  if (!scanned) {
    expect(body.equals(before)).toBe(true);
    return undefined;
  }
  const c0 = scanned.columns;
  if (c0.id.length > 0) expect([c0.id.buffer === body.buffer, c0.id.byteOffset >= body.byteOffset, c0.market.byteOffset + c0.market.byteLength <= body.byteOffset + body.length]).toEqual([true, true, true]);
  const c = scanned.columns;
  expect([c.id.length, c.time.length, c.price.length, c.up.length, c.down.length, c.market.length]).toEqual(Array(6).fill(scanned.count));
  return Array.from({ length: scanned.count }, (_, r) => ({ id: c.id[r], market_id: c.marketIds[c.market[r]!], time: c.time[r], price: c.price[r], price_up: c.up[r], price_down: c.down[r] }));
}

describe('numberAt', () => {
  it("takes exactly the numbers the CSV scan copies, and reads each as JSON.parse does", () => {
    const texts: string[] = ['0', '-1', '5', '0.5', '-0.5', '-0', '00', '01', '1.', '.5', '1.50', '1e5', '1E5', '-', '', '0.000001', '0.0000001', '123456789012345', '1234567890123456', '9007199254740993', '0.1', '0.30000000000000004', '1.7976931348623157e308'];
    for (let i = 0; i < 20_000; i++) {
      const magnitude = 10 ** Math.floor(random() * 36 - 16);
      const value = (random() - 0.4) * magnitude;
      const digits = 1 + Math.floor(random() * 17);
      texts.push(String(value), value.toPrecision(Math.min(digits, 100)), value.toFixed(Math.floor(random() * 8)), String(Math.round(value)));
    }
    let taken = 0;
    for (const text of texts) {
      const b = Buffer.from(`${text},`);
      const copied = copyNumber(b, 0, Buffer.alloc(b.length + 8), 0);
      const value = numberAt(b, 0);
      // numberAt's end is only visible through a scan; a refusal shows as a page it does not take.
      const body = Buffer.from(`{"snapshots":[{"id":1,"market_id":"m","time":2,"price":${text},"price_up":0.5,"price_down":0.5}]}`);
      const scanned = scanSnapshotColumns(body, V1);
      expect(scanned !== undefined, text).toBe(copied >= 0);
      if (copied < 0) continue;
      taken++;
      expect(Object.is(value, JSON.parse(text)), text).toBe(true);
      expect(Object.is(scanned!.columns.price[0], JSON.parse(text)), text).toBe(true);
    }
    // Both kinds were tried.
    expect(taken).toBeGreaterThan(20_000);
    expect(texts.length - taken).toBeGreaterThan(10_000);
  });
});

describe('scanSnapshotColumns', () => {
  it('reads a page of compact rows into the values JSON.parse gives, and keeps the envelope', () => {
    const list = Array.from({ length: 500 }, (_, i) => row(i, { price_up: Math.round(random() * 1000) / 1000 }));
    const text = JSON.stringify({ market: { market_id: ID }, snapshots: list, total: 900, limit: 500, offset: 0 });
    expect(rowsOf(Buffer.from(text))).toEqual(list);
    expect(scanSnapshotColumns(Buffer.from(text), V1)!.envelope).toEqual({ market: { market_id: ID }, snapshots: [], total: 900, limit: 500, offset: 0 });
    // A body at any offset in its buffer (a pooled Buffer): the columns still start 8-byte aligned.
    for (let shift = 1; shift < 8; shift++) {
      const pooled = Buffer.alloc(text.length + 16);
      pooled.write(text, shift);
      expect(rowsOf(pooled.subarray(shift, shift + text.length))).toEqual(list);
    }
  });

  it('keeps each market id once per page, rows pointing at theirs', () => {
    const ids = ['a-1', 'bb-22', 'a-1', 'ccc-333', 'bb-22', 'bb-23', 'a-1'];
    const list = ids.map((id, i) => row(i, { market_id: id }));
    const text = JSON.stringify({ snapshots: list });
    expect(rowsOf(Buffer.from(text))).toEqual(list);
    expect(scanSnapshotColumns(Buffer.from(text), V1)!.columns.marketIds).toEqual(['a-1', 'bb-22', 'ccc-333', 'bb-23']);
  });

  it("reads v4's coin-named price, and rows past its first guess at the page's size", () => {
    // In the order msnap serve writes v4 rows: the coin's price where v1 has \`price\`.
    const v4 = Array.from({ length: 40 }, (_, i) => {
      const r = row(i);
      return { id: r['id'], market_id: r['market_id'], time: r['time'], eth_price: r['price'], price_up: r['price_up'], price_down: r['price_down'] };
    });
    expect(rowsOf(Buffer.from(JSON.stringify({ snapshots: v4 })), V4_ETH)).toEqual(v4.map(({ eth_price, ...r }) => ({ ...r, price: eth_price })));
    // The shortest rows there are (empty market ids, one-digit values) hold more rows than guessed.
    const tiny = Array.from({ length: 3000 }, (_, i) => ({ id: i % 10, market_id: '', time: 1, price: 2, price_up: 0, price_down: 1 }));
    expect(rowsOf(Buffer.from(JSON.stringify({ snapshots: tiny })))).toEqual(tiny);
  });

  it('takes an empty page, and leaves every page not in the compact form to the CSV scan', () => {
    expect(rowsOf(Buffer.from('{"snapshots":[],"total":0}'))).toEqual([]);
    const refused = [
      JSON.stringify({ snapshots: [row(0), { ...row(1), extra: 1 }] }), // an extra field
      JSON.stringify({ snapshots: [row(0), { price: 1, ...row(1) }] }).replace('"price":3123.75,', ''), // another key order
      JSON.stringify({ snapshots: [row(0)] }, null, 1), // spaced
      JSON.stringify({ snapshots: [row(0, { market_id: 'a,b' })] }), // CSV would quote it
      JSON.stringify({ snapshots: [row(0, { market_id: 'a\\"b' })] }), // an escape
      JSON.stringify({ snapshots: [row(0, { price: 97_000 + 1 / 3 })] }), // 17 digits
      JSON.stringify({ snapshots: [row(0, { time: null })] }),
      JSON.stringify({ snapshots: [row(0)] }).slice(0, -3), // cut short
      JSON.stringify({ rows: [row(0)] }),
    ];
    for (const text of refused) expect(rowsOf(Buffer.from(text)), text).toBeUndefined();
  });
});

// The one-pass page scan: the CSV it writes is what rendering the parsed rows gives, byte for
// byte, and every page it cannot prove that for is left untouched for the general path.
import { describe, expect, it } from 'vitest';
import { rowKeys, scanSnapshotPage } from './snapshot-page-scan.js';

const V1 = rowKeys(['price']);
const V4_BTC = rowKeys(['btc_price', 'price']);
const ID = 'btc-updown-5m-1763769600';

/** A page body as msnap serve writes it (JSON.stringify), with `rows` as given. */
function page(rows: unknown[], extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(JSON.stringify({ market: { market_id: ID, coin: 'BTC' }, snapshots: rows, total: 99, limit: 10, offset: 0, ...extra }));
}

function row(i: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 81_234_567 + i, market_id: ID, time: 1_763_769_600_000 + i * 125, price: 97_123.51 + i, price_up: 0.53, price_down: 0.47, ...over };
}

/** The CSV the exporter writes for parsed rows: each value as JavaScript prints it. */
function rendered(rows: Record<string, unknown>[]): string {
  return rows.map((r) => `${r['id']},${r['market_id']},${r['time']},${r['price'] ?? r['btc_price']},${r['price_up']},${r['price_down']}\n`).join('');
}

/** The scan of `body`, checked to leave a refused body exactly as it was. */
function scan(body: Buffer, keys = V1): ReturnType<typeof scanSnapshotPage> {
  const before = Buffer.from(body);
  const result = scanSnapshotPage(body, keys);
  if (!result) expect(body.equals(before)).toBe(true);
  return result;
}

/** Whether a page whose one row has `price` spelled as `token` is scanned (the row otherwise plain). */
function takesNumber(token: string): string | undefined {
  const body = Buffer.from(`{"snapshots":[{"id":1,"market_id":"${ID}","time":2,"price":${token},"price_up":0.5,"price_down":0.5}]}`);
  const result = scan(body);
  return result ? Buffer.from(result.csv).toString().split(',')[3] : undefined;
}

describe('scanSnapshotPage', () => {
  it('turns a page of plain rows into the CSV the parsed rows render to, and keeps the envelope', () => {
    const rows = Array.from({ length: 50 }, (_, i) => row(i));
    const body = page(rows);
    const result = scan(body);
    expect(result).toBeDefined();
    expect(result!.count).toBe(50);
    expect(Buffer.from(result!.csv).toString()).toBe(rendered(rows));
    expect(result!.envelope).toEqual({ market: { market_id: ID, coin: 'BTC' }, snapshots: [], total: 99, limit: 10, offset: 0 });
  });

  it('copies a number only where its text is what JavaScript prints for it', () => {
    // Random doubles of every magnitude, written as JSON.stringify does and in longer or padded
    // forms another service might send (17 digits, trailing zeros): the same values, other text.
    let seed = 7;
    const random = (): number => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    let taken = 0;
    let refused = 0;
    for (let i = 0; i < 4000; i++) {
      const magnitude = 10 ** Math.floor(random() * 40 - 20);
      const value = (random() - 0.3) * magnitude;
      const v = i % 2 === 0 ? Number(value.toPrecision(1 + Math.floor(random() * 16))) : value;
      for (const token of [JSON.stringify(v), v.toPrecision(16), v.toPrecision(17), v.toFixed(Math.min(20, 2 + (i % 9)))]) {
        if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(token)) continue;
        const copied = takesNumber(token);
        if (copied === undefined) {
          refused++;
          continue;
        }
        expect(copied, token).toBe(`${JSON.parse(token) as number}`);
        taken++;
      }
    }
    // Both happen often: prices of up to 15 digits are the common case.
    expect(taken).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(1000);
  });

  it('takes canonical forms and refuses the rest', () => {
    for (const token of ['0', '-1', '0.5', '-0.5', '0.000001', '0.0000012', '97123.51', '123456789012345', '1795305600125', '100000000000000']) {
      expect(takesNumber(token), token).toBe(token);
    }
    // Each of these parses to a number whose printed text differs (or is not JSON at all).
    for (const token of ['1.0', '1.50', '1e5', '1E5', '-0', '01', '0.0000001', '1234567890123456', '12345678901234567', '0.1000000000000000055', '1.', '.5', '+1', '--1', '1000000000000000000000', 'NaN', '"1"', 'null', 'true']) {
      expect(takesNumber(token), token).toBeUndefined();
    }
  });

  it('takes any key order and spacing, writing the contract order', () => {
    const body = Buffer.from(
      `{ "total" : 2, "snapshots" : [ { "price_down" : 0.4, "price_up" : 0.6, "price" : 3.5, "time" : 20, "market_id" : "${ID}", "id" : 1 } ,\n` +
        `{"id":2,"market_id":"${ID}","time":21,"price":3.25,"price_up":0.5,"price_down":0.5} ] }`,
    );
    const result = scan(body);
    expect(Buffer.from(result!.csv).toString()).toBe(`1,${ID},20,3.5,0.6,0.4\n2,${ID},21,3.25,0.5,0.5\n`);
    expect(result!.envelope).toEqual({ total: 2, snapshots: [] });
  });

  it("takes v4's coin price, and refuses a row holding two prices", () => {
    const v4 = page([row(0, { price: undefined, btc_price: 97_000.5 })]);
    expect(Buffer.from(scan(v4, V4_BTC)!.csv).toString()).toBe(`81234567,${ID},1763769600000,97000.5,0.53,0.47\n`);
    expect(scan(page([row(0, { btc_price: 97_000.5 })]), V4_BTC)).toBeUndefined();
    // v1 knows no coin price.
    expect(scan(page([row(0, { price: undefined, btc_price: 97_000.5 })]), V1)).toBeUndefined();
  });

  it('leaves every other page to the general path, untouched', () => {
    const refused: [string, Buffer][] = [
      ['an orderbook', page([row(0), row(1, { orderbook_up: { bids: [], asks: [] } })])],
      ['an extra field', page([row(0, { note: 'x' })])],
      ['a missing field', page([row(0, { price_down: undefined })])],
      ['a string number', page([row(0, { price: '97123.51' })])],
      ['a null', page([row(0, { price: null })])],
      ['a comma in the id (CSV quotes it)', page([row(0, { market_id: 'a,b' })])],
      ['a quote in the id', page([row(0, { market_id: 'a"b' })])],
      ['a non-ASCII id', page([row(0, { market_id: 'é' })])],
      ['a numeric id', page([row(0, { market_id: 5 })])],
      ['a repeated field', Buffer.from(`{"snapshots":[{"id":1,"id":2,"market_id":"${ID}","time":2,"price":3,"price_up":0.5,"price_down":0.5}]}`)],
      ['a trailing comma', Buffer.from(`{"snapshots":[{"id":1,"market_id":"${ID}","time":2,"price":3,"price_up":0.5,"price_down":0.5},]}`)],
      ['rows without a comma', Buffer.from(`{"snapshots":[{"id":1,"market_id":"${ID}","time":2,"price":3,"price_up":0.5,"price_down":0.5}{"id":1,"market_id":"${ID}","time":2,"price":3,"price_up":0.5,"price_down":0.5}]}`)],
      ['two snapshots arrays', Buffer.from(`{"snapshots":[],"snapshots":[]}`)],
      ['an escaped key', Buffer.from(`{"snap\\u0073hots":[],"snapshots":[]}`)],
      ['snapshots not an array', Buffer.from('{"snapshots":null}')],
      ['no snapshots', Buffer.from('{"total":0}')],
      ['a bad envelope', Buffer.from('{"snapshots":[],"total":01}')],
      ['text after the object', Buffer.from('{"snapshots":[]} x')],
      ['an array body', Buffer.from('[]')],
      ['a cut body', page([row(0)]).subarray(0, 60)],
    ];
    for (const [what, body] of refused) expect(scan(body), what).toBeUndefined();
  });

  it('reads an empty page', () => {
    const result = scan(page([]));
    expect(result!.count).toBe(0);
    expect(result!.csv.length).toBe(0);
  });
});

// A market's stored snapshots as each API version serves them, read back into v1's shape, so a
// test can check that v1, v2 and v4 show the same snapshots of a store that is still growing.

/** A snapshot in v1's shape (orderbooks included when the store has them). */
export type V1Snapshot = Record<string, unknown> & { id: number; market_id: string; time: number };

/** The versions a test reads, each page mapped back to v1's shape. */
export const DIALECTS = ['v1', 'v2', 'v4'] as const;

/** Use to read up to 1,000 snapshots of `marketId` (oldest first) through `dialect`, as v1 records. */
export async function dialectSnapshots(url: string, key: string, dialect: (typeof DIALECTS)[number], marketId: string, coin: string): Promise<V1Snapshot[]> {
  const c = coin.toLowerCase();
  const path = dialect === 'v1' ? `/v1/markets/${marketId}/snapshots?` : `/${dialect}/markets/${marketId}/snapshots?coin=${c}&`;
  const res = await fetch(`${url}${path}include_orderbook=true&limit=1000`, { headers: { 'X-API-Key': key } });
  if (res.status !== 200) throw new Error(`${dialect} snapshots of ${marketId}: HTTP ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { snapshots: Record<string, unknown>[] };
  return body.snapshots.map((s) => {
    if (dialect === 'v1') return s as V1Snapshot;
    const { [`${c}_price`]: price, time, ...rest } = s;
    return { ...rest, price, time: typeof time === 'string' ? Date.parse(time) : time } as V1Snapshot;
  });
}

/** Use to read the market ids a version lists for `coin` (newest first). */
export async function dialectMarketIds(url: string, key: string, dialect: (typeof DIALECTS)[number], coin: string): Promise<string[]> {
  const path = dialect === 'v1' ? `/v1/markets?coin=${coin}&limit=100` : `/${dialect}/markets?coin=${coin.toLowerCase()}&limit=100`;
  const res = await fetch(`${url}${path}`, { headers: { 'X-API-Key': key } });
  if (res.status !== 200) throw new Error(`${dialect} markets: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { markets: { market_id: string }[] }).markets.map((m) => m.market_id);
}

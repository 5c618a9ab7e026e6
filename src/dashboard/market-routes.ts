// Markets in the browser: the list, one market's page, and its chart data. What an account may
// open follows its plan's data window exactly as the API does (the same checks, the same 403).
import { parseMarketId, type Market, type Snapshot } from '../domain/market.js';
import { PLANS } from '../domain/plans.js';
import { assertInWindow, windowOf } from '../server/data-window.js';
import { HttpException, quote } from '../server/http-error.js';
import { QueryReader } from '../server/query.js';
import { tooManyRequests } from '../server/rate-limit.js';
import type { PageRoute, SignedInCall } from './context.js';
import { marketPage } from './pages/market-page.js';
import { MARKETS_PAGE_SIZE, marketsPage } from './pages/markets-page.js';
import { queryOf } from './request.js';
import { htmlAnswer, jsonAnswer, type PageResponse } from './respond.js';
import { marketSeries } from './series.js';
import { AT_TIMESTAMP_TOLERANCE_MS } from '../server/handlers/at-timestamp.js';

/** The filter form sends "any" as an empty value; the API's reader refuses empty parameters. */
function filterQuery(call: SignedInCall): QueryReader {
  const q = new URLSearchParams();
  for (const [k, v] of queryOf(call.req.url)) if (v !== '') q.append(k, v);
  return new QueryReader(q);
}

/** Before any market data: an ended trial reads nothing (its keys get 401 from the API), and the account's page limit applies. */
async function assertMayRead(call: SignedInCall): Promise<void> {
  const ends = call.visitor.account.trialEndsAt;
  if (ends !== null && ends <= call.now) throw new HttpException(403, 'The trial of this account has ended; ask the operator to set a plan.');
  const refused = await call.limits.takeData(call.visitor.account.id, call.now);
  if (refused) throw tooManyRequests(refused, 'market pages of this account');
}

function windowNote(call: SignedInCall): string | undefined {
  const plan = call.visitor.account.plan;
  const w = PLANS[plan].dataWindow;
  if (!w) return undefined;
  const caps = Object.entries(w).map(([t, n]) => `${n.toLocaleString('en-US')} ${t}`).join(', ');
  return `Your ${plan} plan includes the most recent ${caps} markets of each coin; older ones are not listed.`;
}

async function listMarkets(call: SignedInCall): Promise<PageResponse> {
  await assertMayRead(call);
  const q = filterQuery(call);
  const filters = { coin: q.coin('coin'), marketType: q.marketType('market_type'), status: q.status() };
  const pageRaw = q.raw('page') ?? '1';
  const page = /^\d{1,6}$/.test(pageRaw) && Number(pageRaw) >= 1 ? Number(pageRaw) : 1;
  const { markets, total } = await call.store.listMarkets({
    ...filters,
    limit: MARKETS_PAGE_SIZE,
    offset: (page - 1) * MARKETS_PAGE_SIZE,
    window: windowOf(call.visitor.account.plan),
    now: call.now,
  });
  return htmlAnswer(200, marketsPage({ visitor: call.visitor, filters, page, markets, total, windowNote: windowNote(call) }));
}

/** The market named by the path, readable by this account: 404 when unknown, 403 outside the window. */
async function readable(call: SignedInCall): Promise<Market> {
  await assertMayRead(call);
  const id = call.params.id!;
  const market = parseMarketId(id) ? await call.store.getMarket(id, call.now) : undefined;
  if (!market) throw new HttpException(404, `No market with id ${quote(id)}.`);
  await assertInWindow(call.store, market, call.visitor.account.plan);
  return market;
}

/** The snapshot nearest `at` with its orderbook when one was recorded; undefined beyond 2 s. */
async function snapshotAt(call: SignedInCall, market: Market, at: number): Promise<Snapshot | undefined> {
  const near = await call.store.nearestSnapshot(market.market_id, at);
  if (!near || Math.abs(near.time - at) > AT_TIMESTAMP_TOLERANCE_MS) return undefined;
  const page = await call.store.snapshotPageJson(market.market_id, { limit: 1, offset: 0, from: near.time, before: near.time + 1, includeOrderbook: true });
  return (JSON.parse(page.json) as Snapshot[])[0] ?? near;
}

async function showMarket(call: SignedInCall): Promise<PageResponse> {
  const market = await readable(call);
  const asked = new QueryReader(queryOf(call.req.url)).time('at');
  // By default the newest snapshot: where depth is most likely recorded.
  const at = asked ?? (await call.store.nearestSnapshot(market.market_id, market.end_time))?.time ?? market.start_time;
  return htmlAnswer(200, marketPage({ visitor: call.visitor, market, at, snapshot: await snapshotAt(call, market, at) }));
}

/** The markets list, a market's page, and its chart data. */
export const marketRoutes: readonly PageRoute[] = [
  { method: 'GET', pattern: '/markets', signedIn: true, handle: (call) => listMarkets(call as SignedInCall) },
  { method: 'GET', pattern: '/markets/:id', signedIn: true, handle: (call) => showMarket(call as SignedInCall) },
  {
    method: 'GET',
    pattern: '/markets/:id/series',
    signedIn: true,
    handle: async (call) => jsonAnswer(200, await marketSeries(call.store, await readable(call as SignedInCall))),
  },
];

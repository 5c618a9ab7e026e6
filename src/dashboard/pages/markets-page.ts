// The markets list: coin, type and status filters, newest first, a page at a time; a builder
// sees only the markets its data window holds, as through the API.
import { COINS, MARKET_STATUSES, MARKET_TYPES, type Coin, type Market, type MarketStatus, type MarketType } from '../../domain/market.js';
import { html, type SafeHtml } from '../html.js';
import type { Visitor } from '../session.js';
import { layout, notice, utc } from './layout.js';

/** Markets per page of the list. */
export const MARKETS_PAGE_SIZE = 25;

/** The list's filters as the query holds them. */
export interface MarketFilters {
  coin?: Coin;
  marketType?: MarketType;
  status?: MarketStatus;
}

/** Everything the markets page shows. */
export interface MarketsModel {
  visitor: Visitor;
  filters: MarketFilters;
  /** 1-based. */
  page: number;
  markets: readonly Market[];
  total: number;
  windowNote?: string;
  error?: string;
}

function select(name: string, label: string, values: readonly string[], chosen: string | undefined): SafeHtml {
  return html`<label>${label} <select name="${name}"><option value="">any</option>${values.map(
    (v) => html`<option value="${v}"${chosen === v ? html` selected` : ''}>${v}</option>`,
  )}</select></label>`;
}

/** The query string of a page of the list with these filters. */
function marketsQuery(f: MarketFilters, page: number): string {
  const q = new URLSearchParams();
  if (f.coin) q.set('coin', f.coin);
  if (f.marketType) q.set('market_type', f.marketType);
  if (f.status) q.set('status', f.status);
  if (page > 1) q.set('page', String(page));
  const s = q.toString();
  return s ? `?${s}` : '';
}

function price(v: number | null): string {
  return v === null ? '' : v.toLocaleString('en-US', { maximumFractionDigits: 4 });
}

function row(m: Market): SafeHtml {
  return html`<tr>
    <td><a href="/markets/${encodeURIComponent(m.market_id)}">${m.market_id}</a></td>
    <td>${m.coin}</td><td>${m.market_type}</td><td>${m.status}</td>
    <td>${utc(m.start_time)}</td><td class="num">${price(m.price_start)}</td><td class="num">${price(m.price_end)}</td>
    <td>${m.winner ?? ''}</td><td class="num">${m.snapshot_count.toLocaleString('en-US')}</td>
  </tr>`;
}

/** The markets page. */
export function marketsPage(m: MarketsModel) {
  const pages = Math.max(1, Math.ceil(m.total / MARKETS_PAGE_SIZE));
  const first = m.total === 0 ? 0 : (m.page - 1) * MARKETS_PAGE_SIZE + 1;
  const last = (m.page - 1) * MARKETS_PAGE_SIZE + m.markets.length;
  return layout({
    title: 'Markets',
    visitor: m.visitor,
    main: html`${notice('error', m.error)}
<form method="get" action="/markets" class="filters">
  ${select('coin', 'Coin', COINS, m.filters.coin)}
  ${select('market_type', 'Type', MARKET_TYPES, m.filters.marketType)}
  ${select('status', 'Status', MARKET_STATUSES, m.filters.status)}
  <button type="submit">Filter</button>
</form>
${notice('info', m.windowNote)}
<p class="count">${first}-${last} of ${m.total.toLocaleString('en-US')} markets</p>
<table class="markets">
  <thead><tr><th>Market</th><th>Coin</th><th>Type</th><th>Status</th><th>Start</th><th>Price start</th><th>Price end</th><th>Winner</th><th>Snapshots</th></tr></thead>
  <tbody>${m.markets.length ? m.markets.map(row) : html`<tr><td colspan="9">No markets match.</td></tr>`}</tbody>
</table>
<nav class="pages">
  ${m.page > 1 ? html`<a rel="prev" href="/markets${marketsQuery(m.filters, m.page - 1)}">Newer</a>` : ''}
  <span>page ${m.page} of ${pages}</span>
  ${m.page < pages ? html`<a rel="next" href="/markets${marketsQuery(m.filters, m.page + 1)}">Older</a>` : ''}
</nav>`,
  });
}

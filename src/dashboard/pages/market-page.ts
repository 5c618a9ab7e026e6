// One market: its summary, the charts of price and of the up/down probabilities (drawn by the
// page's script from /markets/ID/series), and the orderbook of the snapshot nearest a chosen time.
import type { Market, Snapshot } from '../../domain/market.js';
import { html, type SafeHtml } from '../html.js';
import type { Visitor } from '../session.js';
import { layout, notice, utc } from './layout.js';

/** Scripts and styles of the charts: uPlot, served from the installed package. */
const CHART_ASSETS = { script: '/assets/uPlot.iife.min.js', style: '/assets/uPlot.min.css' } as const;

/** Everything the market page shows. */
export interface MarketModel {
  visitor: Visitor;
  market: Market;
  /** The time asked for (epoch ms), and the snapshot nearest it (with depth when recorded). */
  at: number;
  snapshot?: Snapshot;
  error?: string;
}

type Level = readonly [number, number] | { price: number; size: number };

function level(l: Level): [number, number] {
  return Array.isArray(l) ? [l[0], l[1]] : [(l as { price: number }).price, (l as { size: number }).size];
}

function bookSide(title: string, side: { bids: readonly Level[]; asks: readonly Level[] } | undefined): SafeHtml {
  if (!side) return html``;
  const bids = side.bids.map(level);
  const asks = side.asks.map(level);
  const rows = Array.from({ length: Math.max(bids.length, asks.length) }, (_, i) => {
    const b = bids[i];
    const a = asks[i];
    return html`<tr><td class="num">${b ? b[1].toFixed(2) : ''}</td><td class="num bid">${b ? b[0].toFixed(2) : ''}</td><td class="num ask">${a ? a[0].toFixed(2) : ''}</td><td class="num">${a ? a[1].toFixed(2) : ''}</td></tr>`;
  });
  return html`<table class="book"><caption>${title}</caption><thead><tr><th>Bid size</th><th>Bid</th><th>Ask</th><th>Ask size</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function orderbook(m: MarketModel): SafeHtml {
  const s = m.snapshot;
  if (!s) return html`<p>No snapshot lies within 2 s of ${utc(m.at)}.</p>`;
  const head = html`<p class="at-snapshot">Snapshot at ${new Date(s.time).toISOString()}: price ${s.price.toLocaleString('en-US')}, up ${s.price_up}, down ${s.price_down}</p>`;
  if (!s.orderbook_up && !s.orderbook_down) return html`${head}<p>No orderbook depth was recorded at this time.</p>`;
  return html`${head}<div class="books">${bookSide('Up', s.orderbook_up)}${bookSide('Down', s.orderbook_down)}</div>`;
}

function isoInput(ms: number): string {
  return new Date(ms).toISOString();
}

/** The market page. */
export function marketPage(m: MarketModel) {
  const mk = m.market;
  const id = encodeURIComponent(mk.market_id);
  return layout({
    title: mk.market_id,
    visitor: m.visitor,
    styles: [CHART_ASSETS.style],
    classicScripts: [CHART_ASSETS.script],
    main: html`${notice('error', m.error)}
<dl class="summary">
  <dt>Coin</dt><dd>${mk.coin}</dd><dt>Type</dt><dd>${mk.market_type}</dd><dt>Status</dt><dd>${mk.status}</dd>
  <dt>Start</dt><dd>${utc(mk.start_time)}</dd><dt>End</dt><dd>${utc(mk.end_time)}</dd>
  <dt>Price start / end</dt><dd>${mk.price_start ?? '-'} / ${mk.price_end ?? '-'}</dd><dt>Winner</dt><dd>${mk.winner ?? '-'}</dd>
  <dt>Snapshots</dt><dd>${mk.snapshot_count.toLocaleString('en-US')}</dd>
</dl>
<section class="card">
  <h2>Price and probabilities</h2>
  <div id="charts" data-series="/markets/${id}/series" data-state="loading">
    <div class="chart" id="chart-price"></div>
    <div class="chart" id="chart-probability"></div>
    <p class="chart-status">Loading the chart…</p>
  </div>
</section>
<section class="card">
  <h2>Orderbook</h2>
  <form method="get" action="/markets/${id}" class="inline">
    <label>At <input name="at" value="${isoInput(m.at)}" size="26"></label>
    <button type="submit">Show</button>
    <span class="hint">ISO 8601 (UTC) or epoch ms, between ${utc(mk.start_time)} and ${utc(mk.end_time)}</span>
  </form>
  ${orderbook(m)}
</section>`,
  });
}

// `--html FILE`: one self-contained page (no script, no network): the summary, the equity curve
// and a per-market PnL histogram as inline SVG, and the trades. The same result gives the same bytes.
import type { BacktestResult, Trade } from './model/result.js';

/** Trades the page lists; a run with more says so and points at --trades. */
const HTML_TRADES = 2000;

const W = 720;
const H = 240;
const PAD = 64;

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function fmt(v: unknown): string {
  if (v === null || v === undefined) return '–';
  return esc(String(v));
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** x, y scaled into the plot area; a flat range gets a unit of room. */
function scale(min: number, max: number, from: number, to: number): (v: number) => number {
  const span = max - min || 1;
  return (v) => Number((from + ((v - min) / span) * (to - from)).toFixed(2));
}

function axisLabels(min: number, max: number, y: (v: number) => number): string {
  return [min, (min + max) / 2, max]
    .map((v) => `<text x="${PAD - 6}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(2)}</text><line x1="${PAD}" x2="${W - 8}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`)
    .join('');
}

/** A day and minute (UTC) for an axis label. */
function minute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** Date labels under the equity points: the start and up to three traded markets' ends, evenly spread. */
function timeLabels(times: readonly number[], x: (i: number) => number): string {
  const last = times.length - 1;
  const at = [...new Set([0, Math.round(last / 3), Math.round((2 * last) / 3), last])];
  return at
    .map((i) => {
      const anchor = i === 0 ? 'start' : i === last ? 'end' : 'middle';
      return `<line x1="${x(i)}" x2="${x(i)}" y1="${H - 24}" y2="${H - 19}" class="tick"/><text x="${x(i)}" y="${H - 6}" text-anchor="${anchor}">${minute(times[i]!)}</text>`;
    })
    .join('');
}

function equitySvg(r: BacktestResult): string {
  const values = [r.summary.start_cash, ...r.equity.map((e) => e.equity)];
  if (values.length < 2) return '<p>No market traded.</p>';
  const min = Math.min(...values);
  const max = Math.max(...values);
  const x = scale(0, values.length - 1, PAD, W - 8);
  const y = scale(min, max, H - 24, 8);
  const points = values.map((v, i) => `${x(i)},${y(v)}`).join(' ');
  // The start is the data's first time; each later point sits at its market's end.
  const times = [r.data.from ?? r.equity[0]!.time, ...r.equity.map((e) => e.time)];
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="equity curve">${axisLabels(min, max, y)}<polyline points="${points}" class="line"/>${timeLabels(times, x)}</svg><p class="note">One point per traded market, at its end (UTC); ${values.length - 1} markets.</p>`;
}

function histogramSvg(r: BacktestResult): string {
  const pnls = r.markets.map((m) => m.pnl);
  if (pnls.length === 0) return '<p>No market traded.</p>';
  const lo = Math.min(...pnls);
  const hi = Math.max(...pnls);
  const bins = Math.max(1, Math.min(30, Math.ceil(Math.sqrt(pnls.length))));
  const width = (hi - lo) / bins || 1;
  const counts = new Array<number>(bins).fill(0);
  for (const p of pnls) counts[Math.min(bins - 1, Math.floor((p - lo) / width))]! += 1;
  const top = Math.max(...counts);
  const barW = (W - PAD - 8) / bins;
  const y = scale(0, top, H - 24, 8);
  const bars = counts
    .map((c, k) => {
      const from = lo + k * width;
      const cls = from + width <= 0 ? 'neg' : from >= 0 ? 'pos' : 'mid';
      return `<rect x="${(PAD + k * barW).toFixed(2)}" y="${y(c)}" width="${Math.max(1, barW - 1).toFixed(2)}" height="${(H - 24 - y(c)).toFixed(2)}" class="${cls}"><title>${from.toFixed(4)} to ${(from + width).toFixed(4)}: ${c}</title></rect>`;
    })
    .join('');
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="per-market pnl histogram">${bars}<text x="${PAD}" y="${H - 4}">${lo.toFixed(2)}</text><text x="${W - 8}" y="${H - 4}" text-anchor="end">${hi.toFixed(2)}</text><text x="${PAD - 6}" y="16" text-anchor="end">${top}</text></svg>`;
}

function tradeRow(t: Trade): string {
  const cells: unknown[] = [t.market_id, t.side, t.action, iso(t.decided_at), iso(t.filled_at), t.shares_requested, t.shares, t.vwap, t.fee, t.cash_after, t.depth, t.levels, t.fee_shares];
  if (t.kind !== undefined) cells.push(t.kind, t.rebate);
  return `<tr>${cells.map((c) => `<td>${fmt(c)}</td>`).join('')}</tr>`;
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:2em auto;max-width:760px;color:#222}
table{border-collapse:collapse;font-size:12px}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}svg{width:100%;height:auto;font-size:11px}
.line{fill:none;stroke:#1a7f37;stroke-width:2}.grid{stroke:#eee}.tick{stroke:#888}.pos{fill:#1a7f37}.neg{fill:#cf222e}.mid{fill:#888}
.note{color:#666;font-size:12px;margin:0}.scroll{overflow:auto;max-height:40em;border:1px solid #ddd}
.scroll th{position:sticky;top:0;background:#fff}td,th{white-space:nowrap}`;

/** Use for --html: the whole page as one string. */
export function renderHtmlReport(r: BacktestResult): string {
  const summary = Object.entries({ ...r.params, ...r.data, ...r.summary })
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${k === 'from' || k === 'to' ? (typeof v === 'number' ? iso(v) : '–') : fmt(v)}</td></tr>`)
    .join('');
  const shown = r.trades.slice(0, HTML_TRADES);
  const more = r.trades.length > shown.length ? `<p>First ${shown.length} of ${r.trades.length} trades; all of them: <code>--trades FILE</code>.</p>` : '';
  const head = ['market_id', 'side', 'action', 'decided_at', 'filled_at', 'shares_requested', 'shares', 'vwap', 'fee', 'cash_after', 'depth', 'levels', 'fee_shares'];
  // A run with maker orders shows each trade's kind and rebate (the summary shows its rebates).
  if (r.params.maker_fill !== undefined) head.push('kind', 'rebate');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>msnap backtest: ${esc(r.strategy)}</title><style>${STYLE}</style></head>
<body><h1>Backtest: ${esc(r.strategy)}</h1>
<h2>Summary</h2><table id="summary">${summary}</table>
<h2>Equity</h2>${equitySvg(r)}
<h2>PnL per market</h2>${histogramSvg(r)}
<h2>Trades</h2>${more}<div class="scroll"><table id="trades"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${shown.map(tradeRow).join('')}</tbody></table></div>
</body></html>
`;
}

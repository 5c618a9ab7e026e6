// The dashboard's look, served as /assets/dashboard.css (a file, since the CSP allows no inline
// style). Plain, readable, works without the script.

/** The style sheet of every page. */
export const DASHBOARD_CSS = `
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #f6f7f9; --card: #fff; --accent: #2557d6; --bad: #b3261e; --good: #1e7b34; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 24px; padding: 10px 24px; background: #1d2330; color: #fff; }
header a { color: #fff; text-decoration: none; }
header .brand { font-weight: 700; font-size: 18px; }
header nav { display: flex; align-items: center; gap: 16px; flex: 1; }
header nav .who { margin-left: auto; color: #c9cfdb; }
header button { background: transparent; color: #fff; border: 1px solid #6b7487; }
main { max-width: 1240px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 16px; word-break: break-all; }
h2 { font-size: 17px; margin: 0 0 10px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin: 0 0 16px; }
form.card { max-width: 380px; display: grid; gap: 12px; }
form.card label { display: grid; gap: 4px; font-weight: 600; }
form.inline { display: inline; }
form.create-key { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-top: 12px; }
input, select, button { font: inherit; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); padding: 2px 8px; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { font-size: 13px; color: var(--muted); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.compact { width: auto; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; }
dl.summary { grid-template-columns: repeat(4, max-content 1fr); margin-bottom: 16px; }
.notice { padding: 10px 14px; border-radius: 6px; margin: 0 0 16px; }
.notice.error { background: #fdecea; color: var(--bad); border: 1px solid #f3c1bc; }
.notice.info { background: #eaf1fd; color: #17407f; border: 1px solid #c4d6f5; }
.new-key { background: #eaf7ee; border: 1px solid #b9e2c4; border-radius: 8px; padding: 12px 16px; margin-bottom: 16px; }
.new-key code { font-size: 15px; background: #fff; padding: 4px 8px; border-radius: 4px; border: 1px solid #b9e2c4; user-select: all; }
.copied { color: var(--good); font-weight: 600; }
.bad { color: var(--bad); }
.hint { color: var(--muted); font-size: 13px; }
tr.status-revoked td, tr.status-expired td, tr.status-trial-ended td { color: var(--muted); }
.filters { display: flex; gap: 12px; align-items: end; margin-bottom: 12px; }
.pages { display: flex; gap: 16px; margin-top: 12px; }
.books { display: flex; gap: 24px; flex-wrap: wrap; }
.books table { width: auto; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
td.bid { color: var(--good); }
td.ask { color: var(--bad); }
.chart { min-height: 10px; margin-bottom: 12px; }
#charts[data-state="ready"] .chart-status { display: none; }
#charts, .scroll-x { overflow-x: auto; }
code { overflow-wrap: anywhere; }
/* A phone (390 px): the top bar wraps, and a wide table scrolls inside itself, never the page. */
@media (max-width: 640px) {
  header { flex-wrap: wrap; gap: 6px 16px; padding: 8px 12px; }
  header nav { flex-wrap: wrap; gap: 6px 12px; }
  main { padding: 12px 12px 32px; }
  .card { padding: 12px; }
  table, table.compact, .books table { display: block; max-width: 100%; overflow-x: auto; }
  dl.summary { grid-template-columns: max-content 1fr; }
  dd { min-width: 0; overflow-wrap: anywhere; }
  .filters { flex-wrap: wrap; }
}
`;

/** The tab icon (an up/down mark), so browsers do not ask the API for /favicon.ico. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d2330"/><path d="M4 9l4-5 4 5z" fill="#3fb950"/><path d="M4 10h8l-4 4z" fill="#f85149"/></svg>`;

#!/usr/bin/env node
// The backtest baseline: what a user writes today. `msnap snapshots --db --ndjson` piped into a
// plain loop that JSON.parses each row and applies the same rule as the bench's strategy (entry
// under a price after a delay, exit over a price, one entry per market, fills at the quote,
// settlement by the market's winner). No books, no latency, no fees: it only has to keep up.
//
//   node bench/baseline-backtest.js --db FILE --coin BTC --type 24hr --last N --entry 0.3 --after 60000 --exit 0.6
// Prints one JSON line: { rows, markets, pnl, wallMs }.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { MSNAP_BIN } from './child-process.js';

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) throw new Error(`missing ${name}`);
  return process.argv[i + 1];
}

const db = arg('--db');
const sel = [arg('--coin'), arg('--type'), '--last', arg('--last')];
const entry = Number(arg('--entry'));
const after = Number(arg('--after'));
const exit = Number(arg('--exit'));

/** Lines of a child's stdout, as the child writes them. */
async function* lines(args) {
  const child = spawn(process.execPath, [MSNAP_BIN, ...args, '--db', db, '--ndjson', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
  yield* createInterface({ input: child.stdout, crlfDelay: Infinity });
}

const started = performance.now();
const markets = new Map();
for await (const line of lines(['markets', '--coin', sel[0], '--type', sel[1], '--all'])) {
  const m = JSON.parse(line);
  markets.set(m.market_id, m);
}
let rows = 0;
let cash = 0;
let current;
let held = 0;
let entered = false;
const settle = () => {
  if (current && held > 0) cash += current.winner === 'Up' ? held : 0;
  held = 0;
  entered = false;
};
for await (const line of lines(['snapshots', ...sel])) {
  const s = JSON.parse(line);
  rows += 1;
  if (s.market_id !== current?.market_id) {
    settle();
    current = markets.get(s.market_id);
  }
  if (held === 0 && !entered && s.price_up < entry && s.time - current.start_time >= after) {
    held = 10;
    entered = true;
    cash -= 10 * s.price_up;
  } else if (held > 0 && s.price_up > exit) {
    cash += held * s.price_up;
    held = 0;
  }
}
settle();
process.stdout.write(`${JSON.stringify({ rows, markets: markets.size, pnl: cash, wallMs: performance.now() - started })}\n`);

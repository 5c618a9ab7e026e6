#!/usr/bin/env node
// The export baseline: the least a script can do to turn one market's snapshots into CSV. Pages
// the snapshots endpoint at the maximum limit with plain fetch, JSON.parse and a string join per
// row; no pacing, retries or normalisation. msnap's export is measured against this.
//
//   node bench/baseline-export.js --base-url URL --api-key KEY --market ID -o FILE
// Prints one JSON line: { rows, pages, wallMs }.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';

const MAX_LIMIT = 10_000;
const COLUMNS = ['id', 'market_id', 'time', 'price', 'price_up', 'price_down'];

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) throw new Error(`missing ${name}`);
  return process.argv[i + 1];
}

const baseUrl = arg('--base-url').replace(/\/$/, '');
const apiKey = arg('--api-key');
const marketId = arg('--market');
const outFile = arg('-o');

const started = performance.now();
const out = createWriteStream(outFile);
const write = async (text) => {
  if (!out.write(text)) await once(out, 'drain');
};
await write(COLUMNS.join(',') + '\n');
let rows = 0;
let pages = 0;
for (let offset = 0; ; ) {
  const url = `${baseUrl}/api/v1/markets/${encodeURIComponent(marketId)}/snapshots?limit=${MAX_LIMIT}&offset=${offset}`;
  const res = await fetch(url, { headers: { 'X-API-Key': apiKey } });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  const page = JSON.parse(await res.text());
  pages++;
  const snapshots = page.snapshots;
  if (snapshots.length === 0) break;
  let chunk = '';
  for (const s of snapshots) chunk += [s.id, s.market_id, s.time, s.price, s.price_up, s.price_down].join(',') + '\n';
  await write(chunk);
  rows += snapshots.length;
  offset += snapshots.length;
  if (offset >= page.total) break;
}
out.end();
await once(out, 'finish');
process.stdout.write(JSON.stringify({ rows, pages, wallMs: performance.now() - started }) + '\n');

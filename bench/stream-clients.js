#!/usr/bin/env node
// A child process of figure 17: N WebSocket clients on GET /v1/stream, each subscribed to every
// market. Once all are subscribed it says "ready" on stdout, then counts frames for the window it
// is told and prints one JSON line: frames, closes, and a 1 ms histogram of frame lag (wall ms
// from the frame's data time to its receipt, on the data clock the parent describes).
// Usage: node stream-clients.js URL KEY COUNT WINDOW_MS CLOCK_JSON   (CLOCK_JSON: {"now","at","speed"})
import WebSocket from 'ws';

const [url, key, countText, windowText, clockJson] = process.argv.slice(2);
const count = Number(countText);
const windowMs = Number(windowText);
// The data clock at receipt: `now` was read at wall time `at` and runs `speed` times as fast.
const clock = JSON.parse(clockJson);
const dataNow = (wall) => clock.now + (wall - clock.at) * clock.speed;
const MAX_LAG = 60_000;
const lags = new Uint32Array(MAX_LAG + 1);
let frames = 0;
let counting = false;
const closes = {};
let subscribed = 0;

for (let i = 0; i < count; i++) {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/stream?token=${encodeURIComponent(key)}`);
  ws.on('open', () => ws.send('{"type":"subscribe"}'));
  ws.on('error', (err) => process.stderr.write(`client ${i}: ${err.message}\n`));
  ws.on('close', (code) => (closes[code] = (closes[code] ?? 0) + 1));
  ws.on('message', (data) => {
    const text = data.toString();
    if (text.startsWith('{"type":"subscribed"')) {
      if (++subscribed === count) process.stdout.write('ready\n');
      return;
    }
    if (text.startsWith('{"type":"ping"')) return void ws.send('{"type":"pong"}');
    if (!counting || !text.startsWith('{"type":"snapshot"')) return;
    frames++;
    // The snapshot's time without parsing the whole frame.
    const at = text.indexOf('"time":');
    const time = Number(text.slice(at + 7, text.indexOf(',', at)));
    const lag = (dataNow(Date.now()) - time) / clock.speed;
    lags[Math.max(0, Math.min(MAX_LAG, Math.round(lag)))]++;
  });
}

process.stdin.once('data', () => {
  counting = true;
  setTimeout(() => {
    counting = false;
    process.stdout.write(JSON.stringify({ frames, closes, lags: Array.from(lags) }) + '\n');
    process.exit(0);
  }, windowMs);
});

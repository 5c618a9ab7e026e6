#!/usr/bin/env node
// Command outputs shown in README.md and docs/*.md that cannot go stale. A fenced block right after
// a line `<!-- checked-output: PLAN -->` holds `$ msnap ...` lines, each followed by what the command
// prints (stderr and stdout as they interleave). They run with the built CLI against a freshly
// seeded `msnap serve` and a key of PLAN (builder, pro), or for PLAN `replay` against a pro key
// of a `serve --replay` started for the block (a store with books, history from REPLAY_FROM on at
// REPLAY_SPEED), where `$ curl ...` lines run too (in bash, with MSNAP_BASE_URL and MSNAP_API_KEY). `npm run docs:outputs` rewrites the blocks from the real
// output; test/doc-outputs.test.ts fails when a block's shape (its text with every number as N:
// the seeded data moves with the clock) differs from the real one.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'msnap.js');
const MARK = /^<!-- checked-output: (\w+) -->$/;
/** 15 days of markets (more than a builder's 4,100 5m window), snapshots for the newest 5m ones only. */
const SEED_ARGS = ['--days', '15', '--full', '5m=4,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '0'];
/** The replay's store: the newest four 5m markets of each coin in full, with books. */
const REPLAY_SEED_ARGS = ['--days', '1', '--full', '5m=4,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-days', '1'];
/** Within the newest four 5m markets whatever the minute (each is full), so every step finds an active market with snapshots and books. */
const REPLAY_FROM = '15m';
const REPLAY_SPEED = '60';

/** The markdown files that may hold checked blocks. */
export function docFiles() {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
  return ['README.md', ...docs.sort()];
}

/** Use to find the checked blocks of a markdown text: plan, the block's content lines [from, to), and its steps. */
export function findBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const mark = MARK.exec(lines[i]);
    if (!mark || !lines[i + 1]?.startsWith('```')) continue;
    const from = i + 2;
    let to = from;
    while (to < lines.length && !lines[to].startsWith('```')) to++;
    blocks.push({ plan: mark[1], from, to, steps: stepsOf(lines.slice(from, to)) });
    i = to;
  }
  return blocks;
}

function stepsOf(lines) {
  const steps = [];
  for (const line of lines) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
    else if (steps.length > 0) steps.at(-1).expected.push(line);
  }
  return steps;
}

/** Use to compare outputs whose data move with the clock: every number becomes N, a winner W, a status S, a masked key msk_…, padding one space. */
export function shapeOf(lines) {
  return lines.map((l) =>
    l
      .replace(/msk_[^\s…]*…/g, 'msk_…')
      .replace(/\b(Up|Down)\b/g, 'W')
      .replace(/\b(active|resolved)\b/g, 'S')
      // A table's column widths follow its values.
      .replace(/─+/g, '─')
      .replace(/ {2,}/g, ' ')
      // A count with thousands separators (2,247) is one number.
      .replace(/(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d.])/g, 'N')
      // A signed value (delta_ms -58 or 6) is one number too; a hyphen inside a word (an id) is not a sign.
      .replace(/(?<![\w-])-?\d+(\.\d+)?/g, 'N')
      .replace(/\d+(\.\d+)?/g, 'N')
      .trimEnd(),
  );
}

/** Use to run one `$ msnap ARGS [| head -N]` line: its stderr and stdout as one interleaved text, as lines. */
export function runStep(command, env, cwd, allowCurl = false) {
  const curl = allowCurl && /^curl /.test(command);
  const m = curl ? [command, command, undefined] : /^msnap (.*?)(?: \| head -(\d+))?$/.exec(command);
  if (!m) throw new Error(`a checked block runs only "msnap ..." (optionally "| head -N")${allowCurl ? ' or "curl ..."' : ''}: ${command}`);
  const file = path.join(cwd, 'out.txt');
  const fd = openSync(file, 'w');
  try {
    // One descriptor for both streams keeps their real order.
    if (curl) spawnSync('bash', ['-c', command], { cwd, env, stdio: ['ignore', fd, fd], timeout: 60_000 });
    else spawnSync(process.execPath, [BIN, ...m[1].split(' ').filter(Boolean)], { cwd, env, stdio: ['ignore', fd, fd], timeout: 60_000 });
  } finally {
    closeSync(fd);
  }
  // The scratch directory reads as /tmp/demo, so a path in the output is the same in every run.
  let lines = readFileSync(file, 'utf8').replace(/\n$/, '').split(cwd).join('/tmp/demo').split('\n');
  if (m[2] !== undefined) {
    // `| head -N` keeps N lines of stdout; msnap's own lines (stderr) stay.
    let kept = 0;
    lines = lines.filter((l) => l.startsWith('msnap: ') || l.startsWith('hint: ') || kept++ < Number(m[2]));
  }
  return lines;
}

/** Use to start a seeded `msnap serve` with a key per plan; close() stops it and deletes its files. */
export async function startDocService() {
  const dir = mkdtempSync(path.join(tmpdir(), 'msnap-doc-outputs-'));
  const db = path.join(dir, 'docs.db');
  const base = cleanEnv({});
  const run = (args) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env: base, encoding: 'utf8', timeout: 180_000 });
    if (r.status !== 0) throw new Error(`msnap ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.trim();
  };
  run(['serve', 'seed', '--db', db, ...SEED_ARGS]);
  const keys = {};
  for (const plan of ['builder', 'pro']) keys[plan] = run(['serve', 'keys', 'create', '--db', db, '--account', `docs-${plan}`, '--plan', plan]);
  const servers = [];
  const serve = async (args) => {
    const server = spawn(process.execPath, [BIN, 'serve', ...args, '--port', '0'], { cwd: dir, env: base, stdio: ['ignore', 'pipe', 'ignore'] });
    servers.push(server);
    return new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d) => {
        out += d;
        const hit = /listening on (http:\/\/\S+)/.exec(out);
        if (hit) resolve({ url: hit[1], server });
      });
      server.once('exit', (code) => reject(new Error(`msnap serve exited (${code}): ${out}`)));
    });
  };
  const stop = async (server) => {
    server.kill('SIGTERM');
    await new Promise((resolve) => (server.exitCode === null ? server.once('exit', resolve) : resolve()));
  };
  const { url } = await serve(['--db', db, '--no-live']);
  const envOf = (baseUrl, key) => cleanEnv({ MSNAP_BASE_URL: baseUrl, MSNAP_API_KEY: key, MSNAP_CONFIG_DIR: path.join(dir, 'config') });
  let replayDb;
  return {
    dir,
    /** The environment a step of a block marked `plan` runs in. */
    env: (plan) => {
      if (!keys[plan]) throw new Error(`no key for plan ${plan} (builder, pro or replay)`);
      return envOf(url, keys[plan]);
    },
    /** Starts a replay from REPLAY_FROM for one block; `stop()` ends it. */
    async replay() {
      if (!replayDb) {
        replayDb = path.join(dir, 'replay.db');
        run(['serve', 'seed', '--db', replayDb, ...REPLAY_SEED_ARGS]);
        keys.replay = run(['serve', 'keys', 'create', '--db', replayDb, '--account', 'docs-bot', '--plan', 'pro']);
      }
      const started = await serve(['--db', replayDb, '--replay', REPLAY_FROM, '--speed', REPLAY_SPEED]);
      return { env: envOf(started.url, keys.replay), stop: () => stop(started.server) };
    },
    async close() {
      for (const server of servers) await stop(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function cleanEnv(extra) {
  const env = { ...process.env, NO_COLOR: '1', ...extra };
  for (const name of ['MSNAP_API', 'MSNAP_DB', 'MSNAP_DATABASE_URL', ...(extra.MSNAP_API_KEY ? [] : ['MSNAP_API_KEY', 'MSNAP_BASE_URL', 'MSNAP_CONFIG_DIR'])]) delete env[name];
  return env;
}

/** Use to check (or with write, rewrite) every checked block of `files`; returns the differences found. */
export async function checkFiles(service, files = docFiles(), write = false) {
  const differences = [];
  for (const file of files) {
    const full = path.join(ROOT, file);
    const lines = readFileSync(full, 'utf8').split('\n');
    const blocks = findBlocks(lines.join('\n'));
    // Bottom up, so a rewritten block does not move the ones above it.
    for (const block of blocks.reverse()) {
      const fresh = [];
      let stale = false;
      const replay = block.plan === 'replay' ? await service.replay() : undefined;
      for (const step of block.steps) {
        const actual = runStep(step.command, replay ? replay.env : service.env(block.plan), service.dir, replay !== undefined);
        fresh.push(`$ ${step.command}`, ...actual);
        if (shapeOf(actual).join('\n') !== shapeOf(step.expected).join('\n')) {
          stale = true;
          differences.push({ file, line: block.from + 1, command: step.command, expected: step.expected, actual });
        }
      }
      await replay?.stop();
      // A current block keeps its text: only a stale one is rewritten, whole.
      if (write && stale) lines.splice(block.from, block.to - block.from, ...fresh);
    }
    if (write) writeFileSync(full, lines.join('\n'));
  }
  return differences;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const service = await startDocService();
  try {
    const differences = await checkFiles(service, docFiles(), true);
    for (const d of differences) console.log(`${d.file}:${d.line}: rewrote the output of \`${d.command}\``);
    console.log(differences.length === 0 ? 'every checked output is current' : `${differences.length} outputs rewritten`);
  } finally {
    await service.close();
  }
}

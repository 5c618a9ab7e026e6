#!/usr/bin/env node
// `npm run demo`: a local msnap service over a fresh demo database, and the main commands run
// against it, each printed first so a newcomer sees how the CLI is used. Cleans up after itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'msnap.js');
const keep = process.argv.includes('--keep');
const dir = mkdtempSync(path.join(tmpdir(), 'msnap-demo-'));
const db = path.join(dir, 'demo.db');
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001b[1m${s}\u001b[22m` : s);

/** Run `msnap ARGS` with the demo environment, output straight to this terminal; resolves with the exit code. */
function msnap(args, env = {}) {
  console.log(`\n${bold(`$ msnap ${args.map((a) => (/[\s"$]/.test(a) ? `'${a}'` : a)).join(' ')}`)}`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Start `msnap serve --demo` and wait for its URL and the two demo keys it prints. */
function startServer() {
  console.log(bold(`$ msnap serve --demo --db ${db} --port 0`));
  const child = spawn(process.execPath, [BIN, 'serve', '--demo', '--db', db, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const found = { url: undefined, keys: {} };
    child.on('exit', (code) => reject(new Error(`msnap serve exited early (code ${code})`)));
    child.stdout.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        console.log(`  ${line}`);
        const listening = /^msnap serve listening on (\S+)$/.exec(line);
        if (listening) found.url = listening[1];
        // "demo builder key (account): KEY"
        const key = /^demo (\w+) key \([^)]*\): (\S+)$/.exec(line);
        if (key) found.keys[key[1]] = key[2];
        if (found.url && found.keys.builder && found.keys.pro) resolve({ child, ...found });
      }
    });
  });
}

async function main() {
  console.log(`msnap demo: a local service over a fresh demo database in ${dir}\n`);
  // A smaller seed than serve --demo's own keeps the demo quick; skipped if `serve seed` is absent.
  const seedArgs = ['serve', 'seed', '--db', db, '--days', '15', '--full', '5m=6,15m=2,1hr=1,4hr=1,24hr=1'];
  if ((await msnap(seedArgs)) !== 0) console.log('(seeding is left to serve --demo)');
  console.log('');
  const server = await startServer();
  const env = {
    MSNAP_BASE_URL: server.url,
    MSNAP_API_KEY: server.keys.builder,
    MSNAP_CONFIG_DIR: path.join(dir, 'config'),
  };
  console.log(`\nThe commands below use a builder key through the environment:`);
  console.log(`  export MSNAP_BASE_URL=${server.url}`);
  console.log(`  export MSNAP_API_KEY=${server.keys.builder}`);
  console.log(`(or store it once: msnap keys add local --base-url ${server.url})`);

  let failed = 0;
  const step = async (args) => {
    const code = await msnap(args, env);
    if (code !== 0) failed += 1;
    return code;
  };
  try {
    await step(['health']);
    await step(['limits']);
    await step(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '5']);
    const csv = path.join(dir, 'btc-5m.csv');
    if ((await step(['snapshots', 'BTC', '5m', '--csv', '-o', csv])) === 0) {
      const lines = readFileSync(csv, 'utf8').split('\n').filter(Boolean);
      console.log(`${csv}: ${lines.length - 1} snapshot rows + header; first lines:`);
      for (const l of lines.slice(0, 4)) console.log(`  ${l}`);
    }
    await step(['at', 'BTC', '5m', '2m']);
    await step(['at', 'BTC', '5m', 'now']);
    console.log('\nErrors are one line and a documented exit code (2 = usage):');
    const code = await msnap(['snapshots', 'XRP', '5m'], env);
    console.log(`(exit code ${code})`);
    if (code !== 2) failed += 1;
  } finally {
    server.child.removeAllListeners('exit');
    const stopped = new Promise((resolve) => server.child.on('exit', resolve));
    server.child.kill('SIGTERM');
    await stopped;
    if (keep) console.log(`\nKept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  console.log(failed === 0 ? '\nDemo finished.' : `\nDemo finished with ${failed} failing step(s).`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((err) => {
  console.error(`demo: ${err.message}`);
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = 1;
});

// Running the pieces under test as real processes: the built CLI, `msnap serve`, the baselines.
// A server prints its URL on the first stdout line; a one-shot command is timed from spawn to
// exit and, where /usr/bin/time exists, its peak RSS is read from the kernel's own accounting.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/..). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The built CLI launcher. */
export const MSNAP_BIN = path.join(ROOT, 'bin', 'msnap.js');
const GNU_TIME = '/usr/bin/time';

/**
 * Run a node script to completion: `{ code, wallMs, stdout, stderr, peakRssKb }`.
 * stdout is kept only when `captureStdout` (exports write to files, not to us).
 */
export function runNode(script, args, { env = {}, captureStdout = true, measureRss = false, tmpDir, cwd = ROOT } = {}) {
  const useTime = measureRss && existsSync(GNU_TIME) && tmpDir;
  const rssFile = useTime ? path.join(tmpDir, `rss-${process.pid}-${Math.random().toString(36).slice(2)}.txt`) : undefined;
  const command = useTime ? GNU_TIME : process.execPath;
  const argv = useTime ? ['-f', '%M', '-o', rssFile, process.execPath, script, ...args] : [script, ...args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, argv, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', captureStdout ? 'pipe' : 'ignore', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let peakRssKb = null;
    // Without GNU time, poll the kernel's high-water mark; the last reading before exit wins.
    const poll = measureRss && !useTime ? setInterval(() => {
      const hwm = readVmHwmKb(child.pid);
      if (hwm !== null) peakRssKb = Math.max(peakRssKb ?? 0, hwm);
    }, 20) : undefined;
    child.stdout?.setEncoding('utf8').on('data', (s) => { stdout += s; });
    child.stderr.setEncoding('utf8').on('data', (s) => { stderr = (stderr + s).slice(-1_000_000); });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (poll) clearInterval(poll);
      if (rssFile && existsSync(rssFile)) {
        const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
        const kb = Number(lines[lines.length - 1]);
        if (Number.isFinite(kb)) peakRssKb = kb;
        rmSync(rssFile, { force: true });
      }
      resolve({ code, wallMs, stdout, stderr, peakRssKb });
    });
  });
}

/** Run the built CLI (`msnap ...args`); throws with its stderr when it fails unless `allowFailure`. */
export async function runMsnap(args, options = {}) {
  // The export figures compare the CLI with baselines that read v1's 10,000-row pages; under the
  // default (auto) it would speak v4 to msnap serve, whose pages hold at most 1,000 rows.
  const result = await runNode(MSNAP_BIN, args, { ...options, env: { MSNAP_API: 'v1', ...options.env } });
  if (result.code !== 0 && !options.allowFailure) {
    throw new Error(`msnap ${args.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(-2000)}`);
  }
  return result;
}

/** utime + stime of a live process, in ms (Linux: clock ticks of 10 ms). */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The resident set size of a live process now, in MB (Linux). */
export function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The peak resident set (VmHWM, kB) of a live process, or null when it is gone. */
export function readVmHwmKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Start a long-running node server whose first stdout line holds its `http://HOST:PORT`.
 * Resolves to `{ url, pid, stop(), peakRssKb() }` once that line arrives.
 */
export function startServer(script, args, { env = {}, readyTimeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let ready = false;
    const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
    const timer = setTimeout(() => {
      if (!ready) {
        child.kill('SIGKILL');
        reject(new Error(`${path.basename(script)} ${args.join(' ')} printed no URL within ${readyTimeoutMs} ms: ${err.slice(-2000)}`));
      }
    }, readyTimeoutMs);
    child.stderr.setEncoding('utf8').on('data', (s) => { err = (err + s).slice(-100_000); });
    child.stdout.setEncoding('utf8').on('data', (s) => {
      if (ready) return;
      out += s;
      const m = /(http:\/\/[^\s]+:\d+)/.exec(out);
      if (!m) return;
      ready = true;
      clearTimeout(timer);
      // Keep draining output so a chatty server never blocks on a full pipe.
      child.stdout.resume();
      resolve({
        url: m[1].replace(/\/$/, ''),
        pid: child.pid,
        stderrTail: () => err,
        peakRssKb: () => readVmHwmKb(child.pid),
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          const result = await exited;
          clearTimeout(killer);
          return result;
        },
      });
    });
    child.on('error', reject);
    exited.then(({ code, signal }) => {
      if (!ready) {
        clearTimeout(timer);
        reject(new Error(`${path.basename(script)} ${args.join(' ')} exited (${code ?? signal}) before listening: ${err.slice(-2000)}`));
      }
    });
  });
}

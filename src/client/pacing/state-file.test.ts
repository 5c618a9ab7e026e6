import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAlive, STALE_LOCK_MS, withFileLock } from './file-lock.js';
import { paceStateDir, paceStateFile, StateFile } from './state-file.js';

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(child.stdout);
  expect(processAlive(pid)).toBe(false);
  return pid;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-state-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('withFileLock', () => {
  it('breaks the lock of a process that died holding it', () => {
    const lock = path.join(dir, 'x.lock');
    writeFileSync(lock, `${deadPid()} abc`);
    expect(withFileLock(lock, () => 'ran', 200)).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('waits for a live owner, then gives up without running the work', () => {
    const lock = path.join(dir, 'x.lock');
    writeFileSync(lock, `${process.pid} held`);
    let ran = false;
    const started = Date.now();
    expect(() => withFileLock(lock, () => (ran = true), 150)).toThrow(/held by a live process/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(ran).toBe(false);
    // Not ours: left alone.
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid} held`);
  });

  it('breaks a lock held implausibly long even by a live process (a hung one, or a reused pid)', () => {
    const lock = path.join(dir, 'x.lock');
    writeFileSync(lock, `${process.pid} hung`);
    const old = (Date.now() - STALE_LOCK_MS - 1000) / 1000;
    utimesSync(lock, old, old);
    expect(withFileLock(lock, () => 7, 200)).toBe(7);
  });

  it('releases the lock after the work, also when the work throws', () => {
    const lock = path.join(dir, 'x.lock');
    expect(() => withFileLock(lock, () => { throw new Error('boom'); })).toThrow('boom');
    expect(existsSync(lock)).toBe(false);
  });
});

describe('StateFile', () => {
  it('names the file by a hash of base URL and key, never the key', () => {
    const file = paceStateFile(dir, 'https://api.example/', 'msk_secret123');
    expect(file).not.toContain('msk_secret123');
    expect(path.basename(file)).toMatch(/^pace-[0-9a-f]{32}\.json$/);
    expect(paceStateFile(dir, 'https://api.example', 'msk_secret123')).toBe(file);
    expect(paceStateFile(dir, 'https://other.example', 'msk_secret123')).not.toBe(file);
  });

  it('lives in MSNAP_STATE_DIR, else XDG_STATE_HOME/msnap, else ~/.local/state/msnap', () => {
    expect(paceStateDir({ MSNAP_STATE_DIR: '/x/y', XDG_STATE_HOME: '/s' })).toBe('/x/y');
    expect(paceStateDir({ XDG_STATE_HOME: '/s' })).toBe(path.join('/s', 'msnap'));
    expect(paceStateDir({ XDG_STATE_HOME: 'relative' })).toMatch(/\.local[/\\]state[/\\]msnap$/);
  });

  it('keeps what one process wrote for the next, and forgets requests of processes that died', () => {
    const file = paceStateFile(path.join(dir, 'nested'), 'u', 'k');
    const gone = deadPid();
    const a = new StateFile(file, { now: () => 1000, pid: gone });
    a.update(() => ({ value: 0, record: { tokens: 3, last: 1000, log: [900], sends: 2, inflight: [{ pid: gone, at: 990 }, { pid: process.pid, at: 995 }] } }));
    const b = new StateFile(file, { now: () => 1100 });
    const seen = b.update((record) => ({ value: record, record: undefined }));
    expect(seen).toEqual({ tokens: 3, last: 1000, log: [900], sends: 2, inflight: [{ pid: process.pid, at: 995 }] });
    // Only the state file remains: no lock, no temporary file.
    expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('starts afresh from a damaged file', () => {
    const file = paceStateFile(dir, 'u', 'k');
    writeFileSync(file, '{"tokens": 3, "log": [1,');
    const s = new StateFile(file, { now: () => 0 });
    expect(s.update((record) => ({ value: record, record: undefined }))).toBeUndefined();
  });
});

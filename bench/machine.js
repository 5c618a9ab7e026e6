// What the figures were measured on: they only mean something next to the machine and the date.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** One line per fact, for the report header. */
export function describeMachine() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAverage: os.loadavg().map((x) => x.toFixed(2)).join(' '),
    source: sourceVersion(),
  };
}

// The commit measured, and whether tracked files differed from it (others may be mid-edit).
function sourceVersion() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return changed ? `${head} plus uncommitted changes to ${changed.split('\n').length} tracked file(s)` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

// Running a list of figures as an instrument: each figure's wall time is measured and logged, the
// progress line says how long the rest should take, and the report is rewritten to a partial file
// beside the final one as every figure ends, so a run stopped half-way (Ctrl-C, SIGTERM, even
// SIGKILL) keeps what it measured and says which figures are missing. A finished run writes the
// final report and removes the partial file.
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { renderReport } from './report.js';

/** The partial report's path beside `out`: BENCHMARKS.md -> BENCHMARKS.partial.md. */
export function partialPath(out) {
  const ext = path.extname(out);
  return path.join(path.dirname(out), `${path.basename(out, ext)}.partial${ext || '.md'}`);
}

/**
 * Seconds left: the expected seconds of the figures still to run, scaled by how the finished
 * ones compared with their own expectations (a busy or slow machine stretches the rest alike).
 */
export function secondsLeft({ expected, done, remaining }) {
  const expectedDone = done.reduce((sum, d) => sum + (expected[d.id] ?? 0), 0);
  const actualDone = done.reduce((sum, d) => sum + d.seconds, 0);
  const pace = expectedDone > 0 && actualDone > 0 ? Math.min(4, Math.max(0.25, actualDone / expectedDone)) : 1;
  return remaining.reduce((sum, id) => sum + (expected[id] ?? 0), 0) * pace;
}

/** "1 h 04 min", "12 min 30 s", "45 s". */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${s} s`;
}

/**
 * A run of figures. `steps` are `{ id, title, run }` in order (`run` returns a figure or
 * undefined, and may throw: the error is recorded and the other figures still run);
 * `report` holds what renderReport needs besides figures and times; `out` is the final file.
 */
export function createHarness({ steps, report, out, expected = {}, log = defaultLog(), started = performance.now() }) {
  const figures = [];
  const times = [];
  const planned = steps.map((s) => s.id);
  const partial = out ? partialPath(out) : undefined;
  let current;
  let stopped = false;

  const render = (status) =>
    renderReport({ ...report, figures: [...figures].sort((a, b) => a.id - b.id), times, totalSeconds: (performance.now() - started) / 1000, status, loadAverageEnd: os.loadavg().map((x) => x.toFixed(2)).join(' ') });

  const missing = () => planned.filter((id) => !times.some((t) => t.id === id));

  const writePartial = (how) => {
    if (!partial) return;
    const left = missing();
    writeFileSync(partial, render({ partial: true, missing: left, running: how === 'running' ? current : undefined, interrupted: how === 'interrupted' ? current : undefined }) + '\n');
  };

  /** Record a setup step's time (seeding shared stores) so the per-figure table adds up. */
  const setupDone = (title, seconds) => {
    times.push({ id: 0, title, seconds, setup: true });
    writePartial('running');
  };

  async function runAll() {
    for (const [index, step] of steps.entries()) {
      if (stopped) break;
      current = step.id;
      const done = times.filter((t) => !t.setup);
      const left = secondsLeft({ expected, done, remaining: planned.slice(index) });
      log(`figure ${step.id} (${index + 1} of ${steps.length}): ${step.title}; about ${formatDuration(left)} left`);
      writePartial('running');
      // Other developers' builds and tests share the cores: each figure says how busy they were.
      const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
      const t0 = performance.now();
      let f;
      try {
        f = await step.run();
      } catch (err) {
        log(`figure ${step.id} failed: ${err?.stack ?? err}`);
        f = { title: step.title, error: String(err?.message ?? err) };
      }
      const seconds = (performance.now() - t0) / 1000;
      times.push({ id: step.id, title: step.title, seconds });
      if (f) {
        const notes = f.error ? f.notes : [...(f.notes ?? []), `Load average (1, 5, 15 min) when this figure started: ${load}, on ${os.cpus().length} cores shared with other developers' builds and tests.`];
        figures.push({ id: step.id, ...f, notes, wallSeconds: seconds });
      }
      log(`figure ${step.id} ${f?.error ? 'failed' : 'done'} in ${seconds.toFixed(1)} s`);
      current = undefined;
      writePartial('running');
    }
    return { figures: [...figures].sort((a, b) => a.id - b.id), times };
  }

  /** Write the final report and remove the partial file. */
  function finish() {
    const text = render(undefined);
    if (out) writeFileSync(out, text + '\n');
    if (partial) rmSync(partial, { force: true });
    return text;
  }

  /** On a signal: the partial file says the run was stopped, during which figure. */
  function interrupt(signal) {
    stopped = true;
    writePartial('interrupted');
    const left = missing();
    log(`${signal}: stopped${current !== undefined ? ` during figure ${current}` : ''}; ${partial ? `${partial} keeps figures ${times.filter((t) => !t.setup).map((t) => t.id).join(', ') || 'none'}` : 'nothing written'}${left.length ? `; missing ${left.join(', ')}` : ''}`);
  }

  return { runAll, finish, interrupt, setupDone, figures, times, partial, missing };
}

function defaultLog() {
  const started = performance.now();
  return (message) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
}

// Progress on stderr for long exports: pages, rows, rows/s and an ETA from the service's totals.
// A spinner on a colour terminal; elsewhere (a log file, NO_COLOR) a plain line every few seconds,
// so a long wait is never silent; nothing with --quiet.
import type { Ora } from 'ora';
import type { Writable } from 'node:stream';

/** What a command reports as it goes. */
export interface ProgressState {
  /** Pages (or what `unit` names) done; undefined: the line counts rows alone. */
  pages?: number;
  /** Pages expected in all, when known (a backtest's markets). */
  pagesTotal?: number;
  rows: number;
  /** Rows expected in all, when the service told us. */
  total?: number;
  /** The least time the rest takes at the key's limits (the minute cap can hold a run long after a fast start). */
  paceMs?: number;
  /** What `pages` counts, when not pages (an import counts files). */
  unit?: string;
  /** What `rows` counts, when not rows (a backtest's snapshots, a sweep's runs). */
  rowsUnit?: string;
  /** More to show after the rate (an import's markets and snapshots). */
  extra?: string;
}

/** Use in commands; `update` is cheap, `stop` clears the line. */
export interface Progress {
  update(state: ProgressState): void;
  stop(): void;
}

/** A count as the line shows it, with its total when known. */
function counted(n: number, total: number | undefined): string {
  const text = n.toLocaleString('en-US');
  return total !== undefined && total > 0 ? `${text}/${total.toLocaleString('en-US')}` : text;
}

/** The progress line's text; pure, so tests check it with a fixed elapsed time. */
export function progressText(label: string, state: ProgressState, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (state.rows * 1000) / elapsedMs : 0;
  const rows = state.rowsUnit ?? 'rows';
  const parts = [`${counted(state.rows, state.total)} ${rows}`];
  if (state.pages !== undefined) parts.unshift(`${state.unit ?? 'page'} ${counted(state.pages, state.pagesTotal)}`);
  // A slow count (a sweep's runs) keeps a decimal, so it never reads as 0 per second.
  parts.push(`${rate > 0 && rate < 10 ? rate.toFixed(1) : Math.round(rate).toLocaleString('en-US')} ${rows}/s`);
  if (state.extra !== undefined) parts.push(state.extra);
  if (state.total !== undefined && state.total > state.rows && (rate > 0 || state.paceMs !== undefined)) {
    const byRate = rate > 0 ? (state.total - state.rows) / rate : 0;
    parts.push(`ETA ${Math.ceil(Math.max(byRate, (state.paceMs ?? 0) / 1000))}s`);
  }
  return `${label}: ${parts.join(' · ')}`;
}

/** A progress that shows nothing (pipes, --quiet, tests). */
export const NO_PROGRESS: Progress = { update() {}, stop() {} };

/** An ora spinner on `stream`, timed by `now`. */
export function createSpinnerProgress(
  stream: Writable,
  label: string,
  now: () => number,
  color: boolean,
): Progress {
  const started = now();
  let spinner: Ora | undefined;
  // Loaded only for a real spinner: an export with --quiet or to a pipe never pays for ora.
  let ora: typeof import('ora').default | undefined;
  void import('ora').then((m) => (ora = m.default));
  return {
    update(state) {
      const text = progressText(label, state, now() - started);
      if (!spinner) {
        // Until ora has loaded (milliseconds) there is simply no spinner yet.
        if (!ora) return;
        spinner = ora({ text, stream, color: color ? 'cyan' : false, discardStdin: false }).start();
      } else {
        spinner.text = text;
      }
    },
    stop() {
      spinner?.stop();
      spinner = undefined;
    },
  };
}

/** How often a plain progress line is written. */
const LINE_PROGRESS_MS = 5000;

/** A plain-text progress for logs and NO_COLOR: `poll` is what its timer calls (tests call it with a moved clock). */
export interface LineProgress extends Progress {
  poll(): void;
}

/**
 * A line on `stream` at most every `everyMs`: on updates, and from a timer while nothing arrives
 * (a pacing wait), so the log shows the run is alive. Only after the first update.
 */
export function createLineProgress(
  stream: Writable,
  label: string,
  now: () => number,
  everyMs = LINE_PROGRESS_MS,
  timer = true,
): LineProgress {
  const started = now();
  let last: ProgressState | undefined;
  let printedAt = started;
  const poll = (): void => {
    if (!last || now() - printedAt < everyMs) return;
    printedAt = now();
    stream.write(`msnap: ${progressText(label, last, printedAt - started)} · ${Math.round((printedAt - started) / 1000)}s\n`);
  };
  const interval = timer ? setInterval(poll, 1000) : undefined;
  interval?.unref();
  return {
    update(state) {
      last = state;
      poll();
    },
    poll,
    stop() {
      if (interval) clearInterval(interval);
    },
  };
}

// A sweep's combinations (docs/backtest-model.md "Sweeps"): `--sweep PATH=V1,V2,…` flags, repeatable, their
// cartesian product in a stable order (the first flag's values vary slowest).
import { UsageError } from '../../errors.js';
import { parseValue } from '../strategy/load-strategy.js';

/** One --sweep flag: a path and its values. */
export interface SweepAxis {
  path: string;
  values: unknown[];
  /** The values as given (each becomes `--set PATH=TEXT`). */
  texts: string[];
}

/** Use on the --sweep flags: each checked (a path, at least one value, no path twice). */
export function parseSweeps(flags: readonly string[]): SweepAxis[] {
  const axes: SweepAxis[] = [];
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0 || eq === flag.length - 1) throw new UsageError(`--sweep takes PATH=V1,V2,… (e.g. --sweep size=5,10,20), got '${flag}'`);
    const path = flag.slice(0, eq);
    if (axes.some((a) => a.path === path)) throw new UsageError(`--sweep ${path} is given twice; list all its values in one flag`);
    const texts = flag.slice(eq + 1).split(',');
    if (texts.some((t) => t === '')) throw new UsageError(`--sweep ${path}: an empty value in '${flag}'`);
    axes.push({ path, values: texts.map(parseValue), texts });
  }
  return axes;
}

/** The most runs a sweep starts unless told more (`--max-runs`): a typo in two long value lists should not start a night's work. */
export const DEFAULT_MAX_RUNS = 1000;

/**
 * Use before any combination is made: refuses (UsageError) a sweep of more than `maxRuns` runs,
 * saying the count, its factors and the flag that raises the cap; returns the count.
 */
export function checkRunCount(axes: readonly SweepAxis[], maxRuns: number = DEFAULT_MAX_RUNS): number {
  const runs = axes.reduce((n, a) => n * a.values.length, 1);
  if (runs > maxRuns) {
    const factors = axes.map((a) => `${a.values.length} ${a.path}`).join(' × ');
    const n = (x: number): string => x.toLocaleString('en-US');
    throw new UsageError(`--sweep makes ${n(runs)} runs (${factors}), over the cap of ${n(maxRuns)}: drop values, or allow them with --max-runs ${runs}`);
  }
  return runs;
}

/** One combination: the swept values by path and the `--set` arguments that make it. */
export interface SweepCombination {
  values: Record<string, unknown>;
  sets: string[];
}

/** Every combination, the first axis varying slowest. */
export function combinations(axes: readonly SweepAxis[]): SweepCombination[] {
  let out: SweepCombination[] = [{ values: {}, sets: [] }];
  for (const axis of axes) {
    const next: SweepCombination[] = [];
    for (const c of out) {
      axis.values.forEach((v, k) => {
        next.push({ values: { ...c.values, [axis.path]: v }, sets: [...c.sets, `${axis.path}=${axis.texts[k]}`] });
      });
    }
    out = next;
  }
  return out;
}

// A strategy file as text on the queue and back as a file on the worker: the submitter reads it,
// the worker writes it under its own temporary folder with the same base name (so a rule without
// a name gets the same default name) and loads it as a local run would.
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import type { StrategyText } from './sweep-job.js';

/** Use on the submitter: the strategy file as it travels (only the one file: a module's own imports are not carried). */
export async function readStrategyText(file: string): Promise<StrategyText> {
  try {
    return { file: path.basename(file), text: await readFile(file, 'utf8') };
  } catch (err) {
    throw new UsageError(`cannot read strategy '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** True for a JavaScript module strategy (its runs each need a fresh module scope). */
export function isModuleFile(file: string): boolean {
  return /\.m?js$/i.test(file);
}

/**
 * Use on the worker: the strategy written under `dir` and its path. `run` names a fresh copy: a
 * module imported from a new path starts with fresh state, as each of its runs does in a local
 * sweep (a rule holds no state, so one copy serves every run).
 */
export function strategyFile(dir: string, strategy: StrategyText, run?: number): string {
  const digest = createHash('sha256').update(strategy.file).update('\0').update(strategy.text).digest('hex').slice(0, 16);
  const folder = path.join(dir, digest, run === undefined ? 'shared' : `run-${run}`);
  const file = path.join(folder, strategy.file);
  mkdirSync(folder, { recursive: true });
  writeFileSync(file, strategy.text);
  return file;
}

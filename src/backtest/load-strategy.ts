// loadStrategy: a rule JSON file, a JavaScript module (.js/.mjs) or an object, with `--set
// PATH=VALUE` overrides applied and everything checked before any data is read.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../errors.js';
import { checkRule, isModuleStrategy, type ModuleStrategy, type RuleStrategy, type Strategy } from './strategy.js';

/** One `--set PATH=VALUE`: a dotted path (`entry.0.value`) and the value (JSON when it parses, else text). */
export interface SetOverride {
  path: string[];
  value: unknown;
}

/** Use on each `--set` argument: `size=5` → { path: ['size'], value: 5 }; `side=down` → 'down'. */
export function parseSet(arg: string): SetOverride {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new UsageError(`--set takes PATH=VALUE (e.g. --set size=5 --set entry.0.value=0.25), got '${arg}'`);
  const keys = arg.slice(0, eq).split('.');
  if (keys.some((k) => k === '')) throw new UsageError(`--set: bad path '${arg.slice(0, eq)}'`);
  return { path: keys, value: parseValue(arg.slice(eq + 1)) };
}

/** A --set or --sweep value: a JSON number, boolean or null when it is one, else the text as given. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Write `value` at `keys` in `target`, which must already hold that path (a misspelt path is an error, not a new key). */
function setAt(target: unknown, keys: readonly string[], value: unknown, where: string, mayAdd: readonly string[]): void {
  let node = target as Record<string, unknown>;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const last = k === keys.length - 1;
    const known = typeof node === 'object' && node !== null && Object.prototype.hasOwnProperty.call(node, key);
    if (!known && !(k === 0 && last && mayAdd.includes(key))) {
      throw new UsageError(`--set ${keys.join('.')}: ${where} has no '${keys.slice(0, k + 1).join('.')}'`);
    }
    if (last) node[key] = value;
    else node = node[key] as Record<string, unknown>;
  }
}

const OPTIONAL_RULE_KEYS = ['name', 'exit', 'max_entries', 'max_price', 'min_price'];

function applySets(rule: RuleStrategy, sets: readonly string[]): RuleStrategy {
  const copy = structuredClone(rule);
  for (const s of sets) {
    const { path: keys, value } = parseSet(s);
    setAt(copy, keys, value, 'the strategy', OPTIONAL_RULE_KEYS);
  }
  return copy;
}

function moduleWithSets(mod: ModuleStrategy, sets: readonly string[], name: string): ModuleStrategy {
  const params = structuredClone(mod.params ?? {});
  for (const s of sets) {
    const { path: keys, value } = parseSet(s);
    setAt(params, keys, value, "the module's params", []);
  }
  return {
    name: mod.name ?? name,
    params,
    onSnapshot: mod.onSnapshot.bind(mod),
    ...(mod.onMarketStart ? { onMarketStart: mod.onMarketStart.bind(mod) } : {}),
    ...(mod.onMarketEnd ? { onMarketEnd: mod.onMarketEnd.bind(mod) } : {}),
  };
}

async function readRuleFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read strategy '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`strategy '${file}' is not valid JSON: ${(err as Error).message}`);
  }
}

async function importModule(file: string): Promise<ModuleStrategy> {
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(path.resolve(file)).href)) as { default?: unknown };
  } catch (err) {
    throw new UsageError(`cannot load strategy module '${file}': ${(err as Error).message.split('\n')[0]}`);
  }
  const exported = mod.default;
  if (typeof exported !== 'object' || exported === null || typeof (exported as ModuleStrategy).onSnapshot !== 'function') {
    throw new UsageError(`strategy module '${file}' must export default an object with onSnapshot(snapshot, ctx)`);
  }
  return exported as ModuleStrategy;
}

/**
 * Use before reading any data: the strategy at `pathOrObject` (a `.json` rule file, a `.js`/`.mjs`
 * module, or the object itself) with `sets` (`PATH=VALUE`) applied and checked; every problem is
 * a UsageError. A rule's name defaults to the file's base name.
 */
export async function loadStrategy(pathOrObject: string | Strategy, sets: readonly string[] = []): Promise<Strategy> {
  if (typeof pathOrObject !== 'string') {
    if (isModuleStrategy(pathOrObject)) return moduleWithSets(pathOrObject, sets, pathOrObject.name ?? 'strategy');
    return checkRule(applySets(pathOrObject, sets));
  }
  const file = pathOrObject;
  const base = path.basename(file).replace(/\.(json|m?js)$/i, '');
  const ext = path.extname(file).toLowerCase();
  if (ext === '.js' || ext === '.mjs') return moduleWithSets(await importModule(file), sets, base);
  if (ext !== '.json') throw new UsageError(`strategy '${file}': name a .json rule file or a .js/.mjs module`);
  const raw = await readRuleFile(file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new UsageError(`strategy '${file}' must hold one JSON object`);
  return checkRule(applySets(raw as RuleStrategy, sets), base);
}

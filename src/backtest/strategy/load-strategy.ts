// loadStrategy: a rule JSON file, a JavaScript module (.js/.mjs) or an object, with `--set
// PATH=VALUE` overrides applied and everything checked before any data is read.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../../errors.js';
import { checkRule, isModuleStrategy, type ModuleStrategy, type RuleStrategy, type Strategy } from './strategy.js';

/** One `--set PATH=VALUE`: a dotted path (`entry.0.value`), the value (JSON when it parses, else text) and the text as given. */
export interface SetOverride {
  path: string[];
  value: unknown;
  text: string;
}

/** Use on each `--set` argument: `size=5` → { path: ['size'], value: 5 }; `side=down` → 'down'. */
export function parseSet(arg: string, flag = '--set'): SetOverride {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} takes PATH=VALUE (e.g. --set size=5 --set entry.0.value=0.25), got '${arg}'`);
  const keys = arg.slice(0, eq).split('.');
  if (keys.some((k) => k === '')) throw new UsageError(`${flag}: bad path '${arg.slice(0, eq)}'`);
  const text = arg.slice(eq + 1);
  return { path: keys, value: parseValue(text), text };
}

/** A --set or --sweep value: a JSON number, boolean or null when it is one, else the text as given. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Write `value(current)` at `keys` in `target`, which must already hold that path (a misspelt
 * path is an error, not a new key); `missing` words the error.
 */
function setAt(target: unknown, keys: readonly string[], value: (current: unknown) => unknown, missing: (at: string) => string, mayAdd: readonly string[]): void {
  let node = target as Record<string, unknown>;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const last = k === keys.length - 1;
    const known = typeof node === 'object' && node !== null && Object.prototype.hasOwnProperty.call(node, key);
    if (!known && !(k === 0 && last && mayAdd.includes(key))) throw new UsageError(missing(keys.slice(0, k + 1).join('.')));
    if (last) node[key] = value(node[key]);
    else node = node[key] as Record<string, unknown>;
  }
}

const OPTIONAL_RULE_KEYS = ['name', 'exit', 'max_entries', 'max_price', 'min_price'];

function applySets(rule: RuleStrategy, sets: readonly string[], flag: string): RuleStrategy {
  const copy = structuredClone(rule);
  for (const s of sets) {
    const { path: keys, value } = parseSet(s, flag);
    setAt(copy, keys, () => value, (at) => `${flag} ${keys.join('.')}: the strategy has no '${at}'`, OPTIONAL_RULE_KEYS);
  }
  return copy;
}

function kindOf(v: unknown): string {
  return Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * A module's param takes the type of its declared default: a number must be a finite number, a
 * boolean true or false, a string is the text as given (`--set side=1` is '1'); a list or object
 * default takes JSON of the same kind. `0,3` for a number is refused, never passed on as text.
 */
function paramValue(set: SetOverride, current: unknown, flag: string, where: string): unknown {
  const { value, text } = set;
  const name = set.path.join('.');
  const refuse = (): never => {
    throw new UsageError(`${flag} ${name}=${text}: ${name} is ${kindOf(current)} in ${where}; got ${JSON.stringify(text)}`);
  };
  switch (typeof current) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : refuse();
    case 'boolean':
      return typeof value === 'boolean' ? value : refuse();
    case 'string':
      return text;
    case 'object':
      if (current === null) return value;
      if (Array.isArray(current) !== Array.isArray(value) || typeof value !== 'object' || value === null) refuse();
      return value;
    default:
      return value;
  }
}

function moduleWithSets(mod: ModuleStrategy, sets: readonly string[], name: string, where: string, flag: string): ModuleStrategy {
  const declared = mod.params ?? {};
  const params = structuredClone(declared);
  const names = Object.keys(declared);
  for (const s of sets) {
    const set = parseSet(s, flag);
    const missing = (at: string): string =>
      names.length === 0
        ? `${flag} ${s}: ${where} declares no params (declare them: export default { params: { ${set.path[0]}: … }, … })`
        : `${flag} ${s}: ${where} has no param '${at}'; its params: ${names.join(', ')}`;
    setAt(params, set.path, (current) => paramValue(set, current, flag, where), missing, []);
  }
  return {
    name: mod.name ?? name,
    params,
    source: where,
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
 * a UsageError. A rule's name defaults to the file's base name; a module's params take the types
 * of its declared defaults. `flag` names the flag the sets came from in error lines (--set, --sweep).
 */
export async function loadStrategy(pathOrObject: string | Strategy, sets: readonly string[] = [], flag = '--set'): Promise<Strategy> {
  if (typeof pathOrObject !== 'string') {
    const name = pathOrObject.name ?? 'strategy';
    if (isModuleStrategy(pathOrObject)) return moduleWithSets(pathOrObject, sets, name, pathOrObject.source ?? name, flag);
    return checkRule(applySets(pathOrObject, sets, flag));
  }
  const file = pathOrObject;
  const base = path.basename(file).replace(/\.(json|m?js)$/i, '');
  const ext = path.extname(file).toLowerCase();
  if (ext === '.js' || ext === '.mjs') return moduleWithSets(await importModule(file), sets, base, file, flag);
  if (ext !== '.json') throw new UsageError(`strategy '${file}': name a .json rule file or a .js/.mjs module`);
  const raw = await readRuleFile(file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new UsageError(`strategy '${file}' must hold one JSON object`);
  return checkRule(applySets(raw as RuleStrategy, sets, flag), base);
}

// Named API keys ("profiles") kept with conf: one JSON file, mode 0600, in the XDG config dir
// (~/.config/msnap/config.json) or in MSNAP_CONFIG_DIR when set (tests, portable installs).
import { homedir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { MsnapError, UsageError } from '../../errors.js';
import { KEY_ROTATION_MS } from '../../domain/plans.js';

/** One stored key. `baseUrl` is optional: without it the key uses the default service URL. */
export interface StoredKey {
  key: string;
  baseUrl?: string;
  /** The API version to speak with this key (v1, v4 or auto); absent: auto. */
  api?: string;
  /** Epoch ms when it was added (drives the 90-day rotation flag). */
  addedAt: number;
}

/** A stored key as `keys list` shows it (the key itself stays inside; callers mask it). */
export interface StoredKeyEntry extends StoredKey {
  name: string;
  active: boolean;
  rotationDue: boolean;
}

interface ConfigShape extends Record<string, unknown> {
  active?: string;
  profiles: Record<string, StoredKey>;
}

/** Use for every read or write of stored keys; `dir` overrides the config directory. */
export class KeyStore {
  private readonly conf: Conf<ConfigShape>;

  constructor(dir?: string) {
    const conf = readable(configPath(dir), () =>
      new Conf<ConfigShape>({
        projectName: 'msnap',
        projectSuffix: '',
        ...(dir ? { cwd: dir } : {}),
        configFileMode: 0o600,
        defaults: { profiles: {} },
      }),
    );
    // Every later read or write can meet the same broken file: wrap them all once, here.
    this.conf = new Proxy(conf, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => readable(target.path, () => (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
  }

  /** The config file's path (shown by `keys list --verbose`, checked by tests). */
  get path(): string {
    return this.conf.path;
  }

  private profiles(): Record<string, StoredKey> {
    return { ...(this.conf.get('profiles') ?? {}) };
  }

  /**
   * Add or replace a key and make it the active one. Replacing a key without a new base URL or
   * API version keeps the one it had (rotating a key must not silently point it elsewhere).
   */
  add(
    name: string,
    key: string,
    baseUrl: string | undefined,
    now: number,
    api?: string,
  ): { replaced: boolean; baseUrl?: string; api?: string } {
    const profiles = this.profiles();
    const replaced = name in profiles;
    const url = baseUrl ?? profiles[name]?.baseUrl;
    const version = api ?? profiles[name]?.api;
    profiles[name] = { key, addedAt: now, ...(url ? { baseUrl: url } : {}), ...(version ? { api: version } : {}) };
    this.conf.set('profiles', profiles);
    this.conf.set('active', name);
    return { replaced, ...(url ? { baseUrl: url } : {}), ...(version ? { api: version } : {}) };
  }

  /** Make `name` the active key; a UsageError when there is no such key. */
  use(name: string): void {
    if (!(name in this.profiles())) throw this.unknown(name);
    this.conf.set('active', name);
  }

  /**
   * Remove `name`. When it was active, the most recently added of the others becomes active (none
   * when it was the last); returns the name of the key made active, if any.
   */
  remove(name: string): string | undefined {
    const profiles = this.profiles();
    if (!(name in profiles)) throw this.unknown(name);
    delete profiles[name];
    this.conf.set('profiles', profiles);
    if (this.conf.get('active') !== name) return undefined;
    const next = Object.entries(profiles).sort(([a, x], [b, y]) => y.addedAt - x.addedAt || a.localeCompare(b))[0]?.[0];
    if (next === undefined) this.conf.delete('active');
    else this.conf.set('active', next);
    return next;
  }

  /** The active key with its name, if any. */
  active(): (StoredKey & { name: string }) | undefined {
    const name = this.conf.get('active');
    if (name === undefined) return undefined;
    const entry = this.profiles()[name];
    return entry ? { name, ...entry } : undefined;
  }

  /** Every stored key, by name, with the active and rotation flags as of `now`. */
  list(now: number): StoredKeyEntry[] {
    const active = this.conf.get('active');
    return Object.entries(this.profiles())
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, k]) => ({ name, ...k, active: name === active, rotationDue: now - k.addedAt >= KEY_ROTATION_MS }));
  }

  private unknown(name: string): UsageError {
    const names = Object.keys(this.profiles());
    return new UsageError(
      `no stored key named '${name}'`,
      names.length > 0 ? `stored keys: ${names.join(', ')}` : 'add one with: msnap keys add NAME',
    );
  }
}

/** Where conf keeps the file: MSNAP_CONFIG_DIR, else $XDG_CONFIG_HOME/msnap, else ~/.config/msnap. */
function configPath(dir: string | undefined): string {
  return join(dir ?? join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'msnap'), 'config.json');
}

/** Runs a config read or write; a broken or unreadable file becomes one line that names it. */
function readable<T>(path: string, op: () => T): T {
  try {
    return op();
  } catch (err) {
    if (err instanceof MsnapError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      err instanceof SyntaxError
        ? 'it is not valid JSON'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (err as Error).message;
    throw new UsageError(`cannot use the config file ${path}: ${why}`, 'fix it, or move it away and add your keys again (msnap keys add NAME)');
  }
}

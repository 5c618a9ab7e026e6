// Named API keys ("profiles") kept with conf: one JSON file, mode 0600, in the XDG config dir
// (~/.config/msnap/config.json) or in MSNAP_CONFIG_DIR when set (tests, portable installs).
import Conf from 'conf';
import { UsageError } from '../../errors.js';
import { KEY_ROTATION_MS } from '../../domain/plans.js';

/** One stored key. `baseUrl` is optional: without it the key uses the default service URL. */
export interface StoredKey {
  key: string;
  baseUrl?: string;
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
    this.conf = new Conf<ConfigShape>({
      projectName: 'msnap',
      projectSuffix: '',
      ...(dir ? { cwd: dir } : {}),
      configFileMode: 0o600,
      defaults: { profiles: {} },
    });
  }

  /** The config file's path (shown by `keys list --verbose`, checked by tests). */
  get path(): string {
    return this.conf.path;
  }

  private profiles(): Record<string, StoredKey> {
    return { ...(this.conf.get('profiles') ?? {}) };
  }

  /** Add or replace a key and make it the active one; returns true when it replaced one. */
  add(name: string, key: string, baseUrl: string | undefined, now: number): boolean {
    const profiles = this.profiles();
    const replaced = name in profiles;
    profiles[name] = { key, addedAt: now, ...(baseUrl ? { baseUrl } : {}) };
    this.conf.set('profiles', profiles);
    this.conf.set('active', name);
    return replaced;
  }

  /** Make `name` the active key; a UsageError when there is no such key. */
  use(name: string): void {
    if (!(name in this.profiles())) throw this.unknown(name);
    this.conf.set('active', name);
  }

  /** Remove `name`; when it was active, no key is active afterwards. */
  remove(name: string): void {
    const profiles = this.profiles();
    if (!(name in profiles)) throw this.unknown(name);
    delete profiles[name];
    this.conf.set('profiles', profiles);
    if (this.conf.get('active') === name) this.conf.delete('active');
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

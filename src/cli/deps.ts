// The one place a command's dependencies are built, lazily: the HTTP client (only when a
// command talks to the service), the key store, the exporter for the chosen format and
// destination, progress, and stderr messages. Tests pass a fake client through `overrides`.
import type { Command } from 'commander';
import type { WindowEnd } from '../client/client.js';
import type { Market, MarketStatus, MarketType, Coin, Snapshot } from '../domain/market.js';
import { AuthError, UsageError } from '../errors.js';
import { maskKey } from '../client/mask-key.js';
import type { CliContext } from './context.js';
// conf, ora and undici cost ~0.4 s to load: they are imported only by runs that use them.
import type { KeyStore } from './config/key-store.js';
import { DEFAULT_BASE_URL, readGlobals, type GlobalOptions } from './global-options.js';
import { openOutputTarget, type OutputTarget } from './output/output-target.js';
import { createExporter, type Exporter } from './output/exporter.js';
import { resolveFormat } from './output/format.js';
import type { Progress } from './output/progress.js';
import type { AtResult, LimitsView } from './output/record-schemas.js';
import { OutputSink } from './output/sink.js';
import { readSecret } from './secret-input.js';

/** Query of a market listing, as the client core takes it. */
export interface MarketsQuery {
  coin?: Coin;
  marketType?: MarketType;
  status?: MarketStatus;
  limit?: number;
  offset?: number;
  startTime?: number;
  endTime?: number;
  all?: boolean;
  max?: number;
  /** With `all`: the listing stopped at the plan's data window (instead of the clamping warning). */
  onWindowEnd?: (end: WindowEnd) => void;
}

/** Query of one market's snapshots, as the client core takes it. */
export interface SnapshotsQuery {
  from?: number;
  to?: number;
  includeOrderbook?: boolean;
  pageSize?: number;
  onPage?: (info: { page: number; rows: number; total: number }) => void;
}

/** The part of the HTTP client core (src/client/client.ts) that commands use. */
export interface CliClient {
  health(): Promise<{ status: string; time: number; version: string; rttMs: number }>;
  limits(): Promise<LimitsView>;
  markets(q: MarketsQuery): AsyncIterable<Market>;
  market(id: string): Promise<Market>;
  /** A market's snapshots a page at a time (exports render whole pages). */
  snapshotPages(id: string, q: SnapshotsQuery): AsyncIterable<readonly Snapshot[]>;
  at(marketId: string, ts: number): Promise<AtResult>;
  close(): Promise<void>;
}

/** Where the client connects and with what key, after flags, environment and the key store. */
export interface Connection {
  baseUrl: string;
  apiKey?: string;
  authScheme: 'x-api-key' | 'bearer';
}

/** Builds the real client; tests replace it. */
export type ClientFactory = (conn: Connection, hooks: ClientHooks) => CliClient | Promise<CliClient>;

/** What the CLI wires into the client: its clock, warnings and the --verbose request log. */
export interface ClientHooks {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  onWarning: (message: string) => void;
  onRequest?: (info: { url: string; status: number; ms: number; attempt: number }) => void;
}

/** What a command's run function receives. */
export interface CliDeps {
  now(): number;
  /** The service client; an AuthError when no key is configured. */
  client(): Promise<CliClient>;
  /** Where the client connects (for messages). */
  connection(): Promise<Connection>;
  keyStore(): Promise<KeyStore>;
  exporter(): Promise<Exporter>;
  /** A progress line on stderr (a no-op unless stderr is a terminal and not --quiet). */
  progress(label: string): Promise<Progress>;
  /** `msnap: warning: ...` on stderr, always. */
  warn(message: string): void;
  /** `msnap: note: ...` on stderr, always: something the user should know about the result. */
  note(message: string): void;
  /** A confirmation on stderr, silenced by --quiet. */
  info(message: string): void;
  /** Read a secret from stdin (prompt without echo on a terminal). */
  readSecret(question: string): Promise<string>;
  /** The global --base-url flag as given (for `keys add`). */
  baseUrlFlag(): string | undefined;
}

/** A terminal is no place for a table of 100k snapshots; beyond this the table stops with a note. */
export const TABLE_ROW_CAP = 500;

/** Use to validate a base URL from any source. */
export function checkBaseUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source}: '${value}' is not a URL (like ${DEFAULT_BASE_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source}: '${value}' must be an http:// or https:// URL`);
  }
  return value.replace(/\/+$/, '');
}

/** Flag, then environment, then the active stored key's URL, then the local default. */
export async function resolveConnection(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  store: () => Promise<KeyStore>,
): Promise<Connection> {
  // The store is opened only when a flag or variable does not already decide.
  let active: ReturnType<KeyStore['active']> | null = null;
  const stored = async (): Promise<ReturnType<KeyStore['active']>> => (active ??= (await store()).active());
  let baseUrl: string;
  if (globals.baseUrl !== undefined) baseUrl = checkBaseUrl(globals.baseUrl, '--base-url');
  else if (env.MSNAP_BASE_URL) baseUrl = checkBaseUrl(env.MSNAP_BASE_URL, 'MSNAP_BASE_URL');
  else {
    const url = (await stored())?.baseUrl;
    baseUrl = url ? checkBaseUrl(url, 'stored key') : DEFAULT_BASE_URL;
  }
  const apiKey = globals.apiKey ?? (env.MSNAP_API_KEY || undefined) ?? (await stored())?.key;
  return { baseUrl, authScheme: globals.authScheme ?? 'x-api-key', ...(apiKey ? { apiKey } : {}) };
}

/** Colour is on only for a terminal, without NO_COLOR and without --no-color. */
export function colorEnabled(globals: GlobalOptions, env: NodeJS.ProcessEnv, isTTY: boolean | undefined): boolean {
  return globals.color !== false && !env.NO_COLOR && isTTY === true;
}

interface Lifecycle {
  deps: CliDeps;
  /** Success: close the client and commit the -o file. */
  finish(): Promise<void>;
  /** Failure: close the client and delete the -o temp file. */
  fail(): Promise<void>;
}

/** Build the dependencies of one run; nothing is created until a command asks for it. */
export function buildDeps(ctx: CliContext, globals: GlobalOptions, clientFactory: ClientFactory): Lifecycle {
  let store: KeyStore | undefined;
  let conn: Connection | undefined;
  let client: CliClient | undefined;
  let file: OutputTarget | undefined;
  let sink: OutputSink | undefined;
  let exporter: Exporter | undefined;
  const progresses: Progress[] = [];

  // Decided up front: a bad or conflicting format is a usage error before any request is made.
  // `-o -` is stdout, as in most Unix tools.
  const outputPath = globals.output === '-' ? undefined : globals.output;
  const format = resolveFormat({ ...globals, output: outputPath }, outputPath === undefined && ctx.stdout.isTTY === true);
  const keyStore = async (): Promise<KeyStore> => {
    if (!store) {
      const { KeyStore } = await import('./config/key-store.js');
      store = new KeyStore(ctx.env.MSNAP_CONFIG_DIR || undefined);
    }
    return store;
  };
  const connection = async (): Promise<Connection> => (conn ??= await resolveConnection(globals, ctx.env, keyStore));
  const note = (text: string): void => void ctx.stderr.write(`msnap: ${text}\n`);

  const deps: CliDeps = {
    now: ctx.now,
    connection,
    keyStore,
    baseUrlFlag: () => globals.baseUrl,
    async client() {
      if (client) return client;
      const c = await connection();
      if (!c.apiKey) {
        throw new AuthError(
          'no API key configured',
          'pass --api-key KEY, set MSNAP_API_KEY, or store one with: msnap keys add NAME',
        );
      }
      const shownKey = maskKey(c.apiKey);
      client = await clientFactory(c, {
        now: ctx.now,
        sleep: ctx.sleep,
        onWarning: (message) => deps.warn(message),
        ...(globals.verbose
          ? {
              onRequest: ({ url, status, ms, attempt }) =>
                note(`GET ${url} -> ${status} in ${Math.round(ms)} ms (attempt ${attempt}, key ${shownKey})`),
            }
          : {}),
      });
      return client;
    },
    async exporter() {
      if (exporter) return exporter;
      if (outputPath !== undefined) {
        file = await openOutputTarget(outputPath, ctx.pid ?? process.pid, ctx.onInterrupt);
        sink = new OutputSink(file.stream);
      } else {
        sink = new OutputSink(ctx.stdout);
      }
      const toTerminal = outputPath === undefined && ctx.stdout.isTTY === true;
      exporter = createExporter({
        format,
        sink,
        color: toTerminal && colorEnabled(globals, ctx.env, true),
        ...(toTerminal ? { tableRowCap: TABLE_ROW_CAP, onNote: note } : {}),
      });
      return exporter;
    },
    async progress(label) {
      const { createSpinnerProgress, NO_PROGRESS } = await import('./output/progress.js');
      // Only while the data goes elsewhere: a spinner and a table (or NDJSON) on the same terminal garble each other.
      const dataOnTerminal = outputPath === undefined && ctx.stdout.isTTY === true;
      // A terminal that reports no width (some CI ptys) makes ora's line accounting spin: no spinner there.
      const width = (ctx.stderr as { columns?: number }).columns ?? 0;
      // NO_COLOR / --no-color promise no escape codes at all, and a spinner is made of them.
      const ansi = colorEnabled(globals, ctx.env, ctx.stderr.isTTY);
      if (globals.quiet || !ansi || dataOnTerminal || width <= 0) return NO_PROGRESS;
      const p = createSpinnerProgress(ctx.stderr, label, ctx.now, true);
      progresses.push(p);
      return p;
    },
    warn: (message) => note(`warning: ${message}`),
    note: (message) => note(`note: ${message}`),
    info(message) {
      if (!globals.quiet) ctx.stderr.write(`${message}\n`);
    },
    readSecret: (question) => readSecret(ctx.stdin, ctx.stderr, question),
  };

  const closeAll = async (): Promise<void> => {
    for (const p of progresses) p.stop();
    sink?.detach();
    await client?.close();
  };
  return {
    deps,
    async finish() {
      await closeAll();
      await file?.commit();
    },
    async fail() {
      await closeAll().catch(() => undefined);
      await file?.abort();
    },
  };
}

/** Run a command body with its dependencies, committing output on success and cleaning up on failure. */
export async function runWithDeps(
  ctx: CliContext,
  cmd: Command,
  body: (deps: CliDeps) => Promise<void>,
  clientFactory: ClientFactory = httpClientFactory,
): Promise<void> {
  await runWithGlobals(ctx, readGlobals(cmd), body, clientFactory);
}

/** As runWithDeps, with the global flags already read (tests pass them directly). */
export async function runWithGlobals(
  ctx: CliContext,
  globals: GlobalOptions,
  body: (deps: CliDeps) => Promise<void>,
  clientFactory: ClientFactory = httpClientFactory,
): Promise<void> {
  const life = buildDeps(ctx, globals, clientFactory);
  try {
    await body(life.deps);
  } catch (err) {
    await life.fail();
    throw err;
  }
  await life.finish();
}

/** The real client core (src/client/client.ts). */
export const httpClientFactory: ClientFactory = async (conn, hooks) => {
  const [{ MsnapClient }, { paceStateDir }] = await Promise.all([import('../client/client.js'), import('../client/state-file.js')]);
  return new MsnapClient({
    baseUrl: conn.baseUrl,
    authScheme: conn.authScheme,
    ...(conn.apiKey ? { apiKey: conn.apiKey } : {}),
    now: hooks.now,
    sleep: hooks.sleep,
    onWarning: hooks.onWarning,
    ...(hooks.onRequest ? { onRequest: hooks.onRequest } : {}),
    paceStateDir: paceStateDir(process.env),
  });
};

// The lifecycle of a command's dependencies: each is built lazily, the first time a command asks
// (the HTTP client only when it talks to the service, the key store, the exporter for the chosen
// format and destination, progress, stderr messages), and closed or committed when it ends.
// Tests pass a fake client factory.
import type { Command } from 'commander';
import type { MsnapApi } from '../client/types.js';
import { AuthError, UsageError } from '../errors.js';
import { maskKey, redactKey } from '../client/mask-key.js';
import type { CliContext } from './context.js';
// conf, ora and undici take a large part of a short command's start: imported only by runs that use them.
import type { KeyStore } from './config/key-store.js';
import { resolveConnection, type Connection } from './connection.js';
import { readGlobals, type GlobalOptions } from './global-options.js';
import { openOutputTarget, type OutputTarget } from './output/files/output-target.js';
import { createExporter, type Exporter } from './output/exporter.js';
import { resolveFormat } from './output/format.js';
import type { ParquetCodec } from './output/parquet/parquet-codecs.js';
import type { Progress } from './output/terminal/progress.js';
import { OutputSink } from './output/files/sink.js';
import { readSecret } from './secret-input.js';
import { storeDeps, type StoreDeps } from '../service/store-deps.js';
import { colorEnabled, spinnerAllowed, TABLE_ROW_CAP, tableFit } from './terminal-policy.js';

/** Builds the real client; tests replace it. */
export type ClientFactory = (conn: Connection, hooks: ClientHooks) => MsnapApi | Promise<MsnapApi>;

/** What the CLI wires into the client: its clock, warnings and the --verbose request log. */
export interface ClientHooks {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  onWarning: (message: string) => void;
  /** `msnap: note: ...`: something about the run the user should know (v1 retired, v4 taken). */
  onNote?: (message: string) => void;
  onRequest?: (info: { url: string; status: number; ms: number; attempt: number }) => void;
  /** Before a retry after a network failure or timeout (the user hears why it is taking long). */
  onRetry?: (info: { reason: string; waitMs: number; retry: number; of: number }) => void;
}

/** What a command's run function receives (the `serve` admin commands open their store through StoreDeps). */
export interface CliDeps extends StoreDeps {
  now(): number;
  /**
   * The service client (or, with --db, the local store); an AuthError when no key is configured,
   * unless `keyOptional` (health: its public paths need none).
   */
  client(opts?: { keyOptional?: boolean }): Promise<MsnapApi>;
  keyStore(): Promise<KeyStore>;
  exporter(): Promise<Exporter>;
  /** The exporter of the `serve` admin lists: plain aligned columns, or an indented JSON array with the global --json. */
  listExporter(): Promise<Exporter>;
  /** Standard input, for data read from it (`serve import -`). */
  stdin(): NodeJS.ReadableStream;
  /** Text as given on stdout (a created key, a load's summary line). */
  writeOut(text: string): void;
  /** Text as given on stderr, never silenced (what an admin command did). */
  writeErr(text: string): void;
  /**
   * A progress line on stderr (a no-op unless stderr is a terminal and not --quiet). `resultAtEnd`:
   * the command writes its table only when the work is done, so a spinner may run before it.
   */
  progress(label: string, opts?: { resultAtEnd?: boolean }): Promise<Progress>;
  /** `msnap: warning: ...` on stderr, always. */
  warn(message: string): void;
  /** `msnap: note: ...` on stderr, always: something the user should know about the result. */
  note(message: string): void;
  /** A confirmation on stderr, silenced by --quiet. */
  info(message: string): void;
  /**
   * The one line that ends an export: `msnap: <what> written to FILE|stdout in 3.2 s`; silent with
   * --quiet and for a table on the terminal (the table is the result).
   */
  finished(what: string): void;
  /** Run `say` (synchronously) if Ctrl-C or SIGTERM ends the run; returns the unregister function. */
  onInterrupt(say: () => void): () => void;
  /** Let Ctrl-C (and with `sigterm`, SIGTERM) end the run gracefully by calling `stop` (a second Ctrl-C interrupts); returns the unregister function. */
  onStop(stop: () => void, opts?: { sigterm?: boolean }): () => void;
  /** The context's sleep: resolves after ms, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Read a secret from stdin (prompt without echo on a terminal). */
  readSecret(question: string): Promise<string>;
  /** The base URL the service client talks to (pull records it as each market's origin). */
  serviceUrl(): Promise<string>;
  /** The global --base-url flag as given (for `keys add`). */
  baseUrlFlag(): string | undefined;
  /** The global --api flag as given (for `keys add`). */
  apiFlag(): string | undefined;
  /** Text with the run's API key (once the client has resolved it) replaced by its mask: for text leaving the process another way than stderr. */
  redact(text: string): string;
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
  let client: MsnapApi | undefined;
  let file: OutputTarget | undefined;
  let sink: OutputSink | undefined;
  let exporter: Exporter | undefined;
  const progresses: Progress[] = [];
  let summary: string | undefined;
  const startedAt = ctx.now();

  // Decided up front: a bad or conflicting format is a usage error before any request is made.
  // `-o -` is stdout, as in most Unix tools.
  const outputPath = globals.output === '-' ? undefined : globals.output;
  const format = resolveFormat({ ...globals, output: outputPath }, outputPath === undefined && ctx.stdout.isTTY === true);
  if (globals.compression !== undefined && format !== 'parquet') {
    throw new UsageError('--compression applies to Parquet output (-o FILE.parquet or --format parquet)');
  }
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
    ...storeDeps(),
    keyStore,
    baseUrlFlag: () => globals.baseUrl,
    apiFlag: () => globals.api,
    serviceUrl: async () => (await connection()).baseUrl,
    async client(opts = {}) {
      if (client) return client;
      if (globals.db !== undefined) {
        const { openStore } = await import('../lib/store.js');
        client = (await openStore(globals.db, { now: ctx.now })).core;
        return client;
      }
      const c = await connection();
      if (!c.apiKey && opts.keyOptional !== true) {
        throw new AuthError(
          'no API key configured',
          'pass --api-key KEY, set MSNAP_API_KEY, or store one with: msnap keys add NAME',
        );
      }
      const shownKey = c.apiKey ? maskKey(c.apiKey) : 'none';
      client = await clientFactory(c, {
        now: ctx.now,
        sleep: ctx.sleep,
        onWarning: (message) => deps.warn(message),
        onNote: (message) => deps.note(message),
        onRetry: ({ reason, waitMs, retry, of }) =>
          note(`${c.baseUrl}: ${reason}; retrying in ${(waitMs / 1000).toFixed(1)} s (${retry} of ${of})`),
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
        sink = new OutputSink(file.stream, outputPath);
      } else {
        sink = new OutputSink(ctx.dataStdout?.() ?? ctx.stdout, 'stdout');
      }
      const toTerminal = outputPath === undefined && ctx.stdout.isTTY === true;
      exporter = createExporter({
        format,
        sink,
        color: toTerminal && colorEnabled(globals, ctx.env, true),
        ...(globals.compression !== undefined ? { compression: globals.compression as ParquetCodec } : {}),
        ...(toTerminal ? { tableRowCap: TABLE_ROW_CAP, onNote: note } : {}),
        ...(toTerminal ? tableFit(globals, ctx.stdout) : {}),
      });
      return exporter;
    },
    async listExporter() {
      return createExporter({ format: globals.json ? 'json' : 'table', sink: new OutputSink(ctx.stdout, 'stdout'), color: false });
    },
    stdin: () => ctx.stdin,
    writeOut: (text) => void ctx.stdout.write(text),
    writeErr: (text) => void ctx.stderr.write(text),
    async progress(label, opts) {
      const { createLineProgress, createSpinnerProgress, NO_PROGRESS } = await import('./output/terminal/progress.js');
      const dataOnTerminal = outputPath === undefined && ctx.stdout.isTTY === true && opts?.resultAtEnd !== true;
      if (globals.quiet || dataOnTerminal) return NO_PROGRESS;
      const p = spinnerAllowed(globals, ctx.env, ctx.stderr, dataOnTerminal)
        ? createSpinnerProgress(ctx.stderr, label, ctx.now, true)
        : createLineProgress(ctx.stderr, label, ctx.now);
      progresses.push(p);
      return p;
    },
    finished(what) {
      const tableOnTerminal = format === 'table' && outputPath === undefined && ctx.stdout.isTTY === true;
      if (globals.quiet || tableOnTerminal) return;
      const secs = ((ctx.now() - startedAt) / 1000).toFixed(1);
      // Said once the output is really written (the -o file committed), never before a failure.
      summary = `${what} written to ${outputPath ?? 'stdout'} in ${secs} s`;
    },
    warn: (message) => note(`warning: ${message}`),
    note: (message) => note(`note: ${message}`),
    info(message) {
      if (!globals.quiet) ctx.stderr.write(`${message}\n`);
    },
    readSecret: (question) => readSecret(ctx.stdin, ctx.stderr, question),
    onInterrupt: (say) => ctx.onInterrupt?.(say) ?? (() => undefined),
    onStop: (stop, opts) => ctx.onStop?.(stop, opts) ?? (() => undefined),
    sleep: (ms, signal) => ctx.sleep(ms, signal),
    redact: (text) => redactKey(text, conn?.apiKey),
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
      if (sink?.failure) throw sink.failure;
      await file?.commit();
      if (sink?.failure) throw sink.failure;
      if (summary !== undefined) note(summary);
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

/**
 * As runWithDeps for the `serve` admin commands: of the global flags only --json counts (it picks
 * their lists' form), so a flag such as serve import's --format is never taken as an output format.
 */
export async function runAdminWithDeps(ctx: CliContext, cmd: Command, body: (deps: CliDeps) => Promise<void>): Promise<void> {
  await runWithGlobals(ctx, { json: readGlobals(cmd).json === true }, body);
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
    await life.finish();
  } catch (err) {
    await life.fail();
    throw err;
  }
}

/** The real client core: the library's createClient (src/lib/client.ts), so the CLI and scripts share one client. */
const httpClientFactory: ClientFactory = async (conn, hooks) => {
  const { createClient } = await import('../lib/client.js');
  return createClient({
    baseUrl: conn.baseUrl,
    authScheme: conn.authScheme,
    api: conn.api,
    ...(conn.apiKey ? { apiKey: conn.apiKey } : { allowNoKey: true }),
    now: hooks.now,
    sleep: hooks.sleep,
    onWarning: hooks.onWarning,
    ...(hooks.onNote ? { onNote: hooks.onNote } : {}),
    ...(conn.timeoutMs !== undefined ? { timeoutMs: conn.timeoutMs } : {}),
    ...(hooks.onRequest ? { onRequest: hooks.onRequest } : {}),
    ...(hooks.onRetry ? { onRetry: hooks.onRetry } : {}),
  }).core;
};

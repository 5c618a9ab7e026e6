// The one error hierarchy of the client and CLI. Each class carries its exit code: this file
// is the exit-code table, and only the CLI entry point (src/cli/main.ts) prints errors and exits.

/** Documented exit codes (docs/commands.md, generated from EXIT_MEANINGS). */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  window: 4,
  rateLimited: 5,
  notFound: 6,
  unreachable: 7,
  busy: 8,
  qualityProblems: 9,
  /** The output could not be written (disk full, a device refusing writes); no partial -o file is left. */
  output: 10,
  /** `msnap worker`: its store's markets differ from a queued sweep's (the job is put back for other workers). */
  storeMismatch: 11,
  /** `msnap paper buy|sell`: the order was rejected or expired unfilled (it is printed first, its reason on stderr). */
  orderRefused: 12,
  /** 128 + the signal's number, as a shell reports a process the signal ended. */
  interrupted: 130,
  terminated: 143,
} as const;

/** Each exit code's short label and meaning: `msnap --help` and docs/commands.md (scripts/commands-doc.js) are written from it. */
export const EXIT_MEANINGS: Readonly<Record<keyof typeof EXIT, { label: string; meaning: string }>> = {
  ok: { label: 'ok', meaning: 'success (also when the reader closes early, e.g. `| head`)' },
  unexpected: { label: 'unexpected', meaning: 'unexpected error: a bug, or a 5xx still failing after retries' },
  usage: { label: 'usage', meaning: 'usage: a bad flag, argument, TIME or format, or a 400 from the service' },
  auth: { label: 'auth', meaning: 'authentication: no key configured, or the service answered 401 (wrong, revoked or expired key, ended trial)' },
  window: { label: 'outside plan window', meaning: "outside your plan's data window (403; in v4 402 PLAN_UPGRADE_REQUIRED, or the hosted 403 plan codes)" },
  rateLimited: { label: 'rate-limited', meaning: 'still rate-limited (429) after retries' },
  notFound: { label: 'not found', meaning: 'not found (404): an unknown market id, no snapshot within 2 s of the time' },
  unreachable: { label: 'unreachable', meaning: 'the service is unreachable: nothing listening at the base URL' },
  busy: { label: 'database busy', meaning: "msnap serve's database is busy: another msnap process held its write lock for more than 5 s" },
  qualityProblems: { label: 'quality problems (--strict)', meaning: '`msnap quality --strict` found a problem (the report is written first)' },
  output: { label: 'cannot write the output (disk full)', meaning: 'the output could not be written midway (a full disk on stdout, -o FILE or a pull store); an -o file is left as it was' },
  storeMismatch: { label: 'store differs', meaning: "`msnap worker`: its store's markets differ from a queued sweep's (the fingerprint); the job is put back for the other workers" },
  orderRefused: { label: 'paper order refused', meaning: '`msnap paper buy|sell|post`: the order was rejected (e.g. market_closed, no_liquidity, crosses) or expired unfilled; the order is written first, its reason on stderr' },
  interrupted: { label: 'interrupted (Ctrl-C)', meaning: 'interrupted (Ctrl-C, SIGINT); an -o file in progress is removed' },
  terminated: { label: 'terminated (SIGTERM)', meaning: 'terminated (SIGTERM); an -o file in progress is removed' },
};

/** Use in `--help`: every exit code with its label, on one line. */
export function exitCodeSummary(): string {
  return (Object.keys(EXIT) as (keyof typeof EXIT)[]).map((k) => `${EXIT[k]} ${EXIT_MEANINGS[k].label}`).join(', ');
}

/** Base class: a message for one line on stderr, an exit code, and an optional hint. */
export class MsnapError extends Error {
  readonly exitCode: number = EXIT.unexpected;
  constructor(message: string, readonly hint?: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Thrown when the user's input (flag, argument, time, config) is invalid. */
export class UsageError extends MsnapError {
  override readonly exitCode = EXIT.usage;
}

/** Thrown when the service answers 401 or no key is configured. */
export class AuthError extends MsnapError {
  override readonly exitCode = EXIT.auth;
}

/** Thrown when the service refuses for the plan (v1 403, v4 402 or a hosted 403 plan code): e.g. outside its data window. */
export class WindowError extends MsnapError {
  override readonly exitCode = EXIT.window;
  constructor(message: string, readonly tier?: string, hint?: string) {
    super(message, hint);
  }
}

/** Thrown when requests are still answered 429 after the retry budget is spent. */
export class RateLimitedError extends MsnapError {
  override readonly exitCode = EXIT.rateLimited;
}

/** Thrown when the service answers 404 (unknown market, no snapshot near a time). */
export class NotFoundError extends MsnapError {
  override readonly exitCode = EXIT.notFound;
}

/** Thrown when the service cannot be reached (refused, DNS, timeouts after retries). */
export class UnreachableError extends MsnapError {
  override readonly exitCode = EXIT.unreachable;
}

/** Thrown when `serve` subcommands find the database write-locked by another process past the busy timeout. */
export class DatabaseBusyError extends MsnapError {
  override readonly exitCode = EXIT.busy;
}

/** Thrown by `msnap quality --strict` after the report is written, when it found any problem. */
export class QualityProblemsError extends MsnapError {
  override readonly exitCode = EXIT.qualityProblems;
}

/** Thrown when writing the output fails midway (disk full on stdout or an -o file); the -o file is removed. */
export class OutputError extends MsnapError {
  override readonly exitCode = EXIT.output;
}

/** Thrown by `msnap worker` when its store's markets differ from those a queued sweep was submitted with. */
export class StoreMismatchError extends MsnapError {
  override readonly exitCode = EXIT.storeMismatch;
}

/** Thrown by `msnap paper buy|sell` after writing an order the server rejected or that expired unfilled. */
export class OrderRefusedError extends MsnapError {
  override readonly exitCode = EXIT.orderRefused;
}

/** Thrown for any other HTTP failure (400 from the service, 5xx after retries); keeps status, body and URL. */
export class HttpError extends MsnapError {
  override readonly exitCode: number = EXIT.unexpected;
  constructor(
    message: string,
    readonly status: number,
    readonly url: string,
    readonly body: unknown,
    hint?: string,
  ) {
    super(message, hint);
  }
}

/** Use wherever an error is shown to a person (the CLI's stderr, an MCP tool error): its lines and exit code. */
export function describeError(err: unknown): { lines: string[]; exitCode: number } {
  if (err instanceof MsnapError) {
    return { lines: [`msnap: ${err.message}`, ...(err.hint ? [`hint: ${err.hint}`] : [])], exitCode: err.exitCode };
  }
  return { lines: [`msnap: unexpected error: ${err instanceof Error ? err.message : String(err)}`], exitCode: EXIT.unexpected };
}

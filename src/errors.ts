// The one error hierarchy of the client and CLI. Each class carries its exit code: this file
// is the exit-code table, and only the CLI entry point (src/cli/main.ts) prints errors and exits.

/** Documented exit codes (README "Exit codes"). */
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
  /** 128 + the signal's number, as a shell reports a process the signal ended. */
  interrupted: 130,
  terminated: 143,
} as const;

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

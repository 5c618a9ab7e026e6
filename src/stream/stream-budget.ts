// How much unread stream data the server holds, and for whom. Each stream has its own bound
// (stream-client.ts); on top of it an account's streams share one, smaller for trial accounts
// (anyone can sign up for one), and all streams share one for the whole server, as HTTP bodies
// share theirs (server/response-writer.ts). Past a bound the streams furthest behind are closed
// first: a client that keeps up never holds much, so honest streams are the last to go.

/** Bytes the server keeps for streams whose clients have not read them. */
export interface StreamLimits {
  /** All streams together (serve: MSNAP_STREAM_BUDGET_MB). */
  totalBytes: number;
  /** One account's streams together. */
  accountBytes: number;
  /** One trial account's streams together. */
  trialAccountBytes: number;
  /** One stream of a trial account (a paid account's stream has Backlog.maxBytes). */
  trialStreamBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  totalBytes: 32 * 2 ** 20,
  accountBytes: 16 * 2 ** 20,
  trialAccountBytes: 4 * 2 ** 20,
  trialStreamBytes: 2 * 2 ** 20,
};

/** Use to fill the limits not given (or undefined) with DEFAULT_STREAM_LIMITS'. */
export function streamLimits(given: Partial<StreamLimits> = {}): StreamLimits {
  return {
    totalBytes: given.totalBytes ?? DEFAULT_STREAM_LIMITS.totalBytes,
    accountBytes: given.accountBytes ?? DEFAULT_STREAM_LIMITS.accountBytes,
    trialAccountBytes: given.trialAccountBytes ?? DEFAULT_STREAM_LIMITS.trialAccountBytes,
    trialStreamBytes: given.trialStreamBytes ?? DEFAULT_STREAM_LIMITS.trialStreamBytes,
  };
}

/** What the budget needs to know of one open stream. */
export interface Behind {
  /** Bytes sent to it and not yet taken by its client. */
  readonly unreadBytes: number;
  readonly account: number;
  readonly trial: boolean;
}

/** Use once a tick, before new frames go out: the streams to close (each with the reason to give), furthest behind first. */
export function overBudget<T extends Behind>(streams: readonly T[], limits: StreamLimits): Map<T, string> {
  const closing = new Map<T, string>();
  const byAccount = new Map<number, T[]>();
  for (const s of streams) {
    if (s.trial && s.unreadBytes > limits.trialStreamBytes) closing.set(s, `too slow: more than ${mb(limits.trialStreamBytes)} MB unread (a trial account's stream)`);
    else byAccount.set(s.account, [...(byAccount.get(s.account) ?? []), s]);
  }
  const left: T[] = [];
  for (const mine of byAccount.values()) {
    const cap = mine[0]!.trial ? limits.trialAccountBytes : limits.accountBytes;
    left.push(...shed(mine, cap, closing, `too slow: this account's streams hold more than ${mb(cap)} MB unread; the one furthest behind is closed`));
  }
  shed(left, limits.totalBytes, closing, `too slow: the server's stream buffers (${mb(limits.totalBytes)} MB) are full; the streams furthest behind are closed`);
  return closing;
}

/** Closes the streams furthest behind until the rest hold at most `cap`; returns the rest. */
function shed<T extends Behind>(streams: T[], cap: number, closing: Map<T, string>, reason: string): T[] {
  let held = streams.reduce((n, s) => n + s.unreadBytes, 0);
  if (held <= cap) return streams;
  const sorted = [...streams].sort((a, b) => b.unreadBytes - a.unreadBytes);
  let i = 0;
  for (; i < sorted.length && held > cap; i++) {
    held -= sorted[i]!.unreadBytes;
    closing.set(sorted[i]!, reason);
  }
  return sorted.slice(i);
}

function mb(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}

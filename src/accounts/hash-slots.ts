// Password hashing is the dashboard's one expensive step (scrypt: tens of MiB and of
// milliseconds of CPU each). A few run at once, a few more wait their turn, and beyond that a sign-in or sign-up is
// refused at once (503 + Retry-After), so a flood of them cannot take the CPU (or the memory)
// from the API.
import { availableParallelism } from 'node:os';

/** Thrown by `HashSlots.run` when every slot is busy and the queue is full. */
export class HashesBusyError extends Error {
  /** Retry-After for the refusal. */
  readonly retryAfterSec = 1;
  constructor() {
    super('Too many sign-ins at once; try again in a second.');
    this.name = 'HashesBusyError';
  }
}

/** Concurrent hashes and waiting ones unless told otherwise: half the cores (at least one), a short queue. */
export const DEFAULT_HASH_SLOTS = { concurrent: Math.max(1, Math.floor(availableParallelism() / 2)), queued: 8 } as const;

/** Use one per dashboard: every password hash or check goes through `run`. */
export class HashSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrent: number = DEFAULT_HASH_SLOTS.concurrent,
    readonly queued: number = DEFAULT_HASH_SLOTS.queued,
  ) {}

  /** Runs `work` in a free slot, after waiting for one if the queue has room; throws HashesBusyError otherwise. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrent) {
      if (this.waiting.length >= this.queued) throw new HashesBusyError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next in line (active stays), or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

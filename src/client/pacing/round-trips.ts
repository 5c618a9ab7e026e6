// How much burst reserve the network needs. The server charges a request when it arrives, which
// the client never sees; it only knows the arrival lies between send and answer. Two requests
// sent `g` ms apart can arrive as little as `g - (largest one-way delay - smallest)` apart, and
// a one-way delay is never more than the round trip, so refill worth the largest recent round
// trip covers any reordering the network did lately. The reserve costs its length once per
// burst phase (the refill rate, which is what a long run is paced by, is unchanged), so a
// generous one is cheap while a thin one draws 429s.

/** Round trips remembered: enough to see the network's spikes, few enough to forget an old one. */
const RTT_SAMPLES = 64;
/** Added to the largest round trip: timer lateness and millisecond truncation on both ends. */
const RTT_MARGIN_MS = 10;
/** The reserve before any round trip was measured (the first request goes alone). */
export const INITIAL_RESERVE_MS = 30;

/** Use one per Pacer: record each answered request's round trip, read the reserve to keep. */
export class RoundTrips {
  private readonly samples = new Float64Array(RTT_SAMPLES);
  private count = 0;
  private next = 0;

  /** A request sent at `sentAt` was answered at `doneAt`. */
  record(sentAt: number, doneAt: number): void {
    const ms = Math.max(0, doneAt - sentAt);
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % RTT_SAMPLES;
    this.count = Math.min(RTT_SAMPLES, this.count + 1);
  }

  /** The largest of the recent round trips, or undefined before the first. */
  maxMs(): number | undefined {
    if (this.count === 0) return undefined;
    let max = 0;
    for (let i = 0; i < this.count; i++) max = Math.max(max, this.samples[i]!);
    return max;
  }

  /** Milliseconds of refill to keep in the bucket before a send: the arrival jitter the network can cause. */
  reserveMs(): number {
    const max = this.maxMs();
    return max === undefined ? INITIAL_RESERVE_MS : Math.max(INITIAL_RESERVE_MS, max + RTT_MARGIN_MS);
  }
}

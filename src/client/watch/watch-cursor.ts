// Where a watch stands in one market: the time of the newest snapshot handed on and the ids seen
// at that time. Every source (the first page of history, each poll, each stream frame) passes its
// rows through it, so overlapping sources give each snapshot once, in time order.
import type { Snapshot } from '../../domain/market.js';

/** Use one per market watched; `take` keeps only the rows not handed on yet. */
export class SnapshotCursor {
  /** Time of the newest snapshot handed on (undefined before the first). */
  lastTime: number | undefined;
  // Snapshots can share a millisecond: those already handed on at `lastTime`.
  private idsAtLast = new Set<number>();

  /** The rows of `rows` (oldest first) that come after everything handed on so far. */
  take(rows: readonly Snapshot[]): Snapshot[] {
    const fresh: Snapshot[] = [];
    for (const s of rows) {
      if (this.lastTime !== undefined && (s.time < this.lastTime || (s.time === this.lastTime && this.idsAtLast.has(s.id)))) continue;
      if (s.time !== this.lastTime) {
        this.lastTime = s.time;
        this.idsAtLast.clear();
      }
      this.idsAtLast.add(s.id);
      fresh.push(s);
    }
    return fresh;
  }
}

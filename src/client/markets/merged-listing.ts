// One newest-first market list out of several (a dialect that lists one coin at a time): the
// order the contract gives a list of every coin, newest start first, ties by market_id descending.
import type { Market } from '../../domain/market.js';

function newer(a: Market, b: Market): boolean {
  return a.start_time !== b.start_time ? a.start_time > b.start_time : a.market_id > b.market_id;
}

/** Use to merge lists that are each newest first; each list is read only as far as the merge needs. */
export async function* mergeNewestFirst(lists: AsyncIterable<Market>[]): AsyncGenerator<Market> {
  const its = lists.map((l) => l[Symbol.asyncIterator]());
  const heads = await Promise.all(its.map((it) => it.next()));
  try {
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i]!;
        if (!h.done && (best < 0 || newer(h.value, (heads[best] as IteratorYieldResult<Market>).value))) best = i;
      }
      if (best < 0) return;
      yield (heads[best] as IteratorYieldResult<Market>).value;
      heads[best] = await its[best]!.next();
    }
  } finally {
    await Promise.all(its.map((it) => it.return?.()));
  }
}

/** Use to skip `offset` items of a stream and stop after `max`. */
export async function* slice<T>(items: AsyncIterable<T>, offset: number, max: number): AsyncGenerator<T> {
  let i = 0;
  if (max <= 0) return;
  for await (const item of items) {
    if (i++ < offset) continue;
    yield item;
    if (i - offset >= max) return;
  }
}

// Asks Gamma for markets by slug: `GET {base}/events?slug=SLUG` (the route that answers for 5m
// slugs, REALDATA.md §1), a few at a time.
import { getSourceJson, withDispatcher, type SourceGetOptions } from '../source-get.js';
import { parseGammaEvents, type GammaMarket, type GammaReading } from './gamma-market.js';

/** The markets Gamma knew, the slugs it answered nothing for, and the markets it gave that msnap passes over. */
export interface GammaFetch extends GammaReading {
  missing: string[];
}

/**
 * Use to look markets up on Gamma by slug (see `gammaSlug`), `concurrency` requests at a time
 * (default 4). A slug whose answer holds no market of that slug is `missing`; a 5xx, 429 or
 * network failure is retried with capped, jittered backoff; another 4xx or a source that stays
 * unreachable throws a MsnapError naming the URL.
 */
export async function fetchGammaMarkets(
  baseUrl: string,
  slugs: string[],
  opts: SourceGetOptions & { concurrency?: number } = {},
): Promise<GammaFetch> {
  const base = baseUrl.replace(/\/+$/, '');
  const answers = new Map<string, GammaReading>();
  await withDispatcher(opts, async (o) => {
    const queue = [...new Set(slugs)];
    const worker = async (): Promise<void> => {
      for (let slug = queue.shift(); slug !== undefined; slug = queue.shift()) {
        const url = `${base}/events?slug=${encodeURIComponent(slug)}`;
        try {
          answers.set(slug, parseGammaEvents(await getSourceJson(url, o), url));
        } catch (err) {
          queue.length = 0; // the other workers stop after their request in flight
          throw err;
        }
      }
    };
    const workers = Math.max(1, Math.min(opts.concurrency ?? 4, queue.length));
    await Promise.all(Array.from({ length: workers }, worker));
  });
  const markets = new Map<string, GammaMarket>();
  const result: GammaFetch = { markets: [], skipped: [], missing: [] };
  // In the order asked, whatever order the answers came in.
  for (const slug of new Set(slugs)) {
    const answer = answers.get(slug)!;
    for (const m of answer.markets) markets.set(m.marketId, m);
    result.skipped.push(...answer.skipped);
    if (!answer.markets.some((m) => m.slug === slug) && !answer.skipped.some((s) => s.slug === slug)) result.missing.push(slug);
  }
  result.markets = [...markets.values()];
  return result;
}

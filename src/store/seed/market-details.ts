// The hosted service's descriptive market fields for seeded markets: plausible shapes (ids, hex,
// token numbers, volumes, times), drawn from the seed and the market id alone so the same seed
// gives the same values whatever else the run seeds.
import type { MarketDetails } from '../../domain/market.js';
import { mulberry32, type Random } from '../../random/prng.js';

const TEN_MINUTES = 10 * 60_000;
const HOUR = 60 * 60_000;

/**
 * Use for one seeded market: what only an ended market has (volume, liquidity, resolved_at) is null
 * until `now` reaches its end, and otherwise nothing depends on `now`, so the live world writing a
 * market at its end gives the same values as a later seed.
 */
export function seededDetails(seed: number, marketId: string, start: number, end: number, now: number): MarketDetails {
  const random = mulberry32(hash(marketId) ^ Math.imul(seed, 0x9e3779b1));
  // Every value is drawn in the same order whatever the branch, so values never shift.
  const eventId = digits(random, 6 + Math.floor(random() * 3));
  const conditionId = `0x${hex(random, 64)}`;
  const tokenUp = digits(random, 70 + Math.floor(random() * 9));
  let tokenDown = digits(random, 70 + Math.floor(random() * 9));
  while (tokenDown === tokenUp) tokenDown = digits(random, tokenDown.length);
  const volume = Math.round(random() * 250_000_00) / 100;
  const liquidity = Math.round(random() * 40_000_00) / 100;
  const resolvedAt = end + Math.floor(random() * TEN_MINUTES);
  const createdAt = start - HOUR - Math.floor(random() * 47 * HOUR);
  const known = end <= now;
  return {
    event_id: eventId,
    condition_id: conditionId,
    clob_token_up: tokenUp,
    clob_token_down: tokenDown,
    final_volume: known ? volume : null,
    final_liquidity: known ? liquidity : null,
    resolved_at: known ? resolvedAt : null,
    created_at: createdAt,
    updated_at: known ? resolvedAt : start,
  };
}

// FNV-1a: a stable 32-bit number per market id.
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function digits(random: Random, n: number): string {
  let out = String(1 + Math.floor(random() * 9));
  while (out.length < n) out += String(Math.floor(random() * 10));
  return out;
}

function hex(random: Random, n: number): string {
  let out = '';
  while (out.length < n) out += Math.floor(random() * 16).toString(16);
  return out;
}

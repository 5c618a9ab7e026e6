// The paging fields of a list body in the contract's terms, from v1's envelope or v4's.
import { toNumber } from '../../domain/numeric-field.js';

/** The paging fields every page carries after mapping. */
export interface PageFields {
  total: number;
  limit: number;
  offset: number;
  warning?: string;
  nextOffset?: number | null;
}

function warningOf(b: Record<string, unknown>): string | undefined {
  return typeof b['warning'] === 'string' && b['warning'] !== '' ? b['warning'] : undefined;
}

/** Use on a v1 list body: its fields, with what the request implies when the service omits them. */
export function v1Envelope(b: Record<string, unknown>, count: number, askedOffset: number): PageFields {
  const warning = warningOf(b);
  const out = {
    total: toNumber(b['total']) ?? askedOffset + count,
    limit: toNumber(b['limit']) ?? count,
    offset: toNumber(b['offset']) ?? askedOffset,
  };
  return warning === undefined ? out : { ...out, warning };
}

/**
 * Use on a v4 list body: `has_more` and `next_offset` decide the next page; a `total` left out
 * (include_total=false) becomes the least the page proves exists.
 */
export function v4Envelope(b: Record<string, unknown>, count: number, askedOffset: number): PageFields {
  const offset = toNumber(b['offset']) ?? askedOffset;
  const hasMore = b['has_more'] === true;
  const next = hasMore ? (toNumber(b['next_offset']) ?? offset + count) : null;
  const warning = warningOf(b);
  const out = {
    total: toNumber(b['total']) ?? offset + count + (hasMore ? 1 : 0),
    limit: toNumber(b['limit']) ?? count,
    offset,
    nextOffset: next,
  };
  return warning === undefined ? out : { ...out, warning };
}

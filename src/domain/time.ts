// TIME arguments (--from, --to, `msnap at ... <time>`): one parser, pure, given `now`.
import { UsageError } from '../errors.js';

/** What every TIME error message lists, so the user learns all accepted forms at once. */
const TIME_FORMS =
  'epoch milliseconds (13 digits), epoch seconds (10 digits), ISO 8601 (2025-11-22, 2025-11-22T10:00:00Z, ...+01:00), a relative time ago (90s, 30m, 2h, 3d) or now';

/** The TIME line of `--help` for every command that takes a TIME. */
export const TIME_HELP = 'TIME: epoch ms (13 digits), epoch seconds (10 digits), ISO 8601 with a zone, 90s/30m/2h/3d ago, or now.';

const RELATIVE_UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Use for every TIME the user types; returns epoch ms or throws a UsageError naming `label`.
 * Bare numbers must be 13 digits (ms) or 10 digits (seconds, as in market ids): any other length is
 * ambiguous between the two, so it is refused rather than guessed. A date-time without a zone is
 * refused for the same reason (local time or UTC?).
 */
export function parseTime(input: string, now: number, label = 'TIME'): number {
  const value = input.trim();
  const fail = (why: string): never => {
    throw new UsageError(`${label}: ${why}; accepted: ${TIME_FORMS}`);
  };
  if (value === '') return fail('empty time');
  if (value.toLowerCase() === 'now') return now;

  if (/^\d+$/.test(value)) {
    if (value.length === 13) return Number(value);
    if (value.length === 10) return Number(value) * 1000;
    return fail(`'${value}' is ambiguous (${value.length} digits)`);
  }

  const rel = /^(\d+)([smhd])$/i.exec(value);
  if (rel) {
    const ms = Number(rel[1]) * RELATIVE_UNIT_MS[rel[2]!.toLowerCase()]!;
    if (!Number.isSafeInteger(ms)) return fail(`'${value}' is too far back`);
    return now - ms;
  }

  const date = ISO_DATE.exec(value);
  if (date) return checkedUtc(value, [date[1]!, date[2]!, date[3]!, '0', '0', '0', '0'], 0, fail);

  const dt = ISO_DATE_TIME.exec(value);
  if (dt) {
    const zone = dt[8];
    if (!zone) return fail(`'${value}' has no time zone: add Z (UTC) or an offset like +01:00`);
    const offsetMs = zone.toUpperCase() === 'Z' ? 0 : zoneOffsetMs(zone);
    if (offsetMs === undefined) return fail(`'${value}' has an invalid offset`);
    const ms = (dt[7] ?? '0').padEnd(3, '0');
    return checkedUtc(value, [dt[1]!, dt[2]!, dt[3]!, dt[4]!, dt[5]!, dt[6] ?? '0', ms], offsetMs, fail);
  }
  return fail(`'${value}' is not a time`);
}

// Date.UTC rolls 2025-02-30 over to March; reading the fields back catches that instead.
function checkedUtc(value: string, parts: string[], offsetMs: number, fail: (why: string) => never): number {
  const [y, mo, d, h, mi, s, ms] = parts.map(Number) as [number, number, number, number, number, number, number];
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const back = new Date(t);
  if (
    back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d ||
    back.getUTCHours() !== h || back.getUTCMinutes() !== mi || back.getUTCSeconds() !== s
  ) {
    return fail(`'${value}' is not a valid date`);
  }
  return t - offsetMs;
}

function zoneOffsetMs(zone: string): number | undefined {
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = Number(m[3]);
  if (hours > 14 || minutes > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

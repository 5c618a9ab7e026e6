// Wall-clock time in America/New_York, where Polymarket names its hourly and daily crypto
// markets. Intl knows the daylight-saving rules, so no offset table is kept here.

/** A date and hour on the New York wall clock; `month` is 1-12. */
export interface EasternHour {
  year: number;
  month: number;
  day: number;
  hour: number;
}

const FORMAT = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
});

/** Use to read the New York date and hour of an instant (minutes and seconds dropped). */
export function easternHour(ms: number): EasternHour {
  const parts: Record<string, number> = {};
  for (const p of FORMAT.formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts['year']!, month: parts['month']!, day: parts['day']!, hour: parts['hour']! };
}

/** New York's offset from UTC at `ms`, in ms (-4 h in summer, -5 h in winter). */
function offsetMs(ms: number): number {
  const e = easternHour(ms);
  const wall = Date.UTC(e.year, e.month - 1, e.day, e.hour);
  return wall - Math.floor(ms / 3_600_000) * 3_600_000;
}

/**
 * Use for the instant a New York wall-clock hour begins. Days and months out of range roll over
 * as in Date.UTC (day 32 of a month is the 1st of the next). An hour the spring change skips
 * (2 am) is read with the offset before the change; the repeated 1 am of autumn is its first one.
 */
export function easternToUtc(h: EasternHour): number {
  const wall = Date.UTC(h.year, h.month - 1, h.day, h.hour);
  const first = wall - offsetMs(wall);
  const second = wall - offsetMs(first);
  return easternHour(second).hour === h.hour % 24 ? second : first;
}

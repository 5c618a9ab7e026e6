// The rule the backtest end-to-end suites run: buy Up under an ask of 0.45 half a minute in, sell
// over a bid of 0.6, at most two entries a market (the seeded books give it trades of every kind).

/** Use as a test's strategy file (JSON.stringify it). */
export const CHEAP_UP_RULE = {
  name: 'cheap-up',
  side: 'up',
  size: 10,
  entry: [{ field: 'ask', op: '<', value: 0.45 }, { field: 'elapsed_ms', op: '>=', value: 30000 }],
  exit: [{ field: 'bid', op: '>', value: 0.6 }],
  max_entries: 2,
};

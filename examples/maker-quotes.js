// Symmetric maker quotes (docs/backtest.md "Maker orders"): rest a buy of `size` shares on Up and
// on Down at each side's best bid; when the best bid moves away, cancel and post again at the new
// one; every quote lives at most `ttlMs`; stop quoting (and cancel) `stopMs` before the market ends.
// A pair of fills (Up and Down bought at bids summing under 1) pays 1 at settlement whoever wins;
// a fill on one side only is a bet on that side.
//
//   msnap backtest examples/maker-quotes.js BTC,ETH 5m --last 288 --db demo.db --maker-fill queue
export default {
  name: 'maker-quotes',
  params: { size: 5, ttlMs: 30000, maxPosition: 20, stopMs: 30000, ticksBehind: 0 },

  onSnapshot(s, ctx) {
    const { size, ttlMs, maxPosition, stopMs, ticksBehind } = ctx.params;
    if (s.remaining_ms < stopMs) {
      for (const o of ctx.orders) ctx.cancel(o.id);
      return;
    }
    for (const side of ['up', 'down']) {
      const book = side === 'up' ? s.orderbook_up : s.orderbook_down;
      if (!book || book.bids.length === 0) continue;
      // Quote at the best bid, or that many cents behind it (a price the queue model sees drain).
      const bid = Math.round((book.bids[0].price - ticksBehind / 100) * 100) / 100;
      if (!(bid > 0)) continue;
      let quoted = false;
      for (const o of ctx.orders) {
        if (o.side !== side) continue;
        if (o.price === bid) quoted = true;
        else ctx.cancel(o.id);
      }
      if (!quoted && ctx.position(side) + size <= maxPosition) ctx.post(side, 'buy', size, bid, { ttlMs });
    }
  },
};

// The backtest engine's answer for a paper limit order: a module strategy posting the same order
// on the snapshot the paper order went live on (latency 0: live on that very snapshot, as paper
// posts), run over the same snapshots, and its maker fills summed as the paper order line sums
// them. The paper tests hold paper trading to it.
import { runBacktest } from '../../backtest/engine/engine.js';
import type { MakerFillModel } from '../../backtest/model/maker-fill.js';
import { round5, round6 } from '../../backtest/model/rounding.js';
import type { MarketSeries, OutcomeSide } from '../../domain/market-series.js';

/** A limit order as posted: on the snapshot at `liveAt` (data time). */
export interface EnginePost {
  side: OutcomeSide;
  action: 'buy' | 'sell';
  shares: number;
  price: number;
  liveAt: number;
}

/** What the paper order line should show: filled shares, fees, rebates, the newest fill's time, the number of fills. */
export interface EngineFills {
  shares: number;
  fee: number;
  fee_shares: number;
  rebate: number;
  filled_at: number | undefined;
  levels: number;
  /** Each fill's time and shares, oldest first. */
  fills: { time: number; shares: number }[];
}

/** Use with the series of the market's stored snapshots; `through`: only fills on snapshots at or before it count. */
export async function engineMakerFills(series: MarketSeries, post: EnginePost, model: MakerFillModel, cash: number, through = Infinity): Promise<EngineFills> {
  const result = await runBacktest(
    {
      onSnapshot(s, ctx) {
        if (s.time === post.liveAt) ctx.post(post.side, post.action, post.shares, post.price);
      },
    },
    (async function* () {
      yield series;
    })(),
    { cash, maker_fill: model, latency_ms: 0 },
  );
  const trades = result.trades.filter((t) => t.kind === 'maker' && t.filled_at <= through);
  return {
    shares: round6(trades.reduce((n, t) => n + t.shares, 0)),
    fee: round5(trades.reduce((n, t) => n + t.fee, 0)),
    fee_shares: round5(trades.reduce((n, t) => n + t.fee_shares, 0)),
    rebate: round5(trades.reduce((n, t) => n + (t.rebate ?? 0), 0)),
    filled_at: trades.at(-1)?.filled_at,
    levels: trades.length,
    fills: trades.map((t) => ({ time: t.filled_at, shares: t.shares })),
  };
}

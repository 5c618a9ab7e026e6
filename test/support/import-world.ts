// The import e2e tests' world: a PMXT scenario's hour files, saved Gamma answers and Binance kline
// files written to a folder, and the reference NDJSON each market's snapshots must equal.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gammaEventJson, gammaMarketJson } from '../../src/realdata/test-support/gamma-events.js';
import { writePmxtFile } from '../../src/realdata/test-support/pmxt-fixture.js';
import type { NamedScenarioMarket, PmxtScenario } from '../../src/realdata/test-support/pmxt-scenarios.js';
import { klinePricePoints, referenceNdjson, referenceSnapshots, type KlineClose } from '../../src/realdata/test-support/reference-snapshots.js';

const HOUR = 3_600_000;

/** 1s klines over [from, to) as the daily bulk CSV writes them (12 columns, no header), with closes drifting from `base`. */
function klineCsv(from: number, to: number, base: number): { csv: string; closes: KlineClose[] } {
  const lines: string[] = [];
  const closes: KlineClose[] = [];
  let price = base;
  for (let t = from; t < to; t += 1000) {
    const open = price;
    price = Math.round((price + Math.sin(t / 7000) * 3.1) * 100) / 100;
    const close = price.toFixed(2);
    closes.push({ closeTime: t + 999, close });
    lines.push([t, open.toFixed(2), (Math.max(open, price) + 1).toFixed(2), (Math.min(open, price) - 1).toFixed(2), close, '1.5', t + 999, '100.0', 12, '0.7', '50.0', '0'].join(','));
  }
  return { csv: lines.join('\n') + '\n', closes };
}

function gammaFor(markets: readonly NamedScenarioMarket[], winners: Record<string, 'Up' | 'Down' | null> = {}): string {
  return JSON.stringify(
    markets.map((m) => {
      const w = winners[m.marketId] ?? null;
      return gammaEventJson([
        gammaMarketJson({
          conditionId: m.conditionId,
          slug: m.marketId,
          clobTokenIds: JSON.stringify([m.tokenUp, m.tokenDown]),
          eventStartTime: new Date(m.start).toISOString(),
          endDate: new Date(m.end).toISOString(),
          closed: w !== null,
          outcomePrices: JSON.stringify(w === 'Up' ? ['1', '0'] : w === 'Down' ? ['0', '1'] : ['0.5', '0.5']),
        }),
      ]);
    }),
  );
}

/** A scenario written to files. */
export interface Prepared {
  files: string[];
  gamma: string;
  prices: string[];
  closes: Record<'BTC' | 'ETH', KlineClose[]>;
}

/** Use to write a scenario's files in `dir`/`name`. */
export async function prepare(dir: string, name: string, scenario: PmxtScenario, winners: Record<string, 'Up' | 'Down' | null> = {}): Promise<Prepared> {
  const sub = path.join(dir, name);
  mkdirSync(sub, { recursive: true });
  const files: string[] = [];
  for (const f of scenario.files) {
    const file = path.join(sub, f.name);
    await writePmxtFile(file, f.rows, { rowGroupSize: 500 });
    files.push(file);
  }
  const from = scenario.files[0]!.hour - HOUR;
  const to = scenario.files[scenario.files.length - 1]!.hour + 2 * HOUR;
  const btc = klineCsv(from, to, 84_123.45);
  const eth = klineCsv(from, to, 1_612.3);
  const day = new Date(from).toISOString().slice(0, 10);
  const prices = [path.join(sub, `BTCUSDT-1s-${day}.csv`), path.join(sub, `ETHUSDT-1s-${day}.csv`)];
  writeFileSync(prices[0]!, btc.csv);
  writeFileSync(prices[1]!, eth.csv);
  const gamma = path.join(sub, 'events.json');
  writeFileSync(gamma, gammaFor(scenario.markets, winners));
  return { files, gamma, prices, closes: { BTC: btc.closes, ETH: eth.closes } };
}

/** Use for a market's expected `msnap snapshots --orderbook --ndjson` output (its store row id given). */
export function expected(scenario: PmxtScenario, p: Prepared, m: NamedScenarioMarket, rowid: number): string {
  const closes = m.coin === 'ETH' ? p.closes.ETH : p.closes.BTC;
  const coverage = scenario.files.map((f) => ({ from: f.hour, to: f.hour + HOUR }));
  return referenceNdjson(
    referenceSnapshots(
      scenario.rows,
      { marketId: m.marketId, start: m.start, end: m.end, tokenUp: m.tokenUp, tokenDown: m.tokenDown, conditionId: m.conditionId, marketRowid: rowid },
      klinePricePoints(closes),
      { coverage },
    ),
  );
}

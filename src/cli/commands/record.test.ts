import { describe, expect, it } from 'vitest';
import { parseRecordFlags, recordStatusText } from './record.js';
import { DEFAULT_CLOB_WS_URL, DEFAULT_GAMMA_URL, DEFAULT_RTDS_URL, parseRecordPairs } from '../../service/record-settings.js';

describe('record flags', () => {
  it('reads COIN TYPE pairs (duplicates once) and takes each URL from its flag, else the environment, else the default', () => {
    const env = { MSNAP_CLOB_WS_URL: 'ws://clob.env', MSNAP_RTDS_URL: 'ws://rtds.env' };
    const f = parseRecordFlags(['btc', '5m', 'ETH', '15M', 'BTC', '5m'], { db: 'x.db', gammaUrl: 'http://gamma.flag' }, env);
    expect(f.pairs).toEqual([{ coin: 'BTC', type: '5m' }, { coin: 'ETH', type: '15m' }]);
    expect([f.clobUrl, f.rtdsUrl, f.gammaUrl]).toEqual(['ws://clob.env', 'ws://rtds.env', 'http://gamma.flag']);
    const d = parseRecordFlags(['SOL', '1hr'], { db: 'x.db', clobUrl: 'ws://clob.flag' }, env);
    expect([d.clobUrl, d.rtdsUrl, d.gammaUrl]).toEqual(['ws://clob.flag', 'ws://rtds.env', DEFAULT_GAMMA_URL]);
    expect(parseRecordFlags(['BTC', '5m'], { db: 'x.db' }, {})).toMatchObject({ clobUrl: DEFAULT_CLOB_WS_URL, rtdsUrl: DEFAULT_RTDS_URL });
  });

  it('refuses odd arguments, unknown coins or types, each in one line; takes a PostgreSQL store', () => {
    expect(() => parseRecordFlags([], { db: 'x.db' }, {})).toThrow(/COIN TYPE pairs/);
    expect(() => parseRecordFlags(['BTC'], { db: 'x.db' }, {})).toThrow(/COIN TYPE pairs/);
    expect(() => parseRecordFlags(['ADA', '5m'], { db: 'x.db' }, {})).toThrow(/coin/);
    expect(() => parseRecordFlags(['BTC', '7m'], { db: 'x.db' }, {})).toThrow(/market type/);
    expect(parseRecordFlags(['BTC', '5m'], { db: 'postgres://u@h/db' }, {}).db).toBe('postgres://u@h/db');
  });
});

describe('serve --record pairs', () => {
  it('reads COIN:TYPE pairs, comma-separated, each once; refuses anything else in one line', () => {
    expect(parseRecordPairs('BTC:5m, eth:15M,BTC:5m')).toEqual([{ coin: 'BTC', type: '5m' }, { coin: 'ETH', type: '15m' }]);
    for (const bad of ['', 'BTC', 'BTC-5m', 'BTC:5m:1', 'BTC:5m,', 'ADA:5m', 'BTC:7m']) expect(() => parseRecordPairs(bad), bad).toThrow(/^(--record takes|unknown)/);
  });
});

describe('record status line', () => {
  it('shows frames/s, lag and gaps (the progress line shows markets and rows), and says which source is down', () => {
    const s = { frames: 10, badFrames: 0, events: 5, prices: 2, gaps: 1, marketsAdded: 2, snapshots: 100, lagMs: 240, recording: 2, awaitingWinner: 1, connected: { clob: true, rtds: false } };
    expect(recordStatusText(s, 31.6)).toBe('32 frames/s · lag 0.2 s · 1 gap · 1 awaiting a winner · prices down');
  });
});

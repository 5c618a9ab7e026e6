// An undici MockAgent service and a controlled clock for the client's unit tests: no network,
// no real time; every sleep moves the clock instead.
import { MockAgent } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import { marketId, type Market } from '../../domain/market.js';
import { MsnapClient, type ClientOptions } from '../client.js';

/** The base URL every mocked answer is registered under. */
export const BASE = 'http://127.0.0.1:8787';
/** The API key the test clients send. */
export const KEY = 'msk_abcdefghijklmnopqrstuvwxyz012345';
/** The clock's start: 2025-11-22T00:00:00Z. */
export const T0 = 1_763_769_600_000;
/** Response headers of a JSON answer. */
export const JSON_HEADERS = { 'content-type': 'application/json' };

/** A clock whose sleeps are recorded and move time forward at once. */
export interface FakeClock {
  t: number;
  sleeps: number[];
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** Use for the client's clock in tests: sleep returns at once after moving time forward. */
export function fakeClock(start = T0): FakeClock {
  const c: FakeClock = {
    t: start,
    sleeps: [],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.sleeps.push(ms);
      c.t += Math.max(0, ms);
    },
  };
  return c;
}

/** Use in beforeEach: a MockAgent that refuses any request without an interceptor. */
export function mockAgent(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return agent;
}

/** Use for a client over `agent` and `clock`: jitter fixed at 0.5, pacing off unless `extra` says so. */
function testClient(agent: MockAgent, clock: FakeClock, extra: Partial<ClientOptions> = {}): MsnapClient {
  return new MsnapClient({
    baseUrl: BASE,
    apiKey: KEY,
    dispatcher: agent,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    pacing: false,
    ...extra,
  });
}

/** A resolved BTC 5m market starting at `start`, as the service sends it. */
export function market(start: number, extra: Partial<Market> = {}): Market {
  const id = marketId('BTC', '5m', start);
  return {
    market_id: id,
    slug: id,
    coin: 'BTC',
    market_type: '5m',
    status: 'resolved',
    start_time: start,
    end_time: start + 300_000,
    price_start: 97_000,
    price_end: 97_010,
    winner: 'Up',
    snapshot_count: 2400,
    ...extra,
  };
}

/** The query parameters of an intercepted request path. */
export function query(path: string): URLSearchParams {
  return new URL(path, BASE).searchParams;
}

/** A fresh MockAgent and clock for every test, and a client over them. */
export interface MockService {
  agent: MockAgent;
  clock: FakeClock;
  client(extra?: Partial<ClientOptions>): MsnapClient;
}

/** Use at the top of a test file: each test gets its own agent and clock; an unused interceptor fails it. */
export function useMockService(): MockService {
  const s = { client: (extra: Partial<ClientOptions> = {}) => testClient(s.agent, s.clock, extra) } as MockService;
  beforeEach(() => {
    s.agent = mockAgent();
    s.clock = fakeClock();
  });
  afterEach(async () => {
    s.agent.assertNoPendingInterceptors();
    await s.agent.close();
  });
  return s;
}

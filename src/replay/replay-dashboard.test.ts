// The dashboard over a replay view answers at the replay's `now`, as the API does: a market that
// has not started is neither listed nor shown, a running one shows no result.
import { describe, expect, it } from 'vitest';
import { createDashboard } from '../dashboard/dashboard.js';
import { startSession } from '../dashboard/session.js';
import { btc24, ETH_1H, NEWEST_24H, T0 } from '../server/test-support/test-app.js';
import { fixtureStore } from '../server/test-support/fixture.js';
import { ReplayView } from './replay-view.js';

const NOW = NEWEST_24H + 2600;

async function signedInDashboard() {
  const store = fixtureStore();
  const view = new ReplayView(store, () => NOW);
  const dashboard = createDashboard({
    store: view,
    auth: view.accountAuth,
    now: () => T0,
    signupOpen: false,
    keyUsage: () => Promise.resolve({ used: 0, limit: 250 }),
    assets: new Map(),
    log: () => undefined,
  });
  const account = (await store.getAccount('p'))!;
  const cookie = (await startSession(view.accountAuth, account.id, T0))[0]!.split(';')[0]!;
  return (url: string) => dashboard.handle({ method: 'GET', url, body: '', remoteAddress: '10.0.0.1', headers: { host: 'h', cookie } });
}

describe('the dashboard at a replay clock', () => {
  it('lists only markets that have started, and shows a running market without its result', async () => {
    const get = await signedInDashboard();
    const list = await get('/markets');
    expect(list.status).toBe(200);
    expect(list.body).toContain(btc24(0));
    expect(list.body).not.toContain(ETH_1H);
    expect((await get(`/markets/${ETH_1H}`)).status).toBe(404);
    const running = await get(`/markets/${btc24(0)}`);
    expect(running.status).toBe(200);
    // Its stored winner is Up and its price_end 101: neither is known yet, nor its snapshots after NOW.
    expect(running.body).toContain('<dt>Winner</dt><dd>-</dd>');
    expect(running.body).toContain('/ -</dd>');
    const ended = await get(`/markets/${btc24(1)}`);
    expect(ended.body).toContain('<dt>Winner</dt><dd>Up</dd>');
  });
});

// Paper trading against `msnap serve` (an msnap extension on v1 paths; the hosted service has none):
// orders, the account, its order history and reset, over the client's one transport (paced and
// charged like any request; an order is never sent twice, see Transport.post).
import { NotFoundError } from '../../errors.js';
import { errorForStatus } from '../error-map.js';
import { normalizeErrorBody } from '../normalize.js';
import { normalizePaperAccount, normalizePaperOrder, normalizePaperOrders } from './paper-records.js';
import type { PaperAccount, PaperApi, PaperLimitRequest, PaperOrder, PaperOrderRequest, PaperOrdersPage } from './paper-types.js';
import type { ErrorMapper } from '../transport/transport-types.js';
import type { Transport } from '../transport/transport.js';

// A 404 or 405 about the path, not about a market (`No market with id …`) or an order (`No paper
// order with id …`): no paper trading there.
const noPaper = (baseUrl: string): ErrorMapper => (status, body, url, key) => {
  const message = normalizeErrorBody(body).message ?? '';
  if (status === 405 || (status === 404 && !/\bmarket\b.*\b(not found|id)\b|\bno market\b|\bpaper order\b/i.test(message))) {
    return new NotFoundError(`${baseUrl} has no paper trading: it is an msnap serve extension (docs/bots.md), the hosted service has none`);
  }
  return errorForStatus(status, body, url, key);
};

/** Use through MsnapClient.capabilities().paper. */
export class PaperClient implements PaperApi {
  private readonly mapError: ErrorMapper;

  constructor(private readonly transport: Transport) {
    this.mapError = noPaper(transport.baseUrl);
  }

  async order(req: PaperOrderRequest): Promise<PaperOrder> {
    const { body } = await this.transport.post('/v1/paper/orders', req, this.mapError);
    return this.transport.parse(() => normalizePaperOrder(this.transport.object(body, '/v1/paper/orders')['order']), '/v1/paper/orders');
  }

  async post(req: PaperLimitRequest): Promise<PaperOrder> {
    const { body } = await this.transport.post('/v1/paper/orders', req, this.mapError);
    return this.transport.parse(() => normalizePaperOrder(this.transport.object(body, '/v1/paper/orders')['order']), '/v1/paper/orders');
  }

  async cancel(id: number): Promise<PaperOrder> {
    const path = `/v1/paper/orders/${id}/cancel`;
    const { body } = await this.transport.post(path, {}, this.mapError);
    return this.transport.parse(() => normalizePaperOrder(this.transport.object(body, path)['order']), path);
  }

  async account(): Promise<PaperAccount> {
    const { body } = await this.transport.get('/v1/paper/account', {}, undefined, this.mapError);
    return this.transport.parse(() => normalizePaperAccount(body), '/v1/paper/account');
  }

  async orders(q: { limit?: number; offset?: number; open?: boolean } = {}): Promise<PaperOrdersPage> {
    const query = { limit: q.limit, offset: q.offset, ...(q.open ? { status: 'open' } : {}) };
    const { body } = await this.transport.get('/v1/paper/orders', query, undefined, this.mapError);
    return this.transport.parse(() => normalizePaperOrders(body), '/v1/paper/orders');
  }

  async reset(): Promise<PaperAccount> {
    const { body } = await this.transport.post('/v1/paper/reset', {}, this.mapError);
    return this.transport.parse(() => normalizePaperAccount(body), '/v1/paper/reset');
  }
}

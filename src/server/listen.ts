// The socket side: node:http around the pure app, with limits on slow and oversized requests,
// JSON for the errors Node itself would answer, and a graceful close.
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MAX_URL_LENGTH, type App } from './app.js';
import { BodyTooLarge, readBody } from './form-body.js';
import { reasonPhrase } from './http-error.js';
import type { Site } from './site.js';

/** Node answers 431 above this many bytes of request line and headers. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Options of `startServer`. */
export interface ListenOptions {
  app: App;
  /** The web dashboard; it answers only the paths it claims, the API answers every other. */
  dashboard?: Site;
  host: string;
  port: number;
  /** How long `close` waits for in-flight requests before cutting connections. */
  drainMs?: number;
  /** Headers not complete in this many ms get 408 (default 10 s). */
  headersTimeoutMs?: number;
  /** The whole request not complete in this many ms gets 408 (default 30 s, never below the headers timeout). */
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** How often Node looks for requests past their timeouts (its default, 30 s, lets a stalled client linger). */
  timeoutCheckMs?: number;
}

/** A running server: where it listens, and how to stop it. */
export interface RunningServer {
  url: string;
  host: string;
  port: number;
  server: Server;
  /** Stop accepting, finish in-flight requests, close idle keep-alive sockets (the store stays open: its opener closes it). */
  close(): Promise<void>;
}

/** Use to serve `app` on a real socket; resolves once listening (port 0 picks a free port). */
export async function startServer(options: ListenOptions): Promise<RunningServer> {
  const { app } = options;
  let closing = false;

  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(headersTimeout, options.requestTimeoutMs ?? 30_000);
  // Node enforces both timeouts only when it sweeps its connections (every 30 s by default), so a
  // stalled client would hold its socket up to 30 s past the timeout; sweep often enough to matter.
  const connectionsCheckingInterval = options.timeoutCheckMs ?? Math.min(1000, headersTimeout);
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, connectionsCheckingInterval }, (req: IncomingMessage, res: ServerResponse) => {
    // A client that vanishes mid-response is its own problem, never the server's.
    req.on('error', () => {});
    res.on('error', () => {});
    const request = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress ?? 'unknown',
    };
    // An answer that was in flight when close() began ends its connection once written, so the
    // drain does not wait for the keep-alive timeout.
    res.once('finish', () => {
      if (closing) req.socket.end();
    });
    const send = (response: Answer) => {
      if (closing) res.setHeader('Connection', 'close');
      write(res, response);
    };
    const { dashboard } = options;
    // An oversized target is the API's 414 whoever would have answered it.
    if (dashboard && request.url.length <= MAX_URL_LENGTH && dashboard.claims(request.url)) {
      readBody(req)
        .then((body) => dashboard.handle({ ...request, body }))
        .then(send, (err: unknown) => {
          if (!(err instanceof BodyTooLarge)) return void res.destroy();
          res.setHeader('Connection', 'close');
          void app.reject(413, 'The form is too large.', request.remoteAddress).then(send);
        });
      return;
    }
    // handle never rejects: every failure is already an answer (a 503 or a logged 500).
    void app.handle(request).then(send);
  });
  server.headersTimeout = headersTimeout;
  server.requestTimeout = requestTimeout;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;

  // Errors Node catches before a request exists (oversized headers, bad syntax, timeouts) still
  // get a JSON body with the rate-limit headers, then the connection closes.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && !socket.bytesWritten)) {
      socket.destroy();
      return;
    }
    const [status, message] = clientErrorStatus(err.code);
    void app.reject(status, message, socket.remoteAddress ?? 'unknown').then((response) => {
      if (!socket.writable) return void socket.destroy();
      const head = [`HTTP/1.1 ${status} ${reasonPhrase(status)}`];
      for (const [name, value] of Object.entries(response.headers)) head.push(`${name}: ${value}`);
      head.push(`Content-Length: ${Buffer.byteLength(response.body)}`, 'Connection: close', '', '');
      socket.end(head.join('\r\n') + response.body);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const drainMs = options.drainMs ?? 10_000;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), drainMs);
      timer.unref();
      await done;
      clearTimeout(timer);
    })();
    return closed;
  };

  return { url: `http://${host}:${address.port}`, host: address.address, port: address.port, server, close };
}

/** What the listener writes: an API answer, or a dashboard page (whose Set-Cookie may repeat). */
interface Answer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: string;
}

function write(res: ServerResponse, response: Answer): void {
  if (res.destroyed) return;
  res.writeHead(response.status, { ...response.headers, 'Content-Length': Buffer.byteLength(response.body) });
  // end() only once the body has left our buffers: server.close() destroys every connection whose
  // response has ended, flushed or not, which cut large answers to slow readers short on SIGTERM.
  if (res.write(response.body)) res.end();
  else res.once('drain', () => res.end());
}

function clientErrorStatus(code: string | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes.`];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'The request took too long to arrive.'];
    default:
      return [400, 'The request is not valid HTTP.'];
  }
}

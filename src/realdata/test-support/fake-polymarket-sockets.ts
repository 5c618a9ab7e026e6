// Polymarket's two sockets on a local port, for the recorder's tests: the CLOB market channel
// (`/ws/market`) and RTDS (`/rtds`). They answer PING with PONG, keep what each connection
// subscribed to, and send what the test script gives them as text frames, byte for byte. Faults:
// a connection dropped in the middle of a frame, and a stall (the connections go silent and stop
// answering, as a half-open TCP connection does).
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** Which socket. */
export type FakeSocketKind = 'clob' | 'rtds';

/** A running pair of fake sockets. */
export interface FakePolymarketSockets {
  clobUrl: string;
  rtdsUrl: string;
  /** Every message each kind received (subscriptions; PINGs left out). */
  received: Record<FakeSocketKind, string[]>;
  /** Connections accepted so far, per kind. */
  connections: Record<FakeSocketKind, number>;
  /** Called with the assets of each CLOB subscription (the script sends their books, as Polymarket does). */
  onClobSubscribe(fn: (assets: string[]) => void): void;
  /** Sends a text frame to every open, not stalled connection of the kind. */
  send(kind: FakeSocketKind, frame: string): void;
  /** Open connections of a kind that are not stalled. */
  open(kind: FakeSocketKind): number;
  /** Cuts every connection of the kind in the middle of sending `frame`. */
  dropMidFrame(kind: FakeSocketKind, frame: string): void;
  /** Makes the kind's current connections silent: nothing sent, PING unanswered; new connections work. */
  stall(kind: FakeSocketKind): void;
  close(): Promise<void>;
}

/** The first half of an unmasked text frame carrying `text`, as the server would start writing it. */
function halfFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const header = payload.length < 126 ? Buffer.from([0x81, payload.length]) : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 255]);
  return Buffer.concat([header, payload.subarray(0, Math.floor(payload.length / 2))]);
}

/** Use in a test: start on 127.0.0.1, port 0; close() after. */
export async function startFakePolymarketSockets(): Promise<FakePolymarketSockets> {
  const server = createServer((_req, res) => {
    res.writeHead(426);
    res.end();
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const live: Record<FakeSocketKind, Set<WebSocket>> = { clob: new Set(), rtds: new Set() };
  const stalled = new Set<WebSocket>();
  const received: Record<FakeSocketKind, string[]> = { clob: [], rtds: [] };
  const connections: Record<FakeSocketKind, number> = { clob: 0, rtds: 0 };
  let subscribed: (assets: string[]) => void = () => undefined;

  server.on('upgrade', (req, socket, head) => {
    const kind: FakeSocketKind | undefined = req.url === '/ws/market' ? 'clob' : req.url === '/rtds' ? 'rtds' : undefined;
    if (!kind) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      connections[kind]++;
      live[kind].add(ws);
      ws.on('close', () => {
        live[kind].delete(ws);
        stalled.delete(ws);
      });
      ws.on('error', () => undefined);
      ws.on('message', (data) => {
        if (stalled.has(ws)) return;
        const text = data.toString();
        if (text === 'PING') return ws.send('PONG');
        received[kind].push(text);
        if (kind !== 'clob') return;
        try {
          const m = JSON.parse(text) as { assets_ids?: string[]; operation?: string };
          if (Array.isArray(m.assets_ids) && m.operation !== 'unsubscribe') subscribed(m.assets_ids);
        } catch {
          // a test of bad subscriptions would look at `received`
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const socketOf = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket;
  return {
    clobUrl: `ws://127.0.0.1:${port}/ws/market`,
    rtdsUrl: `ws://127.0.0.1:${port}/rtds`,
    received,
    connections,
    onClobSubscribe(fn) {
      subscribed = fn;
    },
    send(kind, frame) {
      for (const ws of live[kind]) if (!stalled.has(ws) && ws.readyState === ws.OPEN) ws.send(frame);
    },
    open(kind) {
      return [...live[kind]].filter((ws) => !stalled.has(ws) && ws.readyState === ws.OPEN).length;
    },
    dropMidFrame(kind, frame) {
      for (const ws of live[kind]) {
        const socket = socketOf(ws);
        socket.write(halfFrame(frame), () => socket.destroy());
        live[kind].delete(ws);
      }
    },
    stall(kind) {
      for (const ws of live[kind]) stalled.add(ws);
    },
    async close() {
      for (const set of Object.values(live)) for (const ws of set) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

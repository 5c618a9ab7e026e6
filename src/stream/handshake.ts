// Whether an upgrade request is a WebSocket opening ws would complete (RFC 6455 4.2.1), checked
// by msnap before ws sees it: ws refuses a bad one with a bare answer, and one refused that late
// used to leave a stream slot taken. Refusals here are the v1 error answers of every request.
import type { IncomingHttpHeaders } from 'node:http';
import { HttpException } from '../server/http-error.js';

/** The shape of a Sec-WebSocket-Key: 16 random bytes in base64. */
const KEY = /^[+/0-9A-Za-z]{22}==$/;

/** Use after admission, before the upgrade: throws the 400 (or 405) that says what the handshake lacks. */
export function checkHandshake(method: string, headers: IncomingHttpHeaders): void {
  const how = 'GET /v1/stream opens a WebSocket (RFC 6455): send Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key over HTTP/1.1';
  if (method !== 'GET') throw new HttpException(405, `The stream is opened with GET, not ${method.slice(0, 16)}.`, {}, { Allow: 'GET' });
  const upgrade = headers.upgrade?.trim().toLowerCase();
  if (upgrade !== 'websocket') throw new HttpException(400, `The request asks to upgrade to ${JSON.stringify((headers.upgrade ?? '').slice(0, 40))}; ${how}.`);
  const key = headers['sec-websocket-key'];
  if (key === undefined || !KEY.test(key)) throw new HttpException(400, `The Sec-WebSocket-Key header is missing or not 16 bytes in base64; ${how}.`);
  const version = headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    throw new HttpException(400, `The Sec-WebSocket-Version header is missing or not supported (13 is); ${how}.`, {}, { 'Sec-WebSocket-Version': '13, 8' });
  }
}

// A server's WebSocket text frame as bytes (RFC 6455 5.2: FIN, opcode 1, unmasked, the payload's
// length in 7, 16 or 64 bits). The stream frames each event once and writes the same bytes to
// every subscriber's socket: no per-socket framing, no per-frame write.

/** Use for a complete, unfragmented text frame of `payload` (UTF-8 JSON). */
export function textFrame(payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const out = Buffer.allocUnsafe(head + n);
  out[0] = 0x81;
  if (n < 126) {
    out[1] = n;
  } else if (n < 65_536) {
    out[1] = 126;
    out.writeUInt16BE(n, 2);
  } else {
    out[1] = 127;
    out.writeBigUInt64BE(BigInt(n), 2);
  }
  payload.copy(out, head);
  return out;
}

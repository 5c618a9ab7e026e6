// A text frame of Polymarket's sockets split into its messages: one JSON message or an array of
// them; `PING`/`PONG` are keep-alive, not data; anything else is a bad frame, skipped by the caller.

/** What a frame held. */
export type FrameMessages = { messages: unknown[] } | { keepAlive: true } | { bad: string };

/** Use per received text frame, before reading its messages. */
export function frameMessages(text: string): FrameMessages {
  const trimmed = text.trim();
  if (trimmed === 'PONG' || trimmed === 'PING' || trimmed === '') return { keepAlive: true };
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return { messages: Array.isArray(parsed) ? parsed : [parsed] };
  } catch {
    return { bad: `not JSON: ${trimmed.slice(0, 60)}` };
  }
}

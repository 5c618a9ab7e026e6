// Where a queued sweep's jobs live: a Redis (the --queue URL), a queue name and msnap's key prefix.
// Every BullMQ object gets its own connection (a worker's and the events' reads block), opened
// here with the settings BullMQ needs, and checked once at start so an unreachable Redis is one
// clear line rather than a silent wait.
import { Redis } from 'ioredis';
import { UnreachableError } from '../../errors.js';
import type { RedisTarget } from '../../ratelimit/redis-url.js';

/** The key prefix of msnap's queues (BullMQ's default is `bull`). */
const QUEUE_PREFIX = 'msnap';

/** Use to reach a queue: its name, its prefix and a new connection each time it is asked. */
export interface QueueConnection {
  name: string;
  prefix: string;
  /** The Redis, safe to print. */
  display: string;
  open(): Redis;
  /** Close every connection opened. */
  close(): Promise<void>;
}

const CHECK_MS = 5000;

/** Use once per run: checks the Redis answers (UnreachableError within 5 s otherwise). */
export async function connectQueue(target: RedisTarget, name: string): Promise<QueueConnection> {
  const opened: Redis[] = [];
  const open = (): Redis => {
    const r = new Redis({
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
      // BullMQ's blocking reads must wait, not fail, while Redis is away.
      maxRetriesPerRequest: null,
      connectionName: `msnap:${name}`,
    });
    r.on('error', () => {});
    opened.push(r);
    return r;
  };
  const conn: QueueConnection = {
    name,
    prefix: QUEUE_PREFIX,
    display: target.display,
    open,
    close: async () => {
      await Promise.all(opened.splice(0).map((r) => r.quit().catch(() => r.disconnect())));
    },
  };
  const probe = open();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new UnreachableError(`cannot reach the queue's Redis at ${target.display} within ${CHECK_MS / 1000} s`)), CHECK_MS);
      }),
    ]);
  } catch (err) {
    await conn.close();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return conn;
}

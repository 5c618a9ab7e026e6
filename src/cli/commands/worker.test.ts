// `msnap worker` flags: a queue and a store are required; every bad value is a one-line UsageError.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { parseWorkerArgs } from './worker.js';

describe('parseWorkerArgs', () => {
  it('reads the queue, the store and the defaults', () => {
    expect(parseWorkerArgs({ queue: 'redis://10.0.0.5', db: 'msnap.db' }, 'box:42')).toEqual({
      queue: expect.objectContaining({ host: '10.0.0.5', port: 6379 }),
      queueName: 'msnap-sweeps',
      db: 'msnap.db',
      lockMs: 30_000,
      name: 'box:42',
    });
    expect(parseWorkerArgs({ queue: 'redis://h', db: 'postgres://p/db', queueName: 'q1', lockMs: '1000', name: 'w2' }, 'x')).toMatchObject({ queueName: 'q1', lockMs: 1000, name: 'w2' });
  });

  it.each([
    [{ db: 'a.db' }, /msnap worker needs --queue redis:\/\/HOST/],
    [{ queue: 'redis://h' }, /msnap worker needs --db STORE/],
    [{ queue: 'redis://h', db: 'a.db', lockMs: '50' }, /--lock-ms must be a whole number >= 100/],
    [{ queue: 'redis://h', db: 'a.db', queueName: 'with space' }, /--queue-name takes letters/],
  ])('refuses %o', (flags, message) => {
    expect(() => parseWorkerArgs(flags, 'x')).toThrow(UsageError);
    expect(() => parseWorkerArgs(flags, 'x')).toThrow(message);
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBulkStore } from '../../store/open-store.js';
import { RawLog, rawFileName } from './raw-log.js';
import { RAW_FILE, replayRaw } from './raw-replay.js';

const HOUR = Date.UTC(2026, 10, 28, 12);
let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

describe('raw files', () => {
  it('rolls over at each hour, and a file cut by a crash is read up to what was flushed', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-raw-'));
    const raw = path.join(dir, 'raw');
    const log = new RawLog(raw);
    log.write({ t: HOUR + 1, src: 'clob', open: true });
    log.write({ t: HOUR + 2, src: 'clob', frame: 'PONG' });
    log.write({ t: HOUR + 3, src: 'rtds', frame: '{"topic":"crypto_prices_chainlink"}' });
    log.flush();
    await new Promise((r) => setTimeout(r, 50));
    // What a crash now leaves: the member flushed so far, without its end.
    const cut = path.join(dir, 'cut', rawFileName(HOUR));
    mkdirSync(path.dirname(cut));
    copyFileSync(path.join(raw, rawFileName(HOUR)), cut);
    log.write({ t: HOUR + 3_600_000, src: 'clob', down: 'closed (1006)' });
    await log.end();
    expect(readdirSync(raw).sort()).toEqual([rawFileName(HOUR), rawFileName(HOUR + 3_600_000)]);
    expect(rawFileName(HOUR)).toMatch(RAW_FILE);

    const store = await openBulkStore(path.join(dir, 'x.db'));
    try {
      const whole = await replayRaw(store.bulk, readdirSync(raw).sort().map((f) => path.join(raw, f)), []);
      expect(whole.lines).toBe(4);
      const partial = await replayRaw(store.bulk, [cut], []);
      expect(partial.lines).toBe(3);
      expect(partial.frames).toBe(2);
    } finally {
      await store.close();
    }
  });
});

// docs/commands.md is generated from the CLI's own --help and the exit-code table: this fails when
// a command, flag or exit code changed and the file was not regenerated (`npm run docs:commands`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS_DOC, renderCommandsDoc } from '../scripts/commands-doc.js';
import { buildIfStale } from './support/msnap-process.js';

describe('docs/commands.md', () => {
  it('is what the built CLI and src/errors.ts say today', async () => {
    await buildIfStale();
    const fresh = await renderCommandsDoc();
    expect(readFileSync(COMMANDS_DOC, 'utf8') === fresh, 'docs/commands.md is stale: run `npm run docs:commands`').toBe(true);
  }, 60_000);

  it('lists every command and every exit code', async () => {
    const fresh = await renderCommandsDoc();
    for (const title of ['## msnap snapshots', '## msnap serve keys create', '## msnap completion', '## Exit codes']) expect(fresh).toContain(title);
    expect(fresh).toMatch(/^\| 143 \| terminated \(SIGTERM\)/m);
  }, 60_000);
});

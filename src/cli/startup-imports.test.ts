// Every command loads the static import graph of main.ts and of its own command module (all of
// them for root help or completion, command-table.ts): what is heavy and used by a few commands
// only must stay behind a dynamic import().
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Modules reachable from `entry` through imports that stay in the emitted JavaScript. */
function staticGraph(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    // `import type` / `export type` vanish on compile; `import('x')` is dynamic by definition.
    for (const m of text.matchAll(/^(import|export)\s+(?!type\s)([^;]*?)\s+from\s+'([^']+)'|^import\s+'([^']+)'/gms)) {
      const spec = m[3] ?? m[4]!;
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  for (const entry of entries) visit(entry);
  return { files, packages };
}

describe('CLI startup', () => {
  // main.ts and every command module command-table.ts loads.
  const table = readFileSync(path.join(SRC, 'cli/command-table.ts'), 'utf8');
  const commands = [...table.matchAll(/import\('\.\/(commands\/[^']+)\.js'\)/g)].map((m) => path.join(SRC, 'cli', `${m[1]}.ts`));
  const { files, packages } = staticGraph([path.join(SRC, 'cli/main.ts'), ...commands]);
  const relative = [...files].map((f) => path.relative(SRC, f));

  it('loads no server, store, importer or key-creation code until a serve command runs', () => {
    expect(relative.filter((f) => /^(server\/|stream\/|store\/sqlite\/sqlite-store|store\/import\/|accounts\/create-key)/.test(f))).toEqual([]);
  });

  it('loads no heavy package until a command needs it', () => {
    expect([...packages].filter((p) => ['better-sqlite3', 'undici', 'conf', 'ora', 'cli-table3', 'hyparquet', 'hyparquet-writer', 'postgres', 'ioredis', 'ws', '@modelcontextprotocol/sdk'].includes(p))).toEqual([]);
  });

  it('loads no backtest engine, replay clock, limiter, dashboard or MCP code until its command runs', () => {
    // Each of these once crept into every start (+34 ms for `msnap markets`, bench figure 10).
    const late = /^(backtest\/(?!sweep\/sweep-plan|engine\/params|strategy\/strategy|strategy\/load-strategy)|replay\/|ratelimit\/(?!redis-url)|dashboard\/(?!signup-default)|mcp\/|lib\/|store\/seed\/(?!seed-defaults)|random\/|realdata\/)/;
    expect(relative.filter((f) => late.test(f))).toEqual([]);
  });

  it('sees the commands themselves (the walk follows real imports)', () => {
    expect(relative).toContain('cli/commands/serve.ts');
    expect(relative).toContain('cli/commands/markets.ts');
    expect(packages.has('commander')).toBe(true);
    expect(commands.length).toBe(18);
  });
});

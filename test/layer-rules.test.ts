// The layer rules of .dependency-cruiser.cjs bite: a tiny tree with one import each rule forbids
// (and one each allows) is cruised with the project's own rules, and exactly the forbidden ones
// come back as violations. `npm run lint:layers` then proves the real tree has none.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './support/msnap-process.js';

const { forbidden } = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: IForbiddenRuleType[] };

// Each file of the tree and what it imports (extensionless: the fixture has no tsconfig).
const TREE: Record<string, string> = {
  'src/cli/arguments.ts': 'export const x = 1;\n',
  'src/cli/commands/serve.ts': "import { x } from '../arguments';\nimport { startService } from '../../service/start-service';\nexport const y = x + startService;\n",
  'src/lib/server.ts': "import { y } from '../cli/commands/serve';\nexport const z = y;\n",
  'src/mcp/tools.ts': "import { x } from '../cli/arguments';\nexport const t = x;\n",
  'src/service/start-service.ts': "import { openStore } from '../store/open-store';\nexport const startService = openStore;\n",
  'src/store/open-store.ts': "export const openStore = 1;\nexport const openLater = () => import('./sqlite/open');\n",
  'src/store/sqlite/open.ts': "import Database from 'better-sqlite3';\nexport const open = Database;\n",
  'src/backtest/series/local-source.ts': "import { open } from '../../store/sqlite/open';\nimport { openStore } from '../../store/open-store';\nexport const s = [open, openStore];\n",
  'src/backtest/driver.ts': "import Database from 'better-sqlite3';\nexport const d = Database;\n",
  'src/mcp/tools.test.ts': "import { x } from '../cli/arguments';\nexport const compared = x;\n",
  'src/store/record-writes.ts': 'export const port = 1;\n',
  'src/store/sqlite/writes/bulk-writer.ts': "import { port } from '../../record-writes';\nexport const BulkWriter = port;\n",
  'src/realdata/live/recorder.ts': "import { port } from '../../store/record-writes';\nimport { BulkWriter } from '../../store/sqlite/writes/bulk-writer';\nexport const r = [port, BulkWriter];\n",
  'src/store/seed/seed.ts': "import { BulkWriter } from '../sqlite/writes/bulk-writer';\nexport const s = BulkWriter;\n",
  'src/realdata/live/recorder.test.ts': "import { BulkWriter } from '../../store/sqlite/writes/bulk-writer';\nexport const t = BulkWriter;\n",
};

let root: string;
let violations: { rule: string; from: string; to: string }[];

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'msnap-layers-'));
  for (const [file, text] of Object.entries(TREE)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const result = await cruise(['src'], {
    baseDir: root,
    validate: true,
    ruleSet: { forbidden },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  });
  const output = result.output as ICruiseResult;
  violations = output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}, 30_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the layer rules', () => {
  it('refuse an import of src/cli from the library and the MCP tools (tests aside)', () => {
    const cli = violations.filter((v) => v.rule === 'only-the-cli-imports-the-cli').map((v) => `${v.from} -> ${v.to}`);
    expect(cli.sort()).toEqual(['src/lib/server.ts -> src/cli/commands/serve.ts', 'src/mcp/tools.ts -> src/cli/arguments.ts']);
  });

  it('refuse a store backend or a driver in the backtest, and allow the port that loads one lazily', () => {
    const backend = violations.filter((v) => v.rule === 'backtest-never-imports-a-backend').map((v) => `${v.from} -> ${v.to}`);
    expect(backend.sort()).toEqual(['src/backtest/driver.ts -> better-sqlite3', 'src/backtest/series/local-source.ts -> src/store/sqlite/open.ts']);
  });

  it('refuse a backend anywhere outside the store backends and open-store.ts (tests aside): the ports are the way in', () => {
    const outside = violations.filter((v) => v.rule === 'only-the-store-ports-reach-a-backend').map((v) => `${v.from} -> ${v.to}`);
    expect(outside.sort()).toEqual([
      'src/backtest/series/local-source.ts -> src/store/sqlite/open.ts',
      'src/realdata/live/recorder.ts -> src/store/sqlite/writes/bulk-writer.ts',
      'src/store/seed/seed.ts -> src/store/sqlite/writes/bulk-writer.ts',
    ]);
  });

  it('find nothing else in the tree: the CLI over the service, the service over the store port', () => {
    const rules = ['only-the-cli-imports-the-cli', 'backtest-never-imports-a-backend', 'only-the-store-ports-reach-a-backend'];
    expect(violations.filter((v) => !rules.includes(v.rule))).toEqual([]);
  });
});

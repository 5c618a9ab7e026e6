// `msnap serve keys create|list|revoke`: accounts and API keys of the local service.
import { Command } from 'commander';
import type { CreatedKey } from '../../accounts/create-key.js';
import { keyStatus, needsRotation, type KeyStatus } from '../../accounts/key-status.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { PLAN_NAMES, parsePlanName, type PlanName } from '../../domain/plans.js';
import { DEFAULT_DB_PATH_HELP, resolveDbPath } from '../../store/sqlite/db-path.js';
import { explainBusy, openServeStore } from './serve-store.js';
import type { Store } from '../../store/store.js';
import type { CliContext } from '../context.js';
import { renderColumns } from '../output/text-columns.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** One row of `keys list`, also its --json record; never holds the key, only its prefix. */
export interface KeyListRecord {
  id: number;
  account: string;
  plan: PlanName;
  trial: boolean;
  prefix: string;
  created_at: number;
  age_days: number;
  status: KeyStatus;
  rotate: boolean;
}

function positiveInt(name: string, value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 1_000_000_000)) throw new UsageError(`${name} must be a positive integer; got "${value.slice(0, 40)}"`);
  return n;
}

/** Creates a key and prints it alone on stdout (details on stderr): it is never shown again. */
export async function runKeysCreate(
  store: Store,
  opts: { account: string; plan?: PlanName; trial: boolean; rpm?: number; burst?: number },
  ctx: CliContext,
): Promise<CreatedKey> {
  const { createApiKey } = await import('../../accounts/create-key.js');
  const created = createApiKey(store, { ...opts, now: ctx.now() });
  const a = created.account;
  const trial = a.trialEndsAt !== null ? `, trial until ${new Date(a.trialEndsAt).toISOString()}` : '';
  const limits = a.requestsPerMinute !== null ? `, ${a.requestsPerMinute} req/min, burst ${a.burstPerSecond}/s` : '';
  ctx.stderr.write(
    `${created.accountCreated ? 'created account' : 'account'} "${a.name}" (${a.plan}${trial}${limits}); ` +
      `key #${created.record.id} (${created.record.prefix}...). Store it now: it is not shown again.\n`,
  );
  ctx.stdout.write(`${created.key}\n`);
  return created;
}

/** The records `keys list` shows, at `now`. */
export function keyListRecords(store: Store, now: number): KeyListRecord[] {
  return store.listKeys().map((k) => ({
    id: k.id,
    account: k.account.name,
    plan: k.account.plan,
    trial: k.account.trialEndsAt !== null,
    prefix: k.prefix,
    created_at: k.createdAt,
    age_days: Math.floor((now - k.createdAt) / DAY_MS),
    status: keyStatus(k, k.account, now),
    rotate: needsRotation(k, now),
  }));
}

/** Renders the list as aligned text columns (rows in, text out). */
export function renderKeyTable(records: readonly KeyListRecord[]): string {
  if (records.length === 0) return 'no keys yet (create one: msnap serve keys create --account NAME --plan builder)\n';
  const head = ['ID', 'ACCOUNT', 'PLAN', 'KEY', 'AGE', 'STATUS', 'ROTATE'];
  const rows = records.map((r) => [
    String(r.id),
    r.account,
    r.trial ? `${r.plan} (trial)` : r.plan,
    `${r.prefix}...`,
    `${r.age_days}d`,
    r.status,
    r.rotate ? 'rotate (>90d)' : '',
  ]);
  return renderColumns(head, rows);
}

/** Revokes key `id` at `now`; NotFoundError when there is no such key, UsageError when already revoked. */
export function runKeysRevoke(store: Store, id: number, ctx: CliContext): void {
  const key = store.listKeys().find((k) => k.id === id);
  if (!key) throw new NotFoundError(`no key with id ${id} (see msnap serve keys list)`);
  if (!store.revokeKey(id, ctx.now())) throw new UsageError(`key ${id} is already revoked`);
  ctx.stderr.write(`revoked key #${id} (${key.prefix}...) of account "${key.account.name}"\n`);
}

async function withStore<T>(raw: { db?: string }, ctx: CliContext, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const db = resolveDbPath(raw.db, ctx.env);
  const store = await openServeStore(db);
  try {
    return await fn(store);
  } catch (err) {
    throw explainBusy(err, db);
  } finally {
    store.close();
  }
}

/** The `serve keys` subcommand group; H2's `serve` adds it. */
export function serveKeysCommand(ctx: CliContext): Command {
  const dbHelp = `SQLite database file (default: ${DEFAULT_DB_PATH_HELP})`;
  const keys = new Command('keys').description('Manage accounts and API keys of the local service');

  keys
    .command('create')
    .description('Create an API key (and its account on first use); prints the key once, alone on stdout')
    .requiredOption('--account <name>', 'account the key belongs to')
    .option('--plan <plan>', `plan of a new account: ${PLAN_NAMES.join('|')}`)
    .option('--trial', 'new account on a 3-day builder trial', false)
    .option('--rpm <n>', 'enterprise: requests per minute')
    .option('--burst <n>', 'enterprise: burst per second')
    .option('--db <file>', dbHelp)
    .addHelpText(
      'after',
      `
Examples:
  $ msnap serve keys create --account alice --plan pro
  $ msnap serve keys create --account bob --trial
  $ msnap serve keys create --account acme --plan enterprise --rpm 5000 --burst 200
  $ KEY=$(msnap serve keys create --account alice)          # a second key for alice`,
    )
    .action(async (raw: { account: string; plan?: string; trial: boolean; rpm?: string; burst?: string; db?: string }) => {
      let plan: PlanName | undefined;
      if (raw.plan !== undefined) {
        plan = parsePlanName(raw.plan);
        if (!plan) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}; got "${raw.plan.slice(0, 40)}"`);
      }
      const rpm = raw.rpm === undefined ? undefined : positiveInt('--rpm', raw.rpm);
      const burst = raw.burst === undefined ? undefined : positiveInt('--burst', raw.burst);
      await withStore(raw, ctx, (store) => runKeysCreate(store, { account: raw.account, plan, trial: raw.trial, rpm, burst }, ctx));
    });

  keys
    .command('list')
    .description('List keys: id, account, plan, key prefix, age, status, rotation flag (never the key)')
    .option('--json', 'print the records as a JSON array', false)
    .option('--db <file>', dbHelp)
    .addHelpText('after', '\nExamples:\n  $ msnap serve keys list\n  $ msnap serve keys list --json | jq \'.[] | select(.rotate)\'')
    .action(async (raw: { json: boolean; db?: string }, cmd: Command) => {
      // The client's global --json is parsed by the root program even after `serve keys list`.
      const json = raw.json || cmd.optsWithGlobals<{ json?: boolean }>().json === true;
      await withStore(raw, ctx, (store) => {
        const records = keyListRecords(store, ctx.now());
        ctx.stdout.write(json ? `${JSON.stringify(records, null, 2)}\n` : renderKeyTable(records));
      });
    });

  keys
    .command('revoke')
    .description('Revoke a key by its id (from keys list); it stops working at once')
    .argument('<id>', 'key id')
    .option('--db <file>', dbHelp)
    .addHelpText('after', '\nExamples:\n  $ msnap serve keys revoke 3')
    .action(async (rawId: string, raw: { db?: string }) => {
      const id = positiveInt('key id', rawId);
      await withStore(raw, ctx, (store) => runKeysRevoke(store, id, ctx));
    });

  return keys;
}

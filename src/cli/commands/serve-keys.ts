// `msnap serve keys create|list|revoke`: accounts and API keys of the local service.
import { MAX_ACCOUNT_NAME_LENGTH } from '../../accounts/sign-up.js';
import { MAX_KEY_NAME_LENGTH, parseKeyName } from '../../accounts/key-name.js';
import { Command } from 'commander';
import type { CreatedKey } from '../../accounts/create-key.js';
import { keyStatus, needsRotation, type KeyStatus } from '../../accounts/key-status.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { PLAN_NAMES, parsePlanName, type PlanName } from '../../domain/plans.js';
import { DEFAULT_DB_PATH_HELP, resolveDbPath } from '../../store/db-path.js';
import type { Store } from '../../store/store.js';
import type { CliContext } from '../context.js';
import { positiveInt } from '../../domain/arguments.js';
import { runAdminWithDeps, type CliDeps } from '../deps.js';
import type { RecordSchema } from '../output/schemas/schema.js';
import { usingStore } from '../../service/store-use.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** One row of `keys list`, also its --json record; never holds the key, only its prefix. */
export interface KeyListRecord {
  id: number;
  account: string;
  plan: PlanName;
  trial: boolean;
  prefix: string;
  name: string | null;
  created_at: number;
  age_days: number;
  /** Epoch ms of the last request it authenticated (written at most once a minute); null: never used. */
  last_used_at: number | null;
  status: KeyStatus;
  rotate: boolean;
}

/** `keys list`: plain aligned columns (ID ACCOUNT PLAN KEY AGE STATUS ROTATE) or an indented JSON array. */
const KEY_LIST_SCHEMA: RecordSchema<KeyListRecord> = {
  tableLayout: 'columns',
  emptyTable: 'no keys yet (create one: msnap serve keys create --account NAME --plan builder)',
  jsonIndent: 2,
  columns: [
    { name: 'id', value: (r) => r.id, label: 'ID' },
    { name: 'account', value: (r) => r.account, label: 'ACCOUNT' },
    { name: 'plan', value: (r) => r.plan, label: 'PLAN', table: (r) => (r.trial ? `${r.plan} (trial)` : r.plan) },
    { name: 'trial', value: (r) => r.trial, table: false },
    { name: 'prefix', value: (r) => r.prefix, label: 'KEY', table: (r) => `${r.prefix}...` },
    { name: 'name', value: (r) => r.name, label: 'NAME', table: (r) => r.name ?? '-' },
    { name: 'created_at', value: (r) => r.created_at, table: false },
    { name: 'age_days', value: (r) => r.age_days, label: 'AGE', table: (r) => `${r.age_days}d` },
    { name: 'last_used_at', value: (r) => r.last_used_at, label: 'LAST_USED', table: (r) => (r.last_used_at === null ? 'never' : utcMinute(r.last_used_at)) },
    { name: 'status', value: (r) => r.status, label: 'STATUS' },
    { name: 'rotate', value: (r) => r.rotate, label: 'ROTATE', table: (r) => (r.rotate ? 'rotate (>90d)' : '') },
  ],
};

/** Checked flags of `serve keys create`. */
export interface KeysCreateOptions {
  db: string;
  account: string;
  plan?: PlanName;
  trial: boolean;
  rpm?: number;
  burst?: number;
  name: string | null;
}

/** Use to check the flags of `serve keys create`; throws UsageError naming the first bad one. */
function parseKeysCreateFlags(
  raw: { account: string; plan?: string; trial: boolean; rpm?: string; burst?: string; db?: string; name?: string },
  env: NodeJS.ProcessEnv,
): KeysCreateOptions {
  let plan: PlanName | undefined;
  if (raw.plan !== undefined) {
    plan = parsePlanName(raw.plan);
    if (!plan) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}; got "${raw.plan.slice(0, 40)}"`);
  }
  if (raw.account.trim().length > MAX_ACCOUNT_NAME_LENGTH) throw new UsageError(`--account must have at most ${MAX_ACCOUNT_NAME_LENGTH} characters`);
  const rpm = raw.rpm === undefined ? undefined : positiveInt('--rpm', raw.rpm);
  const burst = raw.burst === undefined ? undefined : positiveInt('--burst', raw.burst);
  let name: string | null;
  try {
    name = parseKeyName(raw.name);
  } catch (err) {
    throw new UsageError(`--name: ${(err as Error).message}`);
  }
  return { db: resolveDbPath(raw.db, env), account: raw.account, plan, trial: raw.trial, rpm, burst, name };
}

/** Creates a key and prints it alone on stdout (details on stderr): it is never shown again. */
export async function runKeysCreate(opts: KeysCreateOptions, deps: CliDeps): Promise<CreatedKey> {
  const { createApiKey } = await import('../../accounts/create-key.js');
  const { db, ...keyOptions } = opts;
  return usingStore(deps.openStore(db), db, async (store) => {
    const created = await createApiKey(store, { ...keyOptions, now: deps.now() });
    const a = created.account;
    const trial = a.trialEndsAt !== null ? `, trial until ${new Date(a.trialEndsAt).toISOString()}` : '';
    const limits = a.requestsPerMinute !== null ? `, ${a.requestsPerMinute} req/min, burst ${a.burstPerSecond}/s` : '';
    deps.writeErr(
      `${created.accountCreated ? 'created account' : 'account'} "${a.name}" (${a.plan}${trial}${limits}); ` +
        `key #${created.record.id} (${created.record.prefix}...). Store it now: it is not shown again.\n`,
    );
    deps.writeOut(`${created.key}\n`);
    return created;
  });
}

/** A time in keys list: UTC to the minute (a key's last use is recorded at most once a minute). */
function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16)}Z`;
}

/** The records `keys list` shows, at `now`. */
async function keyListRecords(store: Store, now: number): Promise<KeyListRecord[]> {
  return (await store.listKeys()).map((k) => ({
    id: k.id,
    account: k.account.name,
    plan: k.account.plan,
    trial: k.account.trialEndsAt !== null,
    prefix: k.prefix,
    name: k.name,
    created_at: k.createdAt,
    age_days: Math.floor((now - k.createdAt) / DAY_MS),
    last_used_at: k.lastUsedAt,
    status: keyStatus(k, k.account, now),
    rotate: needsRotation(k, now),
  }));
}

/** Writes every key's record through the exporter: a table of aligned columns, or `--json`. */
export async function runKeysList(opts: { db: string }, deps: CliDeps): Promise<void> {
  const records = await usingStore(deps.openStore(opts.db, { mustExist: true }), opts.db, (store) => keyListRecords(store, deps.now()));
  await (await deps.listExporter()).list(KEY_LIST_SCHEMA, records);
}

/** Revokes key `id` at `now`; NotFoundError when there is no such key, UsageError when already revoked. */
export async function runKeysRevoke(opts: { db: string; id: number }, deps: CliDeps): Promise<void> {
  await usingStore(deps.openStore(opts.db, { mustExist: true }), opts.db, async (store) => {
    const key = (await store.listKeys()).find((k) => k.id === opts.id);
    if (!key) throw new NotFoundError(`no key with id ${opts.id} (see msnap serve keys list)`);
    if (!(await store.revokeKey(opts.id, deps.now()))) throw new UsageError(`key ${opts.id} is already revoked`);
    deps.writeErr(`revoked key #${opts.id} (${key.prefix}...) of account "${key.account.name}"\n`);
  });
}

/** The `serve keys` subcommand group. */
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
    .option('--name <text>', `a name for the key, shown in keys list and the dashboard (at most ${MAX_KEY_NAME_LENGTH} characters)`)
    .option('--db <file|url>', dbHelp)
    .addHelpText(
      'after',
      `
Examples:
  $ msnap serve keys create --account alice --plan pro
  $ msnap serve keys create --account bob --trial --name laptop
  $ msnap serve keys create --account acme --plan enterprise --rpm 5000 --burst 200
  $ KEY=$(msnap serve keys create --account alice)          # a second key for alice`,
    )
    .action(async (raw: { account: string; plan?: string; trial: boolean; rpm?: string; burst?: string; db?: string; name?: string }, cmd: Command) => {
      const opts = parseKeysCreateFlags(raw, ctx.env);
      await runAdminWithDeps(ctx, cmd, async (deps) => void (await runKeysCreate(opts, deps)));
    });

  keys
    .command('list')
    .description('List keys: id, account, plan, key prefix, age, status, rotation flag (never the key)')
    .option('--json', 'print the records as a JSON array', false)
    .option('--db <file|url>', dbHelp)
    .addHelpText('after', '\nExamples:\n  $ msnap serve keys list\n  $ msnap serve keys list --json | jq \'.[] | select(.rotate)\'')
    .action(async (raw: { db?: string }, cmd: Command) => {
      // --json picks the list's form through the shared deps (the root program parses it even after `serve keys list`).
      const opts = { db: resolveDbPath(raw.db, ctx.env) };
      await runAdminWithDeps(ctx, cmd, (deps) => runKeysList(opts, deps));
    });

  keys
    .command('revoke')
    .description('Revoke a key by its id (from keys list); it stops working at once')
    .argument('<id>', 'key id')
    .option('--db <file|url>', dbHelp)
    .addHelpText('after', '\nExamples:\n  $ msnap serve keys revoke 3')
    .action(async (rawId: string, raw: { db?: string }, cmd: Command) => {
      const opts = { db: resolveDbPath(raw.db, ctx.env), id: positiveInt('key id', rawId) };
      await runAdminWithDeps(ctx, cmd, (deps) => runKeysRevoke(opts, deps));
    });

  return keys;
}

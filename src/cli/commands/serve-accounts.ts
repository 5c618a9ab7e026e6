// `msnap serve accounts password|plan|list`: the operator's side of dashboard accounts. A
// password lets an account sign in at the dashboard (read without echo, or from a pipe, never
// from an argument); a plan set here replaces the trial.
import { MAX_ACCOUNT_NAME_LENGTH } from '../../accounts/sign-up.js';
import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { PLAN_NAMES, parsePlanName, TRIAL_LENGTH_MS, type PlanName } from '../../domain/plans.js';
import { DEFAULT_DB_PATH_HELP, resolveDbPath } from '../../store/db-path.js';
import type { Store } from '../../store/store.js';
import type { CliContext } from '../context.js';
import { positiveInt } from '../../domain/arguments.js';
import { runAdminWithDeps, type CliDeps } from '../deps.js';
import type { RecordSchema } from '../output/schemas/schema.js';
import { usingStore } from '../../service/store-use.js';

/** One row of `accounts list` (and its --json record). */
export interface AccountListRecord {
  name: string;
  plan: PlanName;
  trial_ends_at: number | null;
  can_sign_in: boolean;
  active_keys: number;
}

/** `accounts list`: plain aligned columns or an indented JSON array. */
const ACCOUNT_LIST_SCHEMA: RecordSchema<AccountListRecord> = {
  tableLayout: 'columns',
  emptyTable: 'no accounts yet (msnap serve accounts password NAME --trial, or sign up at the dashboard)',
  jsonIndent: 2,
  columns: [
    { name: 'name', value: (r) => r.name, label: 'ACCOUNT' },
    { name: 'plan', value: (r) => r.plan, label: 'PLAN' },
    { name: 'trial_ends_at', value: (r) => r.trial_ends_at, label: 'TRIAL ENDS', table: (r) => (r.trial_ends_at === null ? '' : new Date(r.trial_ends_at).toISOString()) },
    { name: 'can_sign_in', value: (r) => r.can_sign_in, label: 'SIGN-IN', table: (r) => (r.can_sign_in ? 'yes' : 'no') },
    { name: 'active_keys', value: (r) => r.active_keys, label: 'ACTIVE KEYS' },
  ],
};

function planOf(value: string): PlanName {
  const plan = parsePlanName(value);
  if (!plan) throw new UsageError(`plan must be one of ${PLAN_NAMES.join(', ')}; got "${value.slice(0, 40)}"`);
  return plan;
}

/** Sets `name`'s dashboard password, creating the account when --plan or --trial says how. */
export async function runAccountsPassword(
  opts: { db: string; name: string; password: string; plan?: PlanName; trial: boolean },
  deps: CliDeps,
): Promise<void> {
  const [{ hashPassword, passwordProblem }, { planChange }] = await Promise.all([
    import('../../accounts/password.js'),
    import('../../accounts/plan-change.js'),
  ]);
  const problem = passwordProblem(opts.password);
  if (problem) throw new UsageError(problem.replace(/^The password/, 'the password').replace(/\.$/, ''));
  const hash = await hashPassword(opts.password);
  await usingStore(deps.openStore(opts.db), opts.db, async (store) => {
    const now = deps.now();
    let account = await store.getAccount(opts.name);
    if (!account) {
      if (opts.plan === undefined && !opts.trial) {
        throw new UsageError(`account "${opts.name}" does not exist yet: give --plan builder|pro|enterprise or --trial to create it`);
      }
      const change = planChange(opts.trial ? 'builder' : opts.plan!);
      account = await store.createAccount({ name: opts.name, ...change, trialEndsAt: opts.trial ? now + TRIAL_LENGTH_MS : null, createdAt: now });
    }
    await store.accountAuth.setPasswordHash(account.id, hash, now);
    deps.writeErr(`password set for account "${account.name}" (${account.plan}); it can sign in at the dashboard (serve's URL)\n`);
  });
}

/** Moves an account to `plan` (ending any trial) and reports the result on stderr. */
export async function runAccountsPlan(opts: { db: string; name: string; plan: PlanName; rpm?: number; burst?: number }, deps: CliDeps): Promise<void> {
  const { planChange } = await import('../../accounts/plan-change.js');
  const change = planChange(opts.plan, opts);
  await usingStore(deps.openStore(opts.db, { mustExist: true }), opts.db, async (store) => {
    const account = await store.getAccount(opts.name);
    if (!account) throw new UsageError(`no account "${opts.name}" (see msnap serve accounts list)`);
    const updated = (await store.accountAuth.setPlan(account.id, change))!;
    const limits = updated.requestsPerMinute !== null ? `, ${updated.requestsPerMinute} req/min, burst ${updated.burstPerSecond}/s` : '';
    deps.writeErr(`account "${updated.name}" is now on the ${updated.plan} plan${limits}${account.trialEndsAt !== null ? ' (trial ended)' : ''}\n`);
  });
}

/** The records `accounts list` shows. */
async function accountListRecords(store: Store, now: number): Promise<AccountListRecord[]> {
  const records: AccountListRecord[] = [];
  for (const a of await store.accountAuth.listAccounts()) {
    records.push({ name: a.name, plan: a.plan, trial_ends_at: a.trialEndsAt, can_sign_in: a.hasPassword, active_keys: await store.countActiveKeys(a.id, now) });
  }
  return records;
}

/** Writes every account's record through the exporter: aligned columns, or `--json`. */
export async function runAccountsList(opts: { db: string }, deps: CliDeps): Promise<void> {
  const records = await usingStore(deps.openStore(opts.db, { mustExist: true }), opts.db, (store) => accountListRecords(store, deps.now()));
  await (await deps.listExporter()).list(ACCOUNT_LIST_SCHEMA, records);
}

/** The `serve accounts` subcommand group. */
export function serveAccountsCommand(ctx: CliContext): Command {
  const dbHelp = `SQLite database file (default: ${DEFAULT_DB_PATH_HELP})`;
  const accounts = new Command('accounts').description('Dashboard accounts of the local service: passwords and plans');

  accounts
    .command('password')
    .description('Set the password an account signs in to the dashboard with (read without echo, or from a pipe)')
    .argument('<account>', 'account name')
    .option('--plan <plan>', `create the account on this plan when it does not exist: ${PLAN_NAMES.join('|')}`)
    .option('--trial', 'create the account on a 3-day builder trial when it does not exist', false)
    .option('--db <file|url>', dbHelp)
    .addHelpText(
      'after',
      `
Examples:
  $ msnap serve accounts password alice                 # prompts for it without echo
  $ msnap serve accounts password bob --plan pro        # creates bob on pro if new
  $ pass show msnap-bob | msnap serve accounts password bob`,
    )
    .action(async (rawName: string, raw: { plan?: string; trial: boolean; db?: string }, cmd: Command) => {
      const name = rawName.trim();
      if (name === '') throw new UsageError('the account name must not be empty');
      if (name.length > MAX_ACCOUNT_NAME_LENGTH) throw new UsageError(`the account name must have at most ${MAX_ACCOUNT_NAME_LENGTH} characters`);
      const plan = raw.plan === undefined ? undefined : planOf(raw.plan);
      if (raw.trial && plan !== undefined && plan !== 'builder') throw new UsageError(`--trial gives builder rights; it cannot be combined with --plan ${plan}`);
      const db = resolveDbPath(raw.db, ctx.env);
      await runAdminWithDeps(ctx, cmd, async (deps) => {
        const password = await deps.readSecret(`password for ${name}: `);
        if (password === '') throw new UsageError('no password given: type it at the prompt or pipe it in');
        await runAccountsPassword({ db, name, password, plan, trial: raw.trial }, deps);
      });
    });

  accounts
    .command('plan')
    .description('Put an account on a plan (a paid plan ends its trial); enterprise may set its own limits')
    .argument('<account>', 'account name')
    .argument('<plan>', PLAN_NAMES.join('|'))
    .option('--rpm <n>', 'enterprise: requests per minute')
    .option('--burst <n>', 'enterprise: burst per second')
    .option('--db <file|url>', dbHelp)
    .addHelpText('after', '\nExamples:\n  $ msnap serve accounts plan alice pro\n  $ msnap serve accounts plan acme enterprise --rpm 5000 --burst 200')
    .action(async (name: string, rawPlan: string, raw: { rpm?: string; burst?: string; db?: string }, cmd: Command) => {
      const opts = {
        db: resolveDbPath(raw.db, ctx.env),
        name,
        plan: planOf(rawPlan),
        rpm: raw.rpm === undefined ? undefined : positiveInt('--rpm', raw.rpm),
        burst: raw.burst === undefined ? undefined : positiveInt('--burst', raw.burst),
      };
      await runAdminWithDeps(ctx, cmd, (deps) => runAccountsPlan(opts, deps));
    });

  accounts
    .command('list')
    .description('List accounts: plan, trial end, whether they can sign in, active keys')
    .option('--json', 'print the records as a JSON array', false)
    .option('--db <file|url>', dbHelp)
    .addHelpText('after', '\nExamples:\n  $ msnap serve accounts list\n  $ msnap serve accounts list --json')
    .action(async (raw: { db?: string }, cmd: Command) => {
      // --json picks the list's form through the shared deps (the root program parses it even after `serve accounts list`).
      const opts = { db: resolveDbPath(raw.db, ctx.env) };
      await runAdminWithDeps(ctx, cmd, (deps) => runAccountsList(opts, deps));
    });

  return accounts;
}

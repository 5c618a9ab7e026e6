// `msnap keys`: named API keys kept in the config file (mode 0600), always shown masked.
import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { maskKey } from '../../client/mask-key.js';
import type { CliContext } from '../context.js';
import { keyNameArg } from '../../domain/arguments.js';
import { checkApi } from '../../client/dialects/dialect.js';
import { checkBaseUrl, DEFAULT_BASE_URL } from '../../client/base-url.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { KEY_SCHEMA } from '../output/schemas/record-schemas.js';

/** Use on a key from the command line or stdin: one token, printable, no spaces. */
function checkKeyValue(key: string): string {
  if (key === '') throw new UsageError('no key given: pass KEY or pipe it on stdin (echo "$KEY" | msnap keys add NAME)');
  if (!/^[\x21-\x7e]+$/.test(key)) throw new UsageError('a key is one word of printable characters, without spaces');
  return key;
}

/** Store KEY (from the argument, else stdin) under NAME and make it active. */
export async function runKeysAdd(name: string, key: string | undefined, deps: CliDeps): Promise<void> {
  const baseFlag = deps.baseUrlFlag();
  const baseUrl = baseFlag === undefined ? undefined : checkBaseUrl(baseFlag, '--base-url');
  const apiFlag = deps.apiFlag();
  const api = apiFlag === undefined ? undefined : checkApi(apiFlag, '--api');
  const value = checkKeyValue(key ?? (await deps.readSecret(`API key for '${name}': `)));
  const saved = (await deps.keyStore()).add(name, value, baseUrl, deps.now(), api);
  const kept = saved.replaced && baseUrl === undefined && saved.baseUrl !== undefined ? ' (kept)' : '';
  deps.info(
    `${saved.replaced ? 'Replaced' : 'Saved'} key '${name}' (${maskKey(value)}) for ${saved.baseUrl ? `${saved.baseUrl}${kept}` : `${DEFAULT_BASE_URL} (default)`}${saved.api ? `, API ${saved.api}` : ''}; it is now the active key.`,
  );
}

/** List stored keys, masked, with the active marker and the rotation flag. */
export async function runKeysList(deps: CliDeps): Promise<void> {
  const entries = (await deps.keyStore()).list(deps.now());
  if (entries.length === 0) deps.info('No stored keys; add one with: msnap keys add NAME');
  await (await deps.exporter()).list(
    KEY_SCHEMA,
    entries.map((e) => ({
      name: e.name,
      key: maskKey(e.key),
      base_url: e.baseUrl ?? DEFAULT_BASE_URL,
      added_at: e.addedAt,
      active: e.active,
      rotate: e.rotationDue,
    })),
  );
  const due = entries.filter((e) => e.rotationDue).map((e) => e.name);
  if (due.length > 0) deps.warn(`key${due.length > 1 ? 's' : ''} older than 90 days, rotate: ${due.join(', ')}`);
}

/** Make NAME the active key. */
export async function runKeysUse(name: string, deps: CliDeps): Promise<void> {
  (await deps.keyStore()).use(name);
  deps.info(`Active key: '${name}'.`);
}

/** Forget NAME. */
export async function runKeysRemove(name: string, deps: CliDeps): Promise<void> {
  const store = await deps.keyStore();
  const wasActive = store.active()?.name === name;
  const next = store.remove(name);
  const after = !wasActive ? '' : next !== undefined ? ` '${next}' is the active key now (msnap keys use NAME picks another).` : ' No key is stored now; add one with: msnap keys add NAME';
  deps.info(`Removed key '${name}'.${after}`);
}

/** The `keys` command and its subcommands. */
export function keysCommand(ctx: CliContext): Command {
  const keys = new Command('keys')
    .description('Manage stored API keys (config file mode 0600; MSNAP_CONFIG_DIR overrides the directory)')
    .addHelpText(
      'after',
      `
Examples:
  $ echo "$MSNAP_KEY" | msnap keys add prod
  $ msnap keys add local --base-url http://127.0.0.1:8787
  $ msnap keys list
  $ msnap keys use prod
  $ msnap keys remove local`,
    );
  keys
    .command('add')
    .description('Store KEY under NAME and make it the active key (KEY read from stdin when omitted)')
    .argument('<name>', 'a name: letters, digits, - or _')
    .argument('[key]', 'the key; omit it to keep it out of shell history (read from stdin, hidden on a terminal)')
    .addHelpText(
      'after',
      `
The global --base-url is stored with the key (default ${DEFAULT_BASE_URL}), and so is --api
(v1, v4 or auto; default auto); a flag or MSNAP_API still overrides the stored version.

Examples:
  $ msnap keys add prod                      # prompts, without echo
  $ pass show msnap | msnap keys add prod    # from a pipe
  $ msnap keys add local msk_abc123 --base-url http://127.0.0.1:8787
  $ msnap keys add hosted --api v4 --base-url https://api.example.com`,
    )
    .action(async (name: string, key: string | undefined, _flags: unknown, cmd: Command) => {
      keyNameArg(name);
      await runWithDeps(ctx, cmd, (deps) => runKeysAdd(name, key, deps));
    });
  keys
    .command('list')
    .description('List stored keys (masked), their base URL, when added, the active one (*) and rotation due')
    .addHelpText('after', '\nExamples:\n  $ msnap keys list\n  $ msnap keys list --json')
    .action(async (_flags: unknown, cmd: Command) => {
      await runWithDeps(ctx, cmd, (deps) => runKeysList(deps));
    });
  keys
    .command('use')
    .description('Make NAME the active key')
    .argument('<name>')
    .addHelpText('after', '\nExamples:\n  $ msnap keys use prod')
    .action(async (name: string, _flags: unknown, cmd: Command) => {
      keyNameArg(name);
      await runWithDeps(ctx, cmd, (deps) => runKeysUse(name, deps));
    });
  keys
    .command('remove')
    .description('Forget the key stored as NAME')
    .argument('<name>')
    .addHelpText('after', '\nExamples:\n  $ msnap keys remove old')
    .action(async (name: string, _flags: unknown, cmd: Command) => {
      keyNameArg(name);
      await runWithDeps(ctx, cmd, (deps) => runKeysRemove(name, deps));
    });
  return keys;
}

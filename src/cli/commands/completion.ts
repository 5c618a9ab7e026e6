// `msnap completion bash|zsh|fish` prints a script that makes the shell complete msnap's commands,
// flags and values; the script asks `msnap complete -- WORDS...` (hidden) for each completion.
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { COMPLETION_SHELLS, type CompletionValues } from '../completion/completion-tree.js';

// Stored key names for `keys use|remove`: a completion must never fail, so an unreadable config
// gives none.
async function completionValues(ctx: CliContext): Promise<CompletionValues> {
  try {
    const { KeyStore } = await import('../config/key-store.js');
    const store = new KeyStore(ctx.env.MSNAP_CONFIG_DIR || undefined);
    return { keyNames: store.list(ctx.now()).map((k) => k.name) };
  } catch {
    return { keyNames: [] };
  }
}

// The generated bash script reads the command line with bash-completion's _get_comp_words_by_ref;
// where that package is not installed, this stand-in reads the same from COMP_WORDS instead.
const BASH_WORDS_FALLBACK = [
  '# msnap: a stand-in for bash-completion\'s _get_comp_words_by_ref where it is not installed',
  'if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then',
  '_get_comp_words_by_ref() {',
  '    while [[ "$1" == -* ]]; do shift 2; done',
  '    printf -v "$1" "%s" "${COMP_WORDS[COMP_CWORD]}"',
  '    printf -v "$2" "%s" "${COMP_WORDS[COMP_CWORD-1]}"',
  '    eval "$3=(\\"\\${COMP_WORDS[@]}\\")"',
  '    printf -v "$4" "%s" "$COMP_CWORD"',
  '}',
  'fi',
  '',
].join('\n');

async function tree(program: Command, ctx: CliContext) {
  const { completionTree } = await import('../completion/completion-tree.js');
  return completionTree(program, await completionValues(ctx));
}

/** The `completion` command (visible) and the `complete` command the scripts call (hidden). */
export function completionCommands(ctx: CliContext): Command[] {
  const script = new Command('completion')
    .description('Print a shell completion script (commands, flags, coins, types, formats, stored key names)')
    .argument('<shell>', COMPLETION_SHELLS.join(', '))
    .addHelpText(
      'after',
      `
The script calls \`msnap\` from PATH at each TAB.

Examples:
  $ source <(msnap completion bash)                       # this shell; add to ~/.bashrc to keep
  $ msnap completion zsh > "\${fpath[1]}/_msnap"
  $ msnap completion fish > ~/.config/fish/completions/msnap.fish`,
    )
    .action(async (shell: string, _flags: unknown, cmd: Command) => {
      const { UsageError } = await import('../../errors.js');
      if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
        throw new UsageError(`unknown shell '${shell}'; use one of: ${COMPLETION_SHELLS.join(', ')}`);
      }
      const root = await tree(cmd.parent!, ctx);
      if (shell === 'bash') ctx.stdout.write(BASH_WORDS_FALLBACK);
      root.setup('msnap', 'msnap', shell);
    });
  const complete = new Command('complete')
    .description('Completions for the words after --; called by the completion scripts')
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[], _flags: unknown, cmd: Command) => {
      (await tree(cmd.parent!, ctx)).parse(words);
    });
  return [script, complete];
}

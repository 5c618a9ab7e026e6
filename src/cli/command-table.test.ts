// Loading one command: the word that names it is found past the global options and their values,
// and the command it builds is the very one the whole tree holds (same help, same options).
import { Command } from 'commander';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandToLoad } from './command-table.js';
import type { CliContext } from './context.js';
import { addGlobalOptions } from './global-options.js';
import { buildProgram } from './main.js';

const root = addGlobalOptions(new Command());

function ctx(): CliContext {
  const out = Object.assign(new PassThrough(), { isTTY: false, columns: 100 });
  return { stdout: out, stderr: out, stdin: new PassThrough(), env: {}, now: () => 0, sleep: async () => undefined } as unknown as CliContext;
}

describe('commandToLoad', () => {
  it('finds the command after global options, with their values in the next word or the same one', () => {
    expect(commandToLoad(['snapshots', 'BTC', '5m'], root)).toBe('snapshots');
    expect(commandToLoad(['--api-key', 'markets', 'snapshots', 'BTC', '5m'], root)).toBe('snapshots');
    expect(commandToLoad(['--api-key=k', 'at', 'x', '1'], root)).toBe('at');
    expect(commandToLoad(['-o', 'serve', 'markets'], root)).toBe('markets');
    expect(commandToLoad(['--quiet', '--timeout', '5', 'serve'], root)).toBe('serve');
  });

  it('loads everything where one command cannot be told: help, version, completion, a typo, an unknown option', () => {
    for (const argv of [[], ['--help'], ['help', 'snapshots'], ['-V'], ['completion', 'bash'], ['snapshot', 'BTC'], ['--nope', 'markets'], ['--', 'markets']]) {
      expect(commandToLoad(argv, root), argv.join(' ')).toBeUndefined();
    }
  });
});

describe('buildProgram with one command', () => {
  it('builds each command as the whole tree has it', async () => {
    const whole = await buildProgram(ctx());
    const helpOf = (program: Command, name: string): string => {
      const cmd = program.commands.find((c) => c.name() === name)!;
      return cmd.helpInformation() + cmd.commands.map((sub) => sub.helpInformation()).join('');
    };
    for (const { name } of COMMANDS) {
      const alone = await buildProgram(ctx(), [name]);
      const shown = alone.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden).map((c) => c.name());
      // Completion walks the whole tree, so naming it loads every command.
      expect(shown).toEqual(name === 'completion' ? COMMANDS.map((c) => c.name) : [name]);
      expect(helpOf(alone, name), name).toBe(helpOf(whole, name));
    }
    expect(whole.commands.map((c) => c.name())).toEqual([...COMMANDS.map((c) => c.name), 'complete']);
  });
});

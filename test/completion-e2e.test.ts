// Shell completion in real shells: bash's own completion machinery calling the generated script
// (function calls with COMP_WORDS, and TAB pressed on an interactive bash in tmux), and the zsh and
// fish scripts syntax-checked by those shells where they are installed.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, buildIfStale, msnap } from './support/msnap-process.js';

const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-completion-'));
  // The scripts call `msnap` from PATH, as they will for a user who installed the package.
  mkdirSync(path.join(dir, 'bin'));
  writeFileSync(path.join(dir, 'bin', 'msnap'), `#!/bin/sh\nexec node '${BIN}' "$@"\n`);
  chmodSync(path.join(dir, 'bin', 'msnap'), 0o755);
  env = { PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, MSNAP_CONFIG_DIR: path.join(dir, 'config'), HOME: dir };
  for (const name of ['prod', 'staging']) {
    const r = await msnap(['keys', 'add', name], { env, input: 'msk_0123456789abcdefghijklmnopqrstuv\n' });
    expect(r.exitCode, r.stderr).toBe(0);
  }
  writeFileSync(path.join(dir, 'msnap.bash'), (await msnap(['completion', 'bash'], { env })).stdout);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Runs the completion function the way bash's programmable completion does, for each line.
function bashComplete(lines: string[]): string[] {
  const script = `
source '${path.join(dir, 'msnap.bash')}'
[[ "$(complete -p msnap)" == "complete -F __msnap_complete msnap" ]] || exit 3
for line in "$@"; do
  COMP_LINE="$line"; COMP_POINT=\${#COMP_LINE}
  read -ra COMP_WORDS <<< "$COMP_LINE"
  [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  __msnap_complete 2>/dev/null
  echo "\${COMPREPLY[*]}"
done`;
  return execFileSync('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...lines], { env: { ...process.env, ...env }, encoding: 'utf8' }).split('\n').slice(0, -1);
}

describe('msnap completion bash', () => {
  it('completes commands, subcommands, flags, coins, types, formats, intervals and stored key names', () => {
    expect(
      bashComplete([
        'msnap sn',
        'msnap ',
        'msnap snapshots ',
        'msnap snapshots BTC ',
        'msnap snapshots BTC 5m --res',
        'msnap snapshots BTC 5m --resample ',
        'msnap markets --coin ',
        'msnap markets --format ',
        'msnap snapshots ETH 1hr --compression ',
        'msnap keys use ',
        'msnap keys remove st',
        'msnap serve ',
        'msnap completion ',
        'msnap watch ',
        'msnap paper ',
      ]),
    ).toEqual([
      'snapshots',
      'markets snapshots at watch pull quality chart backtest worker limits health keys paper mcp import record serve completion',
      'BTC ETH SOL',
      '5m 15m 1hr 4hr 24hr',
      '--resample',
      '1s 5s 1m 5m 1h',
      'BTC ETH SOL',
      'table csv ndjson json parquet',
      'snappy gzip brotli none',
      'prod staging',
      'staging',
      'seed import keys accounts compact-books',
      'bash zsh fish',
      'BTC ETH SOL',
      'buy sell post cancel account positions orders reset',
    ]);
  });

  it.skipIf(!has('tmux'))('completes on TAB in an interactive bash (tmux)', async () => {
    const socket = `msnap-completion-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    writeFileSync(path.join(dir, 'rc'), `PS1='$ '\nexport PATH='${env.PATH}' MSNAP_CONFIG_DIR='${env.MSNAP_CONFIG_DIR}'\nsource '${path.join(dir, 'msnap.bash')}'\n`);
    tmux('new-session', '-d', '-x', '150', '-y', '10', `bash --noprofile --rcfile '${path.join(dir, 'rc')}' -i`);
    // The pane shows what bash's readline did; poll it (each TAB runs msnap once). The pane drops
    // trailing spaces, so a marker typed after the TAB shows the space completion added.
    const lastLine = (): string => tmux('capture-pane', '-p', '-t', '0').trimEnd().split('\n').at(-1) ?? '';
    const until = async (want: RegExp): Promise<string> => {
      let line = lastLine();
      for (let i = 0; i < 150 && !want.test(line); i++) {
        await new Promise((r) => setTimeout(r, 100));
        line = lastLine();
      }
      return line;
    };
    const typed = async (keys: string, completed: string): Promise<string> => {
      tmux('send-keys', '-t', '0', 'C-u', keys, 'Tab');
      await until(new RegExp(`${completed}$`));
      tmux('send-keys', '-t', '0', '#');
      return until(/#$/);
    };
    try {
      expect(await until(/^\$$/)).toBe('$');
      expect(await typed('msnap snapshots BTC 1h', '1hr')).toBe('$ msnap snapshots BTC 1hr #');
      expect(await typed('msnap markets --format pa', 'parquet')).toBe('$ msnap markets --format parquet #');
      expect(await typed('msnap keys use pr', 'prod')).toBe('$ msnap keys use prod #');
    } finally {
      tmux('kill-server');
    }
  });

  it('refuses a shell it has no script for', async () => {
    const r = await msnap(['completion', 'tcsh'], { env });
    expect([r.exitCode, r.stderr]).toEqual([2, "msnap: unknown shell 'tcsh'; use one of: bash, zsh, fish"]);
  });
});

describe('msnap completion zsh|fish', () => {
  // CI does not install zsh or fish; where they exist, the shell itself checks the script's syntax.
  it.skipIf(!has('zsh'))('zsh accepts the script (zsh -n)', async () => {
    const file = path.join(dir, '_msnap');
    writeFileSync(file, (await msnap(['completion', 'zsh'], { env })).stdout);
    expect(spawnSync('zsh', ['-n', file]).status).toBe(0);
  });

  it.skipIf(!has('fish'))('fish accepts the script (fish --no-execute)', async () => {
    const file = path.join(dir, 'msnap.fish');
    writeFileSync(file, (await msnap(['completion', 'fish'], { env })).stdout);
    expect(spawnSync('fish', ['--no-execute', file]).status).toBe(0);
  });

  it('both scripts ask `msnap complete --` for their words, which answers with the directive line', async () => {
    for (const shell of ['zsh', 'fish']) {
      const r = await msnap(['completion', shell], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('msnap complete --');
    }
    const answer = await msnap(['complete', '--', 'quality', 'SOL', ''], { env });
    expect(answer.stdout.split('\n')).toEqual(['5m\t', '15m\t', '1hr\t', '4hr\t', '24hr\t', ':4']);
  });
});

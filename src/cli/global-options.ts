// Options every client command takes, declared once on the program; commander recognises them
// before and after the subcommand (`msnap --csv markets` = `msnap markets --csv`).
import { Command, InvalidArgumentError, Option } from 'commander';
import { API_CHOICES } from '../client/dialects/dialect.js';
import { DEFAULT_BASE_URL } from '../client/base-url.js';
import { OUTPUT_FORMATS } from './output/format.js';
import { PARQUET_CODECS } from './output/parquet/parquet-codecs.js';

/** The global flags as commander hands them to an action (`cmd.optsWithGlobals()`). */
export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  authScheme?: 'x-api-key' | 'bearer';
  /** v1, v4 or auto (checked by commander). */
  api?: string;
  format?: string;
  csv?: boolean;
  ndjson?: boolean;
  json?: boolean;
  output?: string;
  quiet?: boolean;
  verbose?: boolean;
  /** Parquet compression codec. */
  compression?: string;
  /** Seconds to wait for a connection or an answer, as given. */
  timeout?: string;
  /** Tables as wide as their content instead of fitted to the terminal. */
  wide?: boolean;
  /** False with --no-color. */
  color?: boolean;
  /** --db FILE|URL of the read commands: read this local store instead of a service. */
  db?: string;
}

/**
 * Use for an option with a fixed set of values: as coins and market types, any case is accepted
 * (`--format CSV`); help still lists the choices.
 */
export function caselessChoices(option: Option, values: readonly string[]): Option {
  return option.choices(values).argParser((value: string) => {
    const lower = value.toLowerCase();
    if (!values.includes(lower)) throw new InvalidArgumentError(`Allowed choices are ${values.join(', ')}.`);
    return lower;
  });
}

/** Use on each command that can read a local store instead of the service (markets, snapshots, at, quality, chart). */
export function addLocalDbOption(cmd: Command): Command {
  return cmd.option('--db <file|url>', 'read this local store (an SQLite file or postgres:// URL that msnap pull, serve seed or import filled) directly: no server, key or limits');
}

/** Use once, on the program. */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--base-url <url>', `service URL (env MSNAP_BASE_URL, else the active stored key's URL, else ${DEFAULT_BASE_URL})`)
    .option('--api-key <key>', 'API key (env MSNAP_API_KEY, else the active stored key)')
    .addOption(caselessChoices(new Option('--auth-scheme <scheme>', 'how the key is sent'), ['x-api-key', 'bearer']))
    .option('--timeout <seconds>', 'give up on a connection or an answer after SECONDS (env MSNAP_TIMEOUT; default 30)')
    .addOption(
      caselessChoices(new Option('--api <version>', "API version (env MSNAP_API, else the stored key's, else auto: the fewest requests, see docs/cli-notes.md)"), API_CHOICES),
    )
    .addOption(
      caselessChoices(new Option('--format <format>', 'output format (default: table on a terminal, ndjson when piped)'), OUTPUT_FORMATS),
    )
    .addOption(caselessChoices(new Option('--compression <codec>', 'Parquet compression (default snappy)'), PARQUET_CODECS))
    .option('--csv', 'same as --format csv')
    .option('--ndjson', 'same as --format ndjson')
    .option('--json', 'same as --format json')
    .option('-o, --output <file>', 'write to FILE ("-" = stdout): a file is replaced atomically, a device, FIFO or socket written in place')
    .option('--wide', 'tables show every column uncut instead of fitting the terminal')
    .option('-q, --quiet', 'no progress or confirmations on stderr (warnings and errors still show)')
    .option('--verbose', 'log each HTTP request to stderr (key masked)')
    .option('--no-color', 'no colours (also NO_COLOR=1)');
}

/** The global flags of the command an action runs in. */
export function readGlobals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}

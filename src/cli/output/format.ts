// The one place the output format is decided: the flags, else the -o file's extension,
// else a table on a terminal and NDJSON in a pipe.
import { extname } from 'node:path';
import { UsageError } from '../../errors.js';

/** Output formats the CLI writes. */
export const OUTPUT_FORMATS = ['table', 'csv', 'ndjson', 'json', 'parquet'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The formats a store can write itself. */
export type TextFormat = Extract<OutputFormat, 'csv' | 'ndjson' | 'json'>;

/** The format-related global flags as commander hands them over. */
export interface FormatFlags {
  format?: string;
  csv?: boolean;
  ndjson?: boolean;
  json?: boolean;
  output?: string;
}

const EXTENSION_FORMAT: Record<string, OutputFormat> = {
  '.csv': 'csv',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.parquet': 'parquet',
};

/** Use once per run to pick the format; conflicting flags are a usage error. */
export function resolveFormat(flags: FormatFlags, stdoutIsTTY: boolean): OutputFormat {
  const asked = new Set<OutputFormat>();
  if (flags.format !== undefined) {
    const f = flags.format.toLowerCase();
    if (!(OUTPUT_FORMATS as readonly string[]).includes(f)) {
      throw new UsageError(`unknown format '${flags.format}'; use one of: ${OUTPUT_FORMATS.join(', ')}`);
    }
    asked.add(f as OutputFormat);
  }
  if (flags.csv) asked.add('csv');
  if (flags.ndjson) asked.add('ndjson');
  if (flags.json) asked.add('json');
  if (asked.size > 1) throw new UsageError(`conflicting output formats: ${[...asked].join(', ')}; pick one`);
  const [only] = asked;
  if (only === 'parquet' && stdoutIsTTY) {
    throw new UsageError('Parquet is binary: write it to a file (-o FILE.parquet) or a pipe, not to a terminal');
  }
  if (only) return only;
  if (flags.output !== undefined) {
    // No extension (`-o /dev/null`, a FIFO, `-o out`): NDJSON, as in a pipe. An extension msnap does
    // not write is refused rather than filled with another format under a misleading name.
    const ext = extname(flags.output).toLowerCase();
    if (ext === '') return 'ndjson';
    const byExt = EXTENSION_FORMAT[ext];
    if (!byExt) {
      throw new UsageError(
        `cannot tell the output format from '${ext}'; name the file .csv, .ndjson, .jsonl, .json or .parquet, or pass --format`,
      );
    }
    return byExt;
  }
  return stdoutIsTTY ? 'table' : 'ndjson';
}

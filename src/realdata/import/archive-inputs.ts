// The archive files a user names on the command line: paths, simple globs (`*`, `?` in the file
// name), folders (their .parquet files, else the recorder's raw .jsonl.gz files) and http(s) URLs,
// each opened as a Parquet byte source (raw files are read by name).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { asyncBufferFromFile, asyncBufferFromUrl } from 'hyparquet';
import { UsageError } from '../../errors.js';
import type { ArchiveInput } from './polymarket-import.js';

const GLOB = /[*?]/;

function globRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** Use on the command's file arguments: every file they name, sorted and without repeats; a name that matches nothing is a UsageError. */
export function expandArchiveArgs(args: readonly string[]): ArchiveInput[] {
  const names: string[] = [];
  for (const arg of args) {
    if (/^https?:\/\//i.test(arg)) {
      names.push(arg);
      continue;
    }
    if (GLOB.test(basename(arg))) {
      const dir = dirname(arg);
      const re = globRegExp(basename(arg));
      const found = existsSync(dir) && statSync(dir).isDirectory() ? readdirSync(dir).filter((f) => re.test(f)) : [];
      if (found.length === 0) throw new UsageError(`${arg}: no file matches`);
      names.push(...found.sort().map((f) => join(dir, f)));
      continue;
    }
    if (!existsSync(arg)) throw new UsageError(`${arg}: no such file`);
    if (statSync(arg).isDirectory()) {
      const files = readdirSync(arg);
      const parquet = files.filter((f) => f.endsWith('.parquet'));
      const found = parquet.length > 0 ? parquet : files.filter((f) => f.endsWith('.jsonl.gz'));
      if (found.length === 0) throw new UsageError(`${arg}: a folder with no .parquet file`);
      names.push(...found.sort().map((f) => join(arg, f)));
      continue;
    }
    names.push(arg);
  }
  return [...new Set(names)].map((name) => ({
    name,
    open: async () => {
      if (/^https?:\/\//i.test(name)) {
        try {
          return await asyncBufferFromUrl({ url: name });
        } catch (err) {
          throw new UsageError(`${name}: cannot be fetched (${(err as Error).message})`);
        }
      }
      return asyncBufferFromFile(name);
    },
  }));
}

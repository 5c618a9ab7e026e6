// The package version, read once from package.json so `--version` and /api/health agree.
import { readFileSync } from 'node:fs';

/** The msnap version (semver). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

// `npm pack`/`npm publish` (prepack): start from an empty dist/ so the tarball holds only what this
// tree compiles to; a module renamed or deleted since the last build would otherwise ship stale.
// `prepare` (run next) builds it again.
import { rmSync } from 'node:fs';

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });

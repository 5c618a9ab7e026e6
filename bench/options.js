// Bench sizes: quick mode runs the same code paths on smaller data so it fits in a CI minute.

/** Parse argv into `{ quick, only, keep, out }` plus the sizes for that mode. */
export function benchOptions(argv) {
  const quick = argv.includes('--quick');
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex >= 0 ? new Set(String(argv[onlyIndex + 1] ?? '').split(',').filter(Boolean)) : null;
  return {
    quick,
    only,
    // Keep the temp dir (for a post-mortem) instead of deleting it.
    keep: argv.includes('--keep'),
    // Where the report goes; quick mode writes it too, to a separate file unless told otherwise.
    out: valueAfter(argv, '--out') ?? (quick ? 'BENCHMARKS.quick.md' : 'BENCHMARKS.md'),
    sizes: quick ? QUICK : FULL,
  };
}

function valueAfter(argv, flag) {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

// Pacing: the builder plan itself in full mode; in quick mode an enterprise key with small custom
// limits (burst-bound, ~15 s) so the same maths runs inside a minute.
const FULL = {
  pacing: { plan: 'builder', rpm: 250, burst: 12, minRequests: 400 },
  exportMinRows: 500_000,
  memoryExportMinRows: 2_000_000,
  loadSeconds: 10,
  connections: 10,
  lookups: { small: 1_000_000, large: 20_000_000, count: 2000 },
};

const QUICK = {
  pacing: { plan: 'enterprise', rpm: 600, burst: 10, minRequests: 150 },
  exportMinRows: 300_000,
  memoryExportMinRows: 300_000,
  loadSeconds: 3,
  connections: 10,
  lookups: { small: 200_000, large: 2_000_000, count: 1000 },
};

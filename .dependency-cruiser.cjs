// The layer rules of msnap (docs/architecture.md), checked by `npm run lint:layers` inside `npm test`.
// Type-only imports count: a cycle through types is still a cycle for the reader.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules form a tree of layers; a cycle (type imports included) ties two ideas into one.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-a-leaf',
      severity: 'error',
      comment: "The contract's terms (markets, plans, dialect records, row layout) depend on nothing else of msnap.",
      from: { path: '^src/domain/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/domain/', '^src/errors\\.ts$'] },
    },
    {
      name: 'errors-and-random-are-leaves',
      severity: 'error',
      comment: 'The error hierarchy (one exit code per class) and the seeded random numbers are used everywhere and use nothing.',
      from: { path: ['^src/errors\\.ts$', '^src/random/'] },
      to: { path: '^src/', pathNot: ['^src/errors\\.ts$', '^src/random/'] },
    },
    {
      name: 'ratelimit-is-a-leaf',
      severity: 'error',
      comment: 'The rate-limit algorithms are pure: they take now as an argument and know no store, server or client.',
      from: { path: '^src/ratelimit/' },
      to: { path: '^src/', pathNot: ['^src/ratelimit/', '^src/domain/', '^src/random/', '^src/errors\\.ts$'] },
    },
    {
      name: 'client-never-imports-store',
      severity: 'error',
      comment: 'The API client talks to a service; the same API over a local store is an adapter outside the client (src/local).',
      from: { path: '^src/client/' },
      to: { path: '^src/store/' },
    },
    {
      name: 'cli-and-client-never-import-a-backend',
      severity: 'error',
      comment: 'Commands speak to stores through the ports of src/store (store.ts, bulk-store.ts, open-store.ts, capabilities()); open-store.ts loads the backends.',
      from: { path: '^src/(cli|client)/' },
      to: { path: '^src/store/(sqlite|postgres)/' },
    },
    {
      name: 'postgres-never-imports-sqlite',
      severity: 'error',
      comment: 'Both backends implement the ports of src/store and share src/store/core; a copy between them lives in src/store/copy.',
      from: { path: '^src/store/postgres/' },
      to: { path: '^src/store/sqlite/' },
    },
    {
      name: 'sqlite-never-imports-postgres',
      severity: 'error',
      comment: 'As postgres-never-imports-sqlite, the other way.',
      from: { path: '^src/store/sqlite/' },
      to: { path: '^src/store/postgres/' },
    },
    {
      name: 'store-core-is-backend-neutral',
      severity: 'error',
      comment: 'The neutral core knows no backend and no driver.',
      from: { path: '^src/store/core/' },
      to: { path: ['^src/store/(sqlite|postgres)/', 'better-sqlite3', '^node_modules/postgres/'] },
    },
    {
      name: 'paper-is-a-layer',
      severity: 'error',
      comment: "Paper trading's logic (src/paper) knows the store's ports and the backtest's fill model, never HTTP, the CLI, a backend or a store's internals.",
      from: { path: '^src/paper/' },
      to: { path: ['^src/(server|cli|dashboard|client|local|live|replay|mcp)/', '^src/store/(sqlite|postgres|core|copy|seed|import)/'] },
    },
    {
      name: 'fill-model-is-neutral',
      severity: 'error',
      comment: 'The fill, fee and rounding model the backtest and paper trading share depends on the domain alone.',
      from: { path: '^src/backtest/(fills|rounding|order-fill|series-builder|result)\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/domain/', '^src/backtest/(fills|rounding|order-fill|series-builder|result)\\.ts$'] },
    },
    {
      name: 'server-never-imports-dashboard',
      severity: 'error',
      comment: 'The dashboard plugs into the server through the interface the server defines (server/site.ts).',
      from: { path: '^src/server/' },
      to: { path: '^src/dashboard/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/dashboard/page/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};

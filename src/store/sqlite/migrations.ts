// The schema as an ordered list of migrations; PRAGMA user_version records how many have run.
// Append new steps at the end; never edit one that has shipped.

import type { Migration } from '../core/migration.js';

/** Every migration, oldest first; the schema version of a database is the last one applied. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'markets, snapshots, orderbooks, accounts, api_keys',
    sql: `
      CREATE TABLE markets (
        id             INTEGER PRIMARY KEY,
        market_id      TEXT    NOT NULL UNIQUE,
        coin           TEXT    NOT NULL,
        market_type    TEXT    NOT NULL,
        start_time     INTEGER NOT NULL,
        end_time       INTEGER NOT NULL,
        price_start    REAL,
        price_end      REAL,
        winner         TEXT,
        snapshot_count INTEGER NOT NULL DEFAULT 0,
        -- 1 when the stored snapshots are exactly t = 0, 125, 250, ... (n-1)*125: pages then
        -- seek by arithmetic instead of OFFSET, which would step over every skipped row.
        dense          INTEGER NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX markets_series ON markets (coin, market_type, start_time, market_id);
      CREATE INDEX markets_start ON markets (start_time, market_id);
      CREATE INDEX markets_coin_start ON markets (coin, start_time, market_id);
      CREATE INDEX markets_type_start ON markets (market_type, start_time, market_id);

      -- t = time - start_time (ms); prices scaled by 1e4 and rounded (4 decimals kept), so a row
      -- is a handful of small integers: about 25 bytes on disk.
      CREATE TABLE snapshots (
        market     INTEGER NOT NULL,
        t          INTEGER NOT NULL,
        price      INTEGER NOT NULL,
        price_up   INTEGER NOT NULL,
        price_down INTEGER NOT NULL,
        PRIMARY KEY (market, t)
      ) WITHOUT ROWID;

      -- Ready JSON text per side ({"bids":[[p,s],...],"asks":[...]}), so serving is concatenation.
      CREATE TABLE orderbooks (
        market INTEGER NOT NULL,
        t      INTEGER NOT NULL,
        up     TEXT    NOT NULL,
        down   TEXT    NOT NULL,
        PRIMARY KEY (market, t)
      ) WITHOUT ROWID;

      CREATE TABLE accounts (
        id            INTEGER PRIMARY KEY,
        name          TEXT    NOT NULL UNIQUE,
        plan          TEXT    NOT NULL,
        trial_ends_at INTEGER,
        rpm           INTEGER,
        burst         INTEGER,
        created_at    INTEGER NOT NULL
      );

      -- Only the sha256 of a key is stored; the key itself is shown once at creation.
      CREATE TABLE api_keys (
        id         INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        key_hash   TEXT    NOT NULL,
        prefix     TEXT    NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER,
        expires_at INTEGER
      );
      CREATE UNIQUE INDEX api_keys_hash ON api_keys (key_hash);
      CREATE INDEX api_keys_account ON api_keys (account_id);
    `,
  },
  {
    version: 2,
    description: 'snapshot_blocks: packed values of dense markets per 1024 slots (derived from snapshots)',
    sql: `
      -- Derived data, rebuilt from snapshots whenever a market's rows change (dense-blocks.ts); a
      -- market without blocks is served from its rows. A rowid table: each blob spills past a page.
      CREATE TABLE snapshot_blocks (
        market INTEGER NOT NULL,
        block  INTEGER NOT NULL,
        data   BLOB    NOT NULL,
        PRIMARY KEY (market, block)
      );
    `,
  },
  {
    version: 3,
    description: "synthetic_world and synthetic_markets: the live world's seed and progress, and the markets it owns",
    sql: `
      -- One row: the seed and orderbook window the synthetic data was made with, and the clock it
      -- has been written up to (serve --live continues from there).
      CREATE TABLE synthetic_world (
        id           INTEGER PRIMARY KEY CHECK (id = 1),
        seed         INTEGER NOT NULL,
        orderbook_ms INTEGER NOT NULL,
        through      INTEGER NOT NULL
      );
      -- Markets seed or serve --live made: the only ones the live world writes. Import releases
      -- a market it adds data to.
      CREATE TABLE synthetic_markets (
        market INTEGER PRIMARY KEY
      );
    `,
  },
  {
    version: 4,
    description: "markets: the hosted service's descriptive fields; orderbook levels as {price, size} objects",
    sql: `
      ALTER TABLE markets ADD COLUMN event_id TEXT;
      ALTER TABLE markets ADD COLUMN condition_id TEXT;
      ALTER TABLE markets ADD COLUMN clob_token_up TEXT;
      ALTER TABLE markets ADD COLUMN clob_token_down TEXT;
      ALTER TABLE markets ADD COLUMN final_volume REAL;
      ALTER TABLE markets ADD COLUMN final_liquidity REAL;
      ALTER TABLE markets ADD COLUMN resolved_at INTEGER;
      ALTER TABLE markets ADD COLUMN created_at INTEGER;
      ALTER TABLE markets ADD COLUMN updated_at INTEGER;

      -- Stored depth is served as is, so it is rewritten once into the contract's level shape
      -- ([p, s] -> {"price": p, "size": s}); text already in the new shape never holds "[[".
      UPDATE orderbooks SET
        up = ${levelsAsObjects('up')},
        down = ${levelsAsObjects('down')}
      WHERE instr(up, '[[') > 0 OR instr(down, '[[') > 0;
    `,
  },
  {
    version: 5,
    description: 'dashboard: account passwords (scrypt) and browser sessions',
    sql: `
      -- One scrypt hash per account that may sign in to the dashboard; accounts made by
      -- \`serve keys create\` have none until \`serve accounts password\` sets one.
      CREATE TABLE account_passwords (
        account_id INTEGER PRIMARY KEY REFERENCES accounts (id),
        hash       TEXT    NOT NULL,
        updated_at INTEGER NOT NULL
      );

      -- Only the sha256 of a session token is stored, as for API keys; the CSRF token of the
      -- session sits beside it because every form of a signed-in page carries it.
      CREATE TABLE sessions (
        token_hash TEXT    PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        csrf       TEXT    NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX sessions_expiry ON sessions (expires_at);
    `,
  },
  {
    version: 6,
    description: 'source snapshot ids (a per-market pattern plus exceptions) and where each pulled market came from',
    sql: `
      -- A market keeps the snapshot ids its source gave (an export, or a pulled service) without
      -- storing one per row: id = id_base + t (id_step NULL: one per ms of offset), or
      -- id_base + (t / 125) * id_step (id_step per 125 ms slot). id_base NULL: msnap's own ids,
      -- rowid * 1e8 + t. The few ids that follow neither sit in snapshot_ids; id_exceptions counts them.
      ALTER TABLE markets ADD COLUMN id_base INTEGER;
      ALTER TABLE markets ADD COLUMN id_step INTEGER;
      ALTER TABLE markets ADD COLUMN id_exceptions INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE snapshot_ids (
        market INTEGER NOT NULL,
        t      INTEGER NOT NULL,
        id     INTEGER NOT NULL,
        PRIMARY KEY (market, t)
      ) WITHOUT ROWID;

      -- msnap pull: the service a market was copied from, in which dialect, and when last.
      CREATE TABLE market_origin (
        market           INTEGER PRIMARY KEY REFERENCES markets (id),
        origin_base_url  TEXT    NOT NULL,
        origin_dialect   TEXT    NOT NULL,
        origin_pulled_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 7,
    description: 'how far a pulled market\'s orderbook depth was fetched',
    sql: `
      -- msnap pull --orderbook: the market's rows before this time (epoch ms) were fetched with
      -- depth, whatever depth the source had for them; NULL: none were. A later --orderbook pull
      -- fetches only from here, so a complete market whose depth was never asked for gets it once.
      ALTER TABLE market_origin ADD COLUMN origin_depth_through INTEGER;
    `,
  },
  {
    version: 8,
    description: 'orderbooks: both books of a row packed into one BLOB in up (down empty), see book-codec.ts',
    sql: `
      -- No schema change: a row's up column may now hold a packed pair (a BLOB, down then an empty
      -- BLOB) instead of JSON text. The version keeps msnap builds that cannot read it away.
      -- serve compact-books packs the text rows an older build wrote.
      SELECT 1;
    `,
  },
  {
    version: 9,
    description: 'account names unique without regard to case',
    sql: `
      -- SecUser1 and secuser1 were two accounts. Existing look-alikes keep working under a new
      -- name: every one after the oldest gets "-<id>" appended (docs/production.md says so).
      UPDATE accounts SET name = name || '-' || id
        WHERE EXISTS (SELECT 1 FROM accounts AS older WHERE lower(older.name) = lower(accounts.name) AND older.id < accounts.id);
      CREATE UNIQUE INDEX accounts_name_nocase ON accounts (name COLLATE NOCASE);
    `,
  },
  {
    version: 10,
    description: 'api_keys: an optional name and when the key was last used',
    sql: `
      -- last_used_at is written at most once a minute per key (Store.touchKey), not on every request.
      ALTER TABLE api_keys ADD COLUMN name TEXT;
      ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
    `,
  },
  {
    version: 11,
    description: 'paper trading: one account per API key, its positions and its order lines',
    sql: `
      -- serve's paper accounts (docs/bots.md): money kept unrounded, answers round it.
      CREATE TABLE paper_accounts (
        key_id       INTEGER PRIMARY KEY REFERENCES api_keys (id),
        cash         REAL    NOT NULL,
        realized_pnl REAL    NOT NULL DEFAULT 0,
        fees         REAL    NOT NULL DEFAULT 0,
        created_at   INTEGER NOT NULL
      );
      -- cost = price x shares of what is still held (avg_price = cost / shares).
      CREATE TABLE paper_positions (
        key_id    INTEGER NOT NULL REFERENCES paper_accounts (key_id),
        market_id TEXT    NOT NULL,
        side      TEXT    NOT NULL,
        shares    REAL    NOT NULL,
        cost      REAL    NOT NULL,
        PRIMARY KEY (key_id, market_id, side)
      ) WITHOUT ROWID;
      -- Orders as answered, and settlements (action 'settle'); newest first by id.
      CREATE TABLE paper_orders (
        id               INTEGER PRIMARY KEY,
        key_id           INTEGER NOT NULL REFERENCES paper_accounts (key_id),
        created_at       INTEGER NOT NULL,
        status           TEXT    NOT NULL,
        reason           TEXT,
        market_id        TEXT    NOT NULL,
        side             TEXT    NOT NULL,
        action           TEXT    NOT NULL,
        shares_requested REAL    NOT NULL,
        shares           REAL    NOT NULL,
        vwap             REAL,
        fee              REAL    NOT NULL,
        filled_at        INTEGER NOT NULL,
        depth            INTEGER NOT NULL,
        levels           INTEGER NOT NULL,
        cash_after       REAL    NOT NULL
      );
      CREATE INDEX paper_orders_key ON paper_orders (key_id, id);
    `,
  },
  {
    version: 12,
    description: 'real Polymarket markets: slug, fee schedule, price source; what an import has read',
    sql: `
      -- Set by msnap import polymarket (docs/real-data.md); NULL on seeded and pulled markets.
      -- price_source 'binance' or 'chainlink': such a market's winner is only ever Gamma's, never
      -- guessed from prices. fee_schedule is JSON ({rate, exponent, taker_only, rebate_rate, buy_fee_in}).
      ALTER TABLE markets ADD COLUMN slug TEXT;
      ALTER TABLE markets ADD COLUMN fee_schedule TEXT;
      ALTER TABLE markets ADD COLUMN price_source TEXT;
      -- One row per market and archive hour an import has written: importing the hour again adds nothing.
      CREATE TABLE realdata_hours (
        market_id TEXT    NOT NULL,
        hour      INTEGER NOT NULL,
        PRIMARY KEY (market_id, hour)
      ) WITHOUT ROWID;
      -- A market's reconstruction carried between hours and runs (books, last trades, pending events).
      CREATE TABLE realdata_state (
        market_id TEXT PRIMARY KEY,
        state     TEXT NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 13,
    description: 'paper_orders ids never reused (AUTOINCREMENT), also after POST /v1/paper/reset',
    sql: `
      -- An id is how a bot refers to an order: a reset deleted the newest rows and SQLite handed
      -- their ids out again. AUTOINCREMENT continues from the largest id ever used.
      CREATE TABLE paper_orders_13 (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        key_id           INTEGER NOT NULL REFERENCES paper_accounts (key_id),
        created_at       INTEGER NOT NULL,
        status           TEXT    NOT NULL,
        reason           TEXT,
        market_id        TEXT    NOT NULL,
        side             TEXT    NOT NULL,
        action           TEXT    NOT NULL,
        shares_requested REAL    NOT NULL,
        shares           REAL    NOT NULL,
        vwap             REAL,
        fee              REAL    NOT NULL,
        filled_at        INTEGER NOT NULL,
        depth            INTEGER NOT NULL,
        levels           INTEGER NOT NULL,
        cash_after       REAL    NOT NULL
      );
      INSERT INTO paper_orders_13 SELECT * FROM paper_orders;
      DROP TABLE paper_orders;
      ALTER TABLE paper_orders_13 RENAME TO paper_orders;
      CREATE INDEX paper_orders_key ON paper_orders (key_id, id);
    `,
  },
  {
    version: 14,
    description: 'live recordings: the Chainlink prices they kept, and the spans each source covered',
    sql: `
      -- msnap record (docs/real-data.md): RTDS Chainlink prices as received, in units of 0.0001,
      -- so price_start / price_end and the snapshots' price survive a restart of the recorder.
      CREATE TABLE realdata_prices (
        coin  TEXT    NOT NULL,
        ts    INTEGER NOT NULL,
        price INTEGER NOT NULL,
        PRIMARY KEY (coin, ts)
      ) WITHOUT ROWID;
      -- The spans [from_ms, to_ms) a recorder was connected to a source ('clob'): the time between
      -- two spans is a gap, kept as such (never interpolated).
      CREATE TABLE realdata_spans (
        source  TEXT    NOT NULL,
        from_ms INTEGER NOT NULL,
        to_ms   INTEGER NOT NULL,
        PRIMARY KEY (source, from_ms)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 15,
    description: 'paper_orders.fee_shares: the shares a buy gave up as its fee where buys pay in shares',
    sql: `
      ALTER TABLE paper_orders ADD COLUMN fee_shares REAL NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 16,
    description: 'paper maker orders: resting limit orders, their fill model state, rebates (paid at the market\'s end)',
    sql: `
      -- A limit order is a paper_orders row (type 'limit', its price, expiry and rebates) updated
      -- as it fills; 'market' is the fill-and-kill order of before.
      ALTER TABLE paper_orders ADD COLUMN type TEXT NOT NULL DEFAULT 'market';
      ALTER TABLE paper_orders ADD COLUMN price REAL;
      ALTER TABLE paper_orders ADD COLUMN rebate REAL NOT NULL DEFAULT 0;
      ALTER TABLE paper_orders ADD COLUMN expires_at INTEGER;
      ALTER TABLE paper_accounts ADD COLUMN rebates REAL NOT NULL DEFAULT 0;
      -- The fill model's state of each resting (open) limit order, deleted when it closes.
      -- evaluated_to: the time of the last snapshot it was stepped on; ahead NULL: not seen yet.
      CREATE TABLE paper_resting (
        order_id     INTEGER PRIMARY KEY,
        key_id       INTEGER NOT NULL REFERENCES paper_accounts (key_id),
        market_id    TEXT    NOT NULL,
        side         TEXT    NOT NULL,
        action       TEXT    NOT NULL,
        model        TEXT    NOT NULL,
        price        REAL    NOT NULL,
        remaining    REAL    NOT NULL,
        ahead        REAL,
        last_size    REAL,
        reserved     REAL    NOT NULL,
        evaluated_to INTEGER NOT NULL,
        expires_at   INTEGER
      );
      CREATE INDEX paper_resting_key ON paper_resting (key_id, order_id);
      -- Maker rebates earned in a market and not paid yet: they go into cash at the market's end.
      CREATE TABLE paper_rebates (
        key_id    INTEGER NOT NULL REFERENCES paper_accounts (key_id),
        market_id TEXT    NOT NULL,
        amount    REAL    NOT NULL,
        PRIMARY KEY (key_id, market_id)
      ) WITHOUT ROWID;
    `,
  },
];

/** SQL turning one orderbook column's [price, size] levels into {price, size} objects, best first as stored. */
function levelsAsObjects(column: string): string {
  const side = (name: string) =>
    `json((SELECT json_group_array(json_object('price', json_extract(l.value, '$[0]'), 'size', json_extract(l.value, '$[1]')))
      FROM json_each(${column}, '$.${name}') AS l))`;
  return `json_object('bids', ${side('bids')}, 'asks', ${side('asks')})`;
}

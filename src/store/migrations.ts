/**
 * Schema migrations, in order. A migration is applied once, inside one transaction, and bumps
 * `schema_version`. Never edit a released migration: add a new one.
 *
 * Amounts (prices, values, fees, spend) are decimal TEXT holding a bigint, never REAL.
 * Timestamps are epoch milliseconds (INTEGER).
 */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    description: 'nonces, intents, transactions, orders, fills, spend, watermarks, strategy state',
    sql: `
CREATE TABLE nonces (
  wallet      TEXT    NOT NULL,
  chain_id    INTEGER NOT NULL,
  next_nonce  INTEGER NOT NULL CHECK (next_nonce >= 0),
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (wallet, chain_id)
) STRICT;

CREATE TABLE intents (
  id          TEXT    PRIMARY KEY,
  strategy    TEXT    NOT NULL,
  kind        TEXT    NOT NULL,
  target_key  TEXT    NOT NULL,
  payload     TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('pending','sent','unknown','done','failed')),
  error       TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX intents_state ON intents (state);
CREATE INDEX intents_target ON intents (target_key, state);

CREATE TABLE transactions (
  hash                      TEXT    PRIMARY KEY,
  intent_id                 TEXT    NOT NULL,
  wallet                    TEXT    NOT NULL,
  chain_id                  INTEGER NOT NULL,
  nonce                     INTEGER NOT NULL CHECK (nonce >= 0),
  raw                       TEXT    NOT NULL,
  state                     TEXT    NOT NULL CHECK (state IN ('signed','sent','unknown','mined','failed','replaced')),
  to_address                TEXT,
  value                     TEXT    NOT NULL,
  gas_limit                 TEXT    NOT NULL,
  max_fee_per_gas           TEXT    NOT NULL,
  max_priority_fee_per_gas  TEXT    NOT NULL,
  replaces                  TEXT,
  block_number              INTEGER,
  block_hash                TEXT,
  gas_used                  TEXT,
  effective_gas_price       TEXT,
  error                     TEXT,
  created_at                INTEGER NOT NULL,
  sent_at                   INTEGER,
  updated_at                INTEGER NOT NULL
) STRICT;
CREATE INDEX transactions_intent ON transactions (intent_id);
CREATE INDEX transactions_nonce ON transactions (wallet, chain_id, nonce);
CREATE INDEX transactions_state ON transactions (state);

CREATE TABLE orders (
  hash         TEXT    PRIMARY KEY,
  intent_id    TEXT,
  strategy     TEXT,
  side         TEXT    NOT NULL CHECK (side IN ('listing','item_offer','collection_offer','trait_offer')),
  collection   TEXT    NOT NULL,
  contract     TEXT,
  token_id     TEXT,
  trait_type   TEXT,
  trait_value  TEXT,
  price        TEXT    NOT NULL,
  token        TEXT    NOT NULL,
  quantity     TEXT    NOT NULL DEFAULT '1',
  start_time   INTEGER,
  expiry       INTEGER NOT NULL,
  status       TEXT    NOT NULL CHECK (status IN ('pending','open','filled','cancelled','expired','failed')),
  error        TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX orders_status ON orders (status);
CREATE INDEX orders_collection ON orders (collection, status);

CREATE TABLE fills (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  order_hash    TEXT,
  intent_id     TEXT,
  tx_hash       TEXT,
  side          TEXT    NOT NULL CHECK (side IN ('buy','sell')),
  collection    TEXT    NOT NULL,
  contract      TEXT    NOT NULL,
  token_id      TEXT    NOT NULL,
  price         TEXT    NOT NULL,
  token         TEXT    NOT NULL,
  fees          TEXT    NOT NULL DEFAULT '0',
  block_number  INTEGER,
  filled_at     INTEGER NOT NULL,
  UNIQUE (tx_hash, contract, token_id)
) STRICT;
CREATE INDEX fills_collection ON fills (collection);

CREATE TABLE spend (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  day         TEXT    NOT NULL,
  strategy    TEXT    NOT NULL,
  intent_id   TEXT    NOT NULL,
  kind        TEXT    NOT NULL,
  token       TEXT    NOT NULL,
  amount      TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  UNIQUE (intent_id, kind)
) STRICT;
CREATE INDEX spend_day ON spend (day, token);

CREATE TABLE watermarks (
  collection  TEXT    PRIMARY KEY,
  event_at    INTEGER NOT NULL,
  cursor      TEXT,
  updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE strategy_state (
  strategy_id TEXT    PRIMARY KEY,
  state       TEXT    NOT NULL,
  updated_at  INTEGER NOT NULL
) STRICT;
`,
  },
  {
    version: 2,
    description:
      'orders: the order ledger (every state, units filled, cancel window, token, target, components); ledger fills',
    sql: `
CREATE TABLE orders_v2 (
  hash                TEXT    PRIMARY KEY,
  intent_id           TEXT,
  strategy            TEXT,
  target              TEXT,
  side                TEXT    NOT NULL CHECK (side IN ('listing','item_offer','collection_offer','trait_offer')),
  collection          TEXT    NOT NULL,
  contract            TEXT,
  token_id            TEXT,
  standard            TEXT    CHECK (standard IN ('erc721','erc1155')),
  trait_type          TEXT,
  trait_value         TEXT,
  price               TEXT    NOT NULL,
  token               TEXT    NOT NULL,
  token_symbol        TEXT,
  token_decimals      INTEGER,
  quantity            TEXT    NOT NULL DEFAULT '1',
  filled              TEXT    NOT NULL DEFAULT '0',
  start_time          INTEGER,
  expiry              INTEGER NOT NULL,
  status              TEXT    NOT NULL CHECK (status IN ('posted','open','partly_filled','filled','cancelling','cancelled','expired','invalid','failed')),
  cancel_valid_until  INTEGER,
  components          TEXT,
  protocol            TEXT,
  error               TEXT,
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
) STRICT;
INSERT INTO orders_v2 (hash, intent_id, strategy, side, collection, contract, token_id, trait_type, trait_value,
  price, token, quantity, start_time, expiry, status, error, created_at, updated_at)
SELECT hash, intent_id, strategy, side, collection, contract, token_id, trait_type, trait_value,
  price, token, quantity, start_time, expiry, CASE status WHEN 'pending' THEN 'posted' ELSE status END, error,
  created_at, updated_at FROM orders;
DROP TABLE orders;
ALTER TABLE orders_v2 RENAME TO orders;
CREATE INDEX orders_status ON orders (status);
CREATE INDEX orders_collection ON orders (collection, status);
CREATE INDEX orders_intent ON orders (intent_id);

CREATE TABLE order_fills (
  order_hash  TEXT    NOT NULL,
  fill_id     TEXT    NOT NULL,
  units       TEXT    NOT NULL,
  amount      TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (order_hash, fill_id)
) STRICT;
`,
  },
  {
    version: 3,
    description:
      "intents: one row per intent — the engine's journal record (was a second row 'engine:<id>') moves under payload.journal of the execution row of the same id, or becomes the row",
    sql: `
UPDATE intents
   SET payload = json_set(payload, '$.journal', json((SELECT e.payload FROM intents e WHERE e.id = 'engine:' || intents.id)))
 WHERE id NOT LIKE 'engine:%' AND EXISTS (SELECT 1 FROM intents e WHERE e.id = 'engine:' || intents.id);
DELETE FROM intents WHERE id LIKE 'engine:%' AND substr(id, 8) IN (SELECT id FROM intents);
UPDATE intents SET id = substr(id, 8), payload = json_object('journal', json(payload)) WHERE id LIKE 'engine:%';
`,
  },
  {
    version: 4,
    description: 'fills: units of the NFT in each fill (ERC-1155 quantities; 1 for ERC-721)',
    sql: `ALTER TABLE fills ADD COLUMN quantity TEXT NOT NULL DEFAULT '1';`,
  },
  {
    version: 5,
    description:
      'fee_recipients: every fee recipient read for a collection (the guard lets a fill pay them after a restart too)',
    sql: `
CREATE TABLE fee_recipients (
  collection    TEXT    NOT NULL,
  recipient     TEXT    NOT NULL,
  first_read_at INTEGER NOT NULL,
  PRIMARY KEY (collection, recipient)
) STRICT;
`,
  },
]);

export const LATEST_SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

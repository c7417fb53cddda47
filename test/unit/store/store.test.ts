import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FatalError } from '../../../src/errors/index.ts';
import {
  dayOf,
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  ORDER_STATUSES,
  openDb,
  openStore,
  STANDING_STATUSES,
  type Store,
  schemaVersion,
} from '../../../src/store/index.ts';

let dir: string;
let clockMs = 1_700_000_000_000;
const now = () => clockMs;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harpoon-store-'));
  clockMs = 1_700_000_000_000;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(name = 'state.db'): Store {
  return openStore(join(dir, name), { now });
}

describe('openStore', () => {
  it('creates the file with mode 0600, in WAL mode, at the latest schema version', () => {
    const store = open();
    store.intents.create({ id: 'i1', strategy: 's', kind: 'k', targetKey: 't', payload: {} });
    expect(statSync(join(dir, 'state.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'state.db-wal')).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    store.close();
  });

  it('tightens an existing empty file to 0600', () => {
    const p = join(dir, 'loose.db');
    writeFileSync(p, '', { mode: 0o644 });
    const store = openStore(p);
    expect(statSync(p).mode & 0o777).toBe(0o600);
    store.close();
  });

  it('keeps data across reopen and does not re-run migrations', () => {
    const a = open();
    a.nonces.set('0xAbC', 1, 7);
    a.close();
    const b = open();
    expect(b.nonces.get('0xabc', 1)).toBe(7);
    expect(b.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    b.close();
  });

  it('refuses a corrupt file with a FatalError and leaves its bytes untouched', () => {
    const p = join(dir, 'corrupt.db');
    const garbage = Buffer.from('this is not a database at all, just some bytes '.repeat(200));
    writeFileSync(p, garbage, { mode: 0o600 });
    let err: unknown;
    try {
      openStore(p);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FatalError);
    expect((err as FatalError).code).toBe('store_corrupt');
    expect((err as FatalError).message).toContain(p);
    expect(readFileSync(p).equals(garbage)).toBe(true);
  });

  it('refuses a database whose pages were damaged after creation', () => {
    const p = join(dir, 'damaged.db');
    const s = openStore(p);
    for (let i = 0; i < 300; i++) {
      s.intents.create({ id: `i${i}`, strategy: 's', kind: 'k', targetKey: `t${i}`, payload: { n: i } });
    }
    s.db.pragma('wal_checkpoint(TRUNCATE)');
    s.close();
    const bytes = readFileSync(p);
    // keep the header (page 1 start) valid, smash everything after the first page
    for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    writeFileSync(p, bytes);
    expect(() => openStore(p)).toThrow(FatalError);
  });

  it('refuses a newer schema version with a FatalError naming both versions', () => {
    const p = join(dir, 'newer.db');
    openStore(p).close();
    const raw = new Database(p);
    raw.prepare('UPDATE schema_version SET version = ?').run(LATEST_SCHEMA_VERSION + 5);
    raw.close();
    let err: unknown;
    try {
      openStore(p);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FatalError);
    expect((err as FatalError).code).toBe('store_schema_newer');
    expect((err as FatalError).details).toMatchObject({ version: LATEST_SCHEMA_VERSION + 5 });
    // still newer: nothing was reset
    const check = new Database(p);
    expect(check.prepare('SELECT version FROM schema_version').get()).toEqual({
      version: LATEST_SCHEMA_VERSION + 5,
    });
    check.close();
  });

  it('refuses a foreign SQLite database instead of adopting it', () => {
    const p = join(dir, 'foreign.db');
    const raw = new Database(p);
    raw.exec('CREATE TABLE something (x)');
    raw.close();
    expect(() => openStore(p)).toThrow(expect.objectContaining({ code: 'store_foreign' }));
  });

  it('applies later migrations in order, once', () => {
    const p = join(dir, 'mig.db');
    const migrations = [
      { version: 1, description: 'a', sql: 'CREATE TABLE a (x INTEGER)' },
      { version: 2, description: 'b', sql: 'CREATE TABLE b (y INTEGER)' },
    ];
    const s1 = openDb(p, { migrations: migrations.slice(0, 1) });
    expect(schemaVersion(s1)).toBe(1);
    s1.close();
    const s2 = openDb(p, { migrations });
    expect(schemaVersion(s2)).toBe(2);
    expect(s2.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toEqual({ name: 'b' });
    s2.close();
  });

  it("migrates schema 2's two rows of an intent to one: the engine's record under payload.journal", () => {
    const p = join(dir, 'v2.db');
    const v2 = openDb(p, { migrations: MIGRATIONS.slice(0, 2) });
    expect(schemaVersion(v2)).toBe(2);
    const insert = v2.prepare(
      `INSERT INTO intents (id, strategy, kind, target_key, payload, state, error, created_at, updated_at)
       VALUES (?, 's', ?, ?, ?, ?, ?, 1, 2)`,
    );
    const journal = (kind: string) =>
      JSON.stringify({ intent: { kind, target: 't' }, spent: { $bigint: '5' } });
    // a buy: the engine's row and the execution row of the same id
    insert.run('engine:b1', 'engine.buy_listing', 's|t', journal('buy_listing'), 'done', null);
    insert.run('b1', 'buy_listing', 'listing:0x1', JSON.stringify({ orderHash: '0x1' }), 'done', null);
    // an offer: the engine's row only
    insert.run('engine:o1', 'engine.place_offer', 's|t', journal('place_offer'), 'failed', 'refused');
    v2.close();
    const store = open('v2.db');
    expect(store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    const ids = store.db.prepare('SELECT id FROM intents ORDER BY id').all();
    expect(ids).toEqual([{ id: 'b1' }, { id: 'o1' }]);
    expect(store.intents.get('b1')).toMatchObject({
      kind: 'buy_listing',
      targetKey: 'listing:0x1',
      state: 'done',
      payload: { orderHash: '0x1', journal: { intent: { kind: 'buy_listing', target: 't' }, spent: 5n } },
    });
    expect(store.intents.get('o1')).toMatchObject({
      kind: 'engine.place_offer',
      state: 'failed',
      error: 'refused',
      payload: { journal: { intent: { kind: 'place_offer', target: 't' }, spent: 5n } },
    });
    store.close();
  });

  it('migrates orders of schema 1 to the ledger: pending becomes posted, the rest is kept', () => {
    const p = join(dir, 'v1.db');
    const v1 = openDb(p, { migrations: MIGRATIONS.slice(0, 1) });
    expect(schemaVersion(v1)).toBe(1);
    const insert = v1.prepare(
      `INSERT INTO orders (hash, intent_id, strategy, side, collection, contract, token_id, price, token, quantity,
         expiry, status, error, created_at, updated_at)
       VALUES (?, 'i1', 's', 'item_offer', 'c', '0xc1', '7', '1000000000000000000000', '0xw', '2', 100, ?, ?, 10, 20)`,
    );
    insert.run('0xp', 'pending', null);
    insert.run('0xo', 'open', null);
    insert.run('0xf', 'failed', 'rejected');
    v1.close();
    const store = open('v1.db');
    expect(store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    expect(store.orders.get('0xp')).toEqual({
      hash: '0xp',
      intentId: 'i1',
      strategy: 's',
      side: 'item_offer',
      collection: 'c',
      contract: '0xc1',
      tokenId: '7',
      price: 10n ** 21n,
      token: '0xw',
      quantity: 2n,
      filled: 0n,
      expiry: 100,
      status: 'posted',
      createdAt: 10,
      updatedAt: 20,
    });
    expect(store.orders.get('0xo')?.status).toBe('open');
    expect(store.orders.get('0xf')).toMatchObject({ status: 'failed', error: 'rejected' });
    expect(store.orders.list({ status: STANDING_STATUSES }).map((o) => o.hash)).toEqual(['0xp', '0xo']);
    expect(store.orders.recordFill('0xp', 'tx', 1n, 5n)).toBe(true);
    store.close();
  });
});

describe('repositories', () => {
  let store: Store;
  beforeEach(() => {
    store = open();
  });
  afterEach(() => store.close());

  it('intents: create is idempotent by id, payload bigints survive, states move', () => {
    expect(
      store.intents.create({
        id: 'buy-1',
        strategy: 'sniper',
        kind: 'BuyListing',
        targetKey: 'listing:0xaa',
        payload: { price: 123456789012345678901234567890n, nested: [1n] },
      }),
    ).toBe(true);
    expect(
      store.intents.create({ id: 'buy-1', strategy: 'x', kind: 'y', targetKey: 'z', payload: null }),
    ).toBe(false);
    const got = store.intents.get('buy-1');
    expect(got?.strategy).toBe('sniper');
    expect(got?.state).toBe('pending');
    expect(got?.payload).toEqual({ price: 123456789012345678901234567890n, nested: [1n] });
    clockMs += 10;
    store.intents.setState('buy-1', 'unknown', 'send timed out');
    expect(store.intents.get('buy-1')).toMatchObject({
      state: 'unknown',
      error: 'send timed out',
      updatedAt: clockMs,
    });
    expect(store.intents.listByState('sent', 'unknown').map((i) => i.id)).toEqual(['buy-1']);
    expect(store.intents.openForTarget('listing:0xaa')).toHaveLength(1);
    store.intents.setState('buy-1', 'done');
    expect(store.intents.openForTarget('listing:0xaa')).toHaveLength(0);
    expect(() => store.intents.setState('nope', 'done')).toThrow(RangeError);
  });

  it('transactions: journal with bigint fee fields, live list, inclusion', () => {
    const base = {
      intentId: 'i1',
      wallet: '0xAA',
      chainId: 1,
      raw: '0x02f8',
      to: '0xBB',
      value: 10n ** 30n,
      gasLimit: 21_000n,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    };
    store.transactions.insert({ ...base, hash: '0x01', nonce: 3, state: 'signed' });
    store.transactions.insert({ ...base, hash: '0x02', nonce: 3, state: 'sent', replaces: '0x01' });
    store.transactions.insert({ ...base, hash: '0x03', nonce: 4, state: 'signed', intentId: 'i2' });
    expect(store.transactions.get('0x01')).toMatchObject({
      value: 10n ** 30n,
      wallet: '0xaa',
      to: '0xbb',
      nonce: 3,
    });
    expect(store.transactions.byIntent('i1').map((t) => t.hash)).toEqual(['0x01', '0x02']);
    expect(store.transactions.byNonce('0xaa', 1, 3)).toHaveLength(2);
    expect(store.transactions.maxNonce('0xaa', 1)).toBe(4);
    expect(store.transactions.maxNonce('0xcc', 1)).toBeUndefined();
    store.transactions.markSent('0x01');
    expect(store.transactions.get('0x01')?.sentAt).toBe(clockMs);
    store.transactions.markIncluded('0x02', 'mined', {
      blockNumber: 9,
      blockHash: '0xbh',
      gasUsed: 21_000n,
      effectiveGasPrice: 2n,
    });
    store.transactions.markReplaced('0x01');
    store.transactions.markUnknown('0x03', 'timeout');
    expect(store.transactions.live('0xAA', 1).map((t) => [t.hash, t.state])).toEqual([['0x03', 'unknown']]);
    expect(store.transactions.get('0x02')).toMatchObject({
      state: 'mined',
      gasUsed: 21_000n,
      blockNumber: 9,
    });
    expect(() => store.transactions.markSent('0xmissing')).toThrow(RangeError);
  });

  it('stores amounts as decimal TEXT, never REAL', () => {
    store.orders.upsert({
      hash: '0xo1',
      side: 'trait_offer',
      collection: 'c',
      traitType: 'Background',
      traitValue: 'Red',
      price: 2n ** 200n,
      token: '0xWETH',
      expiry: 1_800_000_000,
    });
    const row = store.db.prepare('SELECT typeof(price) AS t, price FROM orders').get() as {
      t: string;
      price: string;
    };
    expect(row).toEqual({ t: 'text', price: (2n ** 200n).toString() });
    expect(store.orders.get('0xo1')?.price).toBe(2n ** 200n);
    store.db.prepare("UPDATE orders SET price = '1.5'").run();
    expect(() => store.orders.get('0xo1')).toThrow(FatalError);
  });

  it('orders: upsert, status filters (the ledger states)', () => {
    const o = { side: 'collection_offer' as const, collection: 'c', price: 5n, token: '0xw', expiry: 100 };
    store.orders.upsert({ ...o, hash: '0x1', strategy: 'bidder' });
    expect(store.orders.get('0x1')).toMatchObject({ status: 'posted', filled: 0n, quantity: 1n });
    store.orders.upsert({ ...o, hash: '0x2', status: 'open' });
    store.orders.upsert({ ...o, hash: '0x1', strategy: 'bidder', price: 6n, status: 'open' });
    expect(store.orders.get('0x1')).toMatchObject({ price: 6n, status: 'open', quantity: 1n });
    store.orders.upsert({ ...o, hash: '0x2', status: 'cancelled' });
    expect(store.orders.list({ status: STANDING_STATUSES }).map((x) => x.hash)).toEqual(['0x1']);
    expect(store.orders.list({ status: 'cancelled' }).map((x) => x.hash)).toEqual(['0x2']);
    expect(store.orders.list({ strategy: 'bidder' })).toHaveLength(1);
  });

  it('orders: every ledger state is accepted; the standing ones are the five that may still fill', () => {
    const o = { side: 'item_offer' as const, collection: 'c', price: 5n, token: '0xw', expiry: 100 };
    ORDER_STATUSES.forEach((status, i) => {
      store.orders.upsert({ ...o, hash: `0x${i}`, status });
    });
    expect(store.orders.list().map((x) => x.status)).toEqual([...ORDER_STATUSES]);
    expect(store.orders.list({ status: STANDING_STATUSES }).map((x) => x.status)).toEqual([
      'posted',
      'open',
      'partly_filled',
      'cancelling',
      'invalid',
    ]);
    expect(store.orders.list({ status: [] })).toEqual([]);
    expect(store.orders.list({ status: ['filled', 'failed'] }).map((x) => x.status)).toEqual([
      'filled',
      'failed',
    ]);
    expect(() => store.orders.upsert({ ...o, hash: '0xbad', status: 'pending' as never })).toThrow();
  });

  it('orders: filled units, cancel window, token, target, components (JSON with bigints) round-trip', () => {
    const components = {
      offerer: '0xaa',
      salt: 2n ** 255n,
      offer: [{ startAmount: 10n ** 30n }],
      counter: 0n,
    };
    store.orders.upsert({
      hash: '0xo',
      intentId: 'i1',
      strategy: 's',
      target: 'offer:collection:c',
      side: 'item_offer',
      collection: 'c',
      contract: '0xC1',
      tokenId: '42',
      standard: 'erc1155',
      price: 9n,
      token: '0xWETH',
      tokenSymbol: 'WETH',
      tokenDecimals: 18,
      quantity: 3n,
      filled: 1n,
      expiry: 200,
      status: 'cancelling',
      cancelValidUntil: clockMs + 60_000,
      components,
      protocol: '0xseaport',
      error: 'cancel requested',
    });
    expect(store.orders.get('0xo')).toEqual({
      hash: '0xo',
      intentId: 'i1',
      strategy: 's',
      target: 'offer:collection:c',
      side: 'item_offer',
      collection: 'c',
      contract: '0xc1',
      tokenId: '42',
      standard: 'erc1155',
      price: 9n,
      token: '0xweth',
      tokenSymbol: 'WETH',
      tokenDecimals: 18,
      quantity: 3n,
      filled: 1n,
      expiry: 200,
      status: 'cancelling',
      cancelValidUntil: clockMs + 60_000,
      components,
      protocol: '0xseaport',
      error: 'cancel requested',
      createdAt: clockMs,
      updatedAt: clockMs,
    });
    const row = store.db.prepare("SELECT typeof(filled) AS t FROM orders WHERE hash = '0xo'").get();
    expect(row).toEqual({ t: 'text' });
    // an update without components or protocol keeps the ones known; the cancel window may be cleared
    clockMs += 5;
    store.orders.upsert({
      hash: '0xo',
      side: 'item_offer',
      collection: 'c',
      price: 9n,
      token: '0xweth',
      quantity: 3n,
      filled: 3n,
      expiry: 200,
      status: 'filled',
    });
    const after = store.orders.get('0xo');
    expect(after).toMatchObject({ status: 'filled', filled: 3n, components, protocol: '0xseaport' });
    expect(after?.cancelValidUntil).toBeUndefined();
    expect(after?.createdAt).toBe(clockMs - 5);
    expect(after?.updatedAt).toBe(clockMs);
  });

  it('orders: recent(since) is what still stands and what ended after since', () => {
    const o = { side: 'collection_offer' as const, collection: 'c', price: 5n, token: '0xw', expiry: 100 };
    store.orders.upsert({ ...o, hash: '0xold-open', status: 'open', updatedAt: 1_000 });
    store.orders.upsert({ ...o, hash: '0xold-invalid', status: 'invalid', updatedAt: 1_000 });
    store.orders.upsert({ ...o, hash: '0xold-cancelling', status: 'cancelling', updatedAt: 1_000 });
    store.orders.upsert({ ...o, hash: '0xold-filled', status: 'filled', updatedAt: 1_000 });
    store.orders.upsert({ ...o, hash: '0xnew-expired', status: 'expired', updatedAt: 5_000 });
    store.orders.upsert({ ...o, hash: '0xedge-failed', status: 'failed', updatedAt: 4_000 });
    expect(
      store.orders
        .recent(4_000)
        .map((x) => x.hash)
        .sort(),
    ).toEqual(['0xedge-failed', '0xnew-expired', '0xold-cancelling', '0xold-invalid', '0xold-open']);
    expect(
      store.orders
        .recent(4_001)
        .map((x) => x.hash)
        .sort(),
    ).toEqual(['0xnew-expired', '0xold-cancelling', '0xold-invalid', '0xold-open']);
  });

  it('orders: recordFill once per (order, fill id); hasFill', () => {
    expect(store.orders.hasFill('0xo', 'tx1')).toBe(false);
    expect(store.orders.recordFill('0xo', 'tx1', 2n, 2n ** 70n)).toBe(true);
    expect(store.orders.recordFill('0xo', 'tx1', 2n, 2n ** 70n)).toBe(false);
    expect(store.orders.hasFill('0xo', 'tx1')).toBe(true);
    expect(store.orders.hasFill('0xo', 'tx2')).toBe(false);
    expect(store.orders.hasFill('0xother', 'tx1')).toBe(false);
    expect(store.orders.recordFill('0xother', 'tx1', 1n, 1n)).toBe(true);
    expect(
      store.db.prepare("SELECT units, amount, created_at FROM order_fills WHERE order_hash = '0xo'").get(),
    ).toEqual({
      units: '2',
      amount: (2n ** 70n).toString(),
      created_at: clockMs,
    });
  });

  it('fills: one row per (tx, contract, token)', () => {
    const f = {
      txHash: '0xt',
      side: 'buy' as const,
      collection: 'c',
      contract: '0xC',
      tokenId: '7',
      price: 10n ** 18n,
      token: '0x0',
    };
    expect(store.fills.record(f)).toBe(true);
    expect(store.fills.record(f)).toBe(false);
    expect(store.fills.list({ collection: 'c' })).toEqual([
      expect.objectContaining({ contract: '0xc', price: 10n ** 18n, fees: 0n, filledAt: clockMs }),
    ]);
  });

  it('spend: day buckets, bigint sums, idempotent per (intent, kind)', () => {
    const t = Date.UTC(2026, 0, 2, 23, 59);
    expect(dayOf(t)).toBe('2026-01-02');
    const big = 9_007_199_254_740_993n; // above 2^53: REAL would round it
    store.spend.record({ strategy: 'a', intentId: 'i1', kind: 'price', token: '0xW', amount: big, at: t });
    store.spend.record({ strategy: 'b', intentId: 'i2', kind: 'price', token: '0xw', amount: 1n, at: t });
    expect(
      store.spend.record({ strategy: 'a', intentId: 'i1', kind: 'price', token: '0xw', amount: 5n, at: t }),
    ).toBe(false);
    store.spend.record({
      strategy: 'a',
      intentId: 'i3',
      kind: 'price',
      token: '0xw',
      amount: 1n,
      at: t + 60_000,
    });
    expect(store.spend.total({ day: '2026-01-02', token: '0xw' })).toBe(big + 1n);
    expect(store.spend.total({ day: '2026-01-02', token: '0xw', strategy: 'a' })).toBe(big);
    expect(store.spend.total({ day: '2026-01-03', token: '0xw' })).toBe(1n);
    expect(store.spend.remove('i2', 'price')).toBe(true);
    expect(store.spend.total({ day: '2026-01-02', token: '0xw' })).toBe(big);
  });

  it('watermarks only move forward', () => {
    expect(store.watermarks.advance('c', 100, 'cur1')).toBe(true);
    expect(store.watermarks.advance('c', 50)).toBe(false);
    expect(store.watermarks.get('c')).toMatchObject({ eventAt: 100, cursor: 'cur1' });
    store.watermarks.advance('c', 200);
    expect(store.watermarks.all().map((w) => w.eventAt)).toEqual([200]);
  });

  it('fee recipients: kept per collection, lower case, once each, in the order first read, across a reopen', () => {
    store.feeRecipients.add('apes', ['0x00000000000000000000000000000000000C0FFE', '0xaa']);
    clockMs += 1_000;
    store.feeRecipients.add('apes', ['0xbb', '0x00000000000000000000000000000000000c0ffe']);
    store.feeRecipients.add('apes', []);
    store.feeRecipients.add('punks', ['0xcc']);
    expect(store.feeRecipients.of('apes')).toEqual([
      '0x00000000000000000000000000000000000c0ffe',
      '0xaa',
      '0xbb',
    ]);
    store.close();
    store = open();
    expect(store.feeRecipients.of('apes')).toEqual([
      '0x00000000000000000000000000000000000c0ffe',
      '0xaa',
      '0xbb',
    ]);
    expect(store.feeRecipients.of('punks')).toEqual(['0xcc']);
    expect(store.feeRecipients.of('kittens')).toEqual([]);
  });

  it('strategy state round-trips JSON with bigints', () => {
    store.strategyState.set('s1', { spent: 3n, seen: ['a'] });
    expect(store.strategyState.get('s1')).toEqual({ spent: 3n, seen: ['a'] });
    store.strategyState.delete('s1');
    expect(store.strategyState.get('s1')).toBeUndefined();
  });

  it('fills: after(id) answers the fills recorded since as the table does, a rolled-back one gone from both', () => {
    const fill = (n: number, extra: Record<string, unknown> = {}) => ({
      txHash: `0x${n}`,
      side: 'buy' as const,
      collection: 'c',
      contract: '0xCC',
      tokenId: String(n),
      price: BigInt(n) * 10n ** 17n,
      token: '0xToken',
      ...extra,
    });
    // fills of an earlier run: not in this repository's memory
    const earlier = open('fills.db');
    earlier.fills.record(fill(1));
    earlier.close();
    const s = open('fills.db');
    const table = () => open('fills.db'); // a second handle reads the table itself
    try {
      s.fills.record(fill(2, { orderHash: '0xo', intentId: 'i-2', fees: 5n, quantity: 3n, blockNumber: 9 }));
      s.fills.record(fill(3));
      expect(s.fills.record(fill(3))).toBe(false); // the same (tx, contract, token): no row
      s.transaction(() => s.fills.record(fill(4, { filledAt: 123 })));
      const t = table();
      for (const from of [0, 1, 2, 3, 4]) expect(s.fills.after(from, 100)).toEqual(t.fills.after(from, 100));
      expect(s.fills.after(1, 2).map((f) => f.tokenId)).toEqual(['2', '3']);
      t.close();
      expect(() =>
        s.transaction(() => {
          s.fills.record(fill(5));
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(s.fills.after(3, 100).map((f) => f.tokenId)).toEqual(['4']);
      s.fills.record(fill(6));
      const u = table();
      for (const from of [0, 2, 4, 5]) expect(s.fills.after(from, 100)).toEqual(u.fills.after(from, 100));
      expect(s.fills.after(0, 100).map((f) => f.tokenId)).toEqual(['1', '2', '3', '4', '6']);
      u.close();
    } finally {
      s.close();
    }
  });

  it('transaction() is all or nothing', () => {
    expect(() =>
      store.transaction(() => {
        store.nonces.set('0xa', 1, 5);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(store.nonces.get('0xa', 1)).toBeUndefined();
  });
});

describe('exclusive store', () => {
  it('a second open of a locked store fails while the owner lives, and works after close', () => {
    const p = join(dir, 'locked.db');
    const a = openStore(p, { exclusive: true });
    expect(() => openStore(p, { exclusive: true })).toThrow(
      expect.objectContaining({ code: 'store_locked' }),
    );
    a.close();
    const b = openStore(p, { exclusive: true });
    b.close();
  });

  it('takes over the lock of a dead process (kill -9 leaves it behind)', () => {
    const p = join(dir, 'stale.db');
    // pid 2^22+ is above Linux's pid_max default: no such process
    writeFileSync(`${p}.lock`, '4194999');
    const s = openStore(p, { exclusive: true });
    expect(readFileSync(`${p}.lock`, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    s.close();
  });
});

describe('durability settings', () => {
  it('a non-durable commit restores synchronous=FULL afterwards, and rolls back like any other', () => {
    const s = open('dur.db');
    s.transaction(() => s.nonces.set('0xa', 1, 1), { durable: false });
    expect(s.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(() =>
      s.transaction(
        () => {
          s.nonces.set('0xa', 1, 2);
          throw new Error('boom');
        },
        { durable: false },
      ),
    ).toThrow('boom');
    expect(s.nonces.get('0xa', 1)).toBe(1);
    expect(s.db.pragma('synchronous', { simple: true })).toBe(2);
    s.close();
    const n = openStore(join(dir, 'normal.db'), { synchronous: 'normal' });
    expect(n.db.pragma('synchronous', { simple: true })).toBe(1);
    n.close();
  });
});

describe('WAL checkpoints off the commit path', () => {
  it('no commit checkpoints; the timer copies the WAL into the database', async () => {
    const path = join(dir, 'ckpt.db');
    const s = openStore(path, { now, checkpointIntervalMs: 30 });
    expect(s.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = statSync(path).size;
    for (let i = 0; i < 300; i++) {
      s.intents.create({
        id: `c${i}`,
        strategy: 's',
        kind: 'k',
        targetKey: `t${i}`,
        payload: { pad: 'x'.repeat(400) },
      });
    }
    // the commits wrote only the WAL: the database file has not grown yet
    expect(statSync(path).size).toBe(before);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(100_000);
    await new Promise((r) => setTimeout(r, 150));
    expect(statSync(path).size).toBeGreaterThan(before + 100_000);
    s.close();
  });

  it('checkpointIntervalMs 0 keeps SQLite auto-checkpoint', () => {
    const s = openStore(join(dir, 'auto.db'), { now, checkpointIntervalMs: 0 });
    expect(s.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    s.close();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MarketEvent, PaymentToken } from '../../../src/domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../../../src/domain/ids.ts';
import {
  createOrderLedger,
  type LedgerChange,
  type LedgerNews,
  type LedgerOrder,
  type LedgerStore,
  type NewLedgerOrder,
  type OrderLedger,
  storeLedger,
} from '../../../src/ledger/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';

const T0 = 1_800_000_000_000;
const E = 10n ** 18n;
const WETH: PaymentToken = {
  address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as Address,
  symbol: 'WETH',
  decimals: 18,
};
const CONTRACT = '0x00000000000000000000000000000000000000c1';
const HOUR = 3_600_000;

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as OrderHash;

function offer(n: number, extra: Partial<NewLedgerOrder> = {}): NewLedgerOrder {
  return {
    orderHash: hash(n),
    intentId: `i${n}`,
    strategyId: 's1',
    target: 'offer:collection:apes',
    side: 'collection_offer',
    collection: 'apes',
    contract: CONTRACT,
    tokenId: null,
    standard: null,
    trait: null,
    price: E,
    paymentToken: WETH,
    quantity: 1n,
    expiresAt: T0 + HOUR,
    ...extra,
  };
}

/** An in-memory LedgerStore (what the SQLite adapter does, with Maps). */
class MemStore implements LedgerStore {
  readonly orders = new Map<string, LedgerOrder>();
  readonly fills = new Map<string, { units: bigint; amount: bigint }>();
  saves = 0;
  load(): readonly LedgerOrder[] {
    return [...this.orders.values()];
  }
  save(order: LedgerOrder): void {
    this.saves++;
    this.orders.set(order.orderHash, order);
  }
  hasFill(orderHash: string, fillId: string): boolean {
    return this.fills.has(`${orderHash}|${fillId}`);
  }
  recordFill(orderHash: string, fillId: string, units: bigint, amount: bigint): void {
    this.fills.set(`${orderHash}|${fillId}`, { units, amount });
  }
}

function setup(opts: { store?: LedgerStore; unknownWindowMs?: number; retentionMs?: number } = {}) {
  const clock = { t: T0, now: () => clock.t };
  const store = opts.store ?? new MemStore();
  const ledger = createOrderLedger({
    clock,
    chain: 'ethereum',
    store,
    ...(opts.unknownWindowMs !== undefined ? { unknownWindowMs: opts.unknownWindowMs } : {}),
    ...(opts.retentionMs !== undefined ? { retentionMs: opts.retentionMs } : {}),
  });
  const changes: LedgerChange[] = [];
  ledger.onChange((c) => changes.push(c));
  const state = (n: number) => ledger.get(hash(n))?.state;
  const counts = (n: number) => {
    const o = ledger.get(hash(n));
    return o !== undefined && ledger.counts(o);
  };
  const open = (n: number, extra: Partial<NewLedgerOrder> = {}) => {
    ledger.post(offer(n, extra));
    ledger.note(hash(n), { kind: 'opened' });
    return ledger.get(hash(n)) as LedgerOrder;
  };
  return { clock, store, ledger, changes, state, counts, open };
}

const fill = (fillId: string, units = 1n, amount: bigint | null = null): LedgerNews => ({
  kind: 'filled',
  fillId,
  units,
  amount,
  txHash: null,
  tokenId: null,
  contract: null,
});

function base(id: string) {
  return {
    id,
    collection: 'apes' as CollectionSlug,
    chain: 'ethereum' as const,
    occurredAt: T0,
    receivedAt: T0,
    source: 'stream' as const,
  };
}
const nft = (id: number) => ({
  chain: 'ethereum' as const,
  contract: CONTRACT as Address,
  identifier: String(id) as TokenId,
});
function sale(
  h: OrderHash | null,
  o: { tx?: string | null; id?: number; quantity?: bigint; price?: bigint } = {},
): MarketEvent {
  return {
    ...base(`sale:${o.tx ?? 'x'}:${o.id ?? 1}`),
    kind: 'sale',
    nft: nft(o.id ?? 1),
    orderHash: h,
    txHash: o.tx === undefined ? '0xt1' : o.tx,
    seller: '0x00000000000000000000000000000000000000b1' as Address,
    buyer: '0x00000000000000000000000000000000000000aa' as Address,
    quantity: o.quantity ?? 1n,
    price: o.price ?? E,
    paymentToken: WETH,
  };
}
const cancelEvent = (h: OrderHash, tx: string | null): MarketEvent => ({
  ...base(`cancel:${h}`),
  kind: 'cancel',
  orderHash: h,
  nft: null,
  txHash: tx,
});
const validity = (h: OrderHash, kind: 'order_invalidated' | 'order_revalidated'): MarketEvent => ({
  ...base(`${kind}:${h}`),
  kind,
  orderHash: h,
  nft: null,
});

describe('ledger: post and the answer to it', () => {
  it('post records the order as posted; it counts at once; listeners hear it', () => {
    const { ledger, changes, counts } = setup();
    const o = ledger.post(offer(1, { quantity: 3n }));
    expect(o).toMatchObject({
      state: 'posted',
      filled: 0n,
      cancelValidUntil: null,
      createdAt: T0,
      updatedAt: T0,
    });
    expect(counts(1)).toBe(true);
    expect(ledger.exposureOf(o)).toBe(3n * E);
    expect(changes.map((c) => c.news.kind)).toEqual(['posted']);
    expect(changes[0]).toMatchObject({ previous: undefined, filledUnits: 0n, filledAmount: 0n });
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('posting the same hash again returns the record (no second change); hashes are case-insensitive', () => {
    const { ledger, changes } = setup();
    const a = ledger.post(offer(1));
    const b = ledger.post({ ...offer(1), orderHash: hash(1).toUpperCase().replace('0X', '0x'), price: 7n });
    expect(b).toBe(a);
    expect(changes).toHaveLength(1);
    expect(ledger.get(hash(1).toUpperCase())).toBe(a);
  });

  it('posted → open; opened again changes nothing', () => {
    const { ledger, state, counts } = setup();
    ledger.post(offer(1));
    const c = ledger.note(hash(1), { kind: 'opened' });
    expect(c?.order.state).toBe('open');
    expect(c?.previous?.state).toBe('posted');
    expect(state(1)).toBe('open');
    expect(counts(1)).toBe(true);
    expect(ledger.note(hash(1), { kind: 'opened' })).toBeNull();
  });

  it('posted → failed: gone, nothing counts; an "opened" arriving after changes nothing', () => {
    const { ledger, state, counts } = setup();
    ledger.post(offer(1));
    const v = ledger.version();
    expect(ledger.note(hash(1), { kind: 'post_failed', reason: 'api_rejected' })?.order).toMatchObject({
      state: 'failed',
      reason: 'api_rejected',
    });
    expect(ledger.version()).toBe(v + 1);
    expect(counts(1)).toBe(false);
    expect(ledger.exposureOf(ledger.get(hash(1)) as LedgerOrder)).toBe(0n);
    expect(ledger.note(hash(1), { kind: 'opened' })).toBeNull();
    expect(ledger.note(hash(1), { kind: 'post_failed', reason: 'again' })).toBeNull();
    expect(state(1)).toBe('failed');
  });

  it('news about an unknown hash is null and changes nothing', () => {
    const { ledger, changes } = setup();
    const v = ledger.version();
    expect(ledger.note(hash(99), { kind: 'opened' })).toBeNull();
    expect(ledger.note(hash(99), fill('tx'))).toBeNull();
    expect(
      ledger.note(hash(99), { kind: 'marketplace_status', status: 'FULFILLED', remaining: 0n }),
    ).toBeNull();
    ledger.apply(sale(hash(99)));
    ledger.apply(cancelEvent(hash(99), null));
    ledger.apply(validity(hash(99), 'order_invalidated'));
    ledger.apply(sale(null));
    expect(changes).toEqual([]);
    expect(ledger.version()).toBe(v);
    expect(ledger.get(hash(99))).toBeUndefined();
  });
});

describe('ledger: cancels', () => {
  it('open → cancelling (still counts) → open again when the cancel is refused', () => {
    const { ledger, state, counts } = setup();
    setupOpen(ledger);
    expect(ledger.note(hash(1), { kind: 'cancel_requested' })?.order.state).toBe('cancelling');
    expect(counts(1)).toBe(true);
    expect(ledger.note(hash(1), { kind: 'cancel_requested' })).toBeNull();
    const c = ledger.note(hash(1), { kind: 'cancel_refused', reason: 'http_500' });
    expect(c?.order).toMatchObject({ state: 'open', reason: 'cancel refused: http_500' });
    expect(state(1)).toBe('open');
    // a refusal when no cancel is under way changes nothing
    expect(ledger.note(hash(1), { kind: 'cancel_refused', reason: 'late' })).toBeNull();
  });

  it('a refused cancel of a partly filled order goes back to partly_filled', () => {
    const { ledger } = setup();
    setupOpen(ledger, { quantity: 2n });
    ledger.note(hash(1), fill('tx1'));
    ledger.note(hash(1), { kind: 'cancel_requested' });
    expect(ledger.note(hash(1), { kind: 'cancel_refused', reason: 'x' })?.order.state).toBe('partly_filled');
  });

  it('cancel_accepted with a past validUntil: cancelled at once', () => {
    const { ledger, counts, clock } = setup();
    setupOpen(ledger);
    const c = ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: clock.t - 1 });
    expect(c?.order).toMatchObject({ state: 'cancelled', cancelValidUntil: clock.t - 1 });
    expect(counts(1)).toBe(false);
  });

  it('cancel_accepted with a future validUntil: cancelling and counted until then; tick() → cancelled', () => {
    const { ledger, counts, clock, changes, state } = setup();
    setupOpen(ledger);
    ledger.note(hash(1), { kind: 'cancel_requested' });
    const until = clock.t + 60_000;
    const c = ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: until });
    expect(c?.order).toMatchObject({ state: 'cancelling', cancelValidUntil: until });
    // the same answer twice changes nothing; an earlier window does not shorten the known one
    expect(ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: until })).toBeNull();
    expect(ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: until - 10_000 })).toBeNull();
    expect(ledger.get(hash(1))?.cancelValidUntil).toBe(until);
    // a later refusal (of a retry) does not undo the accepted cancel
    expect(ledger.note(hash(1), { kind: 'cancel_refused', reason: 'late' })).toBeNull();
    // nor does a marketplace cancel without a window
    expect(ledger.note(hash(1), { kind: 'cancelled', source: 'marketplace' })).toBeNull();
    // a longer window extends it
    expect(
      ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: until + 5_000 })?.order.cancelValidUntil,
    ).toBe(until + 5_000);
    expect(ledger.counting().map((o) => o.orderHash)).toEqual([hash(1)]);
    expect(ledger.exposureOf(ledger.get(hash(1)) as LedgerOrder)).toBe(E);
    // standing() does not offer an order being cancelled to its strategy
    expect(ledger.standing('s1', 'offer:collection:apes')).toBeUndefined();
    clock.t = until + 4_999;
    ledger.tick();
    expect(state(1)).toBe('cancelling');
    expect(counts(1)).toBe(true);
    clock.t = until + 5_000;
    expect(counts(1)).toBe(false); // counts() looks at the clock, before any tick
    expect(ledger.counting()).toEqual([]);
    expect(state(1)).toBe('cancelling');
    const n = changes.length;
    ledger.tick();
    expect(state(1)).toBe('cancelled');
    expect(changes.length).toBe(n + 1);
    expect(changes.at(-1)?.news).toEqual({ kind: 'cancel_accepted', validUntil: until + 5_000 });
    ledger.tick();
    expect(changes.length).toBe(n + 1);
  });

  it('a chain cancel is final: nothing brings the order back', () => {
    const { ledger, counts, state } = setup();
    setupOpen(ledger);
    ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: T0 + 60_000 });
    expect(ledger.note(hash(1), { kind: 'cancelled', source: 'chain' })?.order).toMatchObject({
      state: 'cancelled',
      cancelValidUntil: null,
    });
    expect(counts(1)).toBe(false);
    for (const news of [
      { kind: 'opened' },
      { kind: 'revalidated' },
      { kind: 'invalidated' },
      { kind: 'cancel_requested' },
      { kind: 'cancel_refused', reason: 'x' },
      { kind: 'cancel_accepted', validUntil: T0 + 120_000 },
      { kind: 'cancelled', source: 'marketplace' },
      { kind: 'expired' },
      { kind: 'marketplace_status', status: 'ACTIVE', remaining: null },
    ] as LedgerNews[])
      expect(ledger.note(hash(1), news)).toBeNull();
    expect(state(1)).toBe('cancelled');
  });

  it('a marketplace cancel without a window counts for unknownWindowMs, then tick() → cancelled', () => {
    const { ledger, counts, clock, state } = setup({ unknownWindowMs: 30_000 });
    setupOpen(ledger);
    const c = ledger.note(hash(1), { kind: 'cancelled', source: 'marketplace' });
    expect(c?.order).toMatchObject({ state: 'cancelling', cancelValidUntil: T0 + 30_000 });
    clock.t = T0 + 29_999;
    expect(counts(1)).toBe(true);
    clock.t = T0 + 30_000;
    expect(counts(1)).toBe(false);
    ledger.tick();
    expect(state(1)).toBe('cancelled');
  });

  it('the default unknown window is 10 minutes', () => {
    const { ledger } = setup();
    setupOpen(ledger);
    expect(ledger.note(hash(1), { kind: 'cancelled', source: 'marketplace' })?.order.cancelValidUntil).toBe(
      T0 + 600_000,
    );
  });
});

function setupOpen(ledger: OrderLedger, extra: Partial<NewLedgerOrder> = {}, n = 1): void {
  ledger.post(offer(n, extra));
  ledger.note(hash(n), { kind: 'opened' });
}

describe('ledger: validity and expiry', () => {
  it('invalid still counts; revalidated brings it back to open (or partly_filled)', () => {
    const { ledger, counts, state } = setup();
    setupOpen(ledger, { quantity: 2n });
    expect(ledger.note(hash(1), { kind: 'invalidated' })?.order.state).toBe('invalid');
    expect(counts(1)).toBe(true);
    expect(ledger.note(hash(1), { kind: 'invalidated' })).toBeNull();
    expect(ledger.note(hash(1), { kind: 'revalidated' })?.order.state).toBe('open');
    expect(ledger.note(hash(1), { kind: 'revalidated' })).toBeNull();
    ledger.note(hash(1), fill('tx1'));
    ledger.note(hash(1), { kind: 'invalidated' });
    expect(ledger.note(hash(1), { kind: 'revalidated' })?.order.state).toBe('partly_filled');
    expect(state(1)).toBe('partly_filled');
  });

  it('a posted order may be invalidated; a cancelling one is not', () => {
    const { ledger, state } = setup();
    ledger.post(offer(1));
    expect(ledger.note(hash(1), { kind: 'invalidated' })?.order.state).toBe('invalid');
    setupOpen(ledger, {}, 2);
    ledger.note(hash(2), { kind: 'cancel_requested' });
    expect(ledger.note(hash(2), { kind: 'invalidated' })).toBeNull();
    expect(state(2)).toBe('cancelling');
  });

  it('expiry: counts() stops at expiresAt at once; tick() moves it to expired', () => {
    const { ledger, counts, clock, state, changes } = setup();
    setupOpen(ledger, { expiresAt: T0 + 10_000 });
    setupOpen(ledger, { expiresAt: T0 + 20_000 }, 2);
    clock.t = T0 + 9_999;
    expect(counts(1)).toBe(true);
    clock.t = T0 + 10_000;
    expect(counts(1)).toBe(false);
    expect(ledger.exposureOf(ledger.get(hash(1)) as LedgerOrder)).toBe(0n);
    expect(ledger.counting().map((o) => o.orderHash)).toEqual([hash(2)]);
    expect(state(1)).toBe('open');
    ledger.tick();
    expect(state(1)).toBe('expired');
    expect(state(2)).toBe('open');
    expect(changes.at(-1)).toMatchObject({ news: { kind: 'expired' }, previous: { state: 'open' } });
  });

  it('counting() is the same list while nothing changes and time reaches no end', () => {
    // and ticks that found nothing due still move what is due later and drop closed orders in time
    const { ledger, clock, state } = setup({ retentionMs: 60_000 });
    setupOpen(ledger, { expiresAt: T0 + 10_000 });
    setupOpen(ledger, { expiresAt: T0 + 20_000 }, 2);
    const first = ledger.counting();
    clock.t = T0 + 5_000;
    // nothing changed, no order ended: the same answer (read-only)
    expect(ledger.counting()).toBe(first);
    ledger.tick(); // nothing due: remembers the first end (T0 + 10 s)
    expect(state(1)).toBe('open');
    // a change of an order (a cancel request) is a new answer
    ledger.note(hash(2), { kind: 'cancel_requested' });
    const second = ledger.counting();
    expect(second).not.toBe(first);
    expect(second.map((o) => o.orderHash)).toEqual([hash(1), hash(2)]);
    // time alone past an end: a new answer without the order, before any tick moves it
    clock.t = T0 + 10_000;
    expect(ledger.counting().map((o) => o.orderHash)).toEqual([hash(2)]);
    ledger.tick();
    expect(state(1)).toBe('expired');
    clock.t = T0 + 15_000;
    ledger.tick(); // nothing due until T0 + 20 s
    expect(state(2)).toBe('cancelling');
    clock.t = T0 + 20_000;
    ledger.tick();
    expect(state(2)).toBe('expired');
    // closed orders still go after the retention time, however many ticks found nothing to move
    clock.t = T0 + 70_000;
    ledger.tick();
    expect(ledger.get(hash(1))).toBeDefined();
    clock.t = T0 + 70_001;
    ledger.tick();
    expect(ledger.get(hash(1))).toBeUndefined();
    expect(ledger.get(hash(2))).toBeDefined();
    clock.t = T0 + 80_001;
    ledger.tick();
    expect(ledger.get(hash(2))).toBeUndefined();
  });

  it('an expired news is final; a cancelling order past its expiry is expired by tick()', () => {
    const { ledger, state, clock } = setup();
    setupOpen(ledger);
    expect(ledger.note(hash(1), { kind: 'expired' })?.order.state).toBe('expired');
    expect(ledger.note(hash(1), { kind: 'expired' })).toBeNull();
    expect(ledger.note(hash(1), { kind: 'revalidated' })).toBeNull();
    setupOpen(ledger, { expiresAt: T0 + 1_000 }, 2);
    ledger.note(hash(2), { kind: 'cancel_accepted', validUntil: T0 + 5_000 });
    clock.t = T0 + 1_000;
    ledger.tick();
    expect(state(2)).toBe('expired');
  });

  it('gone orders are forgotten after the retention time (tick), counting ones never', () => {
    const { ledger, clock } = setup({ retentionMs: 60_000 });
    setupOpen(ledger, { expiresAt: T0 + 10 * HOUR });
    setupOpen(ledger, { intentId: 'i2' }, 2);
    ledger.note(hash(2), { kind: 'cancelled', source: 'chain' });
    clock.t = T0 + 60_000;
    ledger.tick();
    expect(ledger.get(hash(2))).toBeDefined();
    clock.t = T0 + 60_001;
    const v = ledger.version();
    ledger.tick();
    expect(ledger.get(hash(2))).toBeUndefined();
    expect(ledger.byIntent('i2')).toBeUndefined();
    expect(ledger.version()).toBeGreaterThan(v);
    expect(ledger.get(hash(1))?.state).toBe('open');
  });
});

describe('ledger: retention of closed orders', () => {
  it('each closed order is forgotten retentionMs after it closed, also when loaded from the store out of order', () => {
    const store = new MemStore();
    const a = setup({ retentionMs: 60_000, store });
    for (const n of [1, 2, 3, 4]) setupOpen(a.ledger, { intentId: `i${n}` }, n);
    // closed at T0+1 s (#1), T0+2 s (#3), T0+3 s (#2); #4 stays open
    for (const [n, t] of [
      [1, 1_000],
      [3, 2_000],
      [2, 3_000],
    ] as const) {
      a.clock.t = T0 + t;
      a.ledger.note(hash(n), { kind: 'cancelled', source: 'chain' });
    }
    // a restart: the store hands the orders back in its own order
    const reversed = new MemStore();
    for (const o of [...store.orders.values()].reverse()) reversed.save(o);
    for (const { ledger, clock } of [a, setup({ retentionMs: 60_000, store: reversed })]) {
      const known = () => [1, 2, 3, 4].filter((n) => ledger.get(hash(n)) !== undefined);
      clock.t = T0 + 61_500; // past #1's time only
      ledger.tick();
      expect(known()).toEqual([2, 3, 4]);
      clock.t = T0 + 62_500; // past #3's
      ledger.tick();
      expect(known()).toEqual([2, 4]);
      clock.t = T0 + 63_001; // past #2's
      ledger.tick();
      expect(known()).toEqual([4]);
      expect(ledger.counting().map((o) => o.orderHash)).toEqual([hash(4)]);
    }
  });
});

describe('ledger: fills', () => {
  it('partial then full: units, amounts, exposure of what is left; listeners get filledUnits/filledAmount', () => {
    const { ledger, changes, counts } = setup();
    setupOpen(ledger, { quantity: 3n, price: 2n * E });
    const a = ledger.note(hash(1), fill('tx1'));
    expect(a).toMatchObject({
      filledUnits: 1n,
      filledAmount: 2n * E,
      order: { state: 'partly_filled', filled: 1n },
    });
    expect(changes.at(-1)).toBe(a);
    expect(ledger.exposureOf(a?.order as LedgerOrder)).toBe(4n * E);
    // the amount paid, when known, is what is charged
    const b = ledger.note(hash(1), fill('tx2', 1n, 3n * E));
    expect(b).toMatchObject({
      filledUnits: 1n,
      filledAmount: 3n * E,
      order: { state: 'partly_filled', filled: 2n },
    });
    // more units than are left: only what is left
    const c = ledger.note(hash(1), fill('tx3', 5n));
    expect(c).toMatchObject({
      filledUnits: 1n,
      filledAmount: 2n * E,
      order: { state: 'filled', filled: 3n, reason: 'filled' },
    });
    expect(counts(1)).toBe(false);
    expect(ledger.exposureOf(c?.order as LedgerOrder)).toBe(0n);
    // nothing left to fill
    expect(ledger.note(hash(1), fill('tx4'))).toBeNull();
    expect(changes.filter((x) => x.filledUnits > 0n).map((x) => x.filledUnits)).toEqual([1n, 1n, 1n]);
  });

  it('a fill of a posted order (its answer lost) makes it partly_filled', () => {
    const { ledger } = setup();
    ledger.post(offer(1, { quantity: 2n }));
    expect(ledger.note(hash(1), fill('tx1'))?.order.state).toBe('partly_filled');
  });

  it('the same fill id twice is charged once', () => {
    const { ledger, store, changes } = setup();
    setupOpen(ledger, { quantity: 3n });
    expect(ledger.note(hash(1), fill('tx1'))?.filledUnits).toBe(1n);
    expect(ledger.note(hash(1), fill('tx1'))).toBeNull();
    expect(ledger.get(hash(1))?.filled).toBe(1n);
    expect(changes.filter((c) => c.filledUnits > 0n)).toHaveLength(1);
    expect((store as MemStore).fills.get(`${hash(1)}|tx1`)).toEqual({ units: 1n, amount: E });
  });

  it('the same fill id after a restart (new ledger on the same store) is charged once', () => {
    const store = new MemStore();
    const first = setup({ store });
    setupOpen(first.ledger, { quantity: 3n });
    first.ledger.note(hash(1), fill('tx1'));
    const second = setup({ store });
    expect(second.ledger.get(hash(1))).toMatchObject({ state: 'partly_filled', filled: 1n });
    expect(second.ledger.note(hash(1), fill('tx1'))).toBeNull();
    expect(second.ledger.get(hash(1))?.filled).toBe(1n);
    expect(second.ledger.note(hash(1), fill('tx2'))?.filledUnits).toBe(1n);
    expect(second.changes.filter((c) => c.filledUnits > 0n)).toHaveLength(1);
  });

  it('a sale after an accepted off-chain cancel, inside its window, is recorded and charged', () => {
    const { ledger, clock, changes } = setup();
    setupOpen(ledger, { quantity: 2n });
    ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: T0 + 60_000 });
    clock.t = T0 + 30_000;
    const c = ledger.note(hash(1), fill('tx1'));
    expect(c).toMatchObject({ filledUnits: 1n, filledAmount: E, order: { state: 'cancelling', filled: 1n } });
    expect(ledger.exposureOf(c?.order as LedgerOrder)).toBe(E);
    ledger.note(hash(1), fill('tx2'));
    expect(ledger.get(hash(1))?.state).toBe('filled');
    expect(changes.filter((x) => x.filledUnits > 0n)).toHaveLength(2);
  });

  it('a late fill of a gone order (window passed, ticked) is still recorded and charged', () => {
    const { ledger, clock } = setup();
    setupOpen(ledger, { quantity: 2n });
    ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: T0 + 60_000 });
    clock.t = T0 + 61_000;
    ledger.tick();
    expect(ledger.get(hash(1))?.state).toBe('cancelled');
    const c = ledger.note(hash(1), fill('tx1'));
    expect(c).toMatchObject({ filledUnits: 1n, order: { state: 'cancelled', filled: 1n } });
    expect(ledger.counts(c?.order as LedgerOrder)).toBe(false);
  });
});

describe('ledger: the marketplace read (marketplace_status)', () => {
  it('ACTIVE with a lower remaining quantity is a fill of the difference (once)', () => {
    const { ledger } = setup();
    setupOpen(ledger, { quantity: 4n, price: 2n * E });
    const c = ledger.note(hash(1), { kind: 'marketplace_status', status: 'ACTIVE', remaining: 3n });
    expect(c).toMatchObject({
      filledUnits: 1n,
      filledAmount: 2n * E,
      order: { state: 'partly_filled', filled: 1n },
    });
    expect(ledger.note(hash(1), { kind: 'marketplace_status', status: 'ACTIVE', remaining: 3n })).toBeNull();
    expect(
      ledger.note(hash(1), { kind: 'marketplace_status', status: 'ACTIVE', remaining: null }),
    ).toBeNull();
    expect(
      ledger.note(hash(1), { kind: 'marketplace_status', status: 'ACTIVE', remaining: 1n })?.filledUnits,
    ).toBe(2n);
    expect(ledger.get(hash(1))?.filled).toBe(3n);
  });

  it('ACTIVE confirms a posted order (open) and an invalid one (back to open)', () => {
    const { ledger, state } = setup();
    ledger.post(offer(1));
    expect(
      ledger.note(hash(1), { kind: 'marketplace_status', status: 'ACTIVE', remaining: 1n })?.order.state,
    ).toBe('open');
    ledger.note(hash(1), { kind: 'invalidated' });
    ledger.note(hash(1), { kind: 'marketplace_status', status: 'ACTIVE', remaining: null });
    expect(state(1)).toBe('open');
    // a failed post stays failed
    ledger.post(offer(2));
    ledger.note(hash(2), { kind: 'post_failed', reason: 'x' });
    expect(
      ledger.note(hash(2), { kind: 'marketplace_status', status: 'ACTIVE', remaining: null }),
    ).toBeNull();
  });

  it('FULFILLED fills what is left; CANCELLED, EXPIRED, INVALID map to their news', () => {
    const { ledger, state } = setup({ unknownWindowMs: 1_000 });
    setupOpen(ledger, { quantity: 3n });
    ledger.note(hash(1), fill('tx1'));
    const c = ledger.note(hash(1), { kind: 'marketplace_status', status: 'FULFILLED', remaining: 0n });
    expect(c).toMatchObject({
      filledUnits: 2n,
      filledAmount: 2n * E,
      order: { state: 'filled', filled: 3n },
    });
    expect(
      ledger.note(hash(1), { kind: 'marketplace_status', status: 'FULFILLED', remaining: 0n }),
    ).toBeNull();
    setupOpen(ledger, {}, 2);
    expect(
      ledger.note(hash(2), { kind: 'marketplace_status', status: 'CANCELLED', remaining: null })?.order,
    ).toMatchObject({ state: 'cancelling', cancelValidUntil: T0 + 1_000 });
    setupOpen(ledger, {}, 3);
    ledger.note(hash(3), { kind: 'marketplace_status', status: 'EXPIRED', remaining: null });
    expect(state(3)).toBe('expired');
    setupOpen(ledger, {}, 4);
    ledger.note(hash(4), { kind: 'marketplace_status', status: 'INVALID', remaining: null });
    expect(state(4)).toBe('invalid');
  });
});

describe('ledger: apply(MarketEvent)', () => {
  it('a sale of ours is a fill (price as paid, quantity as sold), idempotent by tx + item', () => {
    const { ledger, changes } = setup();
    setupOpen(ledger, { quantity: 3n });
    ledger.apply(
      sale(hash(1).toUpperCase().replace('0X', '0x') as OrderHash, {
        tx: '0xt1',
        id: 7,
        quantity: 2n,
        price: 3n * E,
      }),
    );
    expect(changes.at(-1)).toMatchObject({
      filledUnits: 2n,
      filledAmount: 3n * E,
      news: {
        kind: 'filled',
        fillId: `0xt1:${CONTRACT}:7`,
        txHash: '0xt1',
        tokenId: '7',
        contract: CONTRACT,
      },
    });
    ledger.apply(sale(hash(1), { tx: '0xt1', id: 7, quantity: 2n, price: 3n * E }));
    expect(ledger.get(hash(1))?.filled).toBe(2n);
    // another item of the same transaction is another fill
    ledger.apply(sale(hash(1), { tx: '0xt1', id: 8 }));
    expect(ledger.get(hash(1))?.state).toBe('filled');
  });

  it('a sale without a tx hash uses the event id; quantity 0 reads as one unit', () => {
    const { ledger, changes } = setup();
    setupOpen(ledger, { quantity: 2n });
    ledger.apply(sale(hash(1), { tx: null, quantity: 0n }));
    expect(changes.at(-1)).toMatchObject({ filledUnits: 1n, news: { fillId: `sale:x:1:${CONTRACT}:1` } });
    ledger.apply(sale(hash(1), { tx: null, quantity: 0n }));
    expect(ledger.get(hash(1))?.filled).toBe(1n);
  });

  it('a cancel without a tx is off-chain (window); with a tx it is on chain (final)', () => {
    const { ledger, state, counts } = setup({ unknownWindowMs: 5_000 });
    setupOpen(ledger);
    setupOpen(ledger, {}, 2);
    ledger.apply(cancelEvent(hash(1), null));
    expect(ledger.get(hash(1))).toMatchObject({ state: 'cancelling', cancelValidUntil: T0 + 5_000 });
    expect(counts(1)).toBe(true);
    ledger.apply(cancelEvent(hash(2), '0xtx'));
    expect(state(2)).toBe('cancelled');
    expect(counts(2)).toBe(false);
    // the chain cancel of an order in its off-chain window ends it
    ledger.apply(cancelEvent(hash(1), '0xtx2'));
    expect(state(1)).toBe('cancelled');
  });

  it('order_invalidated / order_revalidated', () => {
    const { ledger, state } = setup();
    setupOpen(ledger);
    ledger.apply(validity(hash(1), 'order_invalidated'));
    expect(state(1)).toBe('invalid');
    ledger.apply(validity(hash(1), 'order_revalidated'));
    expect(state(1)).toBe('open');
  });

  it('other events are ignored', () => {
    const { ledger } = setup();
    setupOpen(ledger);
    const v = ledger.version();
    ledger.apply({
      ...base('l'),
      kind: 'listing',
      orderHash: hash(1),
      maker: '0x00000000000000000000000000000000000000aa' as Address,
      taker: null,
      quantity: 1n,
      price: E,
      paymentToken: WETH,
      expiresAt: null,
      nft: nft(1),
      isPrivate: false,
    });
    expect(ledger.version()).toBe(v);
  });
});

describe('ledger: reads', () => {
  it('byIntent, list filters, counting, standing(strategyId, target)', () => {
    const { ledger } = setup();
    setupOpen(ledger);
    setupOpen(ledger, { strategyId: 's2', target: 't2', side: 'listing' }, 2);
    ledger.post(offer(3, { target: 't3' }));
    ledger.post(offer(4, { target: 't4' }));
    ledger.note(hash(4), { kind: 'post_failed', reason: 'x' });
    expect(ledger.byIntent('i1')?.orderHash).toBe(hash(1));
    expect(ledger.byIntent('nope')).toBeUndefined();
    expect(ledger.list().map((o) => o.orderHash)).toEqual([hash(1), hash(2), hash(3), hash(4)]);
    expect(ledger.list({ strategyId: 's2' }).map((o) => o.orderHash)).toEqual([hash(2)]);
    expect(ledger.list({ side: 'listings' }).map((o) => o.orderHash)).toEqual([hash(2)]);
    expect(ledger.list({ side: 'offers' }).map((o) => o.orderHash)).toEqual([hash(1), hash(3), hash(4)]);
    expect(ledger.list({ states: ['posted', 'failed'] }).map((o) => o.orderHash)).toEqual([hash(3), hash(4)]);
    expect(ledger.counting().map((o) => o.orderHash)).toEqual([hash(1), hash(2), hash(3)]);
    expect(ledger.standing('s1', 'offer:collection:apes')?.orderHash).toBe(hash(1));
    expect(ledger.standing('s1', 't3')?.orderHash).toBe(hash(3)); // posted counts
    expect(ledger.standing('s1', 't4')).toBeUndefined(); // failed does not
    expect(ledger.standing('s2', 'offer:collection:apes')).toBeUndefined();
    ledger.note(hash(1), { kind: 'cancelled', source: 'chain' });
    expect(ledger.standing('s1', 'offer:collection:apes')).toBeUndefined();
  });

  it('exposureOf: price × units not filled while it counts', () => {
    const { ledger } = setup();
    setupOpen(ledger, { quantity: 5n, price: 3n });
    ledger.note(hash(1), fill('a', 2n));
    expect(ledger.exposureOf(ledger.get(hash(1)) as LedgerOrder)).toBe(9n);
    ledger.note(hash(1), { kind: 'invalidated' });
    expect(ledger.exposureOf(ledger.get(hash(1)) as LedgerOrder)).toBe(9n);
    ledger.note(hash(1), { kind: 'expired' });
    expect(ledger.exposureOf(ledger.get(hash(1)) as LedgerOrder)).toBe(0n);
  });

  it('ownOrders(): the snapshot form (cancelling shows cancelled, quantity = units left, item nftKey)', () => {
    const { ledger, clock } = setup();
    setupOpen(ledger, { quantity: 3n, price: 2n });
    ledger.note(hash(1), fill('a'));
    setupOpen(ledger, { side: 'item_offer', tokenId: '42' }, 2);
    setupOpen(ledger, { side: 'listing', tokenId: '43', contract: CONTRACT }, 3);
    ledger.note(hash(3), { kind: 'cancel_accepted', validUntil: T0 + 60_000 });
    setupOpen(ledger, { side: 'trait_offer', trait: { type: 'Fur', value: 'Gold' } }, 4);
    ledger.note(hash(4), { kind: 'invalidated' });
    ledger.post(offer(5));
    ledger.note(hash(5), { kind: 'post_failed', reason: 'x' });
    setupOpen(ledger, { quantity: 1n }, 6);
    ledger.note(hash(6), fill('b'));
    setupOpen(ledger, {}, 7);
    ledger.note(hash(7), { kind: 'expired' });
    setupOpen(ledger, { side: 'item_offer', contract: null, tokenId: null }, 8);
    const own = ledger.ownOrders();
    expect(Object.isFrozen(own)).toBe(true);
    expect(own.map((o) => [o.orderHash, o.status, o.quantity, o.nftKey])).toEqual([
      [hash(1), 'open', 2n, null],
      [hash(2), 'open', 1n, `ethereum/${CONTRACT}/42`],
      [hash(3), 'cancelled', 1n, `ethereum/${CONTRACT}/43`],
      [hash(4), 'invalid', 1n, null],
      [hash(5), 'invalid', 1n, null],
      [hash(6), 'filled', 0n, null],
      [hash(7), 'expired', 1n, null],
      [hash(8), 'open', 1n, null],
    ]);
    expect(own[0]).toEqual({
      orderHash: hash(1),
      side: 'collection_offer',
      collection: 'apes',
      nftKey: null,
      trait: null,
      price: 2n,
      paymentToken: WETH,
      quantity: 2n,
      expiresAt: T0 + HOUR,
      status: 'open',
    });
    expect(own[3]?.trait).toEqual({ type: 'Fur', value: 'Gold' });
    // unchanged ledger: the same list; a change: a new one
    expect(ledger.ownOrders()).toBe(own);
    clock.t += 1;
    ledger.note(hash(2), { kind: 'cancel_requested' });
    const next = ledger.ownOrders();
    expect(next).not.toBe(own);
    expect(next[1]?.status).toBe('cancelled');
  });

  it('ownOrdersOf(strategy): the same entries as ownOrders(), those of its orders, in order; kept until a change', () => {
    const { ledger, clock } = setup();
    setupOpen(ledger, { strategyId: 'bidder' }, 1);
    setupOpen(ledger, { strategyId: 'seller', side: 'listing', tokenId: '7', contract: CONTRACT }, 2);
    setupOpen(ledger, { strategyId: 'bidder' }, 3);
    setupOpen(ledger, { strategyId: null }, 4);
    ledger.note(hash(3), { kind: 'cancel_requested' });
    const own = ledger.ownOrders();
    const bidder = ledger.ownOrdersOf('bidder');
    expect(bidder).toEqual([own[0], own[2]]);
    expect(bidder[0]).toBe(own[0]);
    expect(bidder[1]?.status).toBe('cancelled');
    expect(ledger.ownOrdersOf('seller')).toEqual([own[1]]);
    expect(ledger.ownOrdersOf('nobody')).toEqual([]);
    expect(ledger.ownOrdersOf('bidder')).toBe(bidder);
    clock.t += 1;
    ledger.note(hash(1), fill('x'));
    const after = ledger.ownOrdersOf('bidder');
    expect(after).not.toBe(bidder);
    expect(after.map((o) => o.status)).toEqual(['filled', 'cancelled']);
  });

  it('a listener that throws is reported and does not stop the others', () => {
    const errors: unknown[] = [];
    const clock = { now: () => T0 };
    const ledger = createOrderLedger({ clock, chain: 'ethereum', onListenerError: (e) => errors.push(e) });
    const heard: string[] = [];
    ledger.onChange(() => {
      throw new Error('boom');
    });
    const off = ledger.onChange((c) => heard.push(c.news.kind));
    ledger.post(offer(1));
    expect(heard).toEqual(['posted']);
    expect(errors).toHaveLength(1);
    off();
    ledger.note(hash(1), { kind: 'opened' });
    expect(heard).toEqual(['posted']);
    expect(ledger.get(hash(1))?.state).toBe('open');
  });
});

describe('ledger: persistence through the SQLite store', () => {
  let dir: string;
  let stores: Store[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'harpoon-ledger-'));
    stores = [];
  });
  afterEach(() => {
    for (const s of stores) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function ledgerOn(path: string, clock: { t: number; now(): number }) {
    const store = openStore(path, { now: clock.now });
    stores.push(store);
    const ledger = createOrderLedger({ clock, chain: 'ethereum', store: storeLedger(store, clock.now) });
    return { store, ledger };
  }

  it('every field round-trips (bigints, trait, components, cancel window, token); fills stay idempotent', () => {
    const path = join(dir, 'state.db');
    const clock = { t: T0, now: () => clock.t };
    const a = ledgerOn(path, clock);
    const components = { offerer: '0xaa', salt: 2n ** 200n, items: [{ amount: 3n }] };
    a.ledger.post(
      offer(1, {
        side: 'trait_offer',
        trait: { type: 'Fur', value: 'Gold' },
        quantity: 4n,
        price: 123_456_789_012_345_678_901n,
        standard: 'erc721',
        components,
        protocolAddress: '0x0000000000000068f116a894984e2db1123eb395',
      }),
    );
    a.ledger.note(hash(1), { kind: 'opened' });
    clock.t += 1_000;
    a.ledger.note(hash(1), fill('tx1', 1n, 5n));
    a.ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: T0 + 60_000 });
    setupOpen(
      a.ledger,
      { side: 'item_offer', tokenId: '9', intentId: null, strategyId: null, target: null },
      2,
    );
    const before = a.ledger.list();
    expect(a.store.orders.get(hash(1))).toMatchObject({
      status: 'cancelling',
      filled: 1n,
      cancelValidUntil: T0 + 60_000,
    });
    expect(a.store.orders.hasFill(hash(1), 'tx1')).toBe(true);
    a.store.close();
    stores.length = 0;

    const b = ledgerOn(path, clock);
    expect(b.ledger.list()).toEqual(before);
    expect(b.ledger.get(hash(1))?.components).toEqual(components);
    expect(b.ledger.byIntent('i1')?.orderHash).toBe(hash(1));
    expect(b.ledger.counting().map((o) => o.orderHash)).toEqual([hash(1), hash(2)]);
    expect(b.ledger.note(hash(1), fill('tx1', 1n, 5n))).toBeNull();
    expect(b.ledger.get(hash(1))?.filled).toBe(1n);
    expect(b.ledger.note(hash(1), fill('tx2'))?.filledUnits).toBe(1n);
  });

  it('without orders (a backtest): no order row is written or read back, fills are recorded once', () => {
    const clock = { t: T0, now: () => clock.t };
    const store = openStore(':memory:', { now: clock.now });
    stores.push(store);
    const ledger = createOrderLedger({
      clock,
      chain: 'ethereum',
      store: storeLedger(store, clock.now, { orders: false }),
    });
    setupOpen(ledger);
    expect(ledger.note(hash(1), fill('tx1'))?.filledUnits).toBe(1n);
    expect(store.orders.get(hash(1))).toBeUndefined();
    expect(store.orders.hasFill(hash(1), 'tx1')).toBe(true);
    expect(store.fills.after(0, 10)).toHaveLength(1);
    const again = createOrderLedger({
      clock,
      chain: 'ethereum',
      store: storeLedger(store, clock.now, { orders: false }),
    });
    expect(again.list()).toEqual([]);
  });

  it('gone orders are read back only when they ended within the last hour', () => {
    const clock = { t: T0, now: () => clock.t };
    const a = ledgerOn(':memory:', clock);
    setupOpen(a.ledger);
    setupOpen(a.ledger, {}, 2);
    a.ledger.note(hash(2), { kind: 'cancelled', source: 'chain' });
    setupOpen(a.ledger, {}, 3);
    clock.t = T0 + 30 * 60_000;
    a.ledger.note(hash(3), { kind: 'expired' });
    clock.t = T0 + HOUR + 1;
    const again = createOrderLedger({ clock, chain: 'ethereum', store: storeLedger(a.store, clock.now) });
    expect(again.list().map((o) => [o.orderHash, o.state])).toEqual([
      [hash(1), 'open'],
      [hash(3), 'expired'],
    ]);
  });
});

describe('ledger: news out of order (the cases found in review)', () => {
  it('an older cancel answer never ends a window a newer one opened', () => {
    const { ledger, clock, open, state, counts } = setup();
    open(1);
    ledger.note(hash(1), { kind: 'cancel_requested' });
    ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: T0 + 60_000 });
    ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: T0 - 1 });
    expect(state(1)).toBe('cancelling');
    expect(counts(1)).toBe(true);
    clock.t = T0 + 60_000;
    ledger.tick();
    expect(state(1)).toBe('cancelled');
  });

  it('units the marketplace reports in aggregate and the same units seen as sales are charged once', () => {
    const { ledger, open, changes } = setup();
    open(1, { quantity: 3n });
    ledger.note(hash(1), fill('txA'));
    ledger.note(hash(1), { kind: 'marketplace_status', status: 'ACTIVE', remaining: 1n }); // txA + txB
    ledger.note(hash(1), fill('txB')); // already counted by the read
    expect(ledger.get(hash(1))).toMatchObject({ filled: 2n, state: 'partly_filled' });
    expect(changes.reduce((s, c) => s + c.filledUnits, 0n)).toBe(2n);
    ledger.note(hash(1), fill('txC'));
    expect(ledger.get(hash(1))).toMatchObject({ filled: 3n, state: 'filled' });
  });

  it('after a restart, a new sale of an order already partly filled is charged', () => {
    const store = new MemStore();
    const first = setup({ store });
    first.open(1, { quantity: 3n });
    first.ledger.note(hash(1), fill('txA', 2n));
    const second = setup({ store });
    const c = second.ledger.note(hash(1), fill('txB'));
    expect(c?.filledUnits).toBe(1n);
    expect(second.ledger.get(hash(1))?.state).toBe('filled');
  });

  it('ownOrders() and ownOrdersOf() built from the changes alone equal the lists built whole, through any sequence', () => {
    // a seeded walk of posts, opens, fills, cancels, expiries by time and retention drops; after
    // each step the lists must be what the ledger's orders say, entry by entry
    const { ledger, clock } = setup({ retentionMs: 20_000 });
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor(seed / 65_536) % n;
    };
    const statusOf = (o: LedgerOrder): string => {
      switch (o.state) {
        case 'posted':
        case 'open':
        case 'partly_filled':
          return o.expiresAt <= clock.t ? 'expired' : 'open';
        case 'invalid':
        case 'failed':
          return 'invalid';
        case 'cancelling':
        case 'cancelled':
          return 'cancelled';
        default:
          return o.state;
      }
    };
    const strategies = ['a', 'b', 'c'];
    let n = 0;
    for (let step = 0; step < 600; step++) {
      const r = rand(10);
      const known = ledger.list().map((o) => o.orderHash);
      const any = known[rand(Math.max(1, known.length))];
      if (r < 3 || any === undefined) {
        n++;
        ledger.post(
          offer(n, {
            strategyId: strategies[rand(3)] as string,
            quantity: BigInt(1 + rand(3)),
            expiresAt: clock.t + 1_000 + rand(30_000),
          }),
        );
        if (rand(2) === 0) ledger.note(hash(n), { kind: 'opened' });
      } else if (r === 3) ledger.note(any, { kind: 'opened' });
      else if (r === 4) ledger.note(any, fill(`f${step}`));
      else if (r === 5) ledger.note(any, { kind: 'cancel_requested' });
      else if (r === 6) ledger.note(any, { kind: 'invalidated' });
      else if (r === 7) clock.t += rand(3_000);
      else if (r === 8) ledger.tick();
      if (rand(3) === 0) continue; // several changes between two reads, too
      const own = ledger.ownOrders();
      const orders = ledger.list();
      expect(own.map((o) => [o.orderHash, o.status, o.quantity])).toEqual(
        orders.map((o) => [o.orderHash, statusOf(o), o.quantity - o.filled]),
      );
      for (const s of strategies)
        expect(ledger.ownOrdersOf(s)).toEqual(own.filter((_, i) => orders[i]?.strategyId === s));
    }
    expect(n).toBeGreaterThan(100);
    expect(ledger.list().length).toBeLessThan(n); // retention dropped some on the way
  });

  it('ownOrders() shows an order expired once its time has come, without any other change', () => {
    const { ledger, clock, open } = setup();
    open(1, { expiresAt: T0 + 1000 });
    expect(ledger.ownOrders()[0]?.status).toBe('open');
    clock.t = T0 + 1000;
    expect(ledger.ownOrders()[0]?.status).toBe('expired');
  });
});

describe('ledger: a guessed window gives way to the answer', () => {
  it('the stream reports our cancel before its answer: the answer (window passed) makes it gone', () => {
    const { ledger, open, state, counts } = setup();
    open(1);
    ledger.note(hash(1), { kind: 'cancel_requested' });
    ledger.apply(cancelEvent(hash(1), null)); // the marketplace's event, before the HTTP answer
    expect(counts(1)).toBe(true);
    ledger.note(hash(1), { kind: 'cancel_accepted', validUntil: T0 - 1 });
    expect(state(1)).toBe('cancelled');
    expect(counts(1)).toBe(false);
  });
});

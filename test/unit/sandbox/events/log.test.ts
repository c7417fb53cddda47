import { describe, expect, it } from 'vitest';
import { EventLog, type MarketEventInput } from '../../../../src/sandbox/events/log.ts';
import { ALICE, APES, BOB, SAMPLE_EVENTS } from '../server/sample.ts';

function clock(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    set(v: number) {
      t = v;
    },
  };
}

describe('EventLog', () => {
  it('assigns monotonic ids from 1 and never lets time run backwards', () => {
    const c = clock(5_000);
    const log = new EventLog(c.now);
    const a = log.append(SAMPLE_EVENTS.transfer);
    c.set(4_000); // the clock jumps back
    const b = log.append(SAMPLE_EVENTS.mint);
    expect([a.id, b.id]).toEqual([1, 2]);
    expect(b.timestampMs).toBe(5_000);
    expect(log.size).toBe(2);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it('versions: a per-order revision counter for order events, epoch ms otherwise', () => {
    const c = clock(10_000);
    const log = new EventLog(c.now);
    const l1 = log.append(SAMPLE_EVENTS.listing);
    const cancel = log.append(SAMPLE_EVENTS.cancel); // same order hash
    const other = log.append(SAMPLE_EVENTS.item_offer);
    c.set(12_345);
    const sale = log.append(SAMPLE_EVENTS.sale); // same order hash, but a sale: epoch ms
    expect([l1.version, cancel.version, other.version]).toEqual([1, 2, 1]);
    expect(sale.version).toBe(12_345);
  });

  it('queries newest first with kind, collection, contract, identifier, account and time filters', () => {
    const c = clock(1_000_000);
    const log = new EventLog(c.now);
    for (const e of Object.values(SAMPLE_EVENTS) as MarketEventInput[]) {
      log.append(e);
      c.set(c.now() + 1000);
    }
    const all = log.query({}, 100);
    expect(all.map((e) => e.id)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    expect(log.query({ kinds: ['sale', 'transfer'] }, 10).map((e) => e.kind)).toEqual(['transfer', 'sale']);
    expect(log.query({ collection: 'harpoon-punks' }, 10).map((e) => e.kind)).toEqual([
      'mint',
      'collection_offer',
    ]);
    expect(
      log.query({ contract: APES.toUpperCase().replace('0X', '0x'), identifier: '3' }, 10).map((e) => e.kind),
    ).toEqual(['cancel', 'sale', 'listing']);
    // account: maker, taker, from, to, seller or buyer, case-insensitive
    const bob = log.query({ account: BOB.toUpperCase().replace('0X', '0x') }, 10).map((e) => e.kind);
    expect(bob).toEqual(['transfer', 'sale', 'trait_offer', 'collection_offer', 'item_offer']);
    expect(log.query({ account: ALICE }, 10).map((e) => e.kind)).toContain('mint');
    // time bounds in epoch seconds, inclusive
    expect(log.query({ after: 1002, before: 1003 }, 10).map((e) => e.id)).toEqual([4, 3]);
    // limit and beforeId page through
    expect(log.query({}, 3).map((e) => e.id)).toEqual([8, 7, 6]);
    expect(log.query({ beforeId: 6 }, 3).map((e) => e.id)).toEqual([5, 4, 3]);
    expect(log.query({ beforeId: 1 }, 3)).toEqual([]);
  });

  it('notifies subscribers; a failing listener stops neither recording nor the others', () => {
    const log = new EventLog(() => 1);
    const seen: number[] = [];
    log.subscribe(() => {
      throw new Error('boom');
    });
    const off = log.subscribe((e) => seen.push(e.id));
    log.append(SAMPLE_EVENTS.listing);
    off();
    log.append(SAMPLE_EVENTS.sale);
    expect(seen).toEqual([1]);
    expect(log.all()).toHaveLength(2);
  });
});

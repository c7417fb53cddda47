import { describe, expect, it } from 'vitest';
import {
  type CollectionInfoCacheOptions,
  createCollectionInfoCache,
} from '../../../src/execution/collections.ts';
import type { CollectionInfo } from '../../../src/execution/index.ts';
import { createLogger } from '../../../src/observability/index.ts';
import { openStore } from '../../../src/store/index.ts';
import { memorySink } from '../observability/sink.ts';

const MIN = 60_000;
const fees = (creator: number): CollectionInfo => ({
  fees: [
    { fee: 1, recipient: '0x0000a26b00c1f0df003000390027140000faa719', required: true },
    { fee: creator, recipient: '0x00000000000000000000000000000000000c0ffe', required: true },
  ],
  contract: '0x00000000000000000000000000000000000000aa',
});

/** A marketplace whose answers the test sets, counting reads; a read may be held until released. */
function setup(o: Pick<CollectionInfoCacheOptions, 'maxAgeMs' | 'retryMs' | 'remembered'> = {}) {
  let now = 1_000_000;
  let answer: CollectionInfo | Error = fees(2.5);
  let reads = 0;
  let hold: Promise<void> | null = null;
  const sink = memorySink();
  const changes: [string, bigint | undefined][] = [];
  /** Each change's sale fees before (null: the first read). */
  const befores: (bigint | null | undefined)[] = [];
  const cache = createCollectionInfoCache({
    read: async (slug) => {
      reads++;
      expect(slug).toBe('apes');
      if (hold !== null) await hold;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    clock: { now: () => now },
    logger: createLogger({ destination: sink.stream }),
    ...o,
    onChange: (c) => {
      changes.push([c.slug, c.sellerFeeBps]);
      befores.push(c.before?.sellerFeeBps ?? null);
    },
  });
  return {
    cache,
    changes,
    befores,
    reads: () => reads,
    advance: (ms: number) => {
      now += ms;
    },
    answer: (a: CollectionInfo | Error) => {
      answer = a;
    },
    holdReads: () => {
      let release = () => {};
      hold = new Promise<void>((r) => {
        release = r;
      });
      return () => {
        hold = null;
        release();
      };
    },
    logs: () => sink.lines() as { msg: string; collection?: string }[],
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('collection info cache (fees kept fresh while the daemon runs)', () => {
  it('reads a collection once, then answers from memory until it is maxAgeMs old', async () => {
    const s = setup({ maxAgeMs: 15 * MIN });
    const [a, b] = await Promise.all([s.cache.get('apes'), s.cache.get('apes')]);
    expect(a.fees).toEqual(fees(2.5).fees);
    expect(a.contract).toBe(fees(2.5).contract);
    expect(b).toBe(a);
    expect(s.reads()).toBe(1);
    expect(s.cache.sellerFeeBps('apes')).toBe(350n);
    s.advance(15 * MIN - 1);
    await s.cache.get('apes');
    expect(s.reads()).toBe(1);
    expect(s.changes).toEqual([['apes', 350n]]);
  });

  it('renews an old read behind the ask: the ask is answered with what is known, the next with the new fees', async () => {
    const s = setup({ maxAgeMs: 15 * MIN });
    await s.cache.get('apes');
    s.answer(fees(4));
    s.advance(15 * MIN);
    const release = s.holdReads();
    // answered at once with the fees known, while the marketplace is read again
    expect((await s.cache.get('apes')).fees).toEqual(fees(2.5).fees);
    expect(s.reads()).toBe(2);
    // a second ask meanwhile starts no second read
    await s.cache.get('apes');
    expect(s.reads()).toBe(2);
    release();
    await settle();
    expect((await s.cache.get('apes')).fees).toEqual(fees(4).fees);
    expect(s.cache.sellerFeeBps('apes')).toBe(500n);
    expect(s.changes).toEqual([
      ['apes', 350n],
      ['apes', 500n],
    ]);
    expect(s.befores).toEqual([null, 350n]);
    const changed = s.logs().filter((l) => l.msg.startsWith('the fees of a collection changed'));
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ collection: 'apes', sellerFeeBps: '500' });
  });

  it('the fee recipients of every read are kept: a fill of an order signed before a change pays the old ones', async () => {
    const s = setup({ maxAgeMs: MIN });
    expect((await s.cache.get('apes')).feeRecipients).toEqual([
      '0x0000a26b00c1f0df003000390027140000faa719',
      '0x00000000000000000000000000000000000c0ffe',
    ]);
    s.answer({
      fees: [
        { fee: 1, recipient: '0x0000A26B00C1F0DF003000390027140000FAA719', required: true },
        { fee: 3, recipient: '0x00000000000000000000000000000000000BEEF0', required: true },
      ],
    });
    s.cache.doubt('apes');
    s.advance(MIN);
    const info = await s.cache.get('apes');
    expect(info.fees.map((f) => f.fee)).toEqual([1, 3]);
    expect(info.feeRecipients).toEqual([
      '0x0000a26b00c1f0df003000390027140000faa719',
      '0x00000000000000000000000000000000000c0ffe',
      '0x00000000000000000000000000000000000beef0',
    ]);
  });

  it('with a store, the recipients read before a restart stay payable after it; new ones are kept', async () => {
    const store = openStore(':memory:');
    try {
      const remembered = store.feeRecipients;
      const before = setup({ maxAgeMs: MIN, remembered });
      await before.cache.get('apes');
      expect(store.feeRecipients.of('apes')).toEqual([
        '0x0000a26b00c1f0df003000390027140000faa719',
        '0x00000000000000000000000000000000000c0ffe',
      ]);
      // the creator moves their fee; the daemon restarts (a new cache, the same store)
      const moved: CollectionInfo = {
        fees: [
          { fee: 1, recipient: '0x0000A26B00C1F0DF003000390027140000FAA719', required: true },
          { fee: 3, recipient: '0x00000000000000000000000000000000000BEEF0', required: true },
        ],
      };
      const after = setup({ maxAgeMs: MIN, remembered });
      after.answer(moved);
      const info = await after.cache.get('apes');
      expect(info.fees).toEqual(moved.fees);
      expect(info.feeRecipients).toEqual([
        '0x0000a26b00c1f0df003000390027140000faa719',
        '0x00000000000000000000000000000000000c0ffe',
        '0x00000000000000000000000000000000000beef0',
      ]);
      expect(store.feeRecipients.of('apes')).toEqual(info.feeRecipients);
      expect(store.feeRecipients.of('punks')).toEqual([]);
      // a store that fails: told, and the recipients read are payable in this run all the same
      const broken = setup({
        remembered: {
          of: () => {
            throw new Error('disk I/O error');
          },
          add: () => {
            throw new Error('disk I/O error');
          },
        },
      });
      broken.answer(moved);
      expect((await broken.cache.get('apes')).feeRecipients).toEqual([
        '0x0000a26b00c1f0df003000390027140000faa719',
        '0x00000000000000000000000000000000000beef0',
      ]);
      expect(broken.logs().map((l) => l.msg)).toEqual([
        'the fee recipients read before this start could not be read: a fill paying an older one is refused',
        'a fee recipient read could not be kept: after a restart a fill paying it is refused',
      ]);
    } finally {
      store.close();
    }
  });

  it('a renewal with the same fees is no change', async () => {
    const s = setup({ maxAgeMs: MIN });
    await s.cache.get('apes');
    s.answer(fees(2.5));
    s.advance(MIN);
    await s.cache.get('apes');
    await settle();
    expect(s.reads()).toBe(2);
    expect(s.changes).toHaveLength(1);
    expect(s.logs().filter((l) => l.msg.startsWith('the fees of a collection changed'))).toEqual([]);
  });

  it('a failed first read is not kept: the next ask reads again', async () => {
    const s = setup();
    s.answer(new Error('api down'));
    await expect(s.cache.get('apes')).rejects.toThrow('api down');
    expect(s.cache.sellerFeeBps('apes')).toBeUndefined();
    s.answer(fees(2.5));
    expect((await s.cache.get('apes')).fees).toEqual(fees(2.5).fees);
    expect(s.reads()).toBe(2);
  });

  it('a failed renewal keeps the fees known, is told once, and is tried again after retryMs', async () => {
    const s = setup({ maxAgeMs: 15 * MIN, retryMs: MIN });
    await s.cache.get('apes');
    s.answer(new Error('api down'));
    s.advance(15 * MIN);
    expect((await s.cache.get('apes')).fees).toEqual(fees(2.5).fees);
    await settle();
    expect(s.reads()).toBe(2);
    // within retryMs: no new read
    s.advance(MIN - 1);
    await s.cache.get('apes');
    await settle();
    expect(s.reads()).toBe(2);
    s.advance(1);
    expect((await s.cache.get('apes')).fees).toEqual(fees(2.5).fees);
    await settle();
    expect(s.reads()).toBe(3);
    expect(s.cache.sellerFeeBps('apes')).toBe(350n);
    expect(
      s.logs().filter((l) => l.msg.startsWith('reading the fees of a collection again failed')),
    ).toHaveLength(1);
    s.answer(fees(3));
    s.advance(MIN);
    await s.cache.get('apes');
    await settle();
    expect((await s.cache.get('apes')).fees).toEqual(fees(3).fees);
  });

  it('doubt (an order refused there): the next ask waits for a new read; a failing one fails the ask', async () => {
    const s = setup({ maxAgeMs: 15 * MIN });
    await s.cache.get('apes');
    s.answer(fees(5));
    // a read younger than 10 s is not read again for a doubt: refusal after refusal costs one read per 10 s
    s.cache.doubt('apes');
    expect((await s.cache.get('apes')).fees).toEqual(fees(2.5).fees);
    s.advance(9_999);
    expect((await s.cache.get('apes')).fees).toEqual(fees(2.5).fees);
    expect(s.reads()).toBe(1);
    s.advance(1);
    expect((await s.cache.get('apes')).fees).toEqual(fees(5).fees);
    expect(s.reads()).toBe(2);
    expect(s.cache.sellerFeeBps('apes')).toBe(600n);
    // the doubt is lifted by the read
    s.advance(10_000);
    await s.cache.get('apes');
    expect(s.reads()).toBe(2);
    s.cache.doubt('apes');
    s.answer(new Error('api down'));
    await expect(s.cache.get('apes')).rejects.toThrow('api down');
    // still in doubt: no order signs with fees just refused
    await expect(s.cache.get('apes')).rejects.toThrow('api down');
    s.answer(fees(5));
    expect((await s.cache.get('apes')).fees).toEqual(fees(5).fees);
    // doubting a collection never read does nothing
    s.cache.doubt('punks');
  });

  it('fees no order would take leave sellerFeeBps unknown (strategies keep their params), logged', async () => {
    const s = setup();
    s.answer({
      fees: [{ fee: 101, recipient: '0x00000000000000000000000000000000000c0ffe', required: true }],
    });
    await s.cache.get('apes');
    expect(s.cache.sellerFeeBps('apes')).toBeUndefined();
    expect(s.changes).toEqual([['apes', undefined]]);
    expect(s.logs().some((l) => l.msg === 'the fees of a collection are not usable')).toBe(true);
  });
});

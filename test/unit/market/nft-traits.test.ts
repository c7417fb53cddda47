import { describe, expect, it } from 'vitest';
import type { NftRef } from '../../../src/domain/events.ts';
import { createNftTraits, type Traits } from '../../../src/market/nft-traits.ts';
import { E18, FakeClock, hash, key, listingEvent, metadataEvent } from './fakes.ts';

/** A read per call, answered when the test says (or at once with `auto`). */
function reads(auto = true) {
  const calls: string[] = [];
  const pending: { id: string; resolve: (t: Traits | undefined) => void; reject: (e: Error) => void }[] = [];
  let running = 0;
  let most = 0;
  const read = (nft: NftRef): Promise<Traits | undefined> => {
    const id = String(nft.identifier);
    calls.push(id);
    running++;
    most = Math.max(most, running);
    const done = <T>(v: T) => {
      running--;
      return v;
    };
    if (auto) return Promise.resolve(done([{ type: 'Hat', value: `hat-${id}` }]));
    return new Promise<Traits | undefined>((resolve, reject) =>
      pending.push({
        id,
        resolve: (t) => resolve(done(t)),
        reject: (e) => {
          done(0);
          reject(e);
        },
      }),
    );
  };
  return { read, calls, pending, most: () => most };
}

describe('NFT traits', () => {
  it('reads an NFT first seen in a listing once; strategies see it learned, with when', async () => {
    const clock = new FakeClock();
    const r = reads();
    const learned: string[] = [];
    const t = createNftTraits({ clock, read: r.read, readListed: true });
    t.onLearned((k, traits, at) => learned.push(`${k} ${traits[0]?.value} ${at}`));
    expect(t.view.get(key(7))).toBeUndefined(); // not seen: read now, known later
    await t.idle();
    t.observe(listingEvent(clock, hash(1), 1, E18));
    t.observe(listingEvent(clock, hash(2), 1, 2n * E18)); // the same NFT again: no second read
    await t.idle();
    expect(r.calls).toEqual(['7', '1']);
    expect(t.view.get(key(1))).toEqual({
      value: [{ type: 'Hat', value: 'hat-1' }],
      learnedAt: clock.t,
      from: 'rest',
    });
    expect(Object.isFrozen(t.view.get(key(1))?.value)).toBe(true);
    expect(learned).toEqual([`${key(7)} hat-7 ${clock.t}`, `${key(1)} hat-1 ${clock.t}`]);
    expect(t.stats()).toEqual({ known: 2, reads: 2, failures: 0, queued: 0 });
    // a key that is not an NFT key is never read
    expect(t.view.get('not-a-key')).toBeUndefined();
    await t.idle();
    expect(r.calls).toHaveLength(2);
  });

  it('without readListed reads only what is asked for; an update without traits re-reads only those', async () => {
    const clock = new FakeClock();
    const r = reads();
    const t = createNftTraits({ clock, read: r.read });
    t.observe(listingEvent(clock, hash(1), 1, E18));
    t.observe(metadataEvent(clock, 2, []));
    await t.idle();
    expect(r.calls).toEqual([]);
    expect(t.view.get(key(1))).toBeUndefined(); // asked: read now
    await t.idle();
    expect(t.view.get(key(1))?.value).toEqual([{ type: 'Hat', value: 'hat-1' }]);
    t.observe(metadataEvent(clock, 1, []));
    t.observe(metadataEvent(clock, 3, [{ type: 'Hat', value: 'Crown' }])); // taken without a read
    await t.idle();
    expect(r.calls).toEqual(['1', '1']);
    expect(t.view.get(key(3))?.value).toEqual([{ type: 'Hat', value: 'Crown' }]);
  });

  it('takes new traits from a metadata update, and reads the NFT again when the update has none', async () => {
    const clock = new FakeClock();
    const r = reads();
    const t = createNftTraits({ clock, read: r.read, readListed: true });
    t.observe(listingEvent(clock, hash(1), 1, E18));
    await t.idle();
    clock.t += 1_000;
    t.observe(metadataEvent(clock, 1, [{ type: 'Level', value: 7 }]));
    expect(t.view.get(key(1))?.value).toEqual([{ type: 'Level', value: '7' }]);
    expect(t.view.get(key(1))?.learnedAt).toBe(clock.t);
    expect(r.calls).toEqual(['1']);
    clock.t += 1_000;
    t.observe(metadataEvent(clock, 1, []));
    await t.idle();
    expect(r.calls).toEqual(['1', '1']);
    expect(t.view.get(key(1))?.value).toEqual([{ type: 'Hat', value: 'hat-1' }]);
  });

  it('reads a few at a time, drops the oldest waiting beyond its queue, and shares a read with load()', async () => {
    const clock = new FakeClock();
    const r = reads(false);
    const t = createNftTraits({ clock, read: r.read, readListed: true, concurrency: 2, maxQueued: 2 });
    for (let id = 1; id <= 5; id++) t.observe(listingEvent(clock, hash(id), id, E18));
    // 1 and 2 read; 3 dropped from the queue when 5 came; 4 and 5 wait
    expect(r.calls).toEqual(['1', '2']);
    expect(t.stats().queued).toBe(2);
    const loading = t.load(listingEvent(clock, hash(1), 1, E18).nft); // the read under way
    let idle = false;
    void t.idle().then(() => {
      idle = true;
    });
    while (r.pending.length > 0) {
      const p = r.pending.shift();
      p?.resolve([{ type: 'Id', value: p.id }]);
      await new Promise((res) => setTimeout(res, 0));
    }
    expect(await loading).toEqual([{ type: 'Id', value: '1' }]);
    expect(r.calls).toEqual(['1', '2', '4', '5']);
    expect(r.most()).toBe(2);
    expect(idle).toBe(true);
    // the one dropped from the queue is asked again by its next listing
    t.observe(listingEvent(clock, hash(33), 3, E18));
    expect(r.calls).toEqual(['1', '2', '4', '5', '3']);
    r.pending.shift()?.resolve([{ type: 'Id', value: '3' }]);
    await t.idle();
    // learned: at once, without a read
    expect(await t.load(listingEvent(clock, hash(4), 4, E18).nft)).toEqual([{ type: 'Id', value: '4' }]);
    expect(r.calls).toHaveLength(5);
  });

  it('does not read a failed NFT again before retryAfterMs; forgets the NFTs learned longest ago', async () => {
    const clock = new FakeClock();
    const r = reads(false);
    const errors: string[] = [];
    const t = createNftTraits({
      clock,
      read: r.read,
      readListed: true,
      retryAfterMs: 60_000,
      maxNfts: 2,
      onError: (err, nft) => errors.push(`${nft.identifier}: ${(err as Error).message}`),
    });
    t.observe(listingEvent(clock, hash(1), 1, E18));
    r.pending.shift()?.reject(new Error('429'));
    await t.idle();
    expect(errors).toEqual(['1: 429']);
    // load reads at once (a fill waits on it), whatever failed before
    const loading = t.load(listingEvent(clock, hash(1), 1, E18).nft);
    expect(r.pending.map((p) => p.id)).toEqual(['1']);
    r.pending.shift()?.resolve(undefined);
    expect(await loading).toBeUndefined();
    t.observe(listingEvent(clock, hash(2), 7, E18));
    r.pending.shift()?.reject(new Error('timeout'));
    await t.idle();
    t.observe(listingEvent(clock, hash(3), 7, E18)); // within retryAfterMs: not asked
    expect(r.pending).toHaveLength(0);
    clock.t += 60_000;
    t.observe(listingEvent(clock, hash(4), 7, E18));
    expect(r.pending.map((p) => p.id)).toEqual(['7']);
    r.pending.shift()?.resolve([{ type: 'A', value: 'a' }]);
    await t.idle();
    for (const id of [8, 9]) {
      t.observe(listingEvent(clock, hash(id), id, E18));
      r.pending.shift()?.resolve([{ type: 'A', value: String(id) }]);
      await t.idle();
    }
    expect(t.stats().known).toBe(2);
    expect(t.view.get(key(7))).toBeUndefined(); // forgotten: asked again
    expect(t.view.get(key(9))?.value).toEqual([{ type: 'A', value: '9' }]);
    expect(r.pending.map((p) => p.id)).toEqual(['7']);
  });

  it('refuses bad options', () => {
    const clock = new FakeClock();
    expect(() => createNftTraits({ clock, read: async () => undefined, concurrency: 0 })).toThrow(
      /nft traits: concurrency must be a positive number, got 0/,
    );
    expect(() => createNftTraits({ clock, read: async () => undefined, maxNfts: Number.NaN })).toThrow(
      /maxNfts must be a positive number, got NaN/,
    );
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTapeSource } from '../../../src/backtest/tape-source.ts';
import type { MarketEvent } from '../../../src/domain/events.ts';
import type { Address, CollectionSlug } from '../../../src/domain/ids.ts';
import { ConfigError } from '../../../src/errors/index.ts';
import type { MarketApi } from '../../../src/market/api.ts';
import { createNftTraits } from '../../../src/market/nft-traits.ts';
import { createLogger } from '../../../src/observability/index.ts';
import type { DropStatus } from '../../../src/strategy.ts';
import { createDaemonRecorder } from '../../../src/tape/daemon.ts';
import { decodeRecord, encodeRecord, TapeFormatError } from '../../../src/tape/format.ts';
import { openTape } from '../../../src/tape/reader.ts';
import { createTapeRecorder, type TapeRecorderOptions } from '../../../src/tape/recorder.ts';
import { tapeListing } from '../../helpers/tapes.ts';

const ETH = { address: '0x0000000000000000000000000000000000000000' as Address, symbol: 'ETH', decimals: 18 };

const listing = tapeListing;

/** A recorder of the collection `apes` on a test clock. */
const testRecorder = (path: string, now: () => number, o: Partial<TapeRecorderOptions>) =>
  createTapeRecorder({
    path,
    source: 'test',
    chain: 'ethereum',
    collections: ['apes'],
    paymentTokens: [ETH],
    clock: { now },
    ...o,
  });

/** Waits (up to 2 s) until `count` has grown by `n`: the recorder's timer read that many times more. */
async function readsMore(count: () => number, n: number): Promise<void> {
  const until = count() + n;
  for (let i = 0; i < 400 && count() < until; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('tape recorder', () => {
  it('records what the view reads through it, every event, fees, gas, traits and freshness; replay answers as of a time', async () => {
    let now = 10_000;
    const clock = { now: () => now };
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-rec-')), 'r.tape');
    let floor = 1.5;
    const api = {
      collections: {
        stats: async () => ({ total: { floor_price: floor, floor_price_symbol: 'ETH' } }),
        traits: async () => ({ categories: {}, counts: {} }),
        traitFloors: async () => ({ floors: [] }),
      },
      listings: {
        best: async (_s: string, q?: { next?: string }) => ({ listings: [], next: q?.next ? '' : 'p2' }),
      },
      offers: { collection: async () => ({ offers: [] }), traits: async () => ({ offers: [] }) },
    } as unknown as MarketApi;
    const traitCalls: string[] = [];
    const nftTraits = createNftTraits({
      clock,
      readListed: true,
      read: async (nft) => {
        traitCalls.push(String(nft.identifier));
        return [{ type: 'Hat', value: 'Cap' }];
      },
    });
    const rec = createTapeRecorder({
      path,
      source: 'test',
      chain: 'ethereum',
      collections: ['apes'],
      paymentTokens: [ETH],
      clock,
      fees: async () => [{ fee: 2.5, recipient: '0xfee', required: true }],
      gasPrice: async () => 7_000_000_000n,
      nftTraits,
      freshness: () => ({ ageMs: 500, stale: false }),
    });
    const wrapped = rec.wrapApi(api);
    await wrapped.collections.stats('apes');
    now = 40_000;
    floor = 2;
    await wrapped.collections.stats('apes');
    await wrapped.listings.best('apes', { limit: 100 });
    await wrapped.listings.best('apes', { limit: 100, next: 'p2' });
    // as the daemon hands each event to both
    const event = (e: MarketEvent) => {
      rec.event(e);
      nftTraits.observe(e);
    };
    event(listing('1', 40_500));
    event(listing('1', 40_600)); // the same NFT: traits asked once
    event(listing('2', 40_700));
    await nftTraits.idle();
    event({
      kind: 'metadata_update',
      id: 'm-1',
      collection: 'apes' as CollectionSlug,
      chain: 'ethereum',
      occurredAt: 40_800,
      receivedAt: 40_800,
      source: 'stream',
      nft: listing('1', 0).nft,
      traits: [],
    }); // its metadata changed (without its traits): asked again
    event({
      kind: 'metadata_update',
      id: 'm-2',
      collection: 'apes' as CollectionSlug,
      chain: 'ethereum',
      occurredAt: 40_900,
      receivedAt: 40_900,
      source: 'stream',
      nft: listing('2', 0).nft,
      traits: [{ type: 'Hat', value: 'Crown' }],
    }); // with its new traits: taken from the event, no read
    await nftTraits.idle();
    await rec.close();
    expect(traitCalls).toEqual(['1', '2', '1']);
    const kinds = [...openTape(path).records()].map((r) => r.k);
    expect(kinds[0]).toBe('header');
    expect(kinds.filter((k) => k === 'rest')).toHaveLength(4);
    expect(kinds.filter((k) => k === 'event')).toHaveLength(5);
    expect(kinds.filter((k) => k === 'traits')).toHaveLength(4);
    expect(kinds).toContain('fees');
    expect(kinds).toContain('gas');
    expect(kinds).toContain('fresh');

    const tape = openTapeSource(path);
    // asked at: the answer recorded within 10 s after, else the newest before, else the first
    // (a replay's clock never goes back: a new replay for each earlier time)
    const replayAt = (t: number) => tape.replay(() => t);
    const floorAt = async (t: number) =>
      ((await replayAt(t).api.collections.stats('apes')) as { total: { floor_price: number } }).total
        .floor_price;
    expect(await floorAt(15_000)).toBe(1.5);
    expect(await floorAt(29_000)).toBe(1.5);
    expect(await floorAt(30_000)).toBe(2);
    expect(await floorAt(45_000)).toBe(2);
    expect(await floorAt(1_000)).toBe(1.5);
    expect(await floorAt(-50_000)).toBe(1.5);
    expect(await replayAt(40_000).api.listings.best('apes', { limit: 100, next: 'p2' })).toEqual({
      listings: [],
      next: '',
    });
    await expect(replayAt(40_000).api.collections.traits('other')).rejects.toThrow(
      /no traits answer for other/,
    );
    expect(replayAt(0).fees('apes')).toEqual([{ fee: 2.5, recipient: '0xfee', required: true }]);
    expect(replayAt(50_000).gasPrice()).toBe(7_000_000_000n);
    expect(replayAt(0).traits(listing('2', 0).nft)).toEqual([{ type: 'Hat', value: 'Cap' }]);
    expect(replayAt(41_000).traits(listing('2', 0).nft)).toEqual([{ type: 'Hat', value: 'Crown' }]);
    expect(replayAt(30_000).freshness('apes')?.stale).toBe(false);
    const r = replayAt(0);
    const times: number[] = [];
    for (let e = r.shift(); e !== undefined; e = r.shift()) times.push(e.event.receivedAt);
    expect(times).toEqual([40_500, 40_600, 40_700, 40_800, 40_900]);
    const first = replayAt(0);
    first.shift();
    expect(first.standsUntil(`0x${'1'.padStart(64, '0')}`, listing('1', 0).nft, 30_000)).toBe(true);
  });
});

describe('tape recorder reads that fail', () => {
  it('fees are read again until they are on the tape; a failing read is told when it starts, a note a minute, and when it works again', async () => {
    let now = 10_000;
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-rec-')), 'r.tape');
    let feeFailures = 3;
    let gasFailures = 8;
    const errors: string[] = [];
    const notices: string[] = [];
    const rec = testRecorder(path, () => now, {
      fees: async () => {
        if (feeFailures-- > 0) throw new Error('api down');
        return [{ fee: 2.5, recipient: '0xfee' }];
      },
      gasPrice: async () => {
        if (gasFailures-- > 0) throw new Error('rpc down');
        return 9n;
      },
      gasEveryMs: 5,
      noteEveryMs: 60_000,
      onError: (_err, what) => errors.push(what),
      onNotice: (m) => notices.push(m),
    });
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 400 && !ok(); i++) {
        now += 10_000; // ten seconds of the recorder's clock per try
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await until(() => feeFailures < 0 && gasFailures < 0);
    await rec.close();
    // told once as each started failing, the gas once more after a minute of failures, never per attempt
    expect(errors).toEqual([
      'fees of apes',
      'gas price',
      expect.stringMatching(/^gas price \(still failing since 1970-01-01T00:00:\d\d\.\d+Z: \d attempts\)$/),
    ]);
    expect(notices).toEqual([
      expect.stringMatching(/^fees of apes: read again \(it failed 3 times since /),
      expect.stringMatching(/^gas price: read again \(it failed 8 times since /),
    ]);
    const records = [...openTape(path).records()];
    expect(records.filter((r) => r.k === 'fees')).toEqual([
      { k: 'fees', at: expect.any(Number), slug: 'apes', fees: [{ fee: 2.5, recipient: '0xfee' }] },
    ]);
    expect(records.filter((r) => r.k === 'gas').length).toBeGreaterThan(0);
    expect(
      openTapeSource(path)
        .replay(() => now)
        .fees('apes'),
    ).toEqual([{ fee: 2.5, recipient: '0xfee' }]);
  });

  it('fees that change while recording are written again when they do (a backtest charges each as of its time)', async () => {
    let now = 10_000;
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-rec-')), 'r.tape');
    let creator = 2.5;
    let asks = 0;
    const rec = testRecorder(path, () => now, {
      fees: async () => {
        asks++;
        return [
          { fee: 1, recipient: '0xfee', required: true },
          { fee: creator, recipient: '0xc0ffe', required: true },
        ];
      },
      gasEveryMs: 5,
    });
    const asked = (n: number) => readsMore(() => asks, n);
    await asked(3);
    now = 20_000;
    creator = 4;
    await asked(3);
    await rec.close();
    const fees = [...openTape(path).records()].filter((r) => r.k === 'fees');
    // asked for over and over; written twice: when first read, and when they changed
    expect(asks).toBeGreaterThanOrEqual(6);
    expect(
      fees.map((r) => [r.at, (r as { fees: readonly { fee: number }[] }).fees.map((f) => f.fee)]),
    ).toEqual([
      [10_000, [1, 2.5]],
      [20_000, [1, 4]],
    ]);
    const tape = openTapeSource(path);
    expect(tape.replay(() => 15_000).fees('apes')[1]?.fee).toBe(2.5);
    expect(tape.replay(() => 20_000).fees('apes')[1]?.fee).toBe(4);
  });
});

describe('token prices on the tape', () => {
  it('each price is written when the daemon read it anew; a replay answers the newest read by then, never a later one', async () => {
    let now = 10_000;
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-rec-')), 'r.tape');
    const HRP = '0x00000000000000000000000000000000000000AA';
    let price = { token: HRP, priceIn: 10n ** 15n, source: 'quote' as const, learnedAt: 9_000 };
    let reads = 0;
    let failing = false;
    const told: string[] = [];
    const rec = testRecorder(path, () => now, {
      prices: () => {
        reads++;
        if (failing) throw new Error('prices view gone');
        return [price];
      },
      onError: (_e, what) => told.push(what),
      gasEveryMs: 5,
    });
    const read = (n: number) => readsMore(() => reads, n);
    await read(3);
    now = 20_000;
    price = { ...price, priceIn: 2n * 10n ** 15n, source: 'quote', learnedAt: 19_000 };
    await read(3);
    failing = true;
    await read(2);
    failing = false;
    now = 30_000;
    price = { ...price, source: 'api' as never, learnedAt: 29_500 };
    await read(2);
    await rec.close();
    const written = [...openTape(path).records()].filter((r) => r.k === 'price');
    // read over and over; written once per new reading, the address in lower case
    expect(reads).toBeGreaterThanOrEqual(10);
    expect(written).toEqual([
      {
        k: 'price',
        at: 10_000,
        token: HRP.toLowerCase(),
        priceIn: 10n ** 15n,
        source: 'quote',
        learnedAt: 9_000,
      },
      {
        k: 'price',
        at: 20_000,
        token: HRP.toLowerCase(),
        priceIn: 2n * 10n ** 15n,
        source: 'quote',
        learnedAt: 19_000,
      },
      {
        k: 'price',
        at: 30_000,
        token: HRP.toLowerCase(),
        priceIn: 2n * 10n ** 15n,
        source: 'api',
        learnedAt: 29_500,
      },
    ]);
    // a failing read is told once, the rest of the recording goes on
    expect(told).toEqual(['token prices']);
    const tape = openTapeSource(path);
    expect(tape.replay(() => 9_999).price(HRP)).toBeUndefined();
    const at15 = tape.replay(() => 15_000);
    expect(at15.price(HRP)).toEqual({
      value: { priceIn: 10n ** 15n, source: 'quote' },
      learnedAt: 9_000,
      from: 'poll',
    });
    // the same object while the answer is the same (strategies compare by identity)
    expect(at15.price(HRP.toLowerCase())).toBe(at15.price(HRP));
    expect(tape.replay(() => 25_000).price(HRP)?.value.priceIn).toBe(2n * 10n ** 15n);
    expect(tape.replay(() => 31_000).price(HRP)).toMatchObject({ value: { source: 'api' }, from: 'rest' });
    expect(tape.replay(() => 31_000).price('0x00000000000000000000000000000000000000bb')).toBeUndefined();
  });

  it("each drop's status is written when the daemon read it anew, bigints and nulls as they were; a replay answers the newest by then", async () => {
    let now = 10_000;
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-rec-')), 'r.tape');
    const status = {
      slug: 'genesis',
      stage: 'upcoming' as DropStatus['stage'],
      eligible: null as boolean | null,
      pricePerToken: 10n ** 16n,
      paymentToken: ETH,
      maxPerWallet: 5 as number | null,
      mintedByWallet: null as number | null,
      remaining: 500n as bigint | null,
      startsAt: 20_000 as number | null,
      endsAt: null as number | null,
    };
    let read = { drop: status, learnedAt: 9_000 };
    let reads = 0;
    const rec = testRecorder(path, () => now, {
      drops: () => {
        reads++;
        return [read];
      },
      gasEveryMs: 5,
    });
    const wait = (n: number) => readsMore(() => reads, n);
    await wait(3);
    now = 21_000;
    read = { drop: { ...status, stage: 'active', eligible: true, remaining: null }, learnedAt: 20_500 };
    await wait(3);
    await rec.close();
    const written = [...openTape(path).records()].filter((r) => r.k === 'drop');
    expect(written).toEqual([
      { k: 'drop', at: 10_000, learnedAt: 9_000, drop: status },
      {
        k: 'drop',
        at: 21_000,
        learnedAt: 20_500,
        drop: { ...status, stage: 'active', eligible: true, remaining: null },
      },
    ]);
    const tape = openTapeSource(path);
    expect(tape.replay(() => 9_999).drop('genesis')).toBeUndefined();
    expect(tape.replay(() => 15_000).drop('genesis')).toEqual({
      value: status,
      learnedAt: 9_000,
      from: 'rest',
    });
    expect(tape.replay(() => 22_000).drop('genesis')?.value.stage).toBe('active');
    expect(() =>
      decodeRecord('{"k":"drop","at":1,"learnedAt":1,"drop":{"slug":"x","stage":"live"}}'),
    ).toThrow(/a drop record needs learnedAt and a whole drop status/);
  });

  it('a price record that is not one is a tape format error naming it', () => {
    expect(() =>
      decodeRecord('{"k":"price","at":1,"token":"0xaa","priceIn":"12x","source":"quote","learnedAt":1}'),
    ).toThrow(TapeFormatError);
    expect(() =>
      decodeRecord('{"k":"price","at":1,"token":"0xaa","priceIn":"12","source":"oracle","learnedAt":1}'),
    ).toThrow(/a price record needs token, priceIn, source and learnedAt/);
    expect(
      decodeRecord(
        encodeRecord({ k: 'price', at: 5, token: '0xAA', priceIn: 7n, source: 'api', learnedAt: 4 }),
      ),
    ).toEqual({
      k: 'price',
      at: 5,
      token: '0xaa',
      priceIn: 7n,
      source: 'api',
      learnedAt: 4,
    });
  });
});

describe("the daemon's recorder (market.record)", () => {
  it('a file there that is not a tape is a config error naming it, and is left as it was', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-daemon-rec-')), 'harpoon.yaml');
    writeFileSync(path, 'mode: paper\n');
    const make = () =>
      createDaemonRecorder({
        path,
        chain: 'ethereum',
        collections: ['apes'],
        paymentTokens: [ETH],
        clock: { now: () => 1_000 },
        nftTraits: createNftTraits({ clock: { now: () => 1_000 }, read: async () => [] }),
        fees: async () => [],
        freshness: () => undefined,
        logger: createLogger({ level: 'silent' }),
      });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/cannot record to .*harpoon\.yaml: .* is not a harpoon tape/);
    expect(readFileSync(path, 'utf8')).toBe('mode: paper\n');
  });
});

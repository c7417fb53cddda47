import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { runBacktest } from '../../../src/backtest/run.ts';
import { backtestSetupFromConfig } from '../../../src/backtest/setup.ts';
import {
  LOOK_AHEAD_MS,
  openTapeSource,
  SILENCE_MS,
  type TapeReplay,
} from '../../../src/backtest/tape-source.ts';
import { loadConfig } from '../../../src/config/load.ts';
import type { MarketEvent, NftRef } from '../../../src/domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../../../src/domain/ids.ts';
import { writeSandboxTape } from '../../../src/sandbox/simulator/tape.ts';
import {
  BinaryEventReader,
  encodeRecord,
  TapeFormatError,
  type TapeHeader,
  type TapeRecord,
} from '../../../src/tape/format.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { appendRawBlock } from '../../helpers/tapes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const configPath = join(root, 'config/backtest.yaml');
const strategiesDir = join(root, 'strategies');
const dir = () => mkdtempSync(join(tmpdir(), 'harpoon-src-'));

const ETH = { address: '0x0000000000000000000000000000000000000000' as Address, symbol: 'ETH', decimals: 18 };
const header: TapeHeader = {
  k: 'header',
  at: 0,
  version: 1,
  source: 'test',
  chain: 'ethereum',
  collections: ['apes'],
  paymentTokens: [ETH],
};
const nft = (id: number): NftRef => ({
  chain: 'ethereum',
  contract: '0x00000000000000000000000000000000000000a1' as Address,
  identifier: String(id) as TokenId,
});
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as OrderHash;
const base = (id: string, at: number) => ({
  id,
  collection: 'apes' as CollectionSlug,
  chain: 'ethereum' as const,
  occurredAt: at,
  receivedAt: at,
  source: 'stream' as const,
});
const listing = (id: number, at: number): MarketEvent => ({
  ...base(`l-${id}-${at}`, at),
  kind: 'listing',
  orderHash: hash(id),
  maker: '0x00000000000000000000000000000000000000bb' as Address,
  taker: null,
  quantity: 1n,
  price: 10n ** 18n,
  paymentToken: ETH,
  expiresAt: null,
  nft: nft(id),
  isPrivate: false,
});
const sale = (id: number, at: number): MarketEvent => ({
  ...base(`s-${id}-${at}`, at),
  kind: 'sale',
  nft: nft(id),
  orderHash: hash(id),
  txHash: null,
  seller: '0x00000000000000000000000000000000000000bb' as Address,
  buyer: '0x00000000000000000000000000000000000000cc' as Address,
  quantity: 1n,
  price: 10n ** 18n,
  paymentToken: ETH,
});
const cancel = (id: number, at: number): MarketEvent => ({
  ...base(`c-${id}-${at}`, at),
  kind: 'cancel',
  orderHash: hash(id),
  nft: nft(id),
  txHash: null,
});
const stats = (at: number, floor: number): TapeRecord => ({
  k: 'rest',
  at,
  call: 'stats',
  slug: 'apes',
  next: null,
  response: { total: { floor_price: floor } },
});
const ev = (e: MarketEvent): TapeRecord => ({ k: 'event', at: e.receivedAt, event: e });

/** Records in the order written (the gas price of 100 s written 50 s late, after the events of 150 s). */
const crafted: TapeRecord[] = [
  { k: 'fees', at: 1_000, slug: 'apes', fees: [{ fee: 2.5, recipient: '0xfee', required: true }] },
  { k: 'gas', at: 1_000, price: 1n },
  stats(10_000, 1),
  { k: 'fresh', at: 10_000, collections: { apes: { ageMs: 200, stale: false } } },
  ev(listing(1, 12_000)),
  stats(30_000, 2),
  {
    k: 'traits',
    at: 40_000,
    nft: 'ethereum/0x00000000000000000000000000000000000000a1/1',
    traits: [{ type: 'Hat', value: 'Cap' }],
  },
  ev(sale(2, 50_000)),
  ...Array.from({ length: 10 }, (_, i) => ev(listing(10 + i, 60_000 + i * 10_000))),
  { k: 'gas', at: 100_000, price: 5n },
  { k: 'gas', at: 160_000, price: 9n },
  ev(cancel(1, 170_000)),
  { k: 'fresh', at: 200_000, collections: { apes: { ageMs: 300, stale: false } } },
  {
    k: 'traits',
    at: 200_000,
    nft: 'ethereum/0x00000000000000000000000000000000000000a1/9',
    traits: [{ type: 'Hat', value: 'Crown' }],
  },
  stats(205_000, 3),
  ev(listing(30, 300_000)),
];

async function craftedTape(): Promise<string> {
  const path = join(dir(), 'crafted.tape');
  // small blocks: the look-ahead crosses many
  const w = openTapeWriter(path, { header, flushMs: 0, maxBlockBytes: 400 });
  for (const r of crafted) w.write(r);
  await w.close();
  return path;
}

const floorOf = async (r: TapeReplay) =>
  ((await r.api.collections.stats('apes')) as { total: { floor_price: number } }).total.floor_price;

describe('tape source: a replay answers as the whole tape did', () => {
  let path = '';
  beforeAll(async () => {
    path = await craftedTape();
  });

  it('surveys the tape without a replay: counts, first and last time, header', () => {
    const s = openTapeSource(path);
    expect(s.header).toEqual(header);
    expect(s.firstAt).toBe(1_000);
    expect(s.lastAt).toBe(300_000);
    expect(s.events).toBe(14);
    expect(s.records).toBe(crafted.length + 1);
    expect(s.counts).toEqual({ header: 1, fees: 1, gas: 3, rest: 3, fresh: 2, traits: 2, event: 14 });
    expect(s.torn).toBe(false);
  });

  it('as of the clock: the newest at or before it, the REST answer up to 10 s after, else the first', async () => {
    let now = 0;
    const r = openTapeSource(path).replay(() => now);
    // nothing recorded yet: the first recorded (within the look-ahead)
    expect(r.fees('apes')).toEqual([{ fee: 2.5, recipient: '0xfee', required: true }]);
    expect(r.gasPrice()).toBe(1n);
    expect(await floorOf(r)).toBe(1); // recorded 10 s after the request: its answer
    expect(r.traits(nft(1))).toEqual([{ type: 'Hat', value: 'Cap' }]); // first recorded 40 s later
    // first recorded 200 s later, beyond the look-ahead: no answer yet (a whole tape gave it)
    expect(200_000 - now).toBeGreaterThan(LOOK_AHEAD_MS);
    expect(r.traits(nft(9))).toBeUndefined();
    expect(r.freshness('apes')).toEqual({ ageMs: 200, stale: false });
    now = 19_000;
    expect(await floorOf(r)).toBe(1); // the next answer is 11 s away: the newest before
    expect(r.freshness('apes')).toEqual({ ageMs: 9_200, stale: false }); // aged since recorded
    now = 20_000;
    expect(await floorOf(r)).toBe(2); // exactly 10 s away: its answer
    now = 35_000;
    expect(await floorOf(r)).toBe(2);
    expect(r.fees('apes')).toEqual([{ fee: 2.5, recipient: '0xfee', required: true }]);
    now = 120_000;
    // written after the events of 150 s, placed in order at 100 s
    expect(r.gasPrice()).toBe(5n);
    // no freshness recorded for 110 s: the recording was down, an answer from before it is none now
    await expect(floorOf(r)).rejects.toThrow(
      /no stats answer for apes \(nothing was recorded for 110 s: a gap in the tape\)/,
    );
    now = 165_000;
    expect(r.gasPrice()).toBe(9n);
    now = 210_000;
    expect(await floorOf(r)).toBe(3);
    expect(r.traits(nft(9))).toEqual([{ type: 'Hat', value: 'Crown' }]);
    expect(r.traits(nft(1))).toEqual([{ type: 'Hat', value: 'Cap' }]);
    await expect(r.api.collections.traits('apes')).rejects.toThrow(/no traits answer for apes/);
    r.close();
  });

  it('NFT traits as strategies read them: only what was recorded by then, the same object each time', () => {
    let now = 0;
    const r = openTapeSource(path).replay(() => now);
    const k1 = 'ethereum/0x00000000000000000000000000000000000000a1/1';
    // the paper fill model takes the first recorded; a strategy never reads what was learned later
    expect(r.traits(nft(1))).toEqual([{ type: 'Hat', value: 'Cap' }]);
    expect(r.nftTraits.get(k1)).toBeUndefined();
    now = 40_000;
    const known = r.nftTraits.get(k1);
    expect(known).toEqual({ value: [{ type: 'Hat', value: 'Cap' }], learnedAt: 40_000, from: 'rest' });
    expect(Object.isFrozen(known?.value)).toBe(true);
    now = 41_000;
    expect(r.nftTraits.get(k1)).toBe(known);
    expect(r.nftTraits.get('ethereum/0x00000000000000000000000000000000000000a1/9')).toBeUndefined();
    now = 200_000;
    expect(r.nftTraits.get('ethereum/0x00000000000000000000000000000000000000a1/9')?.value).toEqual([
      { type: 'Hat', value: 'Crown' },
    ]);
    r.close();
  });

  it('a request long before the first answer gets the first one if it lies within the look-ahead', async () => {
    let now = -50_000;
    const r = openTapeSource(path).replay(() => now);
    expect(await floorOf(r)).toBe(1);
    now = 25_000;
    expect(await floorOf(r)).toBe(2);
    r.close();
  });

  it('events in tape order; standsUntil looks at the events after the one taken last, up to its time', () => {
    const now = 0;
    const r = openTapeSource(path).replay(() => now);
    expect(r.peek()?.at).toBe(12_000);
    // nothing taken yet: the look-ahead starts at the first event
    expect(r.standsUntil(hash(2), nft(2), 49_999)).toBe(true);
    expect(r.standsUntil(hash(2), nft(2), 50_000)).toBe(false); // sold
    expect(r.standsUntil(hash(7), nft(2), 50_000)).toBe(false); // another order, the NFT sold
    expect(r.standsUntil(hash(1), nft(1), 169_999)).toBe(true);
    expect(r.standsUntil(hash(1).toUpperCase().replace('0X', '0x'), nft(1), 170_000)).toBe(false); // cancelled
    const times: number[] = [];
    for (let e = r.shift(); e !== undefined; e = r.shift()) {
      times.push(e.at);
      if (e.event.kind === 'cancel') break;
    }
    expect(times).toEqual([
      12_000,
      50_000,
      ...Array.from({ length: 10 }, (_, i) => 60_000 + i * 10_000),
      170_000,
    ]);
    // the cancel was taken: what comes after it does not end the listing
    expect(r.standsUntil(hash(1), nft(1), 1_000_000)).toBe(true);
    expect(r.shift()?.at).toBe(300_000);
    expect(r.peek()).toBeUndefined();
    expect(r.shift()).toBeUndefined();
    r.close();
  });
});

describe('tape source: silences of the recording', () => {
  it('a stretch of SILENCE_MS or more with nothing recorded is a silence, known once its end is read', async () => {
    const path = join(dir(), 'silent.tape');
    const w = openTapeWriter(path, { header, flushMs: 0, maxBlockBytes: 400 });
    const hour = 3_600_000;
    // 10 s, then SILENCE_MS less a millisecond later (no silence), then an hour later, then another
    // hour; a gas price of 30 s before the first hour's end, written late (after that hour's event)
    for (const r of [
      ev(listing(1, 10_000)),
      { k: 'fresh', at: 10_000 + SILENCE_MS - 1, collections: { apes: { ageMs: 0, stale: false } } },
      ev(listing(2, 20_000 + SILENCE_MS - 1)),
      ev(listing(3, 20_000 + SILENCE_MS - 1 + hour)),
      { k: 'gas', at: 20_000 + SILENCE_MS - 1 + hour - 30_000, price: 2n },
      ev(listing(4, 20_000 + SILENCE_MS - 1 + 2 * hour)),
    ] as TapeRecord[])
      w.write(r);
    await w.close();
    let now = 0;
    const r = openTapeSource(path).replay(() => now);
    const from = 20_000 + SILENCE_MS - 1;
    // not read yet past the first event: none known before the one that ends it is read
    expect(r.silence(10_001)).toBeUndefined();
    expect(r.shift()?.at).toBe(10_000);
    expect(r.silence(from)).toBeUndefined();
    expect(r.shift()?.at).toBe(from);
    // the next event ends a silence of an hour (the first stretch, SILENCE_MS - 1, is none)
    expect(r.silence(from + hour)).toEqual({ from, to: from + hour });
    // it begins before the time asked about, else it is not one before it
    expect(r.silence(from)).toBeUndefined();
    expect(r.silence(from + 1)).toEqual({ from, to: from + hour });
    expect(r.shift()?.at).toBe(from + hour);
    // the first silence is the one asked about until the clock has passed it
    expect(r.silence(from + 2 * hour)).toEqual({ from, to: from + hour });
    now = from + hour;
    // the second hour is silent too: the late gas price (within LOOK_AHEAD_MS of the first hour's
    // end, where a skip never lands) is no record of it
    expect(r.silence(from + 2 * hour)).toEqual({ from: from + hour, to: from + 2 * hour });
    // once the clock reaches a silence's end it is passed
    now = from + 2 * hour;
    expect(r.silence(from + 2 * hour)).toBeUndefined();
    r.close();
  });
});

describe('tape source: memory follows the look-ahead, not the tape', () => {
  let tapePath = '';
  beforeAll(async () => {
    tapePath = join(dir(), 'two-hours.tape');
    await writeSandboxTape({ out: tapePath, seed: 12, hours: 2 });
  }, 120_000);

  it('a replay holds at most a window of records while it goes through a two-hour tape', () => {
    const source = openTapeSource(tapePath);
    expect(source.records).toBeGreaterThan(20_000);
    let now = source.firstAt;
    const r = source.replay(() => now);
    let most = 0;
    let events = 0;
    for (let e = r.shift(); e !== undefined; e = r.shift()) {
      if (e.at > now) now = e.at;
      r.freshness('harpoon-apes'); // a lookup: reads the look-ahead window
      events++;
      if (r.held > most) most = r.held;
    }
    expect(events).toBe(source.events);
    expect(r.read).toBe(source.records);
    // heldMax counts within a lookup too (records read, then pruned in the same call): at least
    // what was seen between lookups
    expect(r.heldMax).toBeGreaterThanOrEqual(most);
    // ~70 s of a market of 3 actions a second, plus a latest value per key (100 NFTs' traits…)
    expect(r.heldMax).toBeLessThan(800);
    expect(r.heldMax).toBeLessThan(source.records / 25);
    r.close();
  });

  it('a warm-up window: whole blocks of events before it are passed over undecoded; from it on, the same events and answers as a replay of every event', async () => {
    const source = openTapeSource(tapePath);
    const from = source.firstAt + 3_600_000;
    const taken = (r: TapeReplay, clock: { now: number }) => {
      const out: { at: number; event: MarketEvent; fees: unknown; fresh: unknown }[] = [];
      for (let e = r.shift(); e !== undefined; e = r.shift()) {
        clock.now = Math.max(clock.now, e.at);
        if (e.at >= from)
          out.push({
            at: e.at,
            event: e.event,
            fees: r.knownFees('harpoon-apes'),
            fresh: r.freshness('harpoon-apes'),
          });
      }
      r.close();
      return out;
    };
    const every = { now: source.firstAt };
    const all = taken(
      source.replay(() => every.now),
      every,
    );
    const decode = vi.spyOn(BinaryEventReader.prototype, 'decode');
    try {
      const windowed = { now: from };
      const skipping = source.replay(() => windowed.now, { eventsFrom: from });
      // as the view's first reads at the window's start: the answers recorded before it are there
      await expect(skipping.api.collections.stats('harpoon-apes')).resolves.toMatchObject({ total: {} });
      const got = taken(skipping, windowed);
      expect(got.length).toBe(all.length);
      expect(got).toEqual(all);
      // about half the tape's events are before the window: most were never decoded
      expect(decode.mock.calls.length).toBeLessThan(source.events * 0.65);
      expect(decode.mock.calls.length).toBeGreaterThanOrEqual(all.length);
    } finally {
      decode.mockRestore();
    }
  });

  it('answers to page cursors are let go an hour after they were recorded: a cursor a load holds a window', async () => {
    // ten hours of loads every 30 s, each page 1 naming a new cursor for its page 2 (as a live
    // API's cursors change with its book)
    const path = join(dir(), 'cursors.tape');
    const w = openTapeWriter(path, { header: { ...header, version: 3 }, flushMs: 0, maxBlockBytes: 4_000 });
    const loads = 1_200;
    const page = (i: number, next: string | null, response: unknown): TapeRecord => ({
      k: 'rest',
      at: i * 30_000,
      call: 'listings',
      slug: 'apes',
      next,
      response,
    });
    for (let i = 0; i < loads; i++) {
      w.write(page(i, null, { listings: [{ n: i }], next: `cursor-${i}` }));
      w.write(page(i, `cursor-${i}`, { listings: [{ n: i, page: 2 }] }));
      w.write({ k: 'fresh', at: i * 30_000, collections: { apes: { ageMs: 100, stale: false } } });
    }
    await w.close();
    const source = openTapeSource(path);
    let now = 0;
    const r = source.replay(() => now);
    let most = 0;
    for (let i = 0; i < loads; i += 2) {
      now = i * 30_000;
      const first = (await r.api.listings.best('apes')) as { next: string };
      expect(first.next).toBe(`cursor-${i}`);
      await expect(r.api.listings.best('apes', { next: first.next })).resolves.toEqual({
        listings: [{ n: i, page: 2 }],
      });
      most = Math.max(most, r.held);
    }
    // an hour of cursors (120), and what is read between two prunes (PRUNE_EVERY records), not 1,200
    expect(most).toBeLessThan(800);
    // a cursor of more than an hour before is no answer now
    await expect(r.api.listings.best('apes', { next: 'cursor-2' })).rejects.toThrow(
      /the tape has no listings answer for apes/,
    );
    r.close();
  });

  it('a record that is not one, met while answering a REST call: that call throws, and so does every later read (the replay does not end as if the tape had)', async () => {
    const path = join(dir(), 'bad.tape');
    const w = openTapeWriter(path, { header: { ...header, version: 3 }, flushMs: 0 });
    w.write(stats(5_000, 1));
    for (let i = 1; i <= 5; i++) w.write(ev(listing(i, i * 1_000)));
    await w.close();
    // a block no writer of ours makes: a stats answer as changes of a field its answer before lacks
    const bad =
      '{"k":"rest","at":20000,"call":"stats","slug":"apes","next":null,"same":{"x":[0,5]},"response":{"x":[]}}';
    const after = encodeRecord(ev(listing(9, 30_000)), 3);
    appendRawBlock(path, [bad, after]);
    const r = openTapeSource(path).replay(() => 1_000);
    const why = /the stats answer for apes recorded at 20000 is written as changes that do not fit/;
    expect(() => r.api.collections.stats('apes')).toThrow(why);
    // the events read before it are replayed; then the replay fails, as the call did
    const got: number[] = [];
    expect(() => {
      for (let e = r.shift(); e !== undefined; e = r.shift()) got.push(e.at);
    }).toThrow(why);
    expect(got).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]);
    expect(() => r.peek()).toThrow(TapeFormatError);
    r.close();
  });

  it("a buy's look-ahead reads the events of the latency, and they go once replayed", () => {
    const source = openTapeSource(tapePath);
    let now = source.firstAt;
    const r = source.replay(() => now);
    const take = (until: number) => {
      for (let e = r.peek(); e !== undefined && e.at <= until; e = r.peek()) {
        r.shift();
        if (e.at > now) now = e.at;
        r.freshness('harpoon-apes');
      }
    };
    take(source.firstAt + 1_800_000);
    const before = r.held;
    // an order never on the tape stands: every event of the next ten minutes is read to know it
    expect(r.standsUntil(hash(0xdead), nft(100_000), now + 600_000)).toBe(true);
    const during = r.held;
    expect(during).toBeGreaterThan(before + 1_000); // ten minutes at 3 actions a second
    take(now + 700_000);
    expect(r.held).toBeLessThan(before + 300);
    r.close();
  });

  it('a backtest streams: its replay holds a window, with a long latency too', async () => {
    const setup = backtestSetupFromConfig(
      loadConfig({ file: configPath, env: {}, cwd: root }).config,
      configPath,
    );
    const source = openTapeSource(tapePath);
    const fast = await runBacktest({ tape: source, setup, builtinStrategiesDir: strategiesDir });
    expect(fast.events).toBe(source.events);
    expect(fast.report.total.fills).toBeGreaterThan(0);
    expect(fast.heldMax).toBeLessThan(800);
    expect(fast.heldMax).toBeLessThan(source.records / 25);
    // ten minutes of latency: a buy looks ahead until its listing is gone, ten minutes at most
    const slow = await runBacktest({
      tape: source,
      setup,
      builtinStrategiesDir: strategiesDir,
      latencyMs: 600_000,
    });
    expect(slow.report.refused.paper_listing_gone ?? 0).toBeGreaterThan(0);
    expect(slow.heldMax).toBeGreaterThanOrEqual(fast.heldMax);
    expect(slow.heldMax).toBeLessThan(source.records / 5);
  }, 120_000);
});

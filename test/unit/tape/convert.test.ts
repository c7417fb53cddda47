import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MarketEvent } from '../../../src/domain/events.ts';
import { convertTape } from '../../../src/tape/convert.ts';
import {
  CURSOR_ANSWER_KEEP_MS,
  LOOK_AHEAD_MS,
  TAPE_VERSION,
  type TapeHeader,
  type TapeRecord,
} from '../../../src/tape/format.ts';
import { openTape, surveyTape } from '../../../src/tape/reader.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { apesTapeHeader, appendRawBlock, tapeLines, tapeListing } from '../../helpers/tapes.ts';

const AT = 1_767_225_600_000;
const header = (version: TapeHeader['version'], meta?: TapeHeader['meta']) =>
  apesTapeHeader(AT, version, meta);
const listing = (n: number): TapeRecord => ({
  k: 'event',
  at: AT + n * 1_000,
  event: tapeListing(String(n), AT + n * 1_000) as MarketEvent,
});
const offers = (n: number): TapeRecord => ({
  k: 'rest',
  at: AT + n * 1_000,
  call: 'collectionOffers',
  slug: 'apes',
  next: null,
  response: {
    offers: [n, n + 1, n + 2, n + 3, n + 4, n + 5].map((i) => ({ order_hash: `0x${i}`, price: String(i) })),
  },
});
/** Every field, in its order, bigints marked: equal only when a record reads back as it was. */
const exact = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
/** A version 3 tape of `n` listings, a second apart. */
async function listingsTape(path: string, n: number): Promise<string> {
  const w = openTapeWriter(path, { header: header(3), flushMs: 0 });
  for (let i = 0; i < n; i++) w.write(listing(i));
  await w.close();
  return path;
}
const dir = () => mkdtempSync(join(tmpdir(), 'harpoon-convert-'));

describe('convertTape', () => {
  it('writes every record of an older tape again in this version, in order, a later header kept', async () => {
    const d = dir();
    const old = join(d, 'v1.tape');
    // a version 1 tape of `harpoon record`, continued by a trading daemon (a second header)
    let w = openTapeWriter(old, { header: header(1), flushMs: 0 });
    const written: TapeRecord[] = [];
    for (let n = 0; n < 40; n++) written.push(n % 4 === 3 ? offers(n) : listing(n));
    for (const r of written.slice(0, 20)) w.write(r);
    await w.close();
    const wallet = '0x00000000000000000000000000000000000000aa';
    w = openTapeWriter(old, { header: header(1, { wallet }), flushMs: 0 });
    for (const r of written.slice(20)) w.write(r);
    w.write({ k: 'gas', at: AT + 50_000, price: 9n });
    await w.close();
    const before = readFileSync(old);
    const records = [...openTape(old).records()];
    expect(records.filter((r) => r.k === 'header')).toHaveLength(2);

    const out = join(d, 'v4.tape');
    const r = await convertTape(old, out);
    expect(r).toMatchObject({ version: TAPE_VERSION, records: 42, events: 30, interrupted: false });
    expect(r.from.header.version).toBe(1);
    // the tape read is not touched
    expect(readFileSync(old).equals(before)).toBe(true);
    const back = [...openTape(out).records()];
    expect(back[0]).toEqual({ ...header(1), version: TAPE_VERSION });
    expect(exact(back.slice(1))).toBe(exact(records.slice(1)));
    // events in binary now, REST answers as changes, the wallet of the later header still named
    const lines = tapeLines(out);
    expect(lines.filter((l) => l.startsWith('\u0001'))).toHaveLength(30);
    expect(lines.filter((l) => l.includes('"same"')).length).toBeGreaterThan(5);
    expect(surveyTape(out).wallet).toBe(wallet);
  });

  it('stopped by its signal: the copy is a whole tape up to there', async () => {
    const d = dir();
    const old = await listingsTape(join(d, 'long.tape'), 3_000);
    const stop = new AbortController();
    const out = join(d, 'part.tape');
    const r = await convertTape(old, out, {
      signal: stop.signal,
      progressEvery: 1_000,
      onProgress: (n) => {
        if (n >= 1_000) stop.abort();
      },
    });
    expect(r).toMatchObject({ interrupted: true, records: 1_000 });
    const s = surveyTape(out);
    expect(s).toMatchObject({ torn: false, records: 1_001 });
    expect(s.lastAt).toBe(AT + 999_000);
    // a signal aborted from outside (a Ctrl-C's handler) is seen while the tape is read: the
    // conversion gives the process's events a turn
    const later = new AbortController();
    setImmediate(() => later.abort());
    const r2 = await convertTape(old, join(d, 'part2.tape'), { signal: later.signal });
    expect(r2.interrupted).toBe(true);
    expect(r2.records).toBeLessThan(3_000);
    expect(surveyTape(join(d, 'part2.tape'))).toMatchObject({ torn: false, records: r2.records + 1 });
  });

  it('a record that cannot be read stops it with the error, and no copy is left', async () => {
    const d = dir();
    const old = await listingsTape(join(d, 'bad.tape'), 10);
    // a block no writer of ours makes: an event of a kind this harpoon does not know
    appendRawBlock(old, [`[${AT + 20_000},55,"x","apes","ethereum",0,0,"stream"]`]);
    const out = join(d, 'copy.tape');
    await expect(convertTape(old, out)).rejects.toThrow(/of kind 55 is not one this harpoon knows/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.lock`)).toBe(false);
  });

  describe('a cut (--from, --to)', () => {
    const MIN = 60_000;
    const rest = (
      at: number,
      call: 'stats' | 'listings',
      n: number,
      next: string | null = null,
    ): TapeRecord => ({
      k: 'rest',
      at,
      call,
      slug: 'apes',
      next,
      response: { n },
    });
    const fresh = (at: number, collections: Record<string, number>): TapeRecord => ({
      k: 'fresh',
      at,
      collections: Object.fromEntries(
        Object.entries(collections).map(([slug, ageMs]) => [slug, { ageMs, stale: false }]),
      ),
    });
    const wallet = '0x00000000000000000000000000000000000000aa';
    /** A version 4 tape of two hours: what a cut at AT + 90 min keeps of it is known. */
    async function twoHours(path: string): Promise<{ path: string; at: (min: number) => number }> {
      const at = (min: number) => AT + min * MIN;
      const w = openTapeWriter(path, { header: header(4), flushMs: 0 });
      const records: TapeRecord[] = [
        listing(0),
        rest(at(1), 'stats', 1),
        rest(at(2), 'listings', 1),
        rest(at(2), 'listings', 11, 'cursor-old'), // a page cursor of long before the cut
        { k: 'fees', at: at(3), slug: 'apes', fees: [{ fee: 2.5, recipient: '0xfee' }] },
        { k: 'gas', at: at(4), price: 7n },
        { k: 'traits', at: at(5), nft: 'ethereum/0xa1/1', traits: [{ type: 'eyes', value: 'red' }] },
        { k: 'traits', at: at(6), nft: 'ethereum/0xa1/2', traits: [{ type: 'eyes', value: 'blue' }] },
        fresh(at(10), { apes: 100, punks: 200 }),
        { ...header(4, { wallet }), at: at(20) }, // a trading daemon continued the tape
        { k: 'gas', at: at(60), price: 8n },
        rest(at(60), 'stats', 2),
        rest(at(85), 'listings', 2, 'cursor-new'),
        { k: 'traits', at: at(70), nft: 'ethereum/0xa1/1', traits: [{ type: 'eyes', value: 'gold' }] },
        fresh(at(89), { apes: 300 }),
        { k: 'event', at: at(89), event: tapeListing('89', at(89)) as MarketEvent },
        // the window: from 90 minutes on
        { k: 'event', at: at(90), event: tapeListing('90', at(90)) as MarketEvent },
        rest(at(90.5), 'stats', 3),
        // written late (within LOOK_AHEAD_MS of the records after it): the market before the cut
        { k: 'gas', at: at(89.9), price: 9n },
        { k: 'event', at: at(100), event: tapeListing('100', at(100)) as MarketEvent },
        { k: 'event', at: at(110), event: tapeListing('110', at(110)) as MarketEvent },
        { k: 'event', at: at(110.5), event: tapeListing('110.5', at(110.5)) as MarketEvent },
        // late, but of the window's end
        { k: 'gas', at: at(109.9), price: 10n },
        { k: 'event', at: at(120), event: tapeListing('120', at(120)) as MarketEvent },
      ];
      for (const r of records) w.write(r);
      await w.close();
      return { path, at };
    }

    it('keeps of the market before --from the newest of each value, no event, and its header says where it begins', async () => {
      const d = dir();
      const { path, at } = await twoHours(join(d, 'two.tape'));
      const out = join(d, 'cut.tape');
      const r = await convertTape(path, out, { from: at(90), to: at(110) });
      const back = [...openTape(out).records()];
      expect(back[0]).toEqual({ ...header(4), from: at(90) });
      const kept = back.slice(1, 1 + (r.cut?.kept ?? 0));
      // in time order; each key's newest before the cut (the late gas price of 89.9 too); the
      // freshness per collection, grouped by time; the later header; no event, no old cursor
      expect(exact(kept)).toBe(
        exact([
          rest(at(2), 'listings', 1),
          { k: 'fees', at: at(3), slug: 'apes', fees: [{ fee: 2.5, recipient: '0xfee' }] },
          { k: 'traits', at: at(6), nft: 'ethereum/0xa1/2', traits: [{ type: 'eyes', value: 'blue' }] },
          fresh(at(10), { punks: 200 }),
          { ...header(4, { wallet }), at: at(20) },
          rest(at(60), 'stats', 2),
          { k: 'traits', at: at(70), nft: 'ethereum/0xa1/1', traits: [{ type: 'eyes', value: 'gold' }] },
          rest(at(85), 'listings', 2, 'cursor-new'),
          fresh(at(89), { apes: 300 }),
          { k: 'gas', at: at(89.9), price: 9n },
        ]),
      );
      // the window as written, up to --to (a record of it written late, after one past it, too)
      expect(back.slice(1 + kept.length).map((x) => x.at)).toEqual([
        at(90),
        at(90.5),
        at(100),
        at(110),
        at(109.9),
      ]);
      expect(r.cut).toEqual({
        from: at(90),
        to: at(110),
        kept: 10,
        leftBefore: 7,
        eventsBefore: 2,
        leftAfter: 1,
      });
      expect([r.records, r.events]).toEqual([15, 3]);
      // the survey: the tape begins at the cut; the wallet of the later header still named
      const s = surveyTape(out);
      expect([s.firstAt, s.lastAt, s.wallet]).toEqual([at(90), at(110), wallet]);
      expect(CURSOR_ANSWER_KEEP_MS).toBeLessThan(at(90) - at(2));
      expect(LOOK_AHEAD_MS).toBeGreaterThan(at(110.5) - at(109.9));
    });

    it("a cut of a cut keeps what the first kept; a start at or before the tape's is no cut there; an empty window is refused before anything is written", async () => {
      const d = dir();
      const { path, at } = await twoHours(join(d, 'two.tape'));
      const once = join(d, 'once.tape');
      await convertTape(path, once, { from: at(90) });
      const twice = join(d, 'twice.tape');
      const r = await convertTape(once, twice, { from: at(95) });
      expect(r.cut).toMatchObject({ from: at(95), eventsBefore: 1 });
      const s = surveyTape(twice);
      expect([s.header.from, s.firstAt, s.counts.event]).toEqual([at(95), at(95), 4]);
      const kept = [...openTape(twice).records()].filter((x) => x.at < at(95));
      // the listings and the cursor page the first cut kept; the stats of its window replace its own
      expect(kept.filter((x) => x.k === 'rest').map((x) => (x as { response: unknown }).response)).toEqual([
        { n: 1 },
        { n: 2 },
        { n: 3 },
      ]);
      // --from before the cut: the cut's own start stays
      const again = join(d, 'again.tape');
      const r2 = await convertTape(once, again, { from: at(30) });
      expect(r2.cut).toMatchObject({ from: null, kept: 0 });
      expect(surveyTape(again).header.from).toBe(at(90));
      for (const [o, why] of [
        [
          { from: at(121) },
          /the cut starts after the tape ends \(the tape runs 2026-01-01T00:00:00\.000Z → 2026-01-01T02:00:00\.000Z\)/,
        ],
        [{ to: AT - 1 }, /the cut ends before the tape starts/],
        [{ from: at(100), to: at(100) }, /the cut ends before it starts/],
      ] as const) {
        const none = join(d, `none-${String(o.from)}-${String(o.to)}.tape`);
        await expect(convertTape(path, none, o)).rejects.toThrow(why);
        expect(existsSync(none)).toBe(false);
      }
    });
  });
});

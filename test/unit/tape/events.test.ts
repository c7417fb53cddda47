import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MarketEvent } from '../../../src/domain/events.ts';
import { EventLog } from '../../../src/sandbox/events/log.ts';
import { REST_KINDS, renderEvent } from '../../../src/sandbox/server/render-events.ts';
import { renderStreamEvent } from '../../../src/sandbox/stream/render.ts';
import { normalizeRestEvent, normalizeStreamMessage } from '../../../src/stream/index.ts';
import {
  decodeRecord,
  encodeRecord,
  TAPE_VERSION,
  TapeFormatError,
  type TapeHeader,
} from '../../../src/tape/format.ts';
import { openTape, surveyTape } from '../../../src/tape/reader.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { tapeLines } from '../../helpers/tapes.ts';
import { ALL_KINDS, sampleInput, testCatalog } from '../sandbox/stream/samples.ts';

const AT = 1_767_225_600_000;
const HASH = `0x${'ab'.repeat(32)}`;
const TX = `0x${'cd'.repeat(32)}`;
const MAKER = '0x00000000000000000000000000000000000000bb';
const NFT = { chain: 'ethereum', contract: '0x00000000000000000000000000000000000000a1', identifier: '7' };
const WETH = { address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', symbol: 'WETH', decimals: 18 };

/** The fields every event has, `kind` after them as the sandbox makes them. */
const base = (kind: string, id: string) => ({
  id,
  collection: 'apes',
  chain: 'ethereum',
  occurredAt: AT - 1_500,
  receivedAt: AT + 20,
  source: 'stream',
  kind,
});
const order = {
  orderHash: HASH,
  maker: MAKER,
  taker: null,
  quantity: 2n,
  price: 123_456_789_012_345_678_901n,
  paymentToken: WETH,
  expiresAt: AT + 3_600_000,
};

/** One event of every kind, as the daemon makes them. */
const EVENTS: Record<string, unknown>[] = [
  { ...base('listing', `listing:${HASH}`), ...order, nft: NFT, isPrivate: true },
  { ...base('item_offer', `item_offer:${HASH}`), ...order, nft: NFT },
  { ...base('collection_offer', `collection_offer:${HASH}`), ...order, expiresAt: null },
  {
    ...base('trait_offer', `trait_offer:${HASH}`),
    ...order,
    traits: [
      { type: 'Fur', value: 'Brown ✓' },
      { type: 'Hat', value: 'None' },
    ],
  },
  {
    ...base('sale', `sale:${TX}:7`),
    nft: NFT,
    orderHash: null,
    txHash: TX,
    seller: MAKER,
    buyer: '0x00000000000000000000000000000000000000cc',
    quantity: 1n,
    price: 5n,
    paymentToken: { address: '0x0000000000000000000000000000000000000000', symbol: 'ETH', decimals: 18 },
  },
  {
    ...base('transfer', 'transfer:a-made-up-id'),
    nft: NFT,
    txHash: null,
    from: MAKER,
    to: '0x00000000000000000000000000000000000000cc',
    quantity: 1n,
  },
  { ...base('cancel', `cancel:${HASH}`), orderHash: HASH, nft: null, txHash: TX },
  { ...base('cancel', `cancel:${HASH}`), orderHash: HASH, nft: NFT, txHash: null },
  {
    ...base('metadata_update', 'metadata:apes:7:1767225600000'),
    nft: NFT,
    traits: [{ type: 'Level', value: 9 }],
  },
  { ...base('order_invalidated', `order_invalidated:${HASH}:3:1`), orderHash: HASH, nft: null },
  { ...base('order_revalidated', `order_revalidated:${HASH}:4:2`), orderHash: HASH, nft: NFT },
];

/** The same event with `kind` first, as the stream's normalizer makes them. */
const kindFirst = (e: Record<string, unknown>) => {
  const { kind, ...rest } = e;
  return { kind, ...rest };
};

/** Every field, in its order, bigints marked: equal only when the event reads back as it was. */
const exact = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

const roundTrip = (e: Record<string, unknown>, version = TAPE_VERSION) => {
  const line = encodeRecord({ k: 'event', at: AT, event: e as unknown as MarketEvent }, version);
  return { line, back: decodeRecord(line) };
};

describe('market events on a tape (version 2: as arrays)', () => {
  it('every kind, in both orders of its fields, reads back exactly as written, in far fewer bytes', () => {
    let bytes = 0;
    let before = 0;
    for (const e of [...EVENTS, ...EVENTS.map(kindFirst)]) {
      const { line, back } = roundTrip(e);
      expect(line.startsWith('['), line).toBe(true);
      expect(exact(back)).toBe(exact({ k: 'event', at: AT, event: e }));
      const old = encodeRecord({ k: 'event', at: AT, event: e as unknown as MarketEvent }, 1);
      expect(old.startsWith('{"k":"event"')).toBe(true);
      bytes += line.length;
      before += old.length;
    }
    expect(bytes / before).toBeLessThan(0.55);
  });

  it("events as the daemon's stream and backfill normalize them are all written as arrays, and read back exactly", () => {
    const catalog = testCatalog();
    let n = 0;
    for (const kind of ALL_KINDS) {
      const logged = new EventLog(() => AT).append(sampleInput(kind));
      const wire = JSON.parse(JSON.stringify(renderStreamEvent(logged, { sentAtMs: AT + 5, catalog })));
      const events = [normalizeStreamMessage(wire, { receivedAt: AT + 9, source: 'stream' })];
      if (REST_KINDS.includes(kind)) {
        const rest = renderEvent(logged, { catalog, metadataBaseUrl: 'http://x/metadata', createdAtMs: 0 });
        events.push(
          normalizeRestEvent(JSON.parse(JSON.stringify(rest)), {
            receivedAt: AT + 9,
            source: 'backfill',
            collection: 'harpoon-apes',
          }) as MarketEvent,
        );
      }
      for (const e of events) {
        const { line, back } = roundTrip(e as unknown as Record<string, unknown>);
        expect(line.startsWith('['), `${kind}: ${line}`).toBe(true);
        expect(exact(back)).toBe(exact({ k: 'event', at: AT, event: e }));
        n++;
      }
    }
    expect(n).toBeGreaterThan(ALL_KINDS.length);
  });

  it('ids made of the kind and the order hash, or the transaction and item, are not written twice', () => {
    expect(JSON.parse(roundTrip(EVENTS[0] as Record<string, unknown>).line)[2]).toBe(0);
    expect(JSON.parse(roundTrip(EVENTS[4] as Record<string, unknown>).line)[2]).toBe(1);
    expect(JSON.parse(roundTrip(EVENTS[5] as Record<string, unknown>).line)[2]).toBe('transfer:a-made-up-id');
    // an id that only looks like a code stays the string it is
    const odd = { ...EVENTS[0], id: '0' };
    const { line, back } = roundTrip(odd);
    expect(JSON.parse(line)[2]).toBe('0');
    expect(exact(back)).toBe(exact({ k: 'event', at: AT, event: odd }));
  });

  it('an event the array form would not give back exactly is written as an object, and reads back exactly', () => {
    const listing = EVENTS[0] as Record<string, unknown>;
    const { nft: _n, ...noNft } = listing;
    const { id, ...rest } = listing;
    const odd: Record<string, unknown>[] = [
      { ...listing, extra: 1 }, // a field its kind does not have
      noNft, // one missing
      { ...rest, id }, // another order
      { ...listing, nft: { ...NFT, name: 'x' } },
      { ...listing, nft: { identifier: '7', chain: 'ethereum', contract: NFT.contract } },
      { ...listing, paymentToken: { symbol: 'WETH', address: WETH.address, decimals: 18 } },
      { ...listing, price: '5' }, // an amount that is not a bigint
      { ...listing, occurredAt: AT + 0.5 }, // a time that is not whole ms
      { ...listing, taker: undefined },
      { ...listing, kind: 'something_new' },
    ];
    for (const e of odd) {
      const { line, back } = roundTrip(e);
      expect(line.startsWith('{"k":"event"'), line).toBe(true);
      expect(back).toEqual(decodeRecord(encodeRecord({ k: 'event', at: AT, event: e as never }, 1)));
    }
  });

  it('an array line that is not an event this harpoon reads is a TapeFormatError that says why', () => {
    const good = JSON.parse(roundTrip(EVENTS[0] as Record<string, unknown>).line) as unknown[];
    const bad = (a: unknown[]) => () => decodeRecord(JSON.stringify(a));
    expect(bad([AT, 55, ...good.slice(2)])).toThrow(/of kind 55 is not one this harpoon knows/);
    expect(bad(good.slice(0, -1))).toThrow(/of kind listing needs 17 fields/);
    expect(bad([AT])).toThrow(/needs at least 8 fields/);
    expect(bad(good.map((v, i) => (i === 12 ? 5 : v)))).toThrow(/field price is not an amount/);
    expect(bad(good.map((v, i) => (i === 15 ? 'nft' : v)))).toThrow(/field nft is not an NFT/);
    expect(bad(good.map((v, i) => (i === 2 ? 7 : v)))).toThrow(/has no id/);
    expect(bad(good.map((v, i) => (i === 0 ? 'x' : v)))).toThrow(TapeFormatError);
  });
});

describe('tape versions', () => {
  const header = (version: 1 | 2): TapeHeader => ({
    k: 'header',
    at: AT,
    version,
    source: 'test',
    chain: 'ethereum',
    collections: ['apes'],
    paymentTokens: [WETH],
  });
  const event = (n: number) => ({
    k: 'event' as const,
    at: AT + n,
    event: { ...(EVENTS[n % EVENTS.length] as object) } as unknown as MarketEvent,
  });

  it('a tape is written on in its own version: a version 1 tape continued stays in objects, a new one is in arrays', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-tape-')), 'old.tape');
    const w1 = openTapeWriter(path, { header: header(1), flushMs: 0 });
    w1.write(event(0));
    await w1.close();
    // continued by this harpoon, whose recorder makes headers of a later version
    const w2 = openTapeWriter(path, { header: header(2), flushMs: 0 });
    for (let n = 1; n < 12; n++) w2.write(event(n));
    await w2.close();
    expect(tapeLines(path).filter((l) => l.startsWith('['))).toEqual([]);
    const back = [...openTape(path).records()];
    expect(back[0]).toEqual(header(1));
    expect(exact(back.slice(1))).toBe(exact(Array.from({ length: 12 }, (_, n) => event(n))));

    const fresh = join(mkdtempSync(join(tmpdir(), 'harpoon-tape-')), 'new.tape');
    const w3 = openTapeWriter(fresh, { header: header(2), flushMs: 0 });
    for (let n = 0; n < 12; n++) w3.write(event(n));
    await w3.close();
    expect(
      tapeLines(fresh)
        .slice(1)
        .every((l) => l.startsWith('[')),
    ).toBe(true);
    expect(exact([...openTape(fresh).records()].slice(1))).toBe(
      exact(Array.from({ length: 12 }, (_, n) => event(n))),
    );
    // the survey reads kinds and times off both forms without decoding them
    for (const p of [path, fresh]) {
      const s = surveyTape(p);
      expect(s.counts).toEqual({ header: 1, event: 12 });
      expect([s.firstAt, s.lastAt]).toEqual([AT, AT + 11]);
    }
  });

  it('a tape of a version this harpoon does not know is refused, by readers and writers, naming the versions', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'harpoon-tape-')), 'future.tape');
    const w = openTapeWriter(path, {
      header: { ...header(2), version: 4 } as unknown as TapeHeader,
      flushMs: 0,
    });
    w.write(event(0));
    await w.close();
    const why =
      /future\.tape is a tape of version 4; this harpoon reads versions 1 to 3 \(a newer harpoon wrote it\?\)/;
    expect(() => surveyTape(path)).toThrow(why);
    expect(() => openTape(path).header()).toThrow(why);
    expect(() => openTapeWriter(path, { header: header(2), flushMs: 0 })).toThrow(why);
  });
});

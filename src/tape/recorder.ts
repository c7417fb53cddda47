/**
 * Records the market as the market view sees it: give the view `recorder.api` instead of the API
 * client (every REST answer it reads is written with its call, collection and page cursor), and
 * hand every normalized event to `recorder.event`. Besides, what paper execution charges is kept
 * beside it: each collection's fees (asked for every `gasEveryMs`, written when first read and
 * again whenever they read differently — a creator may change them; a tape without them would have
 * a backtest charge none), the gas price (every `gasEveryMs`), the traits of each
 * NFT as the daemon learns them (`nftTraits`: every NFT first seen in a listing, again after a
 * metadata update — so trait offers can be matched again, and strategies read them as they did),
 * the market prices of the payment tokens other than ETH and WETH as the daemon reads them
 * (`prices`: each written when read anew, looked at every `gasEveryMs` and whenever the daemon
 * says it polled (`views`) — strategies read them, and a backtest values a swap of such a token at
 * them), the configured drops' status as the daemon reads it (`drops`, the same way: strategies
 * read it, a backtest's mint pays its price), and once a second the stream's freshness of each
 * collection.
 *
 *   const rec = createTapeRecorder({ path, chain, collections, paymentTokens, clock, source: 'daemon' });
 *   const view = createMarketView({ api: rec.wrapApi(api), ... });
 *   stream.subscribe((e) => { rec.event(e); view.apply(e); });
 *   await rec.close();
 */
import type { MarketEvent, PaymentToken } from '../domain/events.ts';
import type { MarketApi } from '../market/api.ts';
import type { NftTraits } from '../market/nft-traits.ts';
import {
  type RestCall,
  TAPE_VERSION,
  type TapeDrop,
  type TapeHeader,
  type TapePrice,
  type TapeRecord,
} from './format.ts';
import { openTapeWriter, type TapeWriter } from './writer.ts';

export interface TapeRecorderOptions {
  readonly path: string;
  readonly source: string;
  readonly chain: string;
  readonly collections: readonly string[];
  readonly paymentTokens: readonly PaymentToken[];
  readonly clock: { now(): number };
  /**
   * The collection's fees (asked for every gasEveryMs: give a cache, such as the daemon's; written
   * when they differ from the last written).
   */
  readonly fees?: (
    slug: string,
  ) => Promise<readonly { fee: number; recipient: string; required?: boolean }[]>;
  /** Gas price now (wei per gas). */
  readonly gasPrice?: () => Promise<bigint>;
  /**
   * The payment tokens' prices as the daemon knows them now (not ETH nor WETH: those are 1e18 by
   * definition); each is written when its `learnedAt` is newer than the one last written.
   */
  readonly prices?: () => readonly TokenPriceReading[];
  /**
   * The configured drops' status as the daemon knows it now; each is written when its `learnedAt`
   * is newer than the one last written (checked every `gasEveryMs`).
   */
  readonly drops?: () => readonly DropReading[];
  /** The NFT traits the daemon learns (see market/nft-traits.ts): each is written as learned. */
  readonly nftTraits?: Pick<NftTraits, 'onLearned'>;
  /** The stream's freshness of a collection. */
  readonly freshness?: (slug: string) => { readonly ageMs: number; readonly stale: boolean } | undefined;
  /** Default 12 000 ms (a block). */
  readonly gasEveryMs?: number;
  /** Default 1000 ms: what a crash may lose. */
  readonly flushMs?: number;
  readonly meta?: TapeHeader['meta'];
  /**
   * A read for the tape (fees, gas price) failed: told when it starts failing, at most every
   * `noteEveryMs` while it keeps failing (`what` then says since when and how often), and to
   * onNotice once it is read again. Writing the tape is told by onWrite.
   */
  readonly onError?: (err: unknown, what: string) => void;
  /**
   * Writing the tape failed (disk full, file too large…), still fails, or works again: told once
   * when it starts failing, at most every `noteEveryMs` while it keeps failing (a disk full for
   * hours is not a warning a second), and once when it writes again. Without it, a failure is told
   * to onError as `tape write` the same way.
   */
  readonly onWrite?: (state: TapeWriteState) => void;
  /** Default 60 000 ms. */
  readonly noteEveryMs?: number;
  /** The tape was deleted (a new one is started) or moved while it is written: told once. */
  readonly onNotice?: (message: string) => void;
}

/** A payment token's price as the daemon read it (see TapePrice). */
export type TokenPriceReading = Omit<TapePrice, 'k' | 'at'>;
/** A drop's status as the daemon read it (see TapeDrop). */
export type DropReading = Omit<TapeDrop, 'k' | 'at'>;

/** How writing the tape goes, when it goes wrong (see onWrite). */
export interface TapeWriteState {
  readonly state: 'failing' | 'still failing' | 'recovered';
  /** The last failure (none when recovered). */
  readonly err?: unknown;
  /** Failed attempts since it started failing (one a second). */
  readonly failures: number;
  /** When it started failing (the recorder's clock). */
  readonly since: number;
  /** Records waiting to be written, and records lost since the recorder started. */
  readonly held: number;
  readonly dropped: number;
}

export interface TapeRecorder {
  readonly path: string;
  /** The API the market view should read through: answers are recorded, then returned. */
  wrapApi(api: MarketApi): MarketApi;
  event(event: MarketEvent): void;
  /**
   * Writes what the daemon's views (`prices`, `drops`) know now that is new: the daemon calls it
   * after each poll that read them, so a backtest learns each reading when the daemon did (they
   * are also looked at every `gasEveryMs`).
   */
  views(): void;
  /**
   * A collection's fees as just read (the daemon's cache tells each change at once): written when
   * they differ from the last written, as the periodic ask does.
   */
  fees(slug: string, fees: readonly { fee: number; recipient: string; required?: boolean }[]): void;
  stats(): {
    records: number;
    blocks: number;
    bytes: number;
    events: number;
    snapshots: number;
    held: number;
    dropped: number;
  };
  close(): Promise<void>;
}

type Paged = { readonly next?: string };

export function createTapeRecorder(o: TapeRecorderOptions): TapeRecorder {
  const header: TapeHeader = {
    k: 'header',
    at: o.clock.now(),
    version: TAPE_VERSION,
    source: o.source,
    chain: o.chain,
    collections: [...o.collections],
    paymentTokens: o.paymentTokens.map((t) => ({
      address: t.address,
      symbol: t.symbol,
      decimals: t.decimals,
    })),
    ...(o.meta !== undefined ? { meta: o.meta } : {}),
  };
  const writer: TapeWriter = openTapeWriter(o.path, {
    header,
    flushMs: 0, // the recorder's own tick flushes (after the freshness record)
    ...(o.onNotice !== undefined ? { onNotice: o.onNotice } : {}),
  });
  const fail = (what: string) => (err: unknown) => o.onError?.(err, what);
  const tell =
    o.onWrite ??
    ((s: TapeWriteState) => {
      if (s.state !== 'recovered') o.onError?.(s.err, 'tape write');
    });
  const noteEveryMs = o.noteEveryMs ?? 60_000;
  let events = 0;
  let snapshots = 0;
  let closed = false;
  /**
   * Something of the recording that fails (writing the tape, a read for it): `tell` hears of it once
   * when it starts failing, at most every noteEveryMs while it keeps failing (a disk full for hours
   * is not a warning a second), and once when it works again.
   */
  function failureNotes(
    tell: (state: TapeWriteState['state'], f: { since: number; failures: number }, err?: unknown) => void,
  ): { failed(err: unknown): void; ok(): void } {
    let failing: { since: number; failures: number; toldAt: number } | undefined;
    return {
      failed(err) {
        const now = o.clock.now();
        if (failing === undefined) {
          failing = { since: now, failures: 1, toldAt: now };
          tell('failing', failing, err);
          return;
        }
        failing.failures++;
        if (now - failing.toldAt < noteEveryMs) return;
        failing.toldAt = now;
        tell('still failing', failing, err);
      },
      ok() {
        if (failing === undefined) return;
        tell('recovered', failing);
        failing = undefined;
      },
    };
  }
  /**
   * Writing the tape: told (see onWrite), never thrown at the daemon that trades; it works again
   * when a block is written (only a flush tells: a record is only buffered).
   */
  const writes = failureNotes((state, f, err) => {
    const { held, dropped } = writer.stats();
    tell({
      state,
      ...(err !== undefined ? { err } : {}),
      failures: f.failures,
      since: f.since,
      held,
      dropped,
    });
  });
  const write = (r: TapeRecord) => {
    if (closed) return;
    try {
      writer.write(r);
    } catch (err) {
      writes.failed(err);
    }
  };

  function rest<A extends unknown[], R>(
    call: RestCall,
    fn: (slug: string, ...rest: A) => Promise<R>,
    nextOf: (rest: A) => string | undefined,
  ): (slug: string, ...rest: A) => Promise<R> {
    return async (slug, ...args) => {
      const response = await fn(slug, ...args);
      snapshots++;
      write({ k: 'rest', at: o.clock.now(), call, slug, next: nextOf(args) ?? null, response });
      return response;
    };
  }

  /** A read for the tape that fails: told to onError (see there), and to onNotice when it works again. */
  const readNotes = (what: string) =>
    failureNotes((state, f, err) => {
      const since = new Date(f.since).toISOString();
      if (state === 'failing') fail(what)(err);
      else if (state === 'still failing')
        fail(`${what} (still failing since ${since}: ${f.failures} attempts)`)(err);
      else o.onNotice?.(`${what}: read again (it failed ${f.failures} times since ${since})`);
    });

  /** Per collection, the fees last written (as JSON). */
  const feesWritten = new Map<string, string>();
  /** Fees read (asked for, or told): written when they differ from the last written. */
  function feesRead(
    slug: string,
    read: readonly { fee: number; recipient: string; required?: boolean }[],
  ): void {
    const fees = read.map((f) => ({ ...f }));
    const key = JSON.stringify(fees);
    if (feesWritten.get(slug) === key) return;
    write({ k: 'fees', at: o.clock.now(), slug, fees });
    feesWritten.set(slug, key);
  }
  const feeNotes = new Map(o.collections.map((slug) => [slug, readNotes(`fees of ${slug}`)]));
  let readingFees = false;
  async function readFees(): Promise<void> {
    if (o.fees === undefined || readingFees) return;
    readingFees = true;
    try {
      for (const slug of o.collections) {
        const notes = feeNotes.get(slug) as ReturnType<typeof readNotes>;
        try {
          const fees = await o.fees(slug);
          if (closed) return;
          feesRead(slug, fees);
          notes.ok();
        } catch (err) {
          notes.failed(err);
        }
      }
    } finally {
      readingFees = false;
    }
  }

  const gasNotes = readNotes('gas price');
  async function readGas(): Promise<void> {
    if (o.gasPrice === undefined) return;
    try {
      write({ k: 'gas', at: o.clock.now(), price: await o.gasPrice() });
      gasNotes.ok();
    } catch (err) {
      gasNotes.failed(err);
    }
  }

  /**
   * What the daemon's views know (token prices, drops), each written when read anew: per key, when
   * the one last written was read.
   */
  function viewReads<R extends { readonly learnedAt: number }>(
    what: string,
    read: (() => readonly R[]) | undefined,
    keyOf: (r: R) => string,
    record: (r: R, at: number) => TapeRecord,
  ): () => void {
    const written = new Map<string, number>();
    const notes = readNotes(what);
    return () => {
      if (read === undefined) return;
      try {
        for (const r of read()) {
          const key = keyOf(r);
          if (written.get(key) === r.learnedAt) continue;
          write(record(r, o.clock.now()));
          written.set(key, r.learnedAt);
        }
        notes.ok();
      } catch (err) {
        notes.failed(err);
      }
    };
  }
  const readPrices = viewReads(
    'token prices',
    o.prices,
    (p) => p.token.toLowerCase(),
    (p, at) => ({ k: 'price', at, ...p, token: p.token.toLowerCase() }),
  );
  const readDrops = viewReads(
    'drops',
    o.drops,
    (d) => d.drop.slug,
    (d, at) => ({ k: 'drop', at, ...d }),
  );

  function tick(): void {
    if (o.freshness !== undefined) {
      const collections: Record<string, { ageMs: number; stale: boolean }> = {};
      for (const slug of o.collections) {
        const f = o.freshness(slug);
        if (f !== undefined && Number.isFinite(f.ageMs))
          collections[slug] = { ageMs: f.ageMs, stale: f.stale };
      }
      write({ k: 'fresh', at: o.clock.now(), collections });
    }
    try {
      writer.flush();
      writes.ok();
    } catch (err) {
      writes.failed(err);
    }
  }

  void readFees();
  void readGas();
  readPrices();
  readDrops();
  const flushTimer = setInterval(tick, o.flushMs ?? 1000);
  flushTimer.unref?.();
  const gasTimer =
    o.gasPrice !== undefined || o.fees !== undefined || o.prices !== undefined || o.drops !== undefined
      ? setInterval(() => {
          void readGas();
          void readFees();
          readPrices();
          readDrops();
        }, o.gasEveryMs ?? 12_000)
      : undefined;
  const stopTraits = o.nftTraits?.onLearned((nft, traits, at) => write({ k: 'traits', at, nft, traits }));
  gasTimer?.unref?.();

  return {
    path: o.path,
    wrapApi(api) {
      return {
        collections: {
          stats: rest('stats', api.collections.stats.bind(api.collections), () => undefined),
          traits: rest('traits', api.collections.traits.bind(api.collections), () => undefined),
          traitFloors: rest(
            'traitFloors',
            api.collections.traitFloors.bind(api.collections),
            () => undefined,
          ),
        },
        listings: {
          best: rest(
            'listings',
            api.listings.best.bind(api.listings),
            (a) => (a[0] as Paged | undefined)?.next,
          ),
        },
        offers: {
          collection: rest(
            'collectionOffers',
            api.offers.collection.bind(api.offers),
            (a) => (a[0] as Paged | undefined)?.next,
          ),
          traits: rest(
            'traitOffers',
            api.offers.traits.bind(api.offers),
            (a) => (a[0] as Paged | undefined)?.next,
          ),
        },
      };
    },
    event(event) {
      events++;
      write({ k: 'event', at: event.receivedAt, event });
    },
    fees: feesRead,
    views() {
      readPrices();
      readDrops();
    },
    stats: () => ({ ...writer.stats(), events, snapshots }),
    async close() {
      if (closed) return;
      clearInterval(flushTimer);
      if (gasTimer !== undefined) clearInterval(gasTimer);
      stopTraits?.();
      tick();
      closed = true;
      const { held } = writer.stats();
      await writer.close().catch((err: unknown) => {
        throw new Error(
          `the tape ${o.path} could not be written at the end: ${held} records were not written`,
          { cause: err },
        );
      });
    },
  };
}

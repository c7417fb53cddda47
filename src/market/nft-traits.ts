/**
 * The traits of single NFTs, as strategies read them (`ctx.nfts`). A strategy asking for an NFT
 * not learned yet gets nothing now: the NFT is read from the API in the background (at the lowest
 * read priority, a few at a time), and a later decision sees it. A metadata update carries its new
 * traits (or, without them, has an NFT someone asked about read again). With `readListed` (the
 * daemon sets it while it records the market) every NFT first seen in a listing is read as well.
 * Whoever records the market hears of each NFT learned (`onLearned`): a tape holds the traits as
 * the daemon knew them, when it knew them.
 *
 *   const traits = createNftTraits({ clock, read: (nft) => api.nfts.get(...).then(...) });
 *   traits.observe(event);            // every market event, before the strategies hear it
 *   engine market port: nfts: () => traits.view
 */
import type { MarketEvent, NftRef } from '../domain/events.ts';
import { nftKey } from '../domain/events.ts';
import type { NftTraitsView } from '../strategy.ts';
import { positiveOption } from './options.ts';
import type { Known } from './snapshot.ts';

export type Traits = readonly { readonly type: string; readonly value: string }[];

export interface NftTraitsOptions {
  readonly clock: { now(): number };
  /** Reads one NFT's traits (the API); undefined: the NFT has none known. */
  readonly read: (nft: NftRef) => Promise<Traits | undefined>;
  /** Read every NFT first seen in a listing, not only those asked about. Default false. */
  readonly readListed?: boolean;
  /** NFTs remembered at most (those learned longest ago go first). Default 50 000. */
  readonly maxNfts?: number;
  /** Reads at once at most. Default 2. */
  readonly concurrency?: number;
  /** Reads waiting at most (the oldest waiting are dropped: a later listing asks again). Default 10 000. */
  readonly maxQueued?: number;
  /** A failed read of an NFT is not tried again for this long (ms). Default 600 000. */
  readonly retryAfterMs?: number;
  readonly onError?: (err: unknown, nft: NftRef) => void;
}

export interface NftTraitsStats {
  readonly known: number;
  readonly reads: number;
  readonly failures: number;
  readonly queued: number;
}

export interface NftTraits {
  /** What strategies read: the traits learned so far (asking for an unknown NFT has it read). */
  readonly view: NftTraitsView;
  /** Learns from a market event: metadata updates taken (listings of NFTs not seen yet read, with readListed). */
  observe(event: MarketEvent): void;
  /** One NFT's traits: the learned ones at once, else read now (one read per NFT at a time). */
  load(nft: NftRef): Promise<Traits | undefined>;
  /** Hears of every NFT learned (its key, its traits, when); returns the unsubscribe. */
  onLearned(fn: (key: string, traits: Traits, at: number) => void): () => void;
  /** Resolves when no read is running or waiting. */
  idle(): Promise<void>;
  stats(): NftTraitsStats;
}

const traitsOf = (list: readonly { readonly type: string; readonly value: string | number }[]): Traits =>
  Object.freeze(list.map((t) => Object.freeze({ type: String(t.type), value: String(t.value) })));

export function createNftTraits(o: NftTraitsOptions): NftTraits {
  const positive = positiveOption('nft traits');
  const maxNfts = positive('maxNfts', o.maxNfts, 50_000);
  const concurrency = positive('concurrency', o.concurrency, 2);
  const maxQueued = positive('maxQueued', o.maxQueued, 10_000);
  const retryAfterMs = positive('retryAfterMs', o.retryAfterMs, 600_000);
  /** Learned, in the order learned (a Map keeps it: the first is the one to forget). */
  const known = new Map<string, Known<Traits>>();
  /** NFTs read or being read, so each is asked once. */
  const asked = new Set<string>();
  /** Failed reads: key → when it may be read again. */
  const failedUntil = new Map<string, number>();
  const waiting = new Map<string, NftRef>();
  const running = new Map<string, Promise<Traits | undefined>>();
  const listeners = new Set<(key: string, traits: Traits, at: number) => void>();
  let idleWaiters: (() => void)[] = [];
  let reads = 0;
  let failures = 0;

  function learn(key: string, traits: Traits): void {
    const at = o.clock.now();
    known.delete(key);
    known.set(key, Object.freeze({ value: traits, learnedAt: at, from: 'rest' as const }));
    if (known.size > maxNfts) {
      const oldest = known.keys().next().value as string;
      known.delete(oldest);
      asked.delete(oldest);
    }
    for (const fn of listeners)
      try {
        fn(key, traits, at);
      } catch (err) {
        o.onError?.(err, nftOfKey(key) as NftRef);
      }
  }

  function ask(key: string, nft: NftRef): void {
    if (running.has(key) || waiting.has(key)) return;
    const until = failedUntil.get(key);
    if (until !== undefined) {
      if (o.clock.now() < until) return;
      failedUntil.delete(key);
    }
    asked.delete(key);
    asked.add(key);
    waiting.set(key, nft);
    if (waiting.size > maxQueued) {
      // the oldest waiting goes: a later listing of it asks again
      const dropped = waiting.keys().next().value as string;
      waiting.delete(dropped);
      asked.delete(dropped);
    }
    // NFTs asked whose read found nothing stay asked (not read again on each listing), within a bound
    if (asked.size > 2 * maxNfts)
      for (const k of asked) {
        if (asked.size <= maxNfts) break;
        if (!running.has(k) && !waiting.has(k)) asked.delete(k);
      }
    pump();
  }

  function pump(): void {
    while (running.size < concurrency && waiting.size > 0) {
      const [key, nft] = waiting.entries().next().value as [string, NftRef];
      waiting.delete(key);
      start(key, nft);
    }
    if (running.size === 0 && waiting.size === 0) {
      const w = idleWaiters;
      idleWaiters = [];
      for (const fn of w) fn();
    }
  }

  function start(key: string, nft: NftRef): Promise<Traits | undefined> {
    reads++;
    const p = (async () => {
      try {
        const t = await o.read(nft);
        if (t === undefined) return undefined;
        const traits = traitsOf(t);
        learn(key, traits);
        return traits;
      } catch (err) {
        failures++;
        failedUntil.set(key, o.clock.now() + retryAfterMs);
        asked.delete(key);
        o.onError?.(err, nft);
        return undefined;
      } finally {
        running.delete(key);
        pump();
      }
    })();
    running.set(key, p);
    return p;
  }

  const view: NftTraitsView = Object.freeze({
    get(key: string) {
      const k = known.get(key);
      if (k !== undefined) return k;
      if (asked.has(key)) return undefined;
      // a key of another form than nftKey's cannot be read
      const nft = nftOfKey(key);
      if (nft !== undefined) ask(key, nft);
      return undefined;
    },
  });

  return {
    view,
    observe(event) {
      if (event.kind === 'metadata_update') {
        const key = nftKey(event.nft);
        // the new traits, when the update carries them; else read again if someone asked
        if (event.traits.length > 0) learn(key, traitsOf(event.traits));
        else if (asked.has(key) || known.has(key)) {
          failedUntil.delete(key);
          ask(key, event.nft);
        }
        return;
      }
      if (event.kind !== 'listing' || o.readListed !== true) return;
      const key = nftKey(event.nft);
      if (!asked.has(key) && !known.has(key)) ask(key, event.nft);
    },
    load(nft) {
      const key = nftKey(nft);
      const k = known.get(key);
      if (k !== undefined) return Promise.resolve(k.value);
      const r = running.get(key);
      if (r !== undefined) return r;
      waiting.delete(key);
      asked.add(key);
      return start(key, nft);
    },
    onLearned(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    idle() {
      if (running.size === 0 && waiting.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    stats: () => ({ known: known.size, reads, failures, queued: waiting.size }),
  };
}

/** The NFT an `nftKey` names (chain/contract/identifier), if it is one. */
function nftOfKey(key: string): NftRef | undefined {
  const m = /^([^/]+)\/(0x[0-9a-f]{40})\/([^/]+)$/.exec(key);
  if (m === null) return undefined;
  return {
    chain: m[1] as NftRef['chain'],
    contract: m[2] as NftRef['contract'],
    identifier: m[3] as NftRef['identifier'],
  };
}

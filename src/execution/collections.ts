/**
 * What the daemon knows of each collection it trades from the marketplace — the fees every order
 * there must carry, its NFT contract — kept fresh for a daemon that runs for weeks. A creator may
 * change the collection's fees at any time: orders signed with the old ones are refused, and a
 * sale's net proceeds move with them.
 *
 * - The first read of a collection is awaited (an order cannot be signed without its fees); a
 *   failed read is not kept (the next ask reads again).
 * - Once older than `maxAgeMs`, the next ask answers with what is known and reads again behind it:
 *   an order is never slowed by a renewal. A failed renewal keeps what is known (told once per
 *   failing spell) and is tried again after `retryMs`.
 * - `doubt(slug)` (the marketplace refused one of our orders there: its fees may have changed)
 *   makes the next ask wait for a new read; if that read fails, the ask fails with it rather than
 *   sign again with fees just refused. A read younger than `doubtAfterMs` is not read again
 *   for a doubt (a strategy whose orders are refused for another reason, offer after offer, costs
 *   one read per `doubtAfterMs`, not one per order); the doubt waits until it is that old.
 * - `sellerFeeBps(slug)`: what a sale there pays (required fees, bps) as last read — what the
 *   market view tells strategies; undefined while not read, or when the fees are not ones an order
 *   would take (the strategies then keep their fee params).
 * - `onChange` hears every read whose fees differ from the last (the first read too).
 * - `feeRecipients` of what `get` answers: every recipient ever read (the calldata guard lets a
 *   fill pay them: an order signed before a change pays the old ones) — with `remembered`, also
 *   those read before a restart, and each new one is kept there.
 */
import type { Logger } from '../observability/index.ts';
import { feeBps } from './fill-model.ts';
import type { CollectionInfo } from './orders.ts';

export interface CollectionInfoCacheOptions {
  /** Reads a collection from the marketplace (`GET /api/v2/collections/{slug}`). */
  readonly read: (slug: string) => Promise<CollectionInfo>;
  readonly clock: { now(): number };
  readonly logger: Logger;
  /** Read again once a read is this old; default 15 minutes. */
  readonly maxAgeMs?: number;
  /** A failed renewal is tried again after this; default a minute. */
  readonly retryMs?: number;
  /** A doubt reads again only a read at least this old; default 10 s. */
  readonly doubtAfterMs?: number;
  /** The fees of a collection read differently than before (and at the first read: no `before`). */
  readonly onChange?: (change: CollectionFeesChange) => void;
  /** Where the fee recipients read are kept across restarts (the daemon's store). */
  readonly remembered?: {
    of(slug: string): readonly string[];
    add(slug: string, recipients: readonly string[]): void;
  };
}

/** What `onChange` hears: the new read and its sale fees (undefined: not usable), and the one before. */
export interface CollectionFeesChange {
  readonly slug: string;
  readonly info: CollectionInfo;
  readonly sellerFeeBps: bigint | undefined;
  readonly before?: { readonly info: CollectionInfo; readonly sellerFeeBps: bigint | undefined };
}

export interface CollectionInfoCache {
  /** What is known of a collection (see the module comment for when it is read). */
  get(slug: string): Promise<CollectionInfo>;
  /** The next `get` waits for a new read (an order there was refused). */
  doubt(slug: string): void;
  /** Required fees of a sale there, bps, as last read; undefined while not known or not usable. */
  sellerFeeBps(slug: string): bigint | undefined;
}

const MAX_AGE_MS = 15 * 60_000;
const RETRY_MS = 60_000;
const DOUBT_AFTER_MS = 10_000;

interface Entry {
  info: CollectionInfo;
  /** When it was read, or (after a failed renewal) when a renewal may be tried again, less maxAge. */
  at: number;
  doubted: boolean;
  /** The key of its fees, to tell a change. */
  key: string;
  /** A renewal's failures since the last good read (told at the first). */
  failures: number;
}

const feesKey = (info: CollectionInfo): string =>
  JSON.stringify(info.fees.map((f) => [f.fee, f.recipient.toLowerCase(), f.required !== false]));

export function createCollectionInfoCache(o: CollectionInfoCacheOptions): CollectionInfoCache {
  const maxAgeMs = o.maxAgeMs ?? MAX_AGE_MS;
  const retryMs = Math.min(o.retryMs ?? RETRY_MS, maxAgeMs);
  const doubtAfterMs = o.doubtAfterMs ?? DOUBT_AFTER_MS;
  const known = new Map<string, Entry>();
  const reading = new Map<string, Promise<CollectionInfo>>();
  const bps = new Map<string, bigint>();

  function learned(slug: string, read: CollectionInfo): CollectionInfo {
    const prev = known.get(slug);
    const key = feesKey(read);
    const recipients = new Set(prev?.info.feeRecipients ?? rememberedOf(slug));
    const fresh: string[] = [];
    for (const f of read.fees) {
      const r = f.recipient.toLowerCase();
      if (!recipients.has(r)) fresh.push(r);
      recipients.add(r);
    }
    if (fresh.length > 0) remember(slug, fresh);
    const info: CollectionInfo = { ...read, feeRecipients: [...recipients] };
    known.set(slug, { info, at: o.clock.now(), doubted: false, key, failures: 0 });
    if (prev !== undefined && prev.key === key) return info;
    const beforeBps = bps.get(slug);
    let fee: bigint | undefined;
    try {
      fee = feeBps(info.fees);
      bps.set(slug, fee);
    } catch (err) {
      // a fee no order would take (see selectFees): strategies keep their fee params
      bps.delete(slug);
      o.logger.warn({ err, collection: slug }, 'the fees of a collection are not usable');
    }
    if (prev !== undefined)
      o.logger.info(
        {
          collection: slug,
          before: prev.info.fees,
          now: info.fees,
          ...(fee !== undefined ? { sellerFeeBps: fee.toString() } : {}),
        },
        'the fees of a collection changed: orders there carry the new ones from now on',
      );
    o.onChange?.({
      slug,
      info,
      sellerFeeBps: fee,
      ...(prev !== undefined ? { before: { info: prev.info, sellerFeeBps: beforeBps } } : {}),
    });
    return info;
  }

  /** The recipients kept before this start (none when they cannot be read: told). */
  function rememberedOf(slug: string): readonly string[] {
    try {
      return o.remembered?.of(slug) ?? [];
    } catch (err) {
      o.logger.warn(
        { err, collection: slug },
        'the fee recipients read before this start could not be read: a fill paying an older one is refused',
      );
      return [];
    }
  }

  /** Keeps new recipients for the next start (this one knows them either way). */
  function remember(slug: string, fresh: readonly string[]): void {
    try {
      o.remembered?.add(slug, fresh);
    } catch (err) {
      o.logger.warn(
        { err, collection: slug, recipients: fresh },
        'a fee recipient read could not be kept: after a restart a fill paying it is refused',
      );
    }
  }

  function read(slug: string): Promise<CollectionInfo> {
    const busy = reading.get(slug);
    if (busy !== undefined) return busy;
    const p = o.read(slug).then(
      (info) => {
        reading.delete(slug);
        return learned(slug, info);
      },
      (err: unknown) => {
        reading.delete(slug);
        const e = known.get(slug);
        if (e !== undefined && !e.doubted) {
          // a renewal: keep what is known, try again later
          if (e.failures++ === 0)
            o.logger.warn(
              { err, collection: slug },
              'reading the fees of a collection again failed: orders carry the ones read before until a read succeeds',
            );
          e.at = o.clock.now() - maxAgeMs + retryMs;
        }
        throw err;
      },
    );
    reading.set(slug, p);
    return p;
  }

  return {
    get(slug) {
      const e = known.get(slug);
      if (e === undefined) return read(slug);
      const age = o.clock.now() - e.at;
      if (e.doubted && age >= doubtAfterMs) return read(slug);
      if (age >= maxAgeMs) read(slug).catch(() => undefined);
      return Promise.resolve(e.info);
    },
    doubt(slug) {
      const e = known.get(slug);
      if (e !== undefined) e.doubted = true;
    },
    sellerFeeBps: (slug) => bps.get(slug),
  };
}

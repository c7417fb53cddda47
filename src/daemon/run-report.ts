// What a live run traded, saved while it runs (every minute) and as it stops (run-report.json next
// to its store): the fills of its window in the form a paper run's report gives them, so `harpoon
// backtest --compare` checks a backtest of the run's tape against the run itself
// (src/backtest/compare.ts). A run killed outright leaves the report of its last minute (the
// daemon writes it with writePrivateFile: whole or not at all).
import { type NftRef, nftKey, type PaymentToken } from '../domain/events.ts';
import { type Address, type TokenId, ZERO_ADDRESS } from '../domain/ids.ts';
import type { JournalRecord } from '../engine/index.ts';
import type { PaperFill, PaperReport } from '../execution/index.ts';
import type { Holdings, OrderLedger } from '../ledger/index.ts';
import type { FillRecord, Store } from '../store/index.ts';
import { JOURNAL_KIND_PREFIX } from '../store/intents.ts';
import { fillOrigin } from './fill-origin.ts';

/** A fill of a live run, as a paper run's report names fills (PaperFill), from the store. */
export interface RunFill
  extends Omit<PaperFill, 'kind' | 'item' | 'fees' | 'reason' | 'received' | 'receivedToken'> {
  /** buy, offer_filled, listing_sold, offer_accepted, mint, swap (as paper's). */
  readonly kind: string;
  /** The NFT (`chain/contract/id`), a mint's `quantity × drop`, a swap's `A → B`. */
  readonly item: string | null;
  /**
   * The marketplace fee and royalties in the price, where the run knows them (a sale of ours: what
   * the buyer's payment gave the marketplace and the creators); null where it does not (what we
   * bought: the seller paid them out of the price; a swap's pool fee).
   */
  readonly fees: bigint | null;
  /** The transaction (our fills have one; a fill of ours the ledger learned may not). */
  readonly txHash: string | null;
}

/** A live run's report: a paper report's fields that say what a run was and what it traded. */
export interface LiveRunReport
  extends Pick<
    PaperReport,
    'startedAt' | 'endedAt' | 'tradingFrom' | 'wallet' | 'strategies' | 'walletAtStart' | 'pnl'
  > {
  readonly mode: 'live';
  /** Every fill from `tradingFrom` on, in time order. */
  readonly fills: readonly RunFill[];
  /**
   * What it tried from `tradingFrom` on and did not get — a purchase, a sale, a mint or a swap
   * whose execution failed (another buyer first, a revert, the API's refusal), in time order. What
   * risk refused never reached the journal and is not here.
   */
  readonly tried?: readonly RunAttempt[];
}

/** A purchase, sale, mint or swap a live run tried and did not get. */
export interface RunAttempt {
  readonly at: number;
  readonly strategyId: string;
  /** As a fill of it would be named (buy, offer_accepted, mint, swap). */
  readonly kind: string;
  /** As a fill of it would name it. */
  readonly item: string | null;
  /** Why not (its error code and message). */
  readonly error: string;
}

/**
 * The journal rows a live run's attempts are read from: the execution layer's, and the engine's it
 * never claimed (failed before it took them over).
 */
export const TRIED_KINDS: readonly string[] = ['buy_listing', 'accept_offer', 'mint', 'swap'].flatMap((k) => [
  k,
  `${JOURNAL_KIND_PREFIX}${k}`,
]);

/** The failed journal records of purchases, sales, mints and swaps, as a run report's attempts. */
export function liveRunTried(failed: readonly JournalRecord[]): RunAttempt[] {
  const out: RunAttempt[] = [];
  for (const r of failed) {
    if (r.state !== 'failed') continue;
    const i = r.intent;
    const item =
      i.kind === 'buy_listing' || i.kind === 'accept_offer'
        ? nftKey(i.nft)
        : i.kind === 'mint'
          ? `${i.quantity} × ${i.drop}`
          : i.kind === 'swap'
            ? `${i.fromToken.symbol} → ${i.toToken.symbol}`
            : undefined;
    if (item === undefined) continue;
    out.push({
      at: r.updatedAt,
      strategyId: r.strategyId,
      kind: AS_PAPER[i.kind] ?? i.kind,
      item,
      error: r.error === undefined ? 'failed' : `${r.error.code}: ${r.error.message}`,
    });
  }
  return out;
}

/** Execution kinds as a paper run's report names its fills. */
const AS_PAPER: Readonly<Record<string, string>> = { buy_listing: 'buy', accept_offer: 'offer_accepted' };

/**
 * The fills of a live run from `since` on, as a paper run's report gives them: the store's fills
 * (a mint's tokens as one fill of the intent, `quantity × drop`, as paper's) and the swaps the
 * journal holds done (a swap moves no NFT: no fill row), each with its strategy, kind and gas.
 */
export function liveRunFills(o: {
  readonly store: Store;
  readonly ledger: Pick<OrderLedger, 'get'> | undefined;
  readonly holdings: Pick<Holdings, 'gasOf'> | undefined;
  /** The journal's records (done ones are read: swaps, and what a mint asked for). */
  readonly journal: readonly JournalRecord[];
  readonly tokenOf: (address: string) => PaymentToken;
  /** The daemon's chain (its fills' NFTs are on it). */
  readonly chain: NftRef['chain'];
  readonly since: number;
}): RunFill[] {
  const gasOf = (id: string | undefined) => o.holdings?.gasOf(id) ?? 0n;
  const byId = new Map(o.journal.map((r) => [r.id, r]));
  const out: RunFill[] = [];
  const mints = new Map<string, { first: FillRecord; units: number; price: bigint; strategy: string }>();
  for (const f of o.store.fills.list({ since: o.since })) {
    const origin = fillOrigin(f, o.store.intents, o.ledger);
    if (origin.kind === 'mint' && f.intentId !== undefined) {
      const m = mints.get(f.intentId);
      if (m === undefined)
        mints.set(f.intentId, { first: f, units: 1, price: f.price, strategy: origin.strategy });
      else {
        m.units++;
        m.price += f.price;
      }
      continue;
    }
    const t = o.tokenOf(f.token);
    const kind = AS_PAPER[origin.kind] ?? origin.kind;
    const ours = kind === 'listing_sold' || kind === 'offer_accepted';
    out.push({
      at: f.filledAt,
      strategyId: origin.strategy,
      kind,
      collection: f.collection,
      item: nftKey({ chain: o.chain, contract: f.contract as Address, identifier: f.tokenId as TokenId }),
      price: f.price,
      token: f.token.toLowerCase(),
      symbol: t.symbol,
      decimals: t.decimals,
      fees: ours ? f.fees : null,
      // our offers and listings taken: the counterparty sent the transaction
      gas: kind === 'offer_filled' || kind === 'listing_sold' ? 0n : gasOf(f.intentId),
      orderHash: f.orderHash ?? null,
      txHash: f.txHash ?? null,
    });
  }
  for (const [id, m] of mints) {
    const intent = byId.get(id)?.intent;
    const drop = intent?.kind === 'mint' ? intent.drop : (m.first.collection ?? m.first.contract);
    const t = o.tokenOf(ZERO_ADDRESS);
    out.push({
      at: m.first.filledAt,
      strategyId: m.strategy,
      kind: 'mint',
      collection: drop,
      item: `${m.units} × ${drop}`,
      price: m.price,
      token: ZERO_ADDRESS,
      symbol: t.symbol,
      decimals: t.decimals,
      fees: 0n,
      gas: gasOf(id),
      orderHash: null,
      txHash: m.first.txHash ?? null,
    });
  }
  for (const r of o.journal) {
    if (r.state !== 'done' || r.intent.kind !== 'swap' || r.updatedAt < o.since) continue;
    const i = r.intent;
    out.push({
      at: r.updatedAt,
      strategyId: r.strategyId,
      kind: 'swap',
      collection: null,
      item: `${i.fromToken.symbol} → ${i.toToken.symbol}`,
      price: i.amountIn,
      token: i.fromToken.address.toLowerCase(),
      symbol: i.fromToken.symbol,
      decimals: i.fromToken.decimals,
      fees: null,
      gas: gasOf(r.id),
      orderHash: null,
      txHash: null,
    });
  }
  return out.sort((a, b) => a.at - b.at);
}

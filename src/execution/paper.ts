// Paper mode: the engine's Executor port with simulated execution on live data. Nothing is
// signed or sent. Offers stand in a simulated book; they fill when the market crosses them (a
// listing at or below the offer on a matching item, collection or trait), at the offer's price.
// A listing bought fills at the listing's current price if it is still on the book and within
// the intent's cap. Every fill carries what a real one would pay: the price, the marketplace fee
// and royalties inside it (from the collection's fees) and gas at the current fee level.
// Orders and fills go into the same ledger as live ones, so risk, budgets and strategies see them
// exactly as they would see real ones. Selling: a listing of ours stands in the simulated book and
// sells when the market shows a buyer would have taken it (a sale in its collection at or above
// its price), the buyer paying the gas; an accepted offer sells at the offer when the book still
// shows an offer that high, with the fees taken out and gas at the current fee level.
// `report()` says what it would have done.
import { hash } from 'node:crypto';
import { type MarketEvent, type NftRef, nftKey, type PaymentToken } from '../domain/events.ts';
import { type Address, type OrderHash, ZERO_ADDRESS } from '../domain/ids.ts';
import type { ExecutionContext, ExecutionResult, Executor } from '../engine/index.ts';
import { RejectedError } from '../errors/index.ts';
import { type LedgerOrder, type OrderLedger, offerFacts } from '../ledger/index.ts';
import type { Logger } from '../observability/index.ts';
import type { Store } from '../store/index.ts';
import type { Intent, OfferSpec } from '../strategy.ts';
import {
  acceptOutcome,
  buyOutcome,
  byListerChoice,
  type CollectionFeeInfo,
  feeOf,
  listingCrossesOffer,
  listingTakenBySale,
  PAPER_GAS_UNITS,
  saleCrossesOffer,
  traitMatches,
} from './fill-model.ts';

export { type CollectionFeeInfo, PAPER_GAS_UNITS } from './fill-model.ts';

export interface PaperExecutorOptions {
  readonly clock: { now(): number };
  readonly wallet: Address;
  readonly chain: string;
  /** The market view: the listing book for buys. */
  readonly market: { snapshot(): ExecutionContext['market'] };
  /** Our orders (simulated ones too): the same ledger risk and the strategies read. */
  readonly ledger: OrderLedger;
  /** The collection's fees (marketplace + royalties), cached by the caller. */
  readonly fees?: (slug: string) => Promise<readonly CollectionFeeInfo[]>;
  /** Gas price a transaction would pay now (wei per gas). */
  readonly gasPrice?: () => Promise<bigint>;
  /** Traits of an NFT (to match trait offers), when known. */
  readonly traitsOf?: (nft: NftRef) => Promise<readonly { type: string; value: string }[] | undefined>;
  /** Price per token of a drop, when known (else the intent's cap). */
  readonly dropPrice?: (slug: string) => bigint | undefined;
  /** A swap quote's marketplace fee (bps), when the API gives one. */
  readonly swapFeeBps?: (intent: Extract<Intent, { kind: 'swap' }>) => Promise<number | undefined>;
  /**
   * What a swap would receive (smallest units of its `toToken`, before the fee), by our own
   * reference as the live executor swaps by (1:1 between ETH and WETH); undefined: none, and the
   * swap is refused as a live one is (`swap_no_reference`). Absent: swaps fill with nothing said
   * of what they receive (the simulated wallet then cannot follow them).
   */
  readonly swapOut?: (intent: Extract<Intent, { kind: 'swap' }>) => Promise<bigint | undefined>;
  /**
   * Whether the listing a buy targets still stands once our transaction would land (the backtest
   * knows what the tape did during our latency). Default: it does if the book shows it now.
   */
  readonly standsAfterLatency?: (orderHash: string, nft: NftRef, at: number) => boolean;
  /**
   * Whether we hold (on paper) at least a unit of this NFT now. Our listing of an NFT we no longer
   * hold (sold by accepting an offer) sells to nobody, and an NFT we do not hold cannot be sold by
   * accepting an offer. Default: we hold whatever we list or sell.
   */
  readonly holds?: (nft: NftRef) => boolean;
  /**
   * Whether this NFT is one of a kind (ERC-721). One we hold is nobody else's to sell: the market's
   * listing of it (by its owner before our simulated fill) is stale — it fills none of our offers
   * and cannot be bought. Default: none is (every listing stands).
   */
  readonly unique?: (nft: NftRef) => boolean | Promise<boolean>;
  /** The paper store (never the live one): orders and fills are recorded in it. */
  readonly store?: Store;
  /** Hears every fill as it is made (the simulated wallet). */
  readonly onFill?: (fill: PaperFill) => void;
  readonly logger?: Logger;
}

export interface PaperOrder {
  readonly orderHash: OrderHash;
  readonly strategyId: string;
  readonly offer: OfferSpec;
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
  readonly quantity: bigint;
  readonly expiresAt: number;
  readonly placedAt: number;
  /** From the ledger. */
  readonly status: 'open' | 'filled' | 'cancelled' | 'expired';
}

export interface PaperFill {
  readonly at: number;
  readonly strategyId: string;
  readonly kind: 'buy' | 'offer_filled' | 'mint' | 'swap' | 'listing_sold' | 'offer_accepted';
  readonly collection: string | null;
  readonly item: string | null;
  /** What we pay (a swap: what we give; a sale: what the buyer paid, fees included), in `token`. */
  readonly price: bigint;
  readonly token: string;
  readonly symbol: string;
  readonly decimals: number;
  /** Marketplace fee and royalties included in the price (paid to their recipients). */
  readonly fees: bigint;
  /** Gas a real transaction would pay (wei of the native token); 0 when the counterparty pays it. */
  readonly gas: bigint;
  readonly orderHash: string | null;
  readonly reason?: string;
  /** A swap: what it received (smallest units of `receivedToken`), as quoted (see `swapOut`). */
  readonly received?: bigint;
  readonly receivedToken?: string;
}

export interface PaperReport {
  readonly mode: 'paper';
  readonly startedAt: number;
  readonly endedAt: number;
  /**
   * When the engine started (its strategies' first decisions), added by the daemon: where a
   * backtest of the run's tape begins to trade (harpoon backtest --compare).
   */
  readonly tradingFrom?: number;
  /** The strategies it traded with, as configured (id, module, params), added by the daemon. */
  readonly strategies?: readonly { readonly id: string; readonly module: string; readonly params: unknown }[];
  /**
   * The simulated wallet as the engine started (the config's start, plus what a kept wallet of an
   * earlier run moved), added by the daemon: a backtest compared with the run starts from it. (A
   * live run's report: its wallet as read then.)
   */
  readonly walletAtStart?: readonly {
    readonly token: string;
    readonly symbol: string;
    readonly amount: bigint;
    readonly decimals: number;
  }[];
  readonly wallet: string;
  readonly intents: Readonly<Record<string, number>>;
  readonly rejected: Readonly<Record<string, number>>;
  readonly orders: {
    readonly placed: number;
    readonly cancelled: number;
    readonly filled: number;
    readonly open: number;
    readonly expired: number;
  };
  readonly fills: readonly PaperFill[];
  /** Totals per token symbol (smallest units, as decimal strings in JSON). */
  readonly totals: Readonly<
    Record<
      string,
      {
        readonly spent: bigint;
        /** What sales brought in, before fees. */
        readonly received: bigint;
        readonly fees: bigint;
        readonly count: number;
        readonly decimals: number;
      }
    >
  >;
  readonly gas: bigint;
  readonly openOrders: readonly PaperOrder[];
  /**
   * Profit and loss of what was sold on paper, per strategy and per collection (amounts in the
   * token's decimals, as status shows them); added by the daemon from the paper store.
   */
  readonly pnl?: {
    readonly byStrategy: readonly PaperPnlRow[];
    readonly byCollection: readonly PaperPnlRow[];
  };
  /** The simulated wallet at the end (paper-wallet.ts), per token; added by the daemon. */
  readonly walletBalances?: readonly {
    readonly symbol: string;
    readonly amount: bigint;
    readonly decimals: number;
  }[];
}

export interface PaperPnlRow {
  readonly key: string;
  readonly symbol: string;
  readonly sales: number;
  readonly held: number;
  readonly realized: string;
  readonly unrealizedAtFloor: string | null;
}

export interface PaperExecutor extends Executor {
  readonly mode: 'paper';
  /**
   * Checks a market event against the simulated book (call for every event, after the view);
   * returns nothing to await when it can fill none of our orders.
   */
  observe(event: MarketEvent): Promise<void> | undefined;
  report(): PaperReport;
  orders(): readonly PaperOrder[];
  fills(): readonly PaperFill[];
  /** How many fills there were so far (cheap: no copy). */
  fillCount(): number;
}

const PAPER_SALT = 'harpoon-paper';

function paperHash(parts: readonly (string | number | bigint)[]): OrderHash {
  // the bytes the hash reads: the salt, then `|part` for each part (one string, hashed at once)
  let text = PAPER_SALT;
  for (const p of parts) text += `|${String(p)}`;
  return `0x${hash('sha256', text, 'hex')}` as OrderHash;
}

/** An offer as JSON, its bigints as decimal strings. */
function offerJson(offer: OfferSpec): string {
  try {
    // an offer holds no bigint (what the replacer would turn into a string): no replacer to call
    return JSON.stringify(offer);
  } catch {
    return JSON.stringify(offer, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  }
}

export function createPaperExecutor(o: PaperExecutorOptions): PaperExecutor {
  const startedAt = o.clock.now();
  /** What was placed (the facts; the state is the ledger's). */
  const placed = new Map<string, Omit<PaperOrder, 'status'>>();
  const ledger = o.ledger;
  const fills: PaperFill[] = [];
  /** Every fill goes through here: kept for the report, and told (the simulated wallet). */
  const pushFill = (f: PaperFill): void => {
    fills.push(f);
    o.onFill?.(f);
  };
  const intents: Record<string, number> = {};
  const rejected: Record<string, number> = {};
  let seq = 0;

  const fees = async (slug: string | null): Promise<readonly CollectionFeeInfo[]> => {
    if (slug === null || o.fees === undefined) return [];
    try {
      return await o.fees(slug);
    } catch (err) {
      o.logger?.debug({ err, slug }, 'paper: collection fees unavailable');
      return [];
    }
  };
  const gas = async (units: bigint): Promise<bigint> => {
    if (o.gasPrice === undefined) return 0n;
    try {
      return units * (await o.gasPrice());
    } catch {
      return 0n;
    }
  };
  /** We hold the NFT and it is one of a kind: a listing of it by anyone else is stale. */
  const heldAndUnique = async (nft: NftRef): Promise<boolean> =>
    o.holds !== undefined && o.unique !== undefined && o.holds(nft) && (await o.unique(nft));
  const refuse = (code: string, message: string): never => {
    rejected[code] = (rejected[code] ?? 0) + 1;
    throw new RejectedError(code, message);
  };

  const statusOf = (l: LedgerOrder | undefined): PaperOrder['status'] => {
    if (l?.state === 'filled') return 'filled';
    if (l === undefined || l.state === 'expired' || l.expiresAt <= o.clock.now()) return 'expired';
    return ledger.counts(l) && l.state !== 'cancelling' ? 'open' : 'cancelled';
  };
  /** The last state the ledger gave each order of ours: it lets gone orders go after a while. */
  const lastSeen = new Map<string, LedgerOrder>();
  ledger.onChange((c) => {
    if (placed.has(c.order.orderHash)) lastSeen.set(c.order.orderHash, c.order);
  });
  const paperOrder = (p: Omit<PaperOrder, 'status'>): PaperOrder => ({
    ...p,
    status: statusOf(ledger.get(p.orderHash) ?? lastSeen.get(p.orderHash)),
  });

  function place(
    strategyId: string,
    offer: OfferSpec,
    price: bigint,
    paymentToken: PaymentToken,
    quantity: bigint,
    expiresAt: number,
    now: number,
    intentId: string,
    target: string,
  ): PaperOrder {
    const orderHash = paperHash([strategyId, offerJson(offer), price, now, ++seq]);
    const order = { orderHash, strategyId, offer, price, paymentToken, quantity, expiresAt, placedAt: now };
    placed.set(orderHash, order);
    ledger.post({
      orderHash,
      intentId,
      strategyId,
      target,
      ...offerFacts(offer),
      standard: null,
      price,
      paymentToken,
      quantity,
      expiresAt,
    });
    ledger.note(orderHash, { kind: 'opened' });
    // `{ ...order, status: 'open' }` (a spread followed by a key it lacks is V8's slow path)
    return Object.assign({}, order, { status: 'open' as const });
  }

  /** A paper cancel: no fulfillment signature was ever issued, so it is gone at once. */
  function cancel(orderHash: string, now: number): void {
    ledger.note(orderHash, { kind: 'cancel_requested' });
    ledger.note(orderHash, { kind: 'cancel_accepted', validUntil: now });
  }

  function recordFill(
    f: PaperFill,
    contract: string,
    tokenId: string,
    intentId?: string,
    quantity = 1n,
  ): void {
    pushFill(f);
    const txHash = paperHash(['fill', f.at, fills.length]);
    o.store?.fills.record({
      ...(f.orderHash !== null ? { orderHash: f.orderHash } : {}),
      ...(intentId !== undefined ? { intentId } : {}),
      txHash,
      quantity,
      side: f.kind === 'offer_accepted' ? 'sell' : 'buy',
      collection: f.collection ?? '',
      contract,
      tokenId,
      price: f.price,
      token: f.token,
      fees: f.fees,
      filledAt: f.at,
    });
    // the gas a live run would have paid, where holdings and PnL look for it
    if (intentId !== undefined && f.gas > 0n)
      o.store?.spend.record({
        strategy: f.strategyId,
        intentId,
        kind: 'gas',
        token: ZERO_ADDRESS,
        amount: f.gas,
        at: f.at,
      });
  }

  /** Our paper listings: the facts (the state is the ledger's). */
  const listed = new Map<
    string,
    {
      readonly orderHash: OrderHash;
      readonly strategyId: string;
      readonly collection: string;
      readonly nft: NftRef;
      readonly price: bigint;
      readonly paymentToken: PaymentToken;
    }
  >();

  /** A paper listing: recorded like a real one, its fee split as components (what the fees come from). */
  async function list(
    a: {
      readonly strategyId: string;
      readonly intentId: string;
      readonly target: string;
      readonly collection: string;
      readonly nft: NftRef;
      readonly price: bigint;
      readonly paymentToken: PaymentToken;
      readonly quantity: bigint;
      readonly expiresAt: number;
    },
    now: number,
  ): Promise<OrderHash> {
    const orderHash = paperHash(['list', a.strategyId, nftKey(a.nft), a.price, now, ++seq]);
    const total = a.price * a.quantity;
    const feeItems = (await fees(a.collection))
      .filter((f) => f.required !== false)
      .map((f) => ({
        recipient: f.recipient,
        startAmount: (total * BigInt(Math.round(f.fee * 100))) / 10_000n,
      }));
    const ours = total - feeItems.reduce((s, f) => s + f.startAmount, 0n);
    ledger.post({
      orderHash,
      intentId: a.intentId,
      strategyId: a.strategyId,
      target: a.target,
      side: 'listing',
      collection: a.collection,
      contract: a.nft.contract.toLowerCase(),
      tokenId: String(a.nft.identifier),
      standard: null,
      trait: null,
      price: a.price,
      paymentToken: a.paymentToken,
      quantity: a.quantity,
      expiresAt: a.expiresAt,
      components: {
        offerer: o.wallet,
        consideration: [{ recipient: o.wallet, startAmount: ours }, ...feeItems],
      },
    });
    ledger.note(orderHash, { kind: 'opened' });
    listed.set(orderHash, {
      orderHash,
      strategyId: a.strategyId,
      collection: a.collection,
      nft: a.nft,
      price: a.price,
      paymentToken: a.paymentToken,
    });
    return orderHash;
  }

  async function execute(intent: Intent, ctx: ExecutionContext): Promise<ExecutionResult> {
    intents[intent.kind] = (intents[intent.kind] ?? 0) + 1;
    const now = o.clock.now();
    switch (intent.kind) {
      case 'place_offer': {
        const order = place(
          ctx.strategyId,
          intent.offer,
          intent.price,
          intent.paymentToken,
          intent.quantity,
          intent.expiresAt,
          now,
          ctx.intentId,
          intent.target,
        );
        return { orderHash: order.orderHash };
      }
      case 'replace_offer': {
        const old = placed.get(intent.orderHash);
        const l = ledger.get(intent.orderHash);
        if (old === undefined || l === undefined || !ledger.counts(l) || l.state === 'cancelling')
          return refuse('paper_order_not_open', `order ${intent.orderHash} is not an open paper order`);
        cancel(intent.orderHash, now);
        const order = place(
          ctx.strategyId,
          old.offer,
          intent.price,
          old.paymentToken,
          l.quantity - l.filled,
          intent.expiresAt,
          now,
          ctx.intentId,
          l.target ?? intent.target,
        );
        return { orderHash: order.orderHash };
      }
      case 'cancel_order': {
        if (placed.has(intent.orderHash)) cancel(intent.orderHash, now);
        return {};
      }
      case 'buy_listing': {
        const col = ctx.market.collection(intent.collection);
        const level = col?.bestListings.get(nftKey(intent.nft))?.value;
        if (await heldAndUnique(intent.nft))
          return refuse(
            'paper_already_held',
            `we already hold ${nftKey(intent.nft)} (one of a kind): its listing by someone else is stale`,
          );
        const stands = o.standsAfterLatency?.(intent.orderHash, intent.nft, now) ?? true;
        const out = buyOutcome(level, intent, stands);
        if ('code' in out) return refuse(out.code, out.message);
        const total = out.total;
        const f = feeOf(total, await fees(intent.collection));
        const g = await gas(PAPER_GAS_UNITS.buy_listing);
        recordFill(
          {
            at: now,
            strategyId: ctx.strategyId,
            kind: 'buy',
            collection: intent.collection,
            item: nftKey(intent.nft),
            price: total,
            token: intent.paymentToken.address.toLowerCase(),
            symbol: intent.paymentToken.symbol,
            decimals: intent.paymentToken.decimals,
            fees: f,
            gas: g,
            orderHash: intent.orderHash,
            ...(intent.reason !== undefined ? { reason: intent.reason } : {}),
          },
          intent.nft.contract,
          String(intent.nft.identifier),
          ctx.intentId,
          intent.quantity,
        );
        return { spent: total, txHash: paperHash(['buy', intent.orderHash, now]) };
      }
      case 'mint': {
        const price = o.dropPrice?.(intent.drop) ?? intent.maxPricePerToken;
        if (price > intent.maxPricePerToken)
          return refuse(
            'paper_price_above_cap',
            `drop ${intent.drop} costs ${price} per token, above the cap`,
          );
        const total = price * intent.quantity;
        const g = await gas(PAPER_GAS_UNITS.mint_base + PAPER_GAS_UNITS.mint_per_token * intent.quantity);
        pushFill({
          at: now,
          strategyId: ctx.strategyId,
          kind: 'mint',
          collection: intent.drop,
          item: `${intent.quantity} × ${intent.drop}`,
          price: total,
          token: intent.paymentToken.address.toLowerCase(),
          symbol: intent.paymentToken.symbol,
          decimals: intent.paymentToken.decimals,
          fees: 0n,
          gas: g,
          orderHash: null,
        });
        return { spent: total, txHash: paperHash(['mint', intent.drop, now]) };
      }
      case 'swap': {
        let out: bigint | undefined;
        if (o.swapOut !== undefined) {
          out = await o.swapOut(intent);
          if (out === undefined || out <= 0n)
            return refuse(
              'swap_no_reference',
              `no reference price for ${intent.fromToken.symbol} → ${intent.toToken.symbol}`,
            );
        }
        let bps: number | undefined;
        try {
          bps = await o.swapFeeBps?.(intent);
        } catch {
          bps = undefined;
        }
        const g = await gas(PAPER_GAS_UNITS.swap);
        pushFill({
          at: now,
          strategyId: ctx.strategyId,
          kind: 'swap',
          collection: null,
          item: `${intent.fromToken.symbol} → ${intent.toToken.symbol}`,
          price: intent.amountIn,
          token: intent.fromToken.address.toLowerCase(),
          symbol: intent.fromToken.symbol,
          decimals: intent.fromToken.decimals,
          fees: (intent.amountIn * BigInt(bps ?? 0)) / 10_000n,
          gas: g,
          orderHash: null,
          ...(out !== undefined
            ? {
                received: out - (out * BigInt(bps ?? 0)) / 10_000n,
                receivedToken: intent.toToken.address.toLowerCase(),
              }
            : {}),
        });
        return { spent: intent.amountIn, txHash: paperHash(['swap', now]) };
      }
      case 'place_listing':
        return {
          orderHash: await list(
            {
              strategyId: ctx.strategyId,
              intentId: ctx.intentId,
              target: intent.target,
              collection: intent.collection,
              nft: intent.nft,
              price: intent.price,
              paymentToken: intent.paymentToken,
              quantity: intent.quantity,
              expiresAt: intent.expiresAt,
            },
            now,
          ),
        };
      case 'replace_listing': {
        const old = listed.get(intent.orderHash);
        const l = ledger.get(intent.orderHash);
        if (old === undefined || l === undefined || !ledger.counts(l) || l.state === 'cancelling')
          return refuse('paper_order_not_open', `listing ${intent.orderHash} is not an open paper listing`);
        cancel(intent.orderHash, now);
        return {
          orderHash: await list(
            {
              strategyId: ctx.strategyId,
              intentId: ctx.intentId,
              target: l.target ?? intent.target,
              collection: old.collection,
              nft: old.nft,
              price: intent.price,
              paymentToken: old.paymentToken,
              quantity: l.quantity - l.filled,
              expiresAt: intent.expiresAt,
            },
            now,
          ),
        };
      }
      case 'accept_offer': {
        // the book must still show an offer at least this high (collection-wide or on the item)
        const col = ctx.market.collection(intent.collection);
        const out = acceptOutcome(
          col?.bestCollectionOffer?.value.price ?? 0n,
          intent,
          await fees(intent.collection),
        );
        if ('code' in out) return refuse(out.code, out.message);
        if (o.holds?.(intent.nft) === false)
          return refuse(
            'paper_not_held',
            `we no longer hold ${nftKey(intent.nft)} (sold meanwhile): there is nothing to accept the offer with`,
          );
        const f = out.fees;
        const g = await gas(PAPER_GAS_UNITS.accept_offer);
        recordFill(
          {
            at: now,
            strategyId: ctx.strategyId,
            kind: 'offer_accepted',
            collection: intent.collection,
            item: nftKey(intent.nft),
            price: intent.offerPrice,
            token: intent.paymentToken.address.toLowerCase(),
            symbol: intent.paymentToken.symbol,
            decimals: intent.paymentToken.decimals,
            fees: f,
            gas: g,
            orderHash: intent.orderHash,
            ...(intent.reason !== undefined ? { reason: intent.reason } : {}),
          },
          intent.nft.contract.toLowerCase(),
          String(intent.nft.identifier),
          ctx.intentId,
          intent.quantity,
        );
        return { txHash: paperHash(['accept', intent.orderHash, now]) };
      }
    }
  }

  /** A listing or a sale: what can fill our offers (see fill-model.ts). */
  type Crossing = Extract<MarketEvent, { kind: 'listing' | 'sale' }>;
  const crossesOf = (order: Omit<PaperOrder, 'status'>, e: Crossing): boolean | 'traits' =>
    e.kind === 'listing' ? listingCrossesOffer(order, e, o.wallet) : saleCrossesOffer(order, e, o.wallet);

  async function crossed(order: Omit<PaperOrder, 'status'>, e: Crossing): Promise<boolean> {
    const l = ledger.get(order.orderHash);
    if (l === undefined || !ledger.counts(l)) return false;
    // a cancel accepted but not assured yet: a fulfillment signature could still fill it
    if (l.state === 'cancelling' && l.cancelValidUntil === null) return false;
    const crosses = crossesOf(order, e);
    if (crosses === false) return false;
    // an NFT of ours that is one of a kind: its seller no longer has it to sell
    if (await heldAndUnique(e.nft)) return false;
    if (crosses !== 'traits') return crosses;
    return traitMatches(order.offer, await o.traitsOf?.(e.nft));
  }

  type Listed = typeof listed extends Map<string, infer V> ? V : never;
  type Placed = Omit<PaperOrder, 'status'>;
  /**
   * Of the orders that count (`ledger.counting()`, in its order), our paper offers and our paper
   * listings not being cancelled, by collection: built again when the ledger's list is another
   * or an order was placed or listed since (the maps only grow).
   */
  let standing: {
    readonly counting: readonly LedgerOrder[];
    readonly placed: number;
    readonly listed: number;
    readonly offers: ReadonlyMap<string, readonly Placed[]>;
    readonly listings: ReadonlyMap<string, readonly Listed[]>;
  } | null = null;
  function standingNow(): NonNullable<typeof standing> {
    const counting = ledger.counting();
    const had = standing;
    if (had !== null && had.counting === counting && had.placed === placed.size && had.listed === listed.size)
      return had;
    const offers = new Map<string, Placed[]>();
    const listings = new Map<string, Listed[]>();
    for (const l of counting) {
      const order = placed.get(l.orderHash);
      if (order !== undefined) {
        const at = offers.get(order.offer.collection);
        if (at === undefined) offers.set(order.offer.collection, [order]);
        else at.push(order);
      }
      const x = listed.get(l.orderHash);
      if (x !== undefined && l.state !== 'cancelling') {
        const at = listings.get(x.collection);
        if (at === undefined) listings.set(x.collection, [x]);
        else at.push(x);
      }
    }
    standing = { counting, placed: placed.size, listed: listed.size, offers, listings };
    return standing;
  }
  const none: readonly never[] = [];

  /** Of our paper listings that stand, the one a buyer in `event` would have taken (the cheapest), if any. */
  function takenBySale(event: Extract<MarketEvent, { kind: 'sale' }>): Listed | undefined {
    // only the sale's collection's can be taken (the others would be passed over)
    let ours: readonly Listed[] = standingNow().listings.get(event.collection) ?? none;
    // a listing of what we no longer hold (sold by accepting an offer) is void: asked only of the
    // one a buyer would take (most sales take none, and ask nothing on the stream's path)
    for (;;) {
      const best = listingTakenBySale(ours, event);
      if (best === undefined || o.holds?.(best.nft) !== false) return best;
      // the rest, in a copy (the standing lists are kept until the ledger's list changes)
      const rest = [...ours];
      rest.splice(rest.indexOf(best), 1);
      ours = rest;
    }
  }

  /** A sale at or above one of our paper listings' price: a buyer would have taken ours (`best`). */
  async function sold(
    event: Extract<MarketEvent, { kind: 'sale' }>,
    best: Listed,
    now: number,
  ): Promise<void> {
    const f = feeOf(best.price, await fees(best.collection));
    pushFill({
      at: now,
      strategyId: best.strategyId,
      kind: 'listing_sold',
      collection: best.collection,
      item: nftKey(best.nft),
      price: best.price,
      token: best.paymentToken.address.toLowerCase(),
      symbol: best.paymentToken.symbol,
      decimals: best.paymentToken.decimals,
      fees: f,
      gas: 0n, // the buyer sends the transaction
      orderHash: best.orderHash,
    });
    o.logger?.info(
      { strategy: best.strategyId, orderHash: best.orderHash, price: best.price.toString() },
      'paper: listing sold (a buyer paid as much for the collection)',
    );
    // the ledger records the sale (the store's fills row, side sell, with the fees)
    ledger.note(best.orderHash, {
      kind: 'filled',
      fillId: `paper:${event.id}`,
      units: 1n,
      amount: best.price,
      txHash: null,
      tokenId: String(best.nft.identifier),
      contract: best.nft.contract.toLowerCase(),
    });
  }

  /**
   * Our offers a listing or a sale could fill, as its seller would choose (checked again, with
   * traits, when filling).
   */
  function mayCross(e: Crossing): Omit<PaperOrder, 'status'>[] {
    const out: Omit<PaperOrder, 'status'>[] = [];
    // only orders that still count can be filled (not every order ever placed), and only offers
    // on the event's collection cross it
    for (const order of standingNow().offers.get(e.collection) ?? none)
      if (crossesOf(order, e) !== false) out.push(order);
    return out.length > 1 ? byListerChoice(out) : out;
  }

  function observe(event: MarketEvent): Promise<void> | undefined {
    if (event.kind !== 'sale' && event.kind !== 'listing') return undefined;
    // a sale: a buyer would have taken our cheapest listing under it, and its seller one of our
    // offers over it (two counterfactuals: each fills at most one of ours)
    const best = event.kind === 'sale' && listed.size > 0 ? takenBySale(event) : undefined;
    const candidates = mayCross(event);
    // most events take none of ours: decided here, with nothing to await
    if (best === undefined) return candidates.length === 0 ? undefined : offersCrossed(event, candidates);
    const selling = sold(event as Extract<MarketEvent, { kind: 'sale' }>, best, o.clock.now());
    return candidates.length === 0 ? selling : selling.then(() => offersCrossed(event, candidates));
  }

  async function offersCrossed(
    event: Crossing,
    candidates: readonly Omit<PaperOrder, 'status'>[],
  ): Promise<void> {
    const now = o.clock.now();
    for (const order of candidates) {
      if (!(await crossed(order, event))) continue;
      const f = feeOf(order.price, await fees(order.offer.collection));
      const fill: PaperFill = {
        at: now,
        strategyId: order.strategyId,
        kind: 'offer_filled',
        collection: order.offer.collection,
        item: nftKey(event.nft),
        price: order.price,
        token: order.paymentToken.address.toLowerCase(),
        symbol: order.paymentToken.symbol,
        decimals: order.paymentToken.decimals,
        fees: f,
        // the seller accepting an offer sends the transaction and pays its gas
        gas: 0n,
        orderHash: order.orderHash,
      };
      pushFill(fill); // the store's fills row comes from the ledger (below)
      o.logger?.info(
        {
          strategy: order.strategyId,
          orderHash: order.orderHash,
          price: order.price.toString(),
          item: fill.item,
        },
        'paper: offer filled (the market crossed it)',
      );
      // the ledger tells risk and the strategy (a fill like a real one)
      ledger.note(order.orderHash, {
        kind: 'filled',
        fillId: `paper:${event.id}`,
        units: 1n,
        amount: order.price,
        txHash: null,
        tokenId: String(event.nft.identifier),
        contract: event.nft.contract.toLowerCase(),
      });
      break; // one listing fills at most one of our offers
    }
  }

  function report(): PaperReport {
    const totals: Record<
      string,
      { spent: bigint; received: bigint; fees: bigint; count: number; decimals: number }
    > = {};
    let gasTotal = 0n;
    for (const f of fills) {
      const t = totals[f.symbol] ?? { spent: 0n, received: 0n, fees: 0n, count: 0, decimals: f.decimals };
      totals[f.symbol] = t;
      if (f.kind === 'listing_sold' || f.kind === 'offer_accepted') t.received += f.price;
      else t.spent += f.price;
      t.fees += f.fees;
      t.count++;
      gasTotal += f.gas;
    }
    const orders = [...placed.values()].map(paperOrder);
    const count = (s: PaperOrder['status']) => orders.filter((x) => x.status === s).length;
    return {
      mode: 'paper',
      startedAt,
      endedAt: o.clock.now(),
      wallet: o.wallet,
      intents: { ...intents },
      rejected: { ...rejected },
      orders: {
        placed: orders.length,
        cancelled: count('cancelled'),
        filled: count('filled'),
        open: count('open'),
        expired: count('expired'),
      },
      fills: [...fills],
      totals,
      gas: gasTotal,
      openOrders: orders.filter((x) => x.status === 'open'),
    };
  }

  return {
    mode: 'paper',
    execute,
    observe,
    report,
    orders: () => [...placed.values()].map(paperOrder),
    fills: () => [...fills],
    fillCount: () => fills.length,
  };
}

/** A human-readable paper report. */
export function renderPaperReport(
  r: PaperReport,
  format: (amount: bigint, decimals?: number) => string,
): string {
  const lines: string[] = [];
  const mins = ((r.endedAt - r.startedAt) / 60_000).toFixed(1);
  lines.push(`Paper trading report (${mins} min, wallet ${r.wallet}) — nothing was signed or sent`);
  const kinds = Object.entries(r.intents)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  lines.push(`  intents executed on paper: ${kinds || 'none'}`);
  if (Object.keys(r.rejected).length > 0)
    lines.push(
      `  refused by the simulated market: ${Object.entries(r.rejected)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
  lines.push(
    `  offers: ${r.orders.placed} placed, ${r.orders.filled} filled, ${r.orders.cancelled} cancelled, ${r.orders.expired} expired, ${r.orders.open} still open`,
  );
  lines.push(`  fills: ${r.fills.length}`);
  for (const f of r.fills.slice(-20))
    lines.push(
      `    ${new Date(f.at).toISOString().slice(11, 19)} ${f.strategyId.padEnd(18)} ${f.kind.padEnd(12)} ${format(f.price, f.decimals)} ${f.symbol}${f.fees > 0n ? ` (fees ${format(f.fees, f.decimals)})` : ''}${f.gas > 0n ? ` gas ${format(f.gas)} ETH` : ''}  ${f.item ?? ''}`,
    );
  for (const [sym, t] of Object.entries(r.totals))
    lines.push(
      `  total ${sym}: spent ${format(t.spent, t.decimals)}${t.received > 0n ? `, received ${format(t.received, t.decimals)}` : ''} in ${t.count} fill(s), of which fees ${format(t.fees, t.decimals)}`,
    );
  lines.push(`  gas a live run would have paid: ${format(r.gas)} ETH`);
  if (r.walletBalances !== undefined && r.walletBalances.length > 0)
    lines.push(
      `  simulated wallet now: ${r.walletBalances.map((b) => `${format(b.amount, b.decimals)} ${b.symbol}`).join(', ')}`,
    );
  for (const [title, rows] of [
    ['strategy', r.pnl?.byStrategy ?? []],
    ['collection', r.pnl?.byCollection ?? []],
  ] as const)
    for (const p of rows)
      lines.push(
        `  PnL ${title} ${p.key}: realized ${p.realized} ${p.symbol} over ${p.sales} sale(s); ${p.held} held${p.held > 0 && p.unrealizedAtFloor !== null ? `, unrealized ${p.unrealizedAtFloor} at the floor` : ''}`,
      );
  return `${lines.join('\n')}\n`;
}

/**
 * The one path that places, replaces and cancels our orders (live mode; paper mode implements the
 * same engine port with simulated fills). Every order goes into the ledger before its post and
 * every answer becomes ledger news, so risk counts an order until it is really gone:
 *
 * - place: the conduit's WETH allowance is read from the chain and raised (only to the conduit,
 *   to at least every offer that still counts plus the new one) when short; the order is signed
 *   locally, recorded as `posted`, then posted. A refused post is `failed`; an unanswered one
 *   stays `posted` (counted) until `reconcile` reads it back.
 * - cancel: off-chain through the API (signed zone) with retries while unanswered; an accepted
 *   cancel counts until `last_signature_issued_valid_until`. A refused cancel, a cancel left
 *   unanswered after the retries, or (when the caller needs the order gone) an accepted one
 *   whose window has not passed, becomes a Seaport `cancel` transaction on chain — or, when
 *   `counterBumpAt` or more are stuck at once, one `incrementCounter()` that voids every order
 *   signed with the current counter (the others of ours are gone too; strategies post again on
 *   the new counter). Only the chain or a passed window ever says "gone".
 */
import type { ApiClient, CallOptions } from '../api/index.ts';
import type { TxSender } from '../chain/index.ts';
import type { NftRef, PaymentToken } from '../domain/events.ts';
import { type OrderHash, ZERO_ADDRESS } from '../domain/ids.ts';
import { BaseError, RejectedError, TransientError } from '../errors/index.ts';
import {
  type LedgerOrder,
  type NewLedgerOrder,
  type OrderLedger,
  offerFacts,
  offerSpecOf,
} from '../ledger/index.ts';
import { type Logger, silentLogger } from '../observability/index.ts';
import {
  type Approvals,
  buildOfferRequest,
  type CollectionFee,
  cancelPlan,
  cancelRequest,
  criteriaOfferRequest,
  hardCancelTx,
  incrementCounterTx,
  type OrderComponents,
  type SeaportOrders,
  seaportRequest,
  signatureValidUntilMs,
} from '../seaport/index.ts';
import type { OfferSpec } from '../strategy.ts';

export interface CollectionInfo {
  readonly fees: readonly CollectionFee[];
  /**
   * Every fee recipient of the collection the daemon has read, lower case, also before a restart
   * (kept in its store): a creator may change recipients, orders signed before still pay the old
   * ones, and a fill of one is as legitimate; absent: those of `fees`.
   */
  readonly feeRecipients?: readonly string[];
  /** The collection's NFT contract (criteria offers name it), when known. */
  readonly contract?: string;
}

export interface OrderDeskApi {
  readonly offers: Pick<ApiClient['offers'], 'create' | 'build' | 'createCriteria'>;
  readonly listings: Pick<ApiClient['listings'], 'create'>;
  readonly orders: Pick<ApiClient['orders'], 'cancel' | 'get'> &
    Partial<Pick<ApiClient['orders'], 'cancelWithWallet'>>;
}

export interface OrderDeskOptions {
  readonly api: OrderDeskApi;
  /** Builds and signs our orders (offerer = our wallet). */
  readonly orders: SeaportOrders;
  /** Approvals and on-chain cancels. */
  readonly sender: TxSender;
  readonly ledger: OrderLedger;
  /** WETH allowance to the conduit (read from the chain at every check). */
  readonly approvals: Approvals;
  /** The API's chain name. */
  readonly chain: string;
  readonly clock: { now(): number };
  readonly collection: (slug: string) => Promise<CollectionInfo>;
  /**
   * The marketplace refused one of our orders in a collection: what `collection` answers may be
   * out of date (its fees changed), read it again before the next order there.
   */
  readonly onRefused?: (slug: string) => void;
  /** ERC-721 or ERC-1155 of an NFT contract (item offers); default erc721. */
  readonly standardOf?: (contract: string) => Promise<'erc721' | 'erc1155'>;
  /** Approve at least this much when an approval is needed (one approval serves many offers). */
  readonly minApproval?: bigint;
  /**
   * True while the wallet JWT carries `write:orders`: off-chain cancels then go with it (the
   * marketplace may require it); default: the API key alone.
   */
  readonly cancelWithWallet?: () => boolean;
  /** Off-chain cancel attempts while unanswered (timeouts, 5xx, 429); default 3. */
  readonly cancelAttempts?: number;
  /** Pause between those attempts; default 500 ms. */
  readonly cancelRetryMs?: number;
  /** On-chain cancels asked for within this window share one Seaport `cancel` transaction; default 25 ms. */
  readonly onChainBatchMs?: number;
  /**
   * On-chain cancels of this many orders or more (of one protocol, all on the current counter)
   * become one `incrementCounter()` (constant gas) in place of `cancel(orders)`; default 10.
   */
  readonly counterBumpAt?: number;
  /** After an on-chain cancel, how long to wait for the marketplace's book to drop the order; default 3000 ms. */
  readonly bookSettleMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly logger?: Logger;
  /**
   * Gas an approval of ours cost (wei of the native token), by the intent it served and what it
   * was (`gas:approve-weth`, `gas:approve-nft`, `gas:cancel`): the caller records it (spend, PnL).
   */
  readonly onGas?: (intentId: string, kind: string, amount: bigint) => void;
}

export interface PlaceInput {
  readonly intentId: string;
  readonly strategyId: string;
  /** The intent's target (the ledger finds a strategy's order for a target by it). */
  readonly target: string;
  readonly offer: OfferSpec;
  /** Per unit. */
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
  readonly quantity: bigint;
  /** Epoch ms. */
  readonly expiresAt: number;
  readonly call?: CallOptions;
}

export interface ListInput {
  readonly intentId: string;
  readonly strategyId: string;
  readonly target: string;
  readonly collection: string;
  readonly nft: NftRef;
  /** What the buyer pays per unit, fees included. */
  readonly price: bigint;
  readonly paymentToken: PaymentToken;
  readonly quantity: bigint;
  /** Epoch ms. */
  readonly expiresAt: number;
  readonly call?: CallOptions;
}

export interface CancelOptions {
  /** Record of the cancel (transaction ids). */
  readonly intentId: string;
  /** The order must be gone (not only cancelled off-chain with a signature window open). */
  readonly requireGone?: boolean;
  readonly call?: CallOptions;
}

/** gone: filled, cancelled on chain, expired, or the signature window has passed; window: counted until `until`. */
export type CancelResult = { readonly state: 'gone' } | { readonly state: 'window'; readonly until: number };

export interface OrderDesk {
  place(input: PlaceInput): Promise<OrderHash>;
  /** Lists an NFT we hold (see `list`). */
  list(input: ListInput): Promise<OrderHash>;
  /** Cancels our listing (gone first), then lists the same units again at the new price. */
  replaceListing(
    orderHash: string,
    input: Omit<ListInput, 'collection' | 'nft' | 'paymentToken' | 'quantity' | 'target'>,
  ): Promise<OrderHash>;
  cancel(orderHash: string, options: CancelOptions): Promise<CancelResult>;
  /** Cancels the old order (gone first, unless `overlap`), then places the new one for the same target. */
  replace(
    orderHash: string,
    input: Omit<PlaceInput, 'offer' | 'paymentToken' | 'quantity' | 'target'> & { readonly overlap: boolean },
  ): Promise<OrderHash>;
  /**
   * Reads back what the ledger is unsure of: `posted` orders (was the post answered?) and
   * cancels under way without an answer. Returns how many were settled.
   */
  reconcile(): Promise<{ readonly checked: number; readonly settled: number }>;
}

const STATUSES = new Set(['ACTIVE', 'FULFILLED', 'CANCELLED', 'EXPIRED', 'INVALID']);

export function createOrderDesk(o: OrderDeskOptions): OrderDesk {
  const log = (o.logger ?? silentLogger()).child({ part: 'orders' });
  const ledger = o.ledger;
  const offerer = o.orders.offerer.toLowerCase();
  const protocol = o.orders.options.protocolAddress;
  const offerToken = o.orders.options.offerToken.toLowerCase();
  const attempts = Math.max(1, o.cancelAttempts ?? 3);
  const retryMs = o.cancelRetryMs ?? 500;
  const batchMs = o.onChainBatchMs ?? 25;
  const settleMs = o.bookSettleMs ?? 3000;
  const bumpAt = Math.max(2, o.counterBumpAt ?? 10);
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let txSeq = 0;
  /** Orders whose post or cancel is under way here: `reconcile` leaves them to their own answer. */
  const busy = new Set<string>();

  /** Reports what a transaction of ours cost (mined, reverted or not: gas is paid either way). */
  function chargeGas(
    intentId: string,
    kind: string,
    res: { receipt?: { gasUsed: bigint; effectiveGasPrice: bigint } },
  ): void {
    const r = res.receipt;
    if (r === undefined || o.onGas === undefined) return;
    const amount = r.gasUsed * r.effectiveGasPrice;
    if (amount > 0n) o.onGas(intentId, kind, amount);
  }

  // one approval at a time: offers placed together share it
  let approving: Promise<void> = Promise.resolve();
  function ensureAllowance(token: string, needed: bigint, intentId: string): Promise<void> {
    const next = approving.then(() => approve(token, needed, intentId));
    approving = next.catch(() => undefined);
    return next;
  }

  async function approve(token: string, needed: bigint, intentId: string): Promise<void> {
    // read from the chain every time: fills spend the allowance
    if ((await o.approvals.weth(token, offerer, needed)) === null) return;
    const amount = o.minApproval !== undefined && o.minApproval > needed ? o.minApproval : needed;
    const tx = await o.approvals.weth(token, offerer, amount);
    if (tx === null) return;
    log.info({ token, amount: amount.toString() }, 'raising the conduit allowance for offers');
    const res = await o.sender.send(`${intentId}/approve-${++txSeq}`, {
      to: tx.to,
      data: tx.data,
      value: tx.value,
    });
    chargeGas(intentId, 'gas:approve-weth', res);
    if (res.status !== 'success')
      throw new TransientError('approval_reverted', 'the conduit approval reverted', {
        maybeProcessed: false,
      });
  }

  /** Worst case of every offer in `token` that still counts (the allowance must cover them all). */
  function committed(token: string): bigint {
    let sum = 0n;
    for (const x of ledger.counting())
      if (x.side !== 'listing' && x.paymentToken.address.toLowerCase() === token) sum += ledger.exposureOf(x);
    return sum;
  }

  async function place(input: PlaceInput): Promise<OrderHash> {
    const { offer, paymentToken, quantity } = input;
    const token = paymentToken.address.toLowerCase();
    if (token !== offerToken)
      throw new RejectedError(
        'offer_token_unsupported',
        `offers are made in ${offerToken}; ${paymentToken.symbol} (${token}) is not supported`,
      );
    if (quantity <= 0n)
      throw new RejectedError('offer_bad_quantity', 'an offer needs a quantity of at least 1');
    const now = o.clock.now();
    const expirySec = Math.max(60, Math.floor((input.expiresAt - now) / 1000));
    const total = input.price * quantity;
    const info = await o.collection(offer.collection);
    await ensureAllowance(token, committed(token) + total, input.intentId);
    let signed: { orderHash: string; components: OrderComponents };
    let post: () => Promise<{ order_hash?: string | null }>;
    let standard: 'erc721' | 'erc1155' | null = null;
    if (offer.type === 'item') {
      standard = o.standardOf !== undefined ? await o.standardOf(offer.nft.contract) : 'erc721';
      const s = await o.orders.itemOffer({
        nft: { contract: offer.nft.contract, tokenId: BigInt(offer.nft.identifier), standard },
        quantity,
        price: total,
        fees: info.fees,
        expirySec,
      });
      signed = s;
      post = () => o.api.offers.create(o.chain, seaportRequest(s), input.call ?? {});
    } else {
      const request = buildOfferRequest({
        offerer,
        slug: offer.collection,
        ...(offer.type === 'trait' ? { traits: [{ type: offer.traitType, value: offer.value }] } : {}),
        protocolAddress: protocol,
        quantity: Number(quantity),
      });
      const build = await o.api.offers.build(request, input.call ?? {});
      const s = o.orders.signCriteriaOffer(
        {
          build,
          price: total,
          quantity,
          fees: info.fees,
          ...(info.contract !== undefined ? { contract: info.contract } : {}),
          requested: request.criteria,
          expirySec,
        },
        await o.orders.prepare(),
      );
      signed = s;
      post = () => o.api.offers.createCriteria(criteriaOfferRequest(s), input.call ?? {});
    }
    const facts = offerFacts(offer);
    return recordAndPost(
      signed,
      {
        ...facts,
        // a criteria offer names the collection's contract when it is known
        contract:
          offer.type === 'item' ? offer.nft.contract.toLowerCase() : (info.contract?.toLowerCase() ?? null),
        standard,
      },
      input,
      post,
    );
  }

  /**
   * Records the signed order in the ledger (from now on it counts, whatever happens to the post),
   * then posts it: refused → failed; unanswered → stays posted until read back.
   */
  async function recordAndPost(
    signed: { orderHash: string; components: OrderComponents },
    facts: Pick<NewLedgerOrder, 'side' | 'collection' | 'contract' | 'tokenId' | 'trait' | 'standard'>,
    input: Pick<PlaceInput, 'intentId' | 'strategyId' | 'target' | 'price' | 'paymentToken' | 'quantity'>,
    post: () => Promise<{ order_hash?: string | null }>,
  ): Promise<OrderHash> {
    const hash = signed.orderHash.toLowerCase() as OrderHash;
    ledger.post({
      orderHash: hash,
      intentId: input.intentId,
      strategyId: input.strategyId,
      target: input.target,
      ...facts,
      price: input.price,
      paymentToken: input.paymentToken,
      quantity: input.quantity,
      expiresAt: Number(signed.components.endTime) * 1000,
      components: signed.components,
      protocolAddress: protocol,
    });
    busy.add(hash);
    try {
      const res = await post();
      if (res.order_hash != null && res.order_hash.toLowerCase() !== hash)
        log.warn(
          { orderHash: hash, answered: res.order_hash },
          'the marketplace answered another order hash',
        );
    } catch (e) {
      // refused: the collection's fees may have changed since they were read (see collections.ts)
      if (e instanceof RejectedError) o.onRefused?.(facts.collection);
      const unknown = !(e instanceof RejectedError) && !(e instanceof TransientError && !e.maybeProcessed);
      if (!unknown)
        ledger.note(hash, { kind: 'post_failed', reason: e instanceof BaseError ? e.code : 'error' });
      throw e;
    } finally {
      busy.delete(hash);
    }
    ledger.note(hash, { kind: 'opened' });
    log.info(
      { strategy: input.strategyId, orderHash: hash, side: facts.side, price: input.price.toString() },
      facts.side === 'listing' ? 'listing posted' : 'offer posted',
    );
    return hash;
  }

  /**
   * Lists an NFT we hold: the conduit's approval for the collection only when missing, a listing
   * signed locally (zone-protected: cancellable off-chain) with the collection's fees, recorded,
   * then posted.
   */
  async function list(input: ListInput): Promise<OrderHash> {
    const { nft, quantity, paymentToken } = input;
    if (quantity <= 0n)
      throw new RejectedError('listing_bad_quantity', 'a listing needs a quantity of at least 1');
    const contract = nft.contract.toLowerCase();
    const standard = o.standardOf !== undefined ? await o.standardOf(contract) : 'erc721';
    const info = await o.collection(input.collection);
    const approval = await o.approvals.nft(contract, offerer);
    if (approval !== null) {
      log.info({ contract }, 'approving the conduit for the collection (listings)');
      const res = await o.sender.send(`${input.intentId}/approve-nft-${++txSeq}`, {
        to: approval.to,
        data: approval.data,
        value: approval.value,
      });
      chargeGas(input.intentId, 'gas:approve-nft', res);
      if (res.status !== 'success')
        throw new TransientError('approval_reverted', 'the conduit approval for listings reverted', {
          maybeProcessed: false,
        });
    }
    const native = paymentToken.address.toLowerCase() === ZERO_ADDRESS;
    const s = await o.orders.listing({
      nft: { contract, tokenId: BigInt(nft.identifier), standard },
      quantity,
      price: input.price * quantity,
      currency: native ? { itemType: 0, token: ZERO_ADDRESS } : { itemType: 1, token: paymentToken.address },
      fees: info.fees,
      expirySec: Math.max(60, Math.floor((input.expiresAt - o.clock.now()) / 1000)),
      signedZone: true,
    });
    return recordAndPost(
      s,
      {
        side: 'listing',
        collection: input.collection,
        contract,
        tokenId: String(nft.identifier),
        trait: null,
        standard,
      },
      input,
      () => o.api.listings.create(o.chain, seaportRequest(s), input.call ?? {}),
    );
  }

  /** The marketplace's word on an order, into the ledger; true when it is gone now. */
  async function readBack(hash: string): Promise<boolean> {
    try {
      const res = await o.api.orders.get(o.chain, protocol, hash);
      const order = res.order as { status?: string; remaining_quantity?: number | string };
      const status = String(order.status ?? '').toUpperCase();
      if (STATUSES.has(status))
        ledger.note(hash, {
          kind: 'marketplace_status',
          status: status as 'ACTIVE',
          remaining: order.remaining_quantity !== undefined ? BigInt(order.remaining_quantity) : null,
        });
    } catch (e) {
      if (!(e instanceof RejectedError)) return false;
      // unknown to the marketplace: a post that never arrived
      ledger.note(hash, { kind: 'post_failed', reason: 'not_on_marketplace' });
    }
    const cur = ledger.get(hash);
    return cur === undefined || !ledger.counts(cur);
  }

  interface OnChain {
    readonly hash: string;
    readonly components: OrderComponents;
    readonly protocol: string;
    readonly intentId: string;
    readonly resolve: (r: CancelResult) => void;
    readonly reject: (e: unknown) => void;
  }
  /** On-chain cancels asked for together (a kill switch, many stuck cancels) go in one transaction. */
  let batch: OnChain[] = [];
  let _flushing: ReturnType<typeof setTimeout> | null = null;

  function cancelOnChain(hash: string, order: LedgerOrder, intentId: string): Promise<CancelResult> {
    const components = order.components as OrderComponents | undefined;
    if (components === undefined)
      return Promise.reject(
        new RejectedError(
          'cancel_not_assured',
          `order ${hash}: the off-chain cancel was not assured and its components are unknown (no on-chain cancel); it stays counted`,
        ),
      );
    return new Promise<CancelResult>((resolve, reject) => {
      batch.push({
        hash,
        components,
        protocol: order.protocolAddress ?? protocol,
        intentId,
        resolve,
        reject,
      });
      _flushing ??= setTimeout(() => void flush(), batchMs);
    });
  }

  /** Waits (at most `settleMs`) until the marketplace no longer shows the order ACTIVE. */
  async function untilOffBook(hash: string): Promise<void> {
    for (let waited = 0; waited < settleMs; waited += 200) {
      try {
        const res = await o.api.orders.get(o.chain, protocol, hash);
        if (String((res.order as { status?: string }).status ?? '').toUpperCase() !== 'ACTIVE') return;
      } catch {
        return; // not answering or unknown: the chain's word stands
      }
      await sleep(200);
    }
  }

  async function flush(): Promise<void> {
    const all = batch;
    batch = [];
    _flushing = null;
    const byProtocol = new Map<string, OnChain[]>();
    for (const c of all) byProtocol.set(c.protocol, [...(byProtocol.get(c.protocol) ?? []), c]);
    for (const [address, list] of byProtocol) {
      try {
        const counter = list.length >= bumpAt ? await bumpableCounter(list) : undefined;
        const tx =
          counter !== undefined
            ? incrementCounterTx({ chainId: o.sender.chainId, protocolAddress: address })
            : hardCancelTx(
                { chainId: o.sender.chainId, protocolAddress: address, offerer },
                list.map((c) => c.components),
              );
        // an increment voids every order of ours signed with that counter, not only those asked for
        const voided =
          counter === undefined
            ? list.map((c) => c.hash)
            : ledger
                .counting()
                .filter(
                  (x) =>
                    (x.protocolAddress ?? protocol).toLowerCase() === address.toLowerCase() &&
                    x.components !== null &&
                    x.components !== undefined &&
                    BigInt((x.components as OrderComponents).counter) === counter,
                )
                .map((x) => x.orderHash as string);
        log.warn(
          { orders: list.map((c) => c.hash), ...(counter !== undefined ? { voided, counter } : {}) },
          counter !== undefined ? 'cancelling on chain: incrementCounter' : 'cancelling on chain',
        );
        const r = await o.sender.send(`${(list[0] as OnChain).intentId}/cancel-${++txSeq}`, {
          to: tx.to,
          data: tx.data,
          value: tx.value,
        });
        chargeGas((list[0] as OnChain).intentId, 'gas:cancel', r);
        if (r.status !== 'success')
          throw new RejectedError(
            'cancel_reverted',
            `the on-chain cancel of ${list.map((c) => c.hash).join(', ')} reverted`,
          );
        // the chain says gone; the marketplace's book follows its chain watcher a moment later:
        // count the orders until it does (bounded), so its book never shows more than we count
        await Promise.all(voided.map((h) => untilOffBook(h)));
        for (const h of voided) ledger.note(h, { kind: 'cancelled', source: 'chain' });
        for (const c of list) c.resolve({ state: 'gone' });
      } catch (e) {
        for (const c of list) c.reject(e);
      }
    }
  }

  /** The current counter when every order of the batch was signed with it (else per-order cancel). */
  async function bumpableCounter(list: readonly OnChain[]): Promise<bigint | undefined> {
    try {
      const { counter } = await o.orders.prepare();
      return list.every((c) => BigInt(c.components.counter) === counter) ? counter : undefined;
    } catch (e) {
      log.warn({ err: e }, 'counter unreadable; cancelling order by order');
      return undefined;
    }
  }

  async function cancel(orderHash: string, options: CancelOptions): Promise<CancelResult> {
    const hash = orderHash.toLowerCase();
    busy.add(hash);
    try {
      return await cancelNow(hash, options);
    } finally {
      busy.delete(hash);
    }
  }

  async function cancelNow(hash: string, options: CancelOptions): Promise<CancelResult> {
    const order = ledger.get(hash);
    if (order === undefined) throw new RejectedError('order_unknown', `order ${hash} is not one of ours`);
    if (!ledger.counts(order)) return { state: 'gone' };
    if (order.state === 'cancelling' && order.cancelValidUntil !== null) {
      if (!options.requireGone) return { state: 'window', until: order.cancelValidUntil };
      return cancelOnChain(hash, order, options.intentId);
    }
    ledger.note(hash, { kind: 'cancel_requested' });
    const components = order.components as OrderComponents | undefined;
    const offchain =
      components === undefined ||
      cancelPlan(components, { fulfillmentSignatureIssued: false }) === 'offchain';
    let refusal = 'not zone-protected';
    if (offchain)
      for (let attempt = 1; attempt <= attempts; attempt++) {
        try {
          const viaWallet = o.cancelWithWallet?.() === true && o.api.orders.cancelWithWallet !== undefined;
          const res = await (viaWallet
            ? (o.api.orders.cancelWithWallet as typeof o.api.orders.cancel)
            : o.api.orders.cancel)(
            o.chain,
            order.protocolAddress ?? protocol,
            hash,
            cancelRequest(o.orders.signCancel(hash)),
            options.call ?? {},
          );
          let validUntil: number;
          try {
            validUntil = signatureValidUntilMs(res);
          } catch (e) {
            // accepted, but no usable window: count it as long as an unknown window lasts
            log.warn(
              { orderHash: hash, err: e },
              'cancel answer without a valid window; counted 10 minutes more',
            );
            validUntil = o.clock.now() + 600_000;
          }
          ledger.note(hash, { kind: 'cancel_accepted', validUntil });
          if (validUntil <= o.clock.now()) {
            log.info({ orderHash: hash }, 'order cancelled off-chain');
            return { state: 'gone' };
          }
          log.info(
            { orderHash: hash, validUntil: new Date(validUntil).toISOString() },
            'off-chain cancel accepted; a fulfillment signature stays usable until then: still counted',
          );
          if (!options.requireGone) return { state: 'window', until: validUntil };
          return cancelOnChain(hash, ledger.get(hash) as LedgerOrder, options.intentId);
        } catch (e) {
          if (e instanceof RejectedError) {
            // filled or gone meanwhile? the marketplace's word settles it
            if (await readBack(hash)) return { state: 'gone' };
            refusal = `${e.code}: ${e.shortMessage}`;
            break;
          }
          refusal = e instanceof BaseError ? `${e.code}: ${e.shortMessage}` : String(e);
          log.warn({ orderHash: hash, attempt, err: refusal }, 'off-chain cancel unanswered');
          if (attempt < attempts) await sleep(retryMs * attempt);
        }
      }
    ledger.note(hash, { kind: 'cancel_refused', reason: refusal });
    log.warn({ orderHash: hash, reason: refusal }, 'off-chain cancel refused or unanswered');
    try {
      return await cancelOnChain(hash, ledger.get(hash) as LedgerOrder, options.intentId);
    } catch (e) {
      log.error({ orderHash: hash, err: e }, 'cancel failed: the order stays counted');
      throw e;
    }
  }

  return {
    place,
    list,
    async replaceListing(orderHash, input) {
      const old = ledger.get(orderHash);
      if (old === undefined || old.side !== 'listing' || old.contract === null || old.tokenId === null)
        throw new RejectedError('replace_unknown_order', `order ${orderHash} is not a listing of ours`);
      // gone first: two listings of one NFT never stand at once
      await cancel(orderHash, {
        intentId: input.intentId,
        requireGone: true,
        ...(input.call !== undefined ? { call: input.call } : {}),
      });
      return list({
        ...input,
        target: old.target ?? '',
        collection: old.collection,
        nft: {
          chain: o.chain as NftRef['chain'],
          contract: old.contract as NftRef['contract'],
          identifier: old.tokenId as NftRef['identifier'],
        },
        paymentToken: old.paymentToken,
        quantity: old.quantity - old.filled,
      });
    },
    cancel,
    async replace(orderHash, input) {
      const old = ledger.get(orderHash);
      if (old === undefined || old.strategyId === null)
        throw new RejectedError('replace_unknown_order', `order ${orderHash} is not one of ours`);
      if (old.side === 'listing')
        throw new RejectedError('replace_not_offer', `order ${orderHash} is a listing`);
      await cancel(orderHash, {
        intentId: input.intentId,
        requireGone: !input.overlap,
        ...(input.call !== undefined ? { call: input.call } : {}),
      });
      return place({
        ...input,
        target: old.target ?? '',
        offer: offerSpecOf(old, o.chain),
        paymentToken: old.paymentToken,
        quantity: old.quantity - old.filled,
      });
    },
    async reconcile() {
      let checked = 0;
      let settled = 0;
      for (const x of ledger.list({ states: ['posted', 'cancelling'] })) {
        if (x.state === 'cancelling' && x.cancelValidUntil !== null) continue;
        // a post or cancel under way answers for itself (a read-back now could race it)
        if (busy.has(x.orderHash)) continue;
        checked++;
        const before = ledger.get(x.orderHash)?.state;
        await readBack(x.orderHash);
        const after = ledger.get(x.orderHash);
        if (after !== undefined && after.state === 'cancelling' && after.cancelValidUntil === null) {
          // a cancel whose answer was lost (process stopped): ask again
          try {
            await cancel(after.orderHash, { intentId: `reconcile-${after.orderHash.slice(2, 12)}` });
          } catch (err) {
            log.warn({ orderHash: after.orderHash, err }, 'cancel of an order left cancelling failed');
          }
        }
        if (ledger.get(x.orderHash)?.state !== before) settled++;
      }
      return { checked, settled };
    },
  };
}

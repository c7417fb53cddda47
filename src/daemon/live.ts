// The live executor: the engine's Executor port on the real API and chain. Offers are built,
// signed locally (EIP-712, Seaport 1.6) and posted; cancels are off-chain (signed zone) through the
// API; buys, swaps and mints go through src/execution (write-ahead intents, calldata guard,
// simulation, tx sender). Before the first offer in a token the conduit's allowance is raised to
// cover every open offer (an approval transaction through the same sender).
import type { ApiClient, CallOptions } from '../api/index.ts';
import type { TxSender } from '../chain/index.ts';
import type { NftRef, PaymentToken } from '../domain/events.ts';
import { type CollectionSlug, type OrderHash, ZERO_ADDRESS } from '../domain/ids.ts';
import type { ExecutionContext, ExecutionResult, Executor } from '../engine/index.ts';
import { RejectedError, TransientError } from '../errors/index.ts';
import type { Executor as ChainExecutor, ExecutionOutcome } from '../execution/index.ts';
import type { OwnOrder } from '../market/snapshot.ts';
import type { Logger } from '../observability/index.ts';
import {
  type Approvals,
  buildOfferRequest,
  type CollectionFee,
  cancelRequest,
  criteriaOfferRequest,
  type SeaportOrders,
  seaportRequest,
} from '../seaport/index.ts';
import type { Store } from '../store/index.ts';
import type { Intent, OfferSpec } from '../strategy.ts';

export interface CollectionInfo {
  readonly fees: readonly CollectionFee[];
  /** The collection's NFT contract (criteria offers name it), when known. */
  readonly contract?: string;
}

export interface LiveExecutorOptions {
  readonly api: Pick<ApiClient, 'offers' | 'orders'>;
  readonly orders: SeaportOrders;
  readonly approvals: Approvals;
  readonly sender: TxSender;
  readonly execution: ChainExecutor;
  readonly store: Store;
  readonly chain: string;
  readonly seaport: string;
  readonly wallet: string;
  readonly clock: { now(): number };
  readonly collection: (slug: string) => Promise<CollectionInfo>;
  /** The token contract of an NFT standard, when it matters (ERC-1155 items). */
  readonly standardOf?: (contract: string) => 'erc721' | 'erc1155' | undefined;
  /** Approve at least this much when an approval is needed (so one approval serves many offers). */
  readonly minApproval?: bigint;
  /** Drop contract of a drop slug. */
  readonly dropContract: (slug: string) => string | undefined;
  readonly market?: {
    upsertOwnOrder?(order: OwnOrder): void;
    removeOwnOrder?(orderHash: string): boolean;
  };
  readonly logger?: Logger;
  /** Called when an offer was posted (metrics). */
  readonly onOrderPlaced?: () => void;
  /** Called with every settled buy/mint/swap (metrics, status). */
  readonly onExecution?: (
    kind: string,
    outcome: ExecutionOutcome,
    strategyId: string,
    /** Collection or drop slug; for a swap `FROM→TO`. */
    what: string | null,
    /** Symbol of what was paid. */
    symbol: string,
  ) => void;
  /**
   * Our own expectation of a swap's output (e.g. from an allowlisted router's reserves); the
   * execution layer does not trust the API's quote for the slippage floor. Undefined = refuse.
   */
  readonly expectedAmountOut?: (from: string, to: string, amountIn: bigint) => Promise<bigint | undefined>;
}

interface Placed {
  readonly offer: OfferSpec;
  readonly paymentToken: PaymentToken;
  readonly quantity: bigint;
  readonly strategyId: string;
}

function sideOf(offer: OfferSpec): OwnOrder['side'] {
  return offer.type === 'collection'
    ? 'collection_offer'
    : offer.type === 'trait'
      ? 'trait_offer'
      : 'item_offer';
}

function nftKeyOf(nft: NftRef): string {
  return `${nft.chain}/${nft.contract.toLowerCase()}/${nft.identifier}`;
}

function outcomeResult(kind: string, out: ExecutionOutcome): ExecutionResult {
  if (out.state === 'done')
    return {
      ...(out.spent !== undefined ? { spent: out.spent } : {}),
      ...(out.txHash !== undefined ? { txHash: out.txHash } : {}),
    };
  if (out.state === 'failed')
    throw new RejectedError(`${kind}_failed`, out.error ?? `${kind} failed`, {
      details: { intentId: out.intentId },
    });
  throw new TransientError(`${kind}_unsettled`, `${kind} is ${out.state}: to reconcile`, {
    maybeProcessed: true,
  });
}

export function createLiveExecutor(o: LiveExecutorOptions): Executor & {
  /** Offers placed by this process (hash -> what it was), for replace. */
  placed(): ReadonlyMap<string, Placed>;
} {
  const placed = new Map<string, Placed>();
  const approved = new Map<string, bigint>();
  let approvalSeq = 0;

  // one approval at a time: offers placed together share it instead of each sending their own
  let approving: Promise<void> = Promise.resolve();
  function ensureAllowance(token: string, needed: bigint): Promise<void> {
    const next = approving.then(() => approve(token, needed));
    approving = next.catch(() => undefined);
    return next;
  }

  async function approve(token: string, needed: bigint): Promise<void> {
    const key = token.toLowerCase();
    if ((approved.get(key) ?? 0n) >= needed) return;
    const amount = needed > (o.minApproval ?? 0n) ? needed : (o.minApproval ?? needed);
    const tx = await o.approvals.weth(key, o.wallet, amount);
    if (tx !== null) {
      const id = `approve-${key.slice(2, 10)}-${o.clock.now()}-${++approvalSeq}`;
      o.logger?.info({ token: key, amount: amount.toString() }, 'approving the conduit for offers');
      const res = await o.sender.send(id, { to: tx.to, data: tx.data, value: tx.value });
      if (res.status !== 'success')
        throw new TransientError('approval_reverted', 'the conduit approval reverted', {
          maybeProcessed: false,
        });
    }
    approved.set(key, amount);
  }

  function openOfferTotal(token: string): bigint {
    let sum = 0n;
    for (const r of o.store.orders.open({}))
      if (r.side !== 'listing' && r.token.toLowerCase() === token.toLowerCase()) sum += r.price;
    return sum;
  }

  async function place(
    strategyId: string,
    offer: OfferSpec,
    price: bigint,
    paymentToken: PaymentToken,
    quantity: bigint,
    expiresAt: number,
    intentId: string,
    call: CallOptions = {},
  ): Promise<OrderHash> {
    const now = o.clock.now();
    const expirySec = Math.max(60, Math.floor((expiresAt - now) / 1000));
    const total = price * quantity;
    const info = await o.collection(offer.collection);
    await ensureAllowance(paymentToken.address, openOfferTotal(paymentToken.address) + total);
    let hash: string;
    let components: { startTime: bigint; endTime: bigint } | undefined;
    if (offer.type === 'item') {
      const signed = await o.orders.itemOffer({
        nft: {
          contract: offer.nft.contract,
          tokenId: BigInt(offer.nft.identifier),
          standard: o.standardOf?.(offer.nft.contract) ?? 'erc721',
        },
        quantity,
        price: total,
        fees: info.fees,
        expirySec,
      });
      const res = await o.api.offers.create(o.chain, seaportRequest(signed), call);
      hash = res.order_hash ?? signed.orderHash;
      components = signed.components;
    } else {
      const request = buildOfferRequest({
        offerer: o.wallet,
        slug: offer.collection,
        ...(offer.type === 'trait' ? { traits: [{ type: offer.traitType, value: offer.value }] } : {}),
        protocolAddress: o.seaport,
        quantity: Number(quantity),
      });
      const build = await o.api.offers.build(request, call);
      const signed = o.orders.signCriteriaOffer(
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
      const res = await o.api.offers.createCriteria(criteriaOfferRequest(signed), call);
      hash = res.order_hash ?? signed.orderHash;
      components = signed.components;
    }
    const orderHash = hash.toLowerCase() as OrderHash;
    placed.set(orderHash, { offer, paymentToken, quantity, strategyId });
    o.store.orders.upsert({
      hash: orderHash,
      intentId,
      strategy: strategyId,
      side: sideOf(offer),
      collection: offer.collection,
      ...(offer.type === 'item'
        ? { contract: offer.nft.contract, tokenId: String(offer.nft.identifier) }
        : {}),
      ...(offer.type === 'trait' ? { traitType: offer.traitType, traitValue: offer.value } : {}),
      ...(info.contract !== undefined && offer.type !== 'item' ? { contract: info.contract } : {}),
      price: total,
      token: paymentToken.address.toLowerCase(),
      quantity,
      ...(components !== undefined ? { startTime: Number(components.startTime) } : {}),
      expiry: components !== undefined ? Number(components.endTime) : Math.floor(expiresAt / 1000),
      status: 'open',
    });
    o.market?.upsertOwnOrder?.({
      orderHash,
      side: sideOf(offer),
      collection: offer.collection as CollectionSlug,
      nftKey: offer.type === 'item' ? nftKeyOf(offer.nft) : null,
      trait: offer.type === 'trait' ? { type: offer.traitType, value: offer.value } : null,
      price,
      paymentToken,
      quantity,
      expiresAt: components !== undefined ? Number(components.endTime) * 1000 : expiresAt,
      status: 'open',
    });
    o.onOrderPlaced?.();
    o.logger?.info(
      { strategy: strategyId, orderHash, side: sideOf(offer), price: price.toString() },
      'offer posted',
    );
    return orderHash;
  }

  async function cancel(orderHash: string, call: CallOptions = {}): Promise<void> {
    const hash = orderHash.toLowerCase();
    try {
      await o.api.orders.cancel(o.chain, o.seaport, hash, cancelRequest(o.orders.signCancel(hash)), call);
    } catch (e) {
      // already gone (filled, cancelled, expired): nothing stands
      if (!(e instanceof RejectedError)) throw e;
      o.logger?.info({ orderHash: hash, code: e.code }, 'cancel: the order is not open any more');
    }
    if (o.store.orders.get(hash) !== undefined) o.store.orders.setStatus(hash, 'cancelled');
    o.market?.removeOwnOrder?.(hash);
  }

  function specOf(orderHash: string): Placed | undefined {
    const p = placed.get(orderHash.toLowerCase());
    if (p !== undefined) return p;
    const r = o.store.orders.get(orderHash.toLowerCase());
    if (r === undefined || r.side === 'listing') return undefined;
    const offer: OfferSpec =
      r.side === 'collection_offer'
        ? { type: 'collection', collection: r.collection }
        : r.side === 'trait_offer'
          ? {
              type: 'trait',
              collection: r.collection,
              traitType: r.traitType ?? '',
              value: r.traitValue ?? '',
            }
          : {
              type: 'item',
              collection: r.collection,
              nft: {
                chain: o.chain as NftRef['chain'],
                contract: (r.contract ?? ZERO_ADDRESS) as NftRef['contract'],
                identifier: (r.tokenId ?? '0') as NftRef['identifier'],
              },
            };
    return {
      offer,
      paymentToken: { address: r.token as PaymentToken['address'], symbol: 'WETH', decimals: 18 },
      quantity: r.quantity,
      strategyId: r.strategy ?? 'unknown',
    };
  }

  async function execute(intent: Intent, ctx: ExecutionContext): Promise<ExecutionResult> {
    const call: CallOptions = { priority: ctx.priority, coalesceKey: ctx.coalesceKey };
    switch (intent.kind) {
      case 'place_offer':
        return {
          orderHash: await place(
            ctx.strategyId,
            intent.offer,
            intent.price,
            intent.paymentToken,
            intent.quantity,
            intent.expiresAt,
            ctx.intentId,
            call,
          ),
        };
      case 'replace_offer': {
        const spec = specOf(intent.orderHash);
        if (spec === undefined)
          throw new RejectedError('replace_unknown_order', `order ${intent.orderHash} is not one of ours`);
        await cancel(intent.orderHash, { priority: ctx.priority });
        return {
          orderHash: await place(
            ctx.strategyId,
            spec.offer,
            intent.price,
            spec.paymentToken,
            spec.quantity,
            intent.expiresAt,
            ctx.intentId,
            call,
          ),
        };
      }
      case 'cancel_order':
        await cancel(intent.orderHash, call);
        return {};
      case 'buy_listing': {
        const info = await o.collection(intent.collection);
        const out = await o.execution.buyListing({
          intentId: ctx.intentId,
          strategy: ctx.strategyId,
          orderHash: intent.orderHash,
          collection: intent.collection,
          nft: {
            contract: intent.nft.contract,
            tokenId: BigInt(intent.nft.identifier),
            ...(o.standardOf?.(intent.nft.contract) !== undefined
              ? { standard: o.standardOf?.(intent.nft.contract) as 'erc721' | 'erc1155' }
              : {}),
          },
          maxPrice: intent.maxPrice,
          paymentToken: intent.paymentToken.address,
          quantity: intent.quantity,
          feeRecipients: info.fees.map((f) => f.recipient),
        });
        o.onExecution?.('buy', out, ctx.strategyId, intent.collection, intent.paymentToken.symbol);
        return outcomeResult('buy', out);
      }
      case 'swap': {
        const expected = await o.expectedAmountOut?.(
          intent.fromToken.address,
          intent.toToken.address,
          intent.amountIn,
        );
        if (expected === undefined || expected <= 0n)
          throw new RejectedError(
            'swap_no_reference',
            `no on-chain reference price for ${intent.fromToken.symbol} → ${intent.toToken.symbol} (configure a router)`,
          );
        const out = await o.execution.swap({
          expectedAmountOut: expected,
          intentId: ctx.intentId,
          strategy: ctx.strategyId,
          fromToken: intent.fromToken.address,
          toToken: intent.toToken.address,
          amountIn: intent.amountIn,
          slippageBps: intent.slippageBps,
        });
        o.onExecution?.(
          'swap',
          out,
          ctx.strategyId,
          `${intent.fromToken.symbol}→${intent.toToken.symbol}`,
          intent.fromToken.symbol,
        );
        return outcomeResult('swap', out);
      }
      case 'mint': {
        const drop = o.dropContract(intent.drop);
        if (drop === undefined)
          throw new RejectedError('mint_unknown_drop', `drop ${intent.drop}: its contract is not known`);
        const out = await o.execution.mint({
          intentId: ctx.intentId,
          strategy: ctx.strategyId,
          slug: intent.drop,
          drop,
          quantity: Number(intent.quantity),
          maxValue: intent.maxPricePerToken * intent.quantity,
        });
        o.onExecution?.('mint', out, ctx.strategyId, intent.drop, intent.paymentToken.symbol);
        return outcomeResult('mint', out);
      }
    }
  }

  return { mode: 'live', execute, placed: () => placed };
}

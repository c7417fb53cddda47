/**
 * Our own offers: placed (built and signed locally by src/seaport, posted through the API,
 * recorded in the store's orders table before the post) and cancelled (off-chain through the
 * cancel endpoint when the order is zone-protected; on chain with Seaport `cancel` when the
 * off-chain cancel cannot be assured — a fulfillment signature may still be valid — or is not
 * possible at all). Each operation is an intent (`place_offer`, `cancel_order`).
 */
import type { ApiClient } from '../api/index.ts';
import type { TxSender } from '../chain/index.ts';
import { RejectedError, TransientError } from '../errors/index.ts';
import { type Logger, silentLogger } from '../observability/index.ts';
import {
  type Approvals,
  buildOfferRequest,
  type ChainClock,
  type CollectionFee,
  cancelPlan,
  cancelRequest,
  criteriaOfferRequest,
  hardCancelTx,
  type OrderComponents,
  offchainCancelAssured,
  type SeaportOrders,
  type SignedOrder,
  seaportRequest,
} from '../seaport/index.ts';
import type { OrderSide, Store } from '../store/index.ts';

export interface OrderDeskApi {
  readonly offers: Pick<ApiClient['offers'], 'create' | 'build' | 'createCriteria'>;
  readonly orders: Pick<ApiClient['orders'], 'cancel' | 'get'>;
}

export interface OrderDeskOptions {
  readonly api: OrderDeskApi;
  /** Builds and signs our orders (offerer = our wallet). */
  readonly orders: SeaportOrders;
  /** For WETH approvals and hard cancels. */
  readonly sender: TxSender;
  readonly store: Store;
  /** The API's chain name. */
  readonly chain: string;
  /** Chain time (the latest block), to judge whether an off-chain cancel is assured. */
  readonly clock: ChainClock;
  /** WETH allowance to the conduit before an offer, when needed. */
  readonly approvals?: Approvals;
  readonly strategy?: string;
  readonly logger?: Logger;
}

export type OfferTarget =
  | {
      readonly type: 'item';
      readonly nft: {
        readonly contract: string;
        readonly tokenId: bigint;
        readonly standard: 'erc721' | 'erc1155';
      };
    }
  | { readonly type: 'collection' }
  | { readonly type: 'trait'; readonly traits: readonly { readonly type: string; readonly value: string }[] };

export interface PlaceOfferInput {
  readonly intentId: string;
  readonly strategy?: string;
  /** Collection slug. */
  readonly collection: string;
  readonly target: OfferTarget;
  /** Price per unit, offer token (WETH) units. */
  readonly price: bigint;
  readonly quantity?: bigint;
  /** The collection's fees (from the API's collection `fees`). */
  readonly fees: readonly CollectionFee[];
  readonly expirySec?: number;
}

export interface PlacedOffer {
  readonly intentId: string;
  readonly orderHash: string;
  /** Seaport endTime, epoch seconds. */
  readonly expiry: number;
  readonly replayed?: boolean;
}

export interface CancelInput {
  readonly intentId: string;
  readonly orderHash: string;
  readonly strategy?: string;
}

export interface CancelOutcome {
  readonly intentId: string;
  readonly orderHash: string;
  readonly method: 'offchain' | 'onchain';
  /** The on-chain cancel's transaction. */
  readonly txHash?: string;
}

export interface OrderDesk {
  placeOffer(input: PlaceOfferInput): Promise<PlacedOffer>;
  cancelOrder(input: CancelInput): Promise<CancelOutcome>;
  /** At start: pending orders (recorded, post outcome unknown) checked against the API. */
  reconcile(): Promise<{ readonly opened: readonly string[]; readonly failed: readonly string[] }>;
}

const componentsId = (intentId: string) => `${intentId}/order`;

export function createOrderDesk(options: OrderDeskOptions): OrderDesk {
  const { api, orders, sender, store } = options;
  const log = (options.logger ?? silentLogger()).child({ component: 'order-desk' });
  const offerer = orders.offerer;
  const protocol = orders.options.protocolAddress;
  const defaultStrategy = options.strategy ?? 'executor';
  const byIntent = store.db.prepare<[string], { hash: string; expiry: number }>(
    'SELECT hash, expiry FROM orders WHERE intent_id = ? ORDER BY created_at LIMIT 1',
  );

  function finish(intentId: string, ok: boolean, error?: string): void {
    const cur = store.intents.get(intentId);
    if (cur && cur.state !== 'done' && cur.state !== 'failed') {
      store.intents.setState(intentId, ok ? 'done' : 'failed', error);
    }
  }

  async function placeOffer(input: PlaceOfferInput): Promise<PlacedOffer> {
    const prior = store.intents.get(input.intentId);
    if (prior) {
      const o = byIntent.get(input.intentId);
      if (prior.state === 'done' && o) {
        return { intentId: input.intentId, orderHash: o.hash, expiry: o.expiry, replayed: true };
      }
      throw new RejectedError('intent_exists', `intent ${input.intentId} is ${prior.state}`);
    }
    const strategy = input.strategy ?? defaultStrategy;
    const t = input.target;
    const targetKey =
      t.type === 'item'
        ? `offer:item:${t.nft.contract.toLowerCase()}:${t.nft.tokenId}`
        : t.type === 'trait'
          ? `offer:trait:${input.collection}:${t.traits.map((x) => `${x.type}=${x.value}`).join('&')}`
          : `offer:collection:${input.collection}`;
    store.intents.create({
      id: input.intentId,
      strategy,
      kind: 'place_offer',
      targetKey,
      payload: {
        collection: input.collection,
        target: t,
        price: input.price,
        quantity: input.quantity ?? 1n,
      },
    });
    let hash: string | undefined;
    try {
      const quantity = input.quantity ?? 1n;
      if (options.approvals) {
        const approval = await options.approvals.weth(
          orders.options.offerToken,
          offerer,
          input.price * quantity,
        );
        if (approval) {
          const r = await sender.send(`${input.intentId}/approve-weth`, {
            to: approval.to,
            data: approval.data,
            value: approval.value,
          });
          if (r.status !== 'success')
            throw new RejectedError('approval_reverted', 'the WETH approval reverted');
        }
      }
      const common = {
        price: input.price,
        fees: input.fees,
        ...(input.quantity !== undefined ? { quantity: input.quantity } : {}),
        ...(input.expirySec !== undefined ? { expirySec: input.expirySec } : {}),
      };
      let signed: SignedOrder;
      let post: () => Promise<unknown>;
      let side: OrderSide;
      if (t.type === 'item') {
        signed = await orders.itemOffer({ ...common, nft: t.nft });
        const s = signed;
        post = () => api.offers.create(options.chain, seaportRequest(s));
        side = 'item_offer';
      } else {
        const request = buildOfferRequest({
          offerer,
          slug: input.collection,
          ...(t.type === 'trait' ? { traits: t.traits } : {}),
          quantity: Number(quantity),
          protocolAddress: protocol,
        });
        const build = await api.offers.build(request);
        const c = await orders.criteriaOffer({ ...common, build, requested: request.criteria });
        signed = c;
        post = () => api.offers.createCriteria(criteriaOfferRequest(c));
        side = t.type === 'trait' ? 'trait_offer' : 'collection_offer';
      }
      hash = signed.orderHash;
      const expiry = Number(signed.components.endTime);
      const trait = t.type === 'trait' && t.traits.length === 1 ? t.traits[0] : undefined;
      // recorded before the post: a crash leaves a pending order that reconcile checks
      store.transaction(() => {
        store.intents.create({
          id: componentsId(input.intentId),
          strategy,
          kind: 'order',
          targetKey: `order:${signed.orderHash}`,
          payload: { components: signed.components, protocolAddress: signed.protocolAddress },
          state: 'done',
        });
        store.orders.upsert({
          hash: signed.orderHash,
          intentId: input.intentId,
          strategy,
          side,
          collection: input.collection,
          ...(t.type === 'item'
            ? { contract: t.nft.contract.toLowerCase(), tokenId: t.nft.tokenId.toString() }
            : {}),
          ...(trait ? { traitType: trait.type, traitValue: trait.value } : {}),
          price: input.price * quantity,
          token: orders.options.offerToken.toLowerCase(),
          quantity,
          startTime: Number(signed.components.startTime),
          expiry,
          status: 'pending',
        });
      });
      await post();
      store.transaction(() => {
        store.orders.setStatus(signed.orderHash, 'open');
        finish(input.intentId, true);
      });
      log.info({ intentId: input.intentId, orderHash: signed.orderHash, side }, 'offer placed');
      return { intentId: input.intentId, orderHash: signed.orderHash, expiry };
    } catch (e) {
      const unknown = e instanceof TransientError && e.maybeProcessed;
      if (!unknown) {
        store.transaction(() => {
          if (hash !== undefined && store.orders.get(hash)) {
            store.orders.setStatus(hash, 'failed', e instanceof RejectedError ? e.code : 'error');
          }
          finish(input.intentId, false, e instanceof RejectedError ? e.code : 'error');
        });
      }
      throw e;
    }
  }

  async function cancelOrder(input: CancelInput): Promise<CancelOutcome> {
    const hash = input.orderHash.toLowerCase();
    const order = store.orders.get(hash);
    if (!order?.intentId) throw new RejectedError('order_unknown', `order ${hash} is not one of ours`);
    const saved = store.intents.get(componentsId(order.intentId))?.payload as
      | { components: OrderComponents; protocolAddress: string }
      | undefined;
    if (!saved) throw new RejectedError('order_unknown', `order ${hash} has no recorded components`);
    const prior = store.intents.get(input.intentId);
    if (prior) throw new RejectedError('intent_exists', `intent ${input.intentId} is ${prior.state}`);
    store.intents.create({
      id: input.intentId,
      strategy: input.strategy ?? defaultStrategy,
      kind: 'cancel_order',
      targetKey: `cancel:${hash}`,
      payload: { orderHash: hash },
    });
    try {
      if (cancelPlan(saved.components, { fulfillmentSignatureIssued: false }) === 'offchain') {
        try {
          const res = await api.orders.cancel(
            options.chain,
            saved.protocolAddress,
            hash,
            cancelRequest(orders.signCancel(hash)),
          );
          if (offchainCancelAssured(res, await options.clock.nowSec())) {
            store.transaction(() => {
              store.orders.setStatus(hash, 'cancelled');
              finish(input.intentId, true);
            });
            log.info({ orderHash: hash }, 'order cancelled off-chain');
            return { intentId: input.intentId, orderHash: hash, method: 'offchain' };
          }
          log.info(
            { orderHash: hash, validUntil: res.last_signature_issued_valid_until },
            'off-chain cancel not assured: a fulfillment signature may still be used; cancelling on chain',
          );
        } catch (e) {
          if (!(e instanceof RejectedError)) throw e;
          log.warn({ orderHash: hash, code: e.code }, 'off-chain cancel refused; cancelling on chain');
        }
      }
      const tx = hardCancelTx({ chainId: sender.chainId, protocolAddress: saved.protocolAddress, offerer }, [
        saved.components,
      ]);
      const r = await sender.send(`${input.intentId}/cancel`, { to: tx.to, data: tx.data, value: tx.value });
      if (r.status !== 'success') throw new RejectedError('cancel_reverted', 'the on-chain cancel reverted');
      store.transaction(() => {
        store.orders.setStatus(hash, 'cancelled');
        finish(input.intentId, true);
      });
      log.info({ orderHash: hash, hash: r.hash }, 'order cancelled on chain');
      return { intentId: input.intentId, orderHash: hash, method: 'onchain', txHash: r.hash };
    } catch (e) {
      if (e instanceof RejectedError) finish(input.intentId, false, e.code);
      throw e;
    }
  }

  async function reconcile() {
    const opened: string[] = [];
    const failed: string[] = [];
    for (const o of store.orders.list({ status: 'pending' })) {
      try {
        await api.orders.get(options.chain, protocol, o.hash);
        store.transaction(() => {
          store.orders.setStatus(o.hash, 'open');
          if (o.intentId) finish(o.intentId, true);
        });
        opened.push(o.hash);
      } catch (e) {
        if (!(e instanceof RejectedError)) throw e;
        store.transaction(() => {
          store.orders.setStatus(o.hash, 'failed', 'not_posted');
          if (o.intentId) finish(o.intentId, false, 'not_posted');
        });
        failed.push(o.hash);
      }
    }
    return { opened, failed };
  }

  return { placeOffer, cancelOrder, reconcile };
}

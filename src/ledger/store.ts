// The ledger's records in the SQLite store's orders table (one row per order; fills by id in
// order_fills so a fill seen again after a restart is not charged twice).
import type { Address } from '../domain/ids.ts';
import type { OrderRecord, Store } from '../store/index.ts';
import type { LedgerOrder, LedgerStore } from './types.ts';

/** Gone orders read back at start: those that ended within this window (late fills find them). */
const RECENT_MS = 3_600_000;

function toLedger(r: OrderRecord): LedgerOrder {
  const quantity = r.quantity > 0n ? r.quantity : 1n;
  return {
    orderHash: r.hash as LedgerOrder['orderHash'],
    intentId: r.intentId ?? null,
    strategyId: r.strategy ?? null,
    target: r.target ?? null,
    side: r.side,
    collection: r.collection,
    contract: r.contract ?? null,
    tokenId: r.tokenId ?? null,
    standard: r.standard ?? null,
    trait: r.traitType !== undefined ? { type: r.traitType, value: r.traitValue ?? '' } : null,
    price: r.price / quantity,
    paymentToken: {
      address: r.token as Address,
      symbol: r.tokenSymbol ?? (r.token === '0x0000000000000000000000000000000000000000' ? 'ETH' : 'WETH'),
      decimals: r.tokenDecimals ?? 18,
    },
    quantity,
    filled: r.filled,
    expiresAt: r.expiry * 1000,
    ...(r.components !== undefined ? { components: r.components } : {}),
    ...(r.protocol !== undefined ? { protocolAddress: r.protocol } : {}),
    state: r.status,
    cancelValidUntil: r.cancelValidUntil ?? null,
    reason: r.error ?? null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * The ledger's store: its orders (read back at start) and its fills. With `orders: false` the
 * orders are not written, only the fills (their idempotence and the fills table the holdings
 * read): for a run that never restarts from the store (a backtest).
 */
export function storeLedger(
  store: Store,
  now: () => number,
  options: { readonly orders?: boolean } = {},
): LedgerStore {
  const orders = options.orders !== false;
  return {
    load: () => (orders ? store.orders.recent(now() - RECENT_MS).map(toLedger) : []),
    save(o) {
      if (!orders) return;
      store.orders.upsert({
        hash: o.orderHash,
        ...(o.intentId !== null ? { intentId: o.intentId } : {}),
        ...(o.strategyId !== null ? { strategy: o.strategyId } : {}),
        ...(o.target !== null ? { target: o.target } : {}),
        side: o.side,
        collection: o.collection,
        ...(o.contract !== null ? { contract: o.contract } : {}),
        ...(o.tokenId !== null ? { tokenId: o.tokenId } : {}),
        ...(o.standard !== null ? { standard: o.standard } : {}),
        ...(o.trait !== null ? { traitType: o.trait.type, traitValue: o.trait.value } : {}),
        price: o.price * o.quantity,
        token: o.paymentToken.address,
        tokenSymbol: o.paymentToken.symbol,
        tokenDecimals: o.paymentToken.decimals,
        quantity: o.quantity,
        filled: o.filled,
        expiry: Math.floor(o.expiresAt / 1000),
        status: o.state,
        ...(o.cancelValidUntil !== null ? { cancelValidUntil: o.cancelValidUntil } : {}),
        ...(o.components !== undefined ? { components: o.components } : {}),
        ...(o.protocolAddress !== undefined ? { protocol: o.protocolAddress } : {}),
        ...(o.reason !== null ? { error: o.reason } : {}),
        createdAt: o.createdAt,
        updatedAt: o.updatedAt,
      });
    },
    hasFill: (orderHash, fillId) => store.orders.hasFill(orderHash, fillId),
    recordFill: (orderHash, fillId, units, amount, facts) => {
      store.transaction(() => {
        if (!store.orders.recordFill(orderHash, fillId, units, amount) || facts === undefined) return;
        const { order, news } = facts;
        const tx = news.kind === 'filled' ? news : undefined;
        // the fills table: what we bought (offers) or sold (listings), per transaction
        store.fills.record({
          orderHash,
          ...(order.intentId !== null ? { intentId: order.intentId } : {}),
          ...(tx?.txHash != null ? { txHash: tx.txHash } : { txHash: `${orderHash}:${fillId}` }),
          side: order.side === 'listing' ? 'sell' : 'buy',
          collection: order.collection,
          contract: tx?.contract ?? order.contract ?? '0x0000000000000000000000000000000000000000',
          tokenId: tx?.tokenId ?? order.tokenId ?? '',
          quantity: units,
          price: amount,
          token: order.paymentToken.address,
          // a listing of ours: what went to the marketplace and the creators out of the price
          ...(order.side === 'listing' ? { fees: listingFees(order, amount) } : {}),
        });
      });
    },
  };
}

/**
 * The marketplace and creator fees in `amount` paid for (part of) our listing: the share of its
 * consideration that goes to anyone but us (the offerer), in the listing's proportions.
 */
export function listingFees(order: LedgerOrder, amount: bigint): bigint {
  const c = order.components as
    | { offerer?: string; consideration?: readonly { recipient: string; startAmount: bigint | string }[] }
    | undefined;
  if (c?.consideration === undefined || c.offerer === undefined) return 0n;
  const me = c.offerer.toLowerCase();
  let total = 0n;
  let others = 0n;
  for (const item of c.consideration) {
    const v = BigInt(item.startAmount);
    total += v;
    if (item.recipient.toLowerCase() !== me) others += v;
  }
  return total === 0n ? 0n : (amount * others) / total;
}

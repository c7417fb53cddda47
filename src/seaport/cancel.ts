/**
 * Cancelling orders. Off-chain through the cancel endpoint (SignedZone-protected orders only) is
 * assured only if no fulfillment signature was issued for the order before the cancel (the
 * spec); otherwise a fill can still land until that signature expires, so the order must be
 * cancelled on chain: Seaport `cancel(OrderComponents[])` for named orders, or
 * `incrementCounter()` to void every order signed with the current counter at once.
 */
import { Interface } from 'ethers';
import { RejectedError } from '../errors/index.ts';
import { OrderType, SEAPORT_ABI } from './constants.ts';
import type { OrderComponents, TxRequest } from './types.ts';

export type CancelMethod = 'offchain' | 'onchain';

export interface CancelFacts {
  /**
   * True when the API may have issued a fulfillment signature for the order (a fulfillment-data
   * call was made or could have been made by someone else and its validity is unknown), false
   * only when it is known that none was issued.
   */
  readonly fulfillmentSignatureIssued: boolean;
  /**
   * `last_signature_issued_valid_until` of an earlier off-chain cancel, epoch seconds: once chain
   * time is past it, no issued signature can be used any more and off-chain is enough.
   */
  readonly lastSignatureValidUntilSec?: bigint;
  readonly nowSec?: bigint;
}

const restricted = (o: Pick<OrderComponents, 'orderType'>) =>
  o.orderType === OrderType.FULL_RESTRICTED || o.orderType === OrderType.PARTIAL_RESTRICTED;

/**
 * How to cancel `order`: 'offchain' only for a zone-protected order for which no fulfillment
 * signature was issued (or every issued one has expired); 'onchain' otherwise (open orders
 * cannot be cancelled off-chain at all).
 */
export function cancelPlan(
  order: Pick<OrderComponents, 'orderType' | 'zone'>,
  facts: CancelFacts,
): CancelMethod {
  if (!restricted(order) || /^0x0{40}$/i.test(order.zone)) return 'onchain';
  if (!facts.fulfillmentSignatureIssued) return 'offchain';
  if (
    facts.lastSignatureValidUntilSec !== undefined &&
    facts.nowSec !== undefined &&
    facts.nowSec > facts.lastSignatureValidUntilSec
  ) {
    return 'offchain';
  }
  return 'onchain';
}

const seaport = new Interface(SEAPORT_ABI as unknown as string[]);

const componentsTuple = (o: OrderComponents) => ({
  offerer: o.offerer,
  zone: o.zone,
  offer: o.offer.map((i) => ({
    itemType: i.itemType,
    token: i.token,
    identifierOrCriteria: i.identifierOrCriteria,
    startAmount: i.startAmount,
    endAmount: i.endAmount,
  })),
  consideration: o.consideration.map((i) => ({
    itemType: i.itemType,
    token: i.token,
    identifierOrCriteria: i.identifierOrCriteria,
    startAmount: i.startAmount,
    endAmount: i.endAmount,
    recipient: i.recipient,
  })),
  orderType: o.orderType,
  startTime: o.startTime,
  endTime: o.endTime,
  zoneHash: o.zoneHash,
  salt: o.salt,
  conduitKey: o.conduitKey,
  counter: o.counter,
});

export interface HardCancelTarget {
  readonly chainId: number;
  /** The Seaport contract. */
  readonly protocolAddress: string;
  /** Our wallet: Seaport only lets the offerer (or the zone) cancel. */
  readonly offerer: string;
}

/** Unsigned `cancel(OrderComponents[])` for our own orders. */
export function hardCancelTx(target: HardCancelTarget, orders: readonly OrderComponents[]): TxRequest {
  if (orders.length === 0) throw new RejectedError('seaport_cancel_empty', 'no orders to cancel');
  for (const o of orders) {
    if (o.offerer.toLowerCase() !== target.offerer.toLowerCase()) {
      throw new RejectedError('seaport_not_offerer', 'can only cancel orders whose offerer is our wallet');
    }
  }
  return Object.freeze({
    chainId: target.chainId,
    to: target.protocolAddress,
    data: seaport.encodeFunctionData('cancel', [orders.map(componentsTuple)]),
    value: 0n,
    purpose: `seaport cancel of ${orders.length} order(s)`,
  });
}

/** Unsigned `incrementCounter()`: voids every order of the wallet signed with the current counter. */
export function incrementCounterTx(target: Omit<HardCancelTarget, 'offerer'>): TxRequest {
  return Object.freeze({
    chainId: target.chainId,
    to: target.protocolAddress,
    data: seaport.encodeFunctionData('incrementCounter', []),
    value: 0n,
    purpose: 'seaport incrementCounter (cancel all orders)',
  });
}

/**
 * After an off-chain cancel: the answer's `last_signature_issued_valid_until` says until when a
 * fulfillment signature issued before the cancel can still be used (epoch ms). The cancel is
 * assured once that time has passed; before that, cancel on chain if the order must not fill.
 */
export function signatureValidUntilMs(response: {
  readonly last_signature_issued_valid_until: string;
}): number {
  const ms = Date.parse(response.last_signature_issued_valid_until);
  if (!Number.isFinite(ms)) {
    throw new RejectedError('seaport_bad_cancel_response', 'last_signature_issued_valid_until is not a date');
  }
  return ms;
}

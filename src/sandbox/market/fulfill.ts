/**
 * Fulfillment data: the ready-to-sign Seaport call for a listing or an offer, with the zone's
 * authorization for zone-protected orders. Also the request parsing with the API's 400 reasons
 * and the fault injection (`setTamper`) the daemon's calldata guard is tested with.
 */
import type { FulfillListingResponse } from '@opensea/api-types';
import { getAddress, ZeroAddress, ZeroHash } from 'ethers';
import { isHash32 } from '../../domain/ids.ts';
import { HttpError } from '../errors.ts';
import { isFinal, type StoredOrder } from './book.ts';
import { checkChain, checkProtocolAddress, type MarketContext, sameAddress } from './context.ts';
import { tokenMatches } from './criteria.ts';
import {
  type ConsiderationItem,
  fillAmount,
  functionSignature,
  ItemType,
  type OfferItem,
  OrderType,
  ParseError,
  parseAddress,
  parseUint,
  type ReceivedItem,
  wireParameters,
} from './seaport.ts';
import type { FulfillmentTamper, OrderSide } from './types.ts';

export const FULFILLMENT_PROTOCOL = 'seaport1.6';
/** Where tampered responses send things (an address nobody controls in the sandbox). */
export const TAMPER_ADDRESS = getAddress('0x00000000000000000000000000000000000bad00');
/** Look-ahead for the ETH value of ascending-price orders (seconds). */
const ASCENDING_BUFFER_SEC = 300n;

/** A 400 of the fulfillment endpoints: the response keeps the fulfillment shape. */
export function fulfillmentError(reason: string): HttpError {
  return new HttpError(400, reason, { protocol: FULFILLMENT_PROTOCOL, fulfillment_data: null });
}

/** Re-throws a 400 from a shared check with the fulfillment shape. */
function asFulfillmentError<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof HttpError && e.status === 400) throw fulfillmentError(e.reasons.join('; '));
    if (e instanceof ParseError) throw fulfillmentError(e.message);
    throw e;
  }
}

export interface FulfillmentRequest {
  readonly side: OrderSide;
  readonly hash: string;
  readonly chain: string;
  readonly protocolAddress: string;
  readonly fulfiller: string;
  readonly consideration?: { readonly contract: string; readonly tokenId: bigint };
  readonly recipient?: string;
  readonly units?: bigint;
  readonly includeOptionalCreatorFees: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses and checks the request envelope (chain, protocol address); 400 with the reason. */
export function parseFulfillmentRequest(
  ctx: MarketContext,
  side: OrderSide,
  body: unknown,
): FulfillmentRequest {
  return asFulfillmentError(() => {
    if (!isRecord(body)) throw new ParseError('request invalid: the body must be a JSON object');
    const ref = body[side];
    if (!isRecord(ref))
      throw new ParseError(`request invalid: '${side}' {hash, chain, protocol_address} is required`);
    if (!isHash32(ref.hash)) {
      throw new ParseError(`request invalid: ${side}.hash must be a 32-byte order hash`);
    }
    checkChain(ctx, ref.chain, `${side}.chain`);
    checkProtocolAddress(ctx, ref.protocol_address, `${side}.protocol_address`);
    const fulfiller = body.fulfiller;
    if (!isRecord(fulfiller)) throw new ParseError('request invalid: fulfiller {address} is required');
    const address = parseAddress(fulfiller.address, 'request invalid: fulfiller.address');
    if (address === ZeroAddress)
      throw new ParseError('request invalid: fulfiller.address is the zero address');
    let consideration: FulfillmentRequest['consideration'];
    if (body.consideration !== undefined && body.consideration !== null) {
      const c = body.consideration;
      if (!isRecord(c))
        throw new ParseError('request invalid: consideration must be {asset_contract_address, token_id}');
      consideration = {
        contract: parseAddress(
          c.asset_contract_address,
          'request invalid: consideration.asset_contract_address',
        ),
        tokenId: parseUint(c.token_id, 'request invalid: consideration.token_id'),
      };
    }
    let recipient: string | undefined;
    if (body.recipient !== undefined && body.recipient !== null && body.recipient !== '') {
      recipient = parseAddress(body.recipient, 'request invalid: recipient');
    }
    let units: bigint | undefined;
    if (body.units_to_fill !== undefined && body.units_to_fill !== null) {
      units = parseUint(body.units_to_fill, 'request invalid: units_to_fill');
      if (units === 0n) throw new ParseError('request invalid: units_to_fill must be at least 1');
    }
    const optional = body.include_optional_creator_fees;
    if (optional !== undefined && optional !== null && typeof optional !== 'boolean') {
      throw new ParseError('request invalid: include_optional_creator_fees must be a boolean');
    }
    return {
      side,
      hash: ref.hash.toLowerCase(),
      chain: ref.chain as string,
      protocolAddress: ref.protocol_address as string,
      fulfiller: address,
      ...(consideration ? { consideration } : {}),
      ...(recipient ? { recipient } : {}),
      ...(units !== undefined ? { units } : {}),
      includeOptionalCreatorFees: optional === true,
    };
  });
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

const wireOfferItem = (i: OfferItem) => ({
  itemType: i.itemType,
  token: i.token,
  identifierOrCriteria: i.identifierOrCriteria.toString(),
  startAmount: i.startAmount.toString(),
  endAmount: i.endAmount.toString(),
});
const wireConsiderationItem = (i: ConsiderationItem) => ({ ...wireOfferItem(i), recipient: i.recipient });

export interface Plan {
  readonly order: StoredOrder;
  readonly numerator: bigint;
  readonly denominator: bigint;
  /** The consideration items as they go on chain (the signed ones plus any tips). */
  readonly consideration: ConsiderationItem[];
  readonly tokenId: bigint;
  readonly proof?: string[];
}

/** Checks the order can be filled as requested and settles numerator/denominator/token. */
export async function planFulfillment(
  ctx: MarketContext,
  o: StoredOrder,
  req: FulfillmentRequest,
): Promise<Plan> {
  if (o.side !== req.side) {
    throw fulfillmentError(
      `order_hash ${o.hash} is ${o.side === 'listing' ? 'a listing' : 'an offer'}, not ${req.side === 'listing' ? 'a listing' : 'an offer'}`,
    );
  }
  if (o.status !== 'ACTIVE') throw fulfillmentError(`order ${o.hash} is not active (status ${o.status})`);
  const c = o.components;
  const nowSec = ctx.reader.now();
  if (c.startTime > nowSec + 15n)
    throw fulfillmentError(`order ${o.hash} has not started yet (startTime ${c.startTime})`);
  const partial = c.orderType === OrderType.PARTIAL_OPEN || c.orderType === OrderType.PARTIAL_RESTRICTED;
  const is721 = o.collection.standard === 'erc721';
  const units = req.units ?? (partial ? 1n : o.remaining);
  if (units > o.remaining) {
    throw fulfillmentError(`units_to_fill ${units} exceeds the remaining quantity ${o.remaining}`);
  }
  if (!partial && units !== o.quantity) {
    throw fulfillmentError(
      `order ${o.hash} does not allow partial fills; units_to_fill must be ${o.quantity}`,
    );
  }
  if (o.side === 'offer' && is721 && o.quantity > 1n && units !== 1n) {
    throw fulfillmentError('an ERC721 offer is filled one token per fulfillment; units_to_fill must be 1');
  }
  const g = gcd(units, o.quantity);
  const numerator = units / g;
  const denominator = o.quantity / g;

  let tokenId: bigint;
  let proof: string[] | undefined;
  if (o.side === 'listing') {
    tokenId = o.tokenId as bigint;
  } else {
    const want = req.consideration;
    if (o.tokenId !== undefined) {
      if (want && (!sameAddress(want.contract, o.collection.contract) || want.tokenId !== o.tokenId)) {
        throw fulfillmentError(
          `consideration does not match the offer's NFT (${o.collection.contract} #${o.tokenId})`,
        );
      }
      tokenId = o.tokenId;
    } else {
      if (!want) {
        throw fulfillmentError(
          'consideration {asset_contract_address, token_id} is required to fulfill a criteria offer',
        );
      }
      if (!sameAddress(want.contract, o.collection.contract)) {
        throw fulfillmentError(
          `consideration.asset_contract_address is not the contract of collection '${o.collection.slug}'`,
        );
      }
      tokenId = want.tokenId;
      const res = o.resolution;
      if (res?.tree) {
        proof = res.tree.proof(tokenId);
        if (!proof) throw fulfillmentError(`token ${tokenId} is not in the offer's criteria`);
      } else if (o.criteria && o.criteria.traits.length + o.criteria.numericTraits.length > 0) {
        // Criteria '0' trait offer: the marketplace checks the traits before it signs.
        if (!tokenMatches(ctx.catalog, o.criteria, tokenId)) {
          throw fulfillmentError(`token ${tokenId} does not match the trait criteria`);
        }
      }
    }
    // The fulfiller must hold what they sell.
    if (is721) {
      const owner = await ctx.reader.ownerOf(o.collection.contract, tokenId);
      if (owner === undefined)
        throw fulfillmentError(`token ${tokenId} of '${o.collection.slug}' does not exist`);
      if (!sameAddress(owner, req.fulfiller)) {
        throw fulfillmentError(`the fulfiller does not own token ${tokenId} of '${o.collection.slug}'`);
      }
    } else {
      const need = (o.quantity * numerator) / denominator;
      const bal = await ctx.reader.balanceOf1155(o.collection.contract, req.fulfiller, tokenId);
      if (bal < need)
        throw fulfillmentError(`the fulfiller holds ${bal} of token ${tokenId}, the fill needs ${need}`);
    }
  }

  // Optional creator fees (tips), for whole fills of listings only.
  const consideration = [...c.consideration];
  if (req.includeOptionalCreatorFees && o.side === 'listing' && numerator === denominator) {
    const base = c.consideration.reduce((s, i) => s + i.startAmount, 0n);
    for (const f of o.collection.fees) {
      if (f.required) continue;
      if (c.consideration.some((i) => sameAddress(i.recipient, f.recipient))) continue;
      const amount = (base * BigInt(Math.round(f.fee * 100))) / 10000n;
      if (amount === 0n) continue;
      const first = c.consideration[0] as ConsiderationItem;
      consideration.push({
        itemType: first.itemType,
        token: first.token,
        identifierOrCriteria: 0n,
        startAmount: amount,
        endAmount: amount,
        recipient: getAddress(f.recipient),
      });
    }
  }
  // Every amount must split exactly (Seaport reverts with InexactFraction otherwise).
  for (const it of [...c.offer, ...consideration]) {
    if (fillAmount(it, c, numerator, denominator, nowSec, true) === undefined) {
      throw fulfillmentError(`units_to_fill ${units} does not divide the order's amounts evenly`);
    }
  }
  return { order: o, numerator, denominator, consideration, tokenId, ...(proof ? { proof } : {}) };
}

/** The consideration as the zone sees it (ReceivedItem[]) for a fill at chain time `now`. */
export function resolvedConsideration(plan: Plan, now: bigint): ReceivedItem[] {
  const c = plan.order.components;
  return plan.consideration.map((it, i) => {
    const criteria =
      it.itemType === ItemType.ERC721_WITH_CRITERIA || it.itemType === ItemType.ERC1155_WITH_CRITERIA;
    const isNft = plan.order.side === 'offer' && i === plan.order.nftIndex;
    return {
      itemType: criteria ? it.itemType - 2 : it.itemType,
      token: it.token,
      identifier: criteria || isNft ? plan.tokenId : it.identifierOrCriteria,
      amount: fillAmount(it, c, plan.numerator, plan.denominator, now, true) as bigint,
      recipient: it.recipient,
    };
  });
}

function nativeValue(plan: Plan, now: bigint): bigint {
  const c = plan.order.components;
  let max = 0n;
  for (const t of [now, now + ASCENDING_BUFFER_SEC]) {
    let sum = 0n;
    for (const it of plan.consideration) {
      if (it.itemType === ItemType.NATIVE)
        sum += fillAmount(it, c, plan.numerator, plan.denominator, t, true) as bigint;
    }
    if (sum > max) max = sum;
  }
  return max;
}

function basicEligible(plan: Plan, req: FulfillmentRequest): boolean {
  const o = plan.order;
  const c = o.components;
  if (o.side !== 'listing' || o.zoned) return false;
  if (c.orderType !== OrderType.FULL_OPEN && c.orderType !== OrderType.PARTIAL_OPEN) return false;
  if (plan.numerator !== plan.denominator || o.remaining !== o.quantity) return false;
  if (req.recipient !== undefined && !sameAddress(req.recipient, req.fulfiller)) return false;
  const first = plan.consideration[0];
  if (!first || !sameAddress(first.recipient, c.offerer)) return false;
  const items: OfferItem[] = [...c.offer, ...plan.consideration];
  if (items.some((i) => i.startAmount !== i.endAmount)) return false;
  return plan.consideration.every(
    (i) => i.itemType === ItemType.NATIVE && i.token === ZeroAddress && i.identifierOrCriteria === 0n,
  );
}

/**
 * Builds the fulfillment response; `tamper` corrupts it as named (fault injection). The zone
 * authorization of a zone-protected order expires `zoneSignatureTtlSec` from now, or at
 * `zoneExpiration` (chain time, s) when given (the cancel-window fault).
 */
export async function buildFulfillment(
  ctx: MarketContext,
  plan: Plan,
  req: FulfillmentRequest,
  fulfillerConduitKey: string,
  tamper: FulfillmentTamper,
  zoneExpiration?: bigint,
): Promise<FulfillListingResponse> {
  const o = plan.order;
  const c = o.components;
  const now = ctx.reader.now();
  const orders = [{ parameters: wireParameters(c), signature: o.signature }];

  if (tamper === 'extra_item') {
    // An extra consideration item (a "tip" beyond the signed ones) that pays the attacker.
    const first =
      c.consideration.find((i) => i.itemType <= ItemType.ERC20) ?? (c.consideration[0] as ConsiderationItem);
    const amount =
      o.side === 'listing' ? (first.startAmount > 0n ? first.startAmount : 10n ** 16n) : 10n ** 16n;
    plan.consideration.push({
      itemType: o.side === 'listing' ? first.itemType : ItemType.ERC20,
      token: o.side === 'listing' ? first.token : ctx.weth,
      identifierOrCriteria: 0n,
      startAmount: amount,
      endAmount: amount,
      recipient: TAMPER_ADDRESS,
    });
  }

  let fn: string;
  let inputData: Record<string, unknown>;
  let value = o.side === 'listing' ? nativeValue(plan, now) : 0n;

  if (basicEligible(plan, req) && tamper !== 'recipient') {
    const offer = c.offer[0] as OfferItem;
    const [first, ...rest] = plan.consideration as [ConsiderationItem, ...ConsiderationItem[]];
    fn = functionSignature('fulfillBasicOrder_efficient_6GL6yc');
    inputData = {
      parameters: {
        considerationToken: ZeroAddress,
        considerationIdentifier: '0',
        considerationAmount: first.startAmount.toString(),
        offerer: c.offerer,
        zone: c.zone,
        offerToken: offer.token,
        offerIdentifier: offer.identifierOrCriteria.toString(),
        offerAmount: offer.startAmount.toString(),
        // BasicOrderRouteType ETH_TO_ERC721 = 0, ETH_TO_ERC1155 = 1; basicOrderType = route × 4 + orderType.
        basicOrderType: (offer.itemType === ItemType.ERC721 ? 0 : 4) + c.orderType,
        startTime: c.startTime.toString(),
        endTime: c.endTime.toString(),
        zoneHash: c.zoneHash,
        salt: c.salt.toString(),
        offererConduitKey: c.conduitKey,
        fulfillerConduitKey: ZeroHash,
        totalOriginalAdditionalRecipients: c.totalOriginalConsiderationItems - 1,
        additionalRecipients: rest.map((r) => ({ amount: r.startAmount.toString(), recipient: r.recipient })),
        signature: o.signature,
      },
    };
  } else {
    let extraData = '0x';
    if (o.zoned) {
      const expiration = zoneExpiration ?? now + BigInt(ctx.zoneSignatureTtlSec);
      extraData = await ctx.zoneSigner.authorize({
        fulfiller: req.fulfiller,
        orderHash: o.hash,
        consideration: resolvedConsideration(plan, now),
        expiration,
      });
      if (o.lastSignatureExpiry === undefined || expiration > o.lastSignatureExpiry)
        o.lastSignatureExpiry = expiration;
    }
    const criteriaResolvers =
      o.side === 'offer' && o.tokenId === undefined
        ? [
            {
              orderIndex: 0,
              side: 1, // Side.CONSIDERATION
              index: o.nftIndex,
              identifier: plan.tokenId.toString(),
              criteriaProof: plan.proof ?? [],
            },
          ]
        : [];
    let recipient = o.side === 'listing' ? (req.recipient ?? req.fulfiller) : req.fulfiller;
    if (tamper === 'recipient') recipient = TAMPER_ADDRESS;
    fn = functionSignature('fulfillAdvancedOrder');
    inputData = {
      advancedOrder: {
        parameters: {
          offerer: c.offerer,
          zone: c.zone,
          offer: c.offer.map(wireOfferItem),
          consideration: plan.consideration.map(wireConsiderationItem),
          orderType: c.orderType,
          startTime: c.startTime.toString(),
          endTime: c.endTime.toString(),
          zoneHash: c.zoneHash,
          salt: c.salt.toString(),
          conduitKey: c.conduitKey,
          totalOriginalConsiderationItems: c.totalOriginalConsiderationItems,
        },
        numerator: Number(plan.numerator),
        denominator: Number(plan.denominator),
        signature: o.signature,
        extraData,
      },
      criteriaResolvers,
      fulfillerConduitKey,
      recipient,
    };
  }
  if (tamper === 'value') value = value === 0n ? 10n ** 18n : value * 10n;
  const to = tamper === 'target' ? ctx.conduit : ctx.seaport;
  const out = {
    protocol: FULFILLMENT_PROTOCOL,
    fulfillment_data: {
      transaction: {
        function: fn,
        chain: ctx.chainId,
        to,
        value: value.toString(),
        value_hex: `0x${value.toString(16)}`,
        input_data: inputData,
      },
      orders,
    },
  };
  return out as unknown as FulfillListingResponse;
}

/** Refuses orders in a final state before any chain read. */
export function assertNotFinal(o: StoredOrder): void {
  if (isFinal(o.status)) throw fulfillmentError(`order ${o.hash} is not active (status ${o.status})`);
}

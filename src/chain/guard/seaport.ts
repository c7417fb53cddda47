/**
 * Seaport 1.6 fulfillment calls: decoded into one normalized order fill (basic, plain and
 * advanced orders alike), then checked against a buy-listing or accept-offer intent. Pure.
 */

import { keccak_256 } from '@noble/hashes/sha3.js';
import { TypedDataEncoder, type TypedDataField } from 'ethers';
import { ItemType, seaportOrderTypes } from '../../domain/seaport.ts';
import type { DecodedCall } from './calldata.ts';
import { isNative, sameAddress, ZERO_ADDRESS } from './calldata.ts';
import { reject } from './reasons.ts';
import type { AcceptOfferIntent, BuyListingIntent } from './types.ts';

export interface FillItem {
  readonly itemType: number;
  readonly token: string;
  readonly identifierOrCriteria: bigint;
  readonly startAmount: bigint;
  readonly endAmount: bigint;
}
export interface FillConsiderationItem extends FillItem {
  readonly recipient: string;
}
export interface FillResolver {
  readonly orderIndex: bigint;
  readonly side: number;
  readonly index: bigint;
  readonly identifier: bigint;
}

/** One Seaport order fill, whatever function carries it. */
export interface SeaportFill {
  readonly function: 'basic' | 'order' | 'advanced';
  readonly offerer: string;
  readonly zone: string;
  readonly offer: readonly FillItem[];
  readonly consideration: readonly FillConsiderationItem[];
  readonly orderType: number;
  readonly startTime: bigint;
  readonly endTime: bigint;
  readonly zoneHash: string;
  readonly salt: bigint;
  readonly conduitKey: string;
  /** Consideration items the offerer signed; the rest are tips added by the fulfiller. */
  readonly totalOriginalConsiderationItems: bigint;
  readonly numerator: bigint;
  readonly denominator: bigint;
  readonly criteriaResolvers: readonly FillResolver[];
  readonly fulfillerConduitKey: string;
  /** Who receives the offer items; `undefined` = the sender (basic orders, `fulfillOrder`). */
  readonly recipient: string | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: decoded arguments are plain untyped values
type R = any;

const item = (i: R): FillItem => ({
  itemType: Number(i.itemType),
  token: String(i.token).toLowerCase(),
  identifierOrCriteria: BigInt(i.identifierOrCriteria),
  startAmount: BigInt(i.startAmount),
  endAmount: BigInt(i.endAmount),
});
const considerationItem = (i: R): FillConsiderationItem => ({
  ...item(i),
  recipient: String(i.recipient).toLowerCase(),
});

function fromParameters(p: R) {
  return {
    offerer: String(p.offerer).toLowerCase(),
    zone: String(p.zone).toLowerCase(),
    offer: (p.offer as R[]).map(item),
    consideration: (p.consideration as R[]).map(considerationItem),
    orderType: Number(p.orderType),
    startTime: BigInt(p.startTime),
    endTime: BigInt(p.endTime),
    zoneHash: String(p.zoneHash).toLowerCase(),
    salt: BigInt(p.salt),
    conduitKey: String(p.conduitKey).toLowerCase(),
    totalOriginalConsiderationItems: BigInt(p.totalOriginalConsiderationItems),
  };
}

/** Basic order route (basicOrderType / 4): what is offered and what is paid. */
const BASIC_ROUTES: Readonly<Record<number, { offer: number; consideration: number }>> = {
  0: { offer: ItemType.ERC721, consideration: ItemType.NATIVE },
  1: { offer: ItemType.ERC1155, consideration: ItemType.NATIVE },
  2: { offer: ItemType.ERC721, consideration: ItemType.ERC20 },
  3: { offer: ItemType.ERC1155, consideration: ItemType.ERC20 },
  4: { offer: ItemType.ERC20, consideration: ItemType.ERC721 },
  5: { offer: ItemType.ERC20, consideration: ItemType.ERC1155 },
};

function fromBasic(p: R): SeaportFill {
  const type = Number(p.basicOrderType);
  const route = BASIC_ROUTES[Math.floor(type / 4)];
  if (!route) return reject('malformed_calldata', `basicOrderType ${type} is out of range`);
  const offerer = String(p.offerer).toLowerCase();
  const offerToken = String(p.offerToken).toLowerCase();
  const considerationToken = String(p.considerationToken).toLowerCase();
  const nftIsOffer = route.offer !== ItemType.ERC20;
  // Additional recipients are paid in the payment token: the consideration's for a buy, the
  // offer's (ERC20) for an accepted offer.
  const payItemType = nftIsOffer ? route.consideration : ItemType.ERC20;
  const payToken = nftIsOffer ? considerationToken : offerToken;
  const amt = (v: R) => BigInt(v);
  const additional = (p.additionalRecipients as R[]).map(
    (r): FillConsiderationItem => ({
      itemType: payItemType,
      token: payToken,
      identifierOrCriteria: 0n,
      startAmount: amt(r.amount),
      endAmount: amt(r.amount),
      recipient: String(r.recipient).toLowerCase(),
    }),
  );
  return {
    function: 'basic',
    offerer,
    zone: String(p.zone).toLowerCase(),
    offer: [
      {
        itemType: route.offer,
        token: offerToken,
        identifierOrCriteria: amt(p.offerIdentifier),
        startAmount: amt(p.offerAmount),
        endAmount: amt(p.offerAmount),
      },
    ],
    consideration: [
      {
        itemType: route.consideration,
        token: considerationToken,
        identifierOrCriteria: amt(p.considerationIdentifier),
        startAmount: amt(p.considerationAmount),
        endAmount: amt(p.considerationAmount),
        recipient: offerer,
      },
      ...additional,
    ],
    orderType: type % 4,
    startTime: amt(p.startTime),
    endTime: amt(p.endTime),
    zoneHash: String(p.zoneHash).toLowerCase(),
    salt: amt(p.salt),
    conduitKey: String(p.offererConduitKey).toLowerCase(),
    totalOriginalConsiderationItems: amt(p.totalOriginalAdditionalRecipients) + 1n,
    numerator: 1n,
    denominator: 1n,
    criteriaResolvers: [],
    fulfillerConduitKey: String(p.fulfillerConduitKey).toLowerCase(),
    recipient: undefined,
  };
}

/** Normalizes a decoded Seaport single-order fulfillment; other functions are the caller's to refuse. */
export function seaportFill(call: DecodedCall): SeaportFill {
  const a = call.args;
  const name = call.known.fragment.name;
  if (name === 'fulfillBasicOrder' || name === 'fulfillBasicOrder_efficient_6GL6yc') {
    return fromBasic((a as R).parameters);
  }
  if (name === 'fulfillOrder') {
    const o = (a as R).order;
    return {
      function: 'order',
      ...fromParameters(o.parameters),
      numerator: 1n,
      denominator: 1n,
      criteriaResolvers: [],
      fulfillerConduitKey: String((a as R).fulfillerConduitKey).toLowerCase(),
      recipient: undefined,
    };
  }
  if (name === 'fulfillAdvancedOrder') {
    const o = (a as R).advancedOrder;
    return {
      function: 'advanced',
      ...fromParameters(o.parameters),
      numerator: BigInt(o.numerator),
      denominator: BigInt(o.denominator),
      criteriaResolvers: ((a as R).criteriaResolvers as R[]).map((r) => ({
        orderIndex: BigInt(r.orderIndex),
        side: Number(r.side),
        index: BigInt(r.index),
        identifier: BigInt(r.identifier),
      })),
      fulfillerConduitKey: String((a as R).fulfillerConduitKey).toLowerCase(),
      recipient: String((a as R).recipient).toLowerCase(),
    };
  }
  return reject('function_not_allowed', `${call.known.signature} is not a single-order fulfillment`, {
    function: call.known.signature,
  });
}

// ── order hash ─────────────────────────────────────────────────────────────────────────────

const ORDER_COMPONENTS_TYPES: Record<string, TypedDataField[]> = seaportOrderTypes();
const typeEncoder = TypedDataEncoder.from(ORDER_COMPONENTS_TYPES);
const typeHash = (name: string) => Buffer.from(keccak_256(Buffer.from(typeEncoder.encodeType(name), 'utf8')));
const ORDER_TYPEHASH = typeHash('OrderComponents');
const OFFER_ITEM_TYPEHASH = typeHash('OfferItem');
const CONSIDERATION_ITEM_TYPEHASH = typeHash('ConsiderationItem');

const uintWord = (v: bigint): Buffer => Buffer.from(v.toString(16).padStart(64, '0'), 'hex');
const addrWord = (a: string): Buffer => Buffer.from(a.slice(2).padStart(64, '0'), 'hex');
const bytes32Word = (h: string): Buffer => Buffer.from(h.slice(2).padStart(64, '0'), 'hex');
const hashWords = (words: readonly Buffer[]): Buffer => Buffer.from(keccak_256(Buffer.concat(words)));

function itemHash(i: FillItem, recipient?: string): Buffer {
  const words = [
    recipient === undefined ? OFFER_ITEM_TYPEHASH : CONSIDERATION_ITEM_TYPEHASH,
    uintWord(BigInt(i.itemType)),
    addrWord(i.token),
    uintWord(i.identifierOrCriteria),
    uintWord(i.startAmount),
    uintWord(i.endAmount),
  ];
  if (recipient !== undefined) words.push(addrWord(recipient));
  return hashWords(words);
}

/**
 * The Seaport order hash (EIP-712 struct hash of OrderComponents) of the signed part of a fill:
 * the offer and the first `totalOriginalConsiderationItems` consideration items.
 */
export function fillOrderHash(f: SeaportFill, counter: bigint): string {
  const original = f.consideration.slice(0, Number(f.totalOriginalConsiderationItems));
  const h = hashWords([
    ORDER_TYPEHASH,
    addrWord(f.offerer),
    addrWord(f.zone),
    hashWords(f.offer.map((i) => itemHash(i))),
    hashWords(original.map((i) => itemHash(i, i.recipient))),
    uintWord(BigInt(f.orderType)),
    uintWord(f.startTime),
    uintWord(f.endTime),
    bytes32Word(f.zoneHash),
    uintWord(f.salt),
    bytes32Word(f.conduitKey),
    uintWord(counter),
  ]);
  return `0x${h.toString('hex')}`;
}

// ── checks ─────────────────────────────────────────────────────────────────────────────────

export interface SeaportPolicy {
  /** Allowed fulfiller conduit keys (lower-case). */
  readonly conduitKeys: ReadonlySet<string>;
  /** Allowlisted fee recipients (lower-case). */
  readonly feeRecipients: ReadonlySet<string>;
}

export interface SeaportFacts {
  readonly orderHash?: string;
  readonly paid?: bigint;
  readonly proceeds?: bigint;
  readonly [k: string]: unknown;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const maxAmount = (i: FillItem) => (i.startAmount > i.endAmount ? i.startAmount : i.endAmount);
const minAmount = (i: FillItem) => (i.startAmount < i.endAmount ? i.startAmount : i.endAmount);

function checkFraction(f: SeaportFill): void {
  if (f.denominator === 0n || f.numerator === 0n || f.numerator > f.denominator) {
    reject('bad_fraction', `fill fraction ${f.numerator}/${f.denominator} is out of range`, {
      numerator: f.numerator.toString(),
      denominator: f.denominator.toString(),
    });
  }
}

function checkConduit(f: SeaportFill, policy: SeaportPolicy): void {
  if (!policy.conduitKeys.has(f.fulfillerConduitKey)) {
    reject('conduit_not_allowed', `fulfiller conduit key ${f.fulfillerConduitKey} is not allowlisted`, {
      fulfillerConduitKey: f.fulfillerConduitKey,
    });
  }
}

function checkRecipient(f: SeaportFill, recipient: string, sender: string): void {
  // Seaport sends offer items to msg.sender when the recipient is the zero address.
  const effective = f.recipient === undefined || f.recipient === ZERO_ADDRESS ? sender : f.recipient;
  if (!sameAddress(effective, recipient)) {
    reject('recipient_mismatch', `the fill sends the offer items to ${effective}, not to ${recipient}`, {
      recipient: effective,
      expected: recipient.toLowerCase(),
    });
  }
}

function checkOrderHash(
  f: SeaportFill,
  expected: string | undefined,
  counter: bigint | undefined,
): string | undefined {
  if (expected === undefined) return counter === undefined ? undefined : fillOrderHash(f, counter);
  if (counter === undefined) {
    return reject('order_hash_mismatch', 'no order counter to recompute the order hash with', {
      expected: expected.toLowerCase(),
    });
  }
  const got = fillOrderHash(f, counter);
  if (got !== expected.toLowerCase()) {
    reject(
      'order_hash_mismatch',
      `the order in the calldata hashes to ${got}, not ${expected.toLowerCase()}`,
      {
        orderHash: got,
        expected: expected.toLowerCase(),
      },
    );
  }
  return got;
}

function checkNftItem(
  itemType: number,
  token: string,
  id: bigint | undefined,
  nft: BuyListingIntent['nft'],
): void {
  const is721 = itemType === ItemType.ERC721 || itemType === ItemType.ERC721_WITH_CRITERIA;
  const is1155 = itemType === ItemType.ERC1155 || itemType === ItemType.ERC1155_WITH_CRITERIA;
  if (!is721 && !is1155) {
    reject('nft_mismatch', `item type ${itemType} is not an NFT`, { itemType });
  }
  if ((nft.standard === 'erc721' && !is721) || (nft.standard === 'erc1155' && !is1155)) {
    reject('nft_mismatch', `item type ${itemType} is not ${nft.standard}`, { itemType });
  }
  if (!sameAddress(token, nft.contract)) {
    reject('nft_mismatch', `NFT contract ${token} is not ${nft.contract.toLowerCase()}`, {
      contract: token,
      expected: nft.contract.toLowerCase(),
    });
  }
  if (id !== undefined && id !== nft.identifier) {
    reject('nft_mismatch', `token id ${id} is not ${nft.identifier}`, {
      identifier: id.toString(),
      expected: nft.identifier.toString(),
    });
  }
}

function checkQuantity(amount: bigint, f: SeaportFill, want: bigint): void {
  // Seaport requires amount × numerator to divide evenly by the denominator.
  const units = (amount * f.numerator) / f.denominator;
  if (units !== want || (amount * f.numerator) % f.denominator !== 0n) {
    reject('quantity_mismatch', `the fill moves ${units} unit(s) of the NFT, not ${want}`, {
      units: units.toString(),
      expected: want.toString(),
    });
  }
}

function checkPaymentItem(i: FillItem, paymentToken: string, where: string): void {
  const native = isNative(paymentToken);
  const ok = native
    ? i.itemType === ItemType.NATIVE && i.token === ZERO_ADDRESS
    : i.itemType === ItemType.ERC20 && sameAddress(i.token, paymentToken);
  if (!ok) {
    if (i.itemType > ItemType.ERC20) {
      reject('unexpected_consideration_item', `${where} is an NFT (item type ${i.itemType}), not a payment`, {
        itemType: i.itemType,
        token: i.token,
      });
    }
    reject('payment_token_mismatch', `${where} pays in ${i.token}, not ${paymentToken.toLowerCase()}`, {
      itemType: i.itemType,
      token: i.token,
      expected: paymentToken.toLowerCase(),
    });
  }
}

/** Checks a fill against a buy-listing intent; returns the facts established. */
export function checkBuyListing(
  f: SeaportFill,
  intent: BuyListingIntent,
  policy: SeaportPolicy,
  value: bigint,
  counter: bigint | undefined,
): SeaportFacts {
  checkFraction(f);
  if (f.offer.length !== 1) {
    reject(
      'unexpected_offer_item',
      `the order offers ${f.offer.length} items; a listing offers exactly the NFT`,
      {
        items: f.offer.length,
      },
    );
  }
  const o = f.offer[0] as FillItem;
  if (o.itemType !== ItemType.ERC721 && o.itemType !== ItemType.ERC1155) {
    reject(
      'nft_mismatch',
      `the listed item has item type ${o.itemType}, not a specific ERC721/ERC1155 token`,
      {
        itemType: o.itemType,
      },
    );
  }
  checkNftItem(o.itemType, o.token, o.identifierOrCriteria, intent.nft);
  if (o.startAmount !== o.endAmount) reject('quantity_mismatch', 'the listed NFT amount varies over time');
  checkQuantity(o.startAmount, f, intent.quantity ?? 1n);
  if (f.criteriaResolvers.length > 0) {
    reject('criteria_mismatch', 'a listing fill carries criteria resolvers', {
      resolvers: f.criteriaResolvers.length,
    });
  }
  checkRecipient(f, intent.recipient, intent.recipient);
  checkConduit(f, policy);
  let paid = 0n;
  f.consideration.forEach((c, i) => {
    checkPaymentItem(c, intent.paymentToken, `consideration item ${i}`);
    if (c.recipient !== f.offerer && !policy.feeRecipients.has(c.recipient)) {
      reject(
        'unknown_consideration_recipient',
        `consideration item ${i} pays ${c.recipient}, neither the seller nor a fee recipient`,
        {
          index: i,
          recipient: c.recipient,
        },
      );
    }
    paid += ceilDiv(maxAmount(c) * f.numerator, f.denominator);
  });
  if (paid > intent.maxPrice) {
    reject('price_above_max', `the fill pays ${paid}, above the maximum ${intent.maxPrice}`, {
      paid: paid.toString(),
      maxPrice: intent.maxPrice.toString(),
    });
  }
  const cap = isNative(intent.paymentToken) ? intent.maxPrice : 0n;
  if (value > cap) {
    reject('value_above_cap', `value ${value} exceeds the cap ${cap}`, {
      value: value.toString(),
      cap: cap.toString(),
    });
  }
  const orderHash = checkOrderHash(f, intent.orderHash, counter);
  return { ...(orderHash ? { orderHash } : {}), paid };
}

/** Checks a fill against an accept-offer intent; returns the facts established. */
export function checkAcceptOffer(
  f: SeaportFill,
  intent: AcceptOfferIntent,
  policy: SeaportPolicy,
  value: bigint,
  counter: bigint | undefined,
): SeaportFacts {
  checkFraction(f);
  if (isNative(intent.paymentToken))
    reject('intent_invalid', 'an offer pays in an ERC20, not the native coin');
  if (f.offer.length !== 1) {
    reject('unexpected_offer_item', `the offer holds ${f.offer.length} items; expected exactly the payment`, {
      items: f.offer.length,
    });
  }
  const o = f.offer[0] as FillItem;
  checkPaymentItem(o, intent.paymentToken, 'the offer item');
  const received = (minAmount(o) * f.numerator) / f.denominator;

  let nftIndex = -1;
  let fees = 0n;
  f.consideration.forEach((c, i) => {
    if (c.itemType >= ItemType.ERC721) {
      if (nftIndex >= 0) {
        reject('unexpected_consideration_item', `consideration item ${i} asks for a second NFT`, {
          index: i,
        });
      }
      nftIndex = i;
      const criteria = c.itemType >= ItemType.ERC721_WITH_CRITERIA;
      checkNftItem(c.itemType, c.token, criteria ? undefined : c.identifierOrCriteria, intent.nft);
      if (c.recipient !== f.offerer) {
        reject(
          'unknown_consideration_recipient',
          `the NFT goes to ${c.recipient}, not the offerer ${f.offerer}`,
          {
            index: i,
            recipient: c.recipient,
          },
        );
      }
      if (c.startAmount !== c.endAmount) reject('quantity_mismatch', 'the NFT amount varies over time');
      checkQuantity(c.startAmount, f, intent.quantity ?? 1n);
      return;
    }
    checkPaymentItem(c, intent.paymentToken, `consideration item ${i}`);
    if (!policy.feeRecipients.has(c.recipient)) {
      reject(
        'unknown_consideration_recipient',
        `consideration item ${i} pays ${c.recipient}, not an allowlisted fee recipient`,
        {
          index: i,
          recipient: c.recipient,
        },
      );
    }
    fees += ceilDiv(maxAmount(c) * f.numerator, f.denominator);
  });
  if (nftIndex < 0) reject('nft_mismatch', 'the offer asks for no NFT');
  const nftItem = f.consideration[nftIndex] as FillConsiderationItem;
  const criteria = nftItem.itemType >= ItemType.ERC721_WITH_CRITERIA;
  if (criteria) {
    const r = f.criteriaResolvers;
    const ok =
      r.length === 1 &&
      r[0]?.orderIndex === 0n &&
      r[0]?.side === 1 &&
      r[0]?.index === BigInt(nftIndex) &&
      r[0]?.identifier === intent.nft.identifier;
    if (!ok) {
      reject(
        'criteria_mismatch',
        `the criteria resolvers do not resolve the NFT item to token ${intent.nft.identifier}`,
        {
          resolvers: r.map((x) => ({
            side: x.side,
            index: x.index.toString(),
            identifier: x.identifier.toString(),
          })),
        },
      );
    }
  } else if (f.criteriaResolvers.length > 0) {
    reject('criteria_mismatch', 'the fill carries criteria resolvers for an order without criteria', {
      resolvers: f.criteriaResolvers.length,
    });
  }
  checkRecipient(f, intent.recipient, intent.recipient);
  checkConduit(f, policy);
  const proceeds = received - fees;
  if (proceeds < intent.minProceeds) {
    reject('proceeds_below_min', `the fill nets ${proceeds}, below the minimum ${intent.minProceeds}`, {
      proceeds: proceeds.toString(),
      minProceeds: intent.minProceeds.toString(),
    });
  }
  if (value !== 0n) {
    reject('value_above_cap', `accepting an offer sends no native value, got ${value}`, {
      value: value.toString(),
    });
  }
  const orderHash = checkOrderHash(f, intent.orderHash, counter);
  return { ...(orderHash ? { orderHash } : {}), proceeds };
}

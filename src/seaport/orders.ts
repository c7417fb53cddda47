/**
 * Building and signing Seaport 1.6 orders locally: listings, item offers, and criteria
 * (collection / trait) offers from `POST /api/v2/offers/build`.
 *
 *   const orders = createSeaportOrders(options, { signer, counters, clock });
 *   const ctx = await orders.prepare();                       // chain time + counter, once per batch
 *   const offers = traits.map((t) => orders.signCriteriaOffer({ build: builds[t], price, fees }, ctx));
 *
 * Everything that is signed is built here from typed inputs; the build endpoint contributes only
 * its NFT criteria item, zone and zoneHash, and each of them is checked first (the zone must be
 * the configured signed zone, the item must ask our own wallet to receive an NFT of the expected
 * contract, the criteria must be the ones we asked for). Fees come from the collection's `fees`
 * with a total cap. The key never leaves the `Signer`.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import type { BuildOfferResponse, CriteriaRequest } from '@opensea/api-types';
import { ConfigError, FatalError, RejectedError } from '../errors/index.ts';
import { ItemType, OrderType, ZERO_ADDRESS, ZERO_BYTES32 } from './constants.ts';
import { type CollectionFee, type FeeBps, feeItems, selectFees } from './fees.ts';
import { createOrderHasher, type OrderHasher } from './hash.ts';
import {
  LOCAL_SIGNER,
  type LocalDigestSigner,
  recoverDigestSigner,
  type Signer,
  signatureHex,
} from './signer.ts';
import type { ConsiderationItem, OfferItem, OrderComponents, SignedOrder } from './types.ts';
import { parseAddress, parseBytes32, parseConsiderationItem } from './wire.ts';

export interface SeaportOptions {
  readonly chainId: number;
  /** The Seaport 1.6 contract (EIP-712 verifyingContract, the API's `protocol_address`). */
  readonly protocolAddress: string;
  /** Conduit key of the configured conduit (its operator receives the approvals). */
  readonly conduitKey: string;
  /** The marketplace's signed zone: offers are zone-protected with it; build responses must name it. */
  readonly signedZone: string;
  /** The ERC20 offers are paid in (WETH). */
  readonly offerToken: string;
  /** Lifetime of offers from chain now, seconds. */
  readonly offerExpirySec: number;
  /** Lifetime of listings from chain now, seconds. Default `offerExpirySec`. */
  readonly listingExpirySec?: number;
  /** startTime = chain now − this, seconds (room for a clock behind the chain). Default 0. */
  readonly startSkewSec?: number;
  /** Cap on the total of collection fees, basis points. Default 2000 (20 %). */
  readonly maxFeeBps?: number;
  /** Pay optional (`required: false`) creator fees too. Default false. */
  readonly includeOptionalFees?: boolean;
}

/** Reads the offerer's Seaport counter on chain (`getCounter(offerer)`). */
export interface CounterReader {
  getCounter(offerer: string): Promise<bigint>;
}

/** Chain time in seconds (the latest block's timestamp, or a clock synced to it). */
export interface ChainClock {
  nowSec(): Promise<bigint> | bigint;
}

export interface SeaportDeps {
  readonly signer: Signer;
  readonly counters: CounterReader;
  readonly clock: ChainClock;
  /** Random bytes for salts. Default `crypto.getRandomValues`. */
  readonly randomBytes?: (length: number) => Uint8Array;
}

/** What one batch of orders shares: chain now and the offerer's counter. */
export interface OrderContext {
  readonly nowSec: bigint;
  readonly counter: bigint;
}

export interface NftRef {
  readonly contract: string;
  readonly tokenId: bigint;
  readonly standard: 'erc721' | 'erc1155';
}

export interface ListingInput {
  readonly nft: NftRef;
  /** Units offered (ERC1155); default 1. */
  readonly quantity?: bigint;
  /** What the buyer pays for all units, fees included (smallest units). */
  readonly price: bigint;
  /** Payment: native ETH (default) or an ERC20. */
  readonly currency?: { readonly itemType: 0 | 1; readonly token: string };
  /** The collection's `fees`. */
  readonly fees: readonly CollectionFee[];
  /** Override of the listing lifetime, seconds. */
  readonly expirySec?: number;
  /** Zone-protect the listing with the signed zone (off-chain cancellable). Default false. */
  readonly signedZone?: boolean;
}

export interface ItemOfferInput {
  readonly nft: NftRef;
  readonly quantity?: bigint;
  /** WETH offered for all units; fees are paid out of it (smallest units). */
  readonly price: bigint;
  readonly fees: readonly CollectionFee[];
  readonly expirySec?: number;
}

export interface CriteriaOfferInput {
  /** The `POST /api/v2/offers/build` response. */
  readonly build: BuildOfferResponse;
  /** WETH offered for all units; fees are paid out of it. */
  readonly price: bigint;
  readonly quantity?: bigint;
  readonly fees: readonly CollectionFee[];
  /** The collection's NFT contract; the build's criteria item must name it. */
  readonly contract?: string;
  /** The criteria that was sent to build; the returned `criteria` must match it. */
  readonly requested?: CriteriaRequest | BuildCriteria;
  readonly expirySec?: number;
}

type BuildCriteria = {
  readonly collection: { readonly slug: string };
  readonly traits?: readonly { readonly type: string; readonly value: string }[];
  readonly trait?: { readonly type: string; readonly value: string };
  readonly numericTraits?: readonly { readonly type: string; readonly min?: number; readonly max?: number }[];
};

export interface SignedCriteriaOffer extends SignedOrder {
  /** The build response's `criteria`, to post with the order (POST /api/v2/offers). */
  readonly criteria: CriteriaRequest;
}

export interface SeaportOrders {
  readonly offerer: string;
  readonly options: Readonly<SeaportOptions>;
  readonly hasher: OrderHasher;
  /** Chain now and the counter, read once; pass to the sign* methods of one batch. */
  prepare(): Promise<OrderContext>;
  signListing(input: ListingInput, ctx: OrderContext): SignedOrder;
  signItemOffer(input: ItemOfferInput, ctx: OrderContext): SignedOrder;
  signCriteriaOffer(input: CriteriaOfferInput, ctx: OrderContext): SignedCriteriaOffer;
  /** Hashes and signs finished components (offerer must be the signer). */
  signComponents(components: OrderComponents): SignedOrder;
  /** prepare() + sign*. */
  listing(input: ListingInput): Promise<SignedOrder>;
  itemOffer(input: ItemOfferInput): Promise<SignedOrder>;
  criteriaOffer(input: CriteriaOfferInput): Promise<SignedCriteriaOffer>;
  /** `offererSignature` for the off-chain cancel endpoint (EIP-712 `OrderHash{orderHash}`). */
  signCancel(orderHash: string): string;
}

const DEFAULT_MAX_FEE_BPS = 2000;

function reject(code: string, message: string, details?: Record<string, unknown>): never {
  throw new RejectedError(code, message, details === undefined ? {} : { details });
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function checkPositive(v: bigint, what: string): void {
  if (typeof v !== 'bigint' || v <= 0n) reject('seaport_bad_amount', `${what} must be a positive bigint`);
}

function checkSeconds(v: number, what: string): bigint {
  if (!Number.isSafeInteger(v) || v <= 0) reject('seaport_bad_expiry', `${what} must be a positive integer`);
  return BigInt(v);
}

function defaultRandom(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

function traitKey(t: { readonly type: string; readonly value: string }): string {
  return `${t.type}\u0000${t.value}`;
}

function traitsOf(c: BuildCriteria | CriteriaRequest): string[] {
  const list = [...(c.traits ?? []), ...(c.trait ? [c.trait] : [])];
  return [...new Set(list.map(traitKey))].sort();
}

function numericOf(c: BuildCriteria | CriteriaRequest): string[] {
  return (c.numericTraits ?? []).map((n) => `${n.type}\u0000${n.min ?? ''}\u0000${n.max ?? ''}`).sort();
}

/** The build response's criteria must be exactly what was asked (a trait offer must not turn into a collection offer). */
function checkCriteria(got: CriteriaRequest, want: BuildCriteria | CriteriaRequest): void {
  if (got?.collection?.slug !== want.collection.slug) {
    reject(
      'seaport_build_mismatch',
      `build criteria is for '${String(got?.collection?.slug)}', not '${want.collection.slug}'`,
    );
  }
  const a = traitsOf(got);
  const b = traitsOf(want);
  const n = numericOf(got);
  const m = numericOf(want);
  if (a.join('\u0001') !== b.join('\u0001') || n.join('\u0001') !== m.join('\u0001')) {
    reject('seaport_build_mismatch', 'build criteria traits differ from the requested traits');
  }
}

/** Options checked at construction: a bad value is a ConfigError naming the option. */
function checkOptions(options: SeaportOptions) {
  try {
    const nonNegative = (v: number | undefined, what: string, dflt: number) => {
      const x = v ?? dflt;
      if (!Number.isSafeInteger(x) || x < 0)
        throw new RejectedError('config', `${what} must be an integer ≥ 0`);
      return BigInt(x);
    };
    if (!Number.isSafeInteger(options.chainId) || options.chainId <= 0) {
      throw new RejectedError('config', 'chainId must be a positive integer');
    }
    return {
      protocol: parseAddress(options.protocolAddress, 'protocolAddress'),
      conduitKey: parseBytes32(options.conduitKey, 'conduitKey'),
      signedZone: parseAddress(options.signedZone, 'signedZone'),
      offerToken: parseAddress(options.offerToken, 'offerToken'),
      offerExpiry: checkSeconds(options.offerExpirySec, 'offerExpirySec'),
      listingExpiry: checkSeconds(options.listingExpirySec ?? options.offerExpirySec, 'listingExpirySec'),
      skew: nonNegative(options.startSkewSec, 'startSkewSec', 0),
      maxTotalBps: nonNegative(options.maxFeeBps, 'maxFeeBps', DEFAULT_MAX_FEE_BPS),
    };
  } catch (e) {
    throw new ConfigError(`seaport options: ${(e as Error).message}`, { cause: e });
  }
}

export function createSeaportOrders(options: SeaportOptions, deps: SeaportDeps): SeaportOrders {
  const { protocol, conduitKey, signedZone, offerToken, offerExpiry, listingExpiry, skew, maxTotalBps } =
    checkOptions(options);
  const includeOptional = options.includeOptionalFees === true;
  const { signer, counters, clock } = deps;
  // Our own local signer takes the digest bytes; any other port gets 0x-hex.
  const bytesSigner = (signer as { readonly [LOCAL_SIGNER]?: true })[LOCAL_SIGNER] === true;
  // A foreign port's first signature is recovered once and must be from `signer.address`: a port
  // wired to the wrong key fails loudly at the first order instead of at every POST.
  let portChecked = bytesSigner;
  const signDigest = (digest: Uint8Array): string => {
    if (bytesSigner) return signatureHex((signer as LocalDigestSigner).signDigest(digest));
    const sig = signatureHex(signer.signDigest(`0x${bytesToHex(digest)}`));
    if (!portChecked) {
      if (!same(recoverDigestSigner(digest, sig), signer.address)) {
        throw new FatalError('signer_mismatch', 'the signer port signs with a key other than its address');
      }
      portChecked = true;
    }
    return sig;
  };
  const random = deps.randomBytes ?? defaultRandom;
  const offerer = parseAddress(signer.address, 'signer.address');
  const hasher = createOrderHasher({ chainId: options.chainId, verifyingContract: protocol });

  // One frozen fee array per (fee list, price, quantity, payment token): equal offers share it,
  // so the hasher hashes the fee items once. Bounded; dropped wholesale when full.
  let feeCache = new Map<string, readonly ConsiderationItem[]>();
  let selectionCache = new WeakMap<readonly CollectionFee[], readonly FeeBps[]>();
  const fees = (
    list: readonly CollectionFee[],
    price: bigint,
    quantity: bigint,
    itemType: number,
    token: string,
  ) => {
    let sel = selectionCache.get(list);
    if (sel === undefined) {
      sel = selectFees(list, { includeOptional, maxTotalBps });
      // cached only when nothing in it can change: the list and every fee frozen
      if (Object.isFrozen(list) && list.every((f) => Object.isFrozen(f))) selectionCache.set(list, sel);
    }
    const key = `${sel.map((f) => `${f.recipient}:${f.bps}`).join(',')}|${price}|${quantity}|${itemType}|${token}`;
    let items = feeCache.get(key);
    if (items === undefined) {
      items = feeItems(sel, price, quantity, itemType, token);
      if (feeCache.size > 2048) {
        feeCache = new Map();
        selectionCache = new WeakMap();
      }
      feeCache.set(key, items);
    }
    return items;
  };

  const salt = (): bigint => {
    const b = random(32);
    if (!(b instanceof Uint8Array) || b.length !== 32)
      reject('seaport_bad_rng', 'randomBytes must return 32 bytes');
    let v = 0n;
    for (const x of b) v = (v << 8n) | BigInt(x);
    return v;
  };

  const times = (ctx: OrderContext, expiry: bigint) => {
    if (typeof ctx.nowSec !== 'bigint' || ctx.nowSec <= 0n)
      reject('seaport_bad_clock', 'chain time is not known');
    return { startTime: ctx.nowSec > skew ? ctx.nowSec - skew : 0n, endTime: ctx.nowSec + expiry };
  };

  const signComponents = (components: OrderComponents): SignedOrder => {
    if (!same(components.offerer, offerer)) {
      reject('seaport_not_offerer', 'refusing to sign an order whose offerer is not our wallet');
    }
    if (components.consideration.length === 0)
      reject('seaport_invalid_order', 'an order needs consideration');
    const { orderHash, digest } = hasher.hashAndDigest(components);
    const signature = signDigest(digest);
    return Object.freeze({
      components,
      orderHash: `0x${bytesToHex(orderHash)}`,
      signature,
      protocolAddress: protocol,
      chainId: options.chainId,
    });
  };

  const nftItemType = (nft: NftRef) => (nft.standard === 'erc721' ? ItemType.ERC721 : ItemType.ERC1155);

  const checkNft = (nft: NftRef, quantity: bigint) => {
    parseAddress(nft.contract, 'nft.contract');
    if (typeof nft.tokenId !== 'bigint' || nft.tokenId < 0n)
      reject('seaport_bad_token', 'tokenId must be a bigint ≥ 0');
    checkPositive(quantity, 'quantity');
    if (nft.standard === 'erc721' && quantity !== 1n)
      reject('seaport_bad_quantity', 'an ERC721 order is for one token');
    if (nft.standard !== 'erc721' && nft.standard !== 'erc1155')
      reject('seaport_bad_token', 'unknown token standard');
  };

  const orderTypeFor = (restricted: boolean, partial: boolean) =>
    restricted
      ? partial
        ? OrderType.PARTIAL_RESTRICTED
        : OrderType.FULL_RESTRICTED
      : partial
        ? OrderType.PARTIAL_OPEN
        : OrderType.FULL_OPEN;

  const signListing = (input: ListingInput, ctx: OrderContext): SignedOrder => {
    const quantity = input.quantity ?? 1n;
    checkNft(input.nft, quantity);
    checkPositive(input.price, 'price');
    const currency = input.currency ?? { itemType: ItemType.NATIVE, token: ZERO_ADDRESS };
    if (currency.itemType === ItemType.NATIVE && !same(currency.token, ZERO_ADDRESS)) {
      reject('seaport_bad_currency', 'native currency uses the zero token address');
    }
    if (currency.itemType !== ItemType.NATIVE && currency.itemType !== ItemType.ERC20) {
      reject('seaport_bad_currency', 'a listing is paid in native currency or an ERC20');
    }
    parseAddress(currency.token, 'currency.token');
    const feeList = fees(input.fees, input.price, quantity, currency.itemType, currency.token);
    const feeSum = feeList.reduce((s, f) => s + f.startAmount, 0n);
    const proceeds = input.price - feeSum;
    if (proceeds <= 0n) reject('seaport_bad_amount', 'fees take the whole price');
    if (quantity > 1n && proceeds % quantity !== 0n) {
      reject('seaport_bad_quantity', `price ${input.price} does not divide into ${quantity} equal units`);
    }
    const { startTime, endTime } = times(
      ctx,
      input.expirySec === undefined ? listingExpiry : checkSeconds(input.expirySec, 'expirySec'),
    );
    const restricted = input.signedZone === true;
    const nftItem: OfferItem = Object.freeze({
      itemType: nftItemType(input.nft),
      token: input.nft.contract,
      identifierOrCriteria: input.nft.tokenId,
      startAmount: quantity,
      endAmount: quantity,
    });
    const components: OrderComponents = Object.freeze({
      offerer,
      zone: restricted ? signedZone : ZERO_ADDRESS,
      offer: Object.freeze([nftItem]),
      consideration: Object.freeze([
        Object.freeze({
          itemType: currency.itemType,
          token: currency.token,
          identifierOrCriteria: 0n,
          startAmount: proceeds,
          endAmount: proceeds,
          recipient: offerer,
        }),
        ...feeList,
      ]),
      orderType: orderTypeFor(restricted, quantity > 1n),
      startTime,
      endTime,
      zoneHash: ZERO_BYTES32,
      salt: salt(),
      conduitKey,
      counter: ctx.counter,
    });
    return signComponents(components);
  };

  // One frozen WETH offer item per (price): equal offers share it and its hash.
  let payCache = new Map<bigint, readonly OfferItem[]>();
  const payItems = (price: bigint): readonly OfferItem[] => {
    let items = payCache.get(price);
    if (items === undefined) {
      items = Object.freeze([
        Object.freeze({
          itemType: ItemType.ERC20,
          token: offerToken,
          identifierOrCriteria: 0n,
          startAmount: price,
          endAmount: price,
        }),
      ]);
      if (payCache.size > 2048) payCache = new Map();
      payCache.set(price, items);
    }
    return items;
  };

  // Consideration arrays shared by identity: (NFT item object, fee array object) → array.
  const considerationCache = new WeakMap<object, WeakMap<object, readonly ConsiderationItem[]>>();
  const considerationOf = (nftItem: ConsiderationItem, feeList: readonly ConsiderationItem[]) => {
    let inner = considerationCache.get(nftItem);
    if (inner === undefined) {
      inner = new WeakMap();
      considerationCache.set(nftItem, inner);
    }
    let c = inner.get(feeList);
    if (c === undefined) {
      c = Object.freeze([nftItem, ...feeList]);
      inner.set(feeList, c);
    }
    return c;
  };

  const offerComponents = (
    nftItem: ConsiderationItem,
    price: bigint,
    quantity: bigint,
    feeInput: readonly CollectionFee[],
    zone: string,
    zoneHash: string,
    partial: boolean,
    ctx: OrderContext,
    expirySec: number | undefined,
  ): OrderComponents => {
    checkPositive(price, 'price');
    if (quantity > 1n && price % quantity !== 0n) {
      reject('seaport_bad_quantity', `price ${price} does not divide into ${quantity} equal units`);
    }
    const feeList = fees(feeInput, price, quantity, ItemType.ERC20, offerToken);
    const feeSum = feeList.reduce((s, f) => s + f.startAmount, 0n);
    if (feeSum >= price) reject('seaport_bad_amount', 'fees take the whole offer');
    const { startTime, endTime } = times(
      ctx,
      expirySec === undefined ? offerExpiry : checkSeconds(expirySec, 'expirySec'),
    );
    return Object.freeze({
      offerer,
      zone,
      offer: payItems(price),
      consideration: considerationOf(nftItem, feeList),
      orderType: orderTypeFor(true, partial),
      startTime,
      endTime,
      zoneHash,
      salt: salt(),
      conduitKey,
      counter: ctx.counter,
    });
  };

  const signItemOffer = (input: ItemOfferInput, ctx: OrderContext): SignedOrder => {
    const quantity = input.quantity ?? 1n;
    checkNft(input.nft, quantity);
    const nftItem: ConsiderationItem = Object.freeze({
      itemType: nftItemType(input.nft),
      token: input.nft.contract,
      identifierOrCriteria: input.nft.tokenId,
      startAmount: quantity,
      endAmount: quantity,
      recipient: offerer,
    });
    return signComponents(
      offerComponents(
        nftItem,
        input.price,
        quantity,
        input.fees,
        signedZone,
        ZERO_BYTES32,
        quantity > 1n,
        ctx,
        input.expirySec,
      ),
    );
  };

  // The parsed criteria item and zoneHash of each build response, by response object: a batch
  // reuses one response per trait. What is signed comes from this snapshot (never re-read from
  // the response), and the zone is always the configured one, so a response mutated after its
  // first use cannot change a signed order. Contract, quantity and criteria are checked per call.
  const buildCache = new WeakMap<object, { item: ConsiderationItem; zoneHash: string }>();
  const parseBuild = (b: BuildOfferResponse) => {
    const cached = buildCache.get(b);
    if (cached !== undefined) return cached;
    const pp = b?.partialParameters;
    if (!pp || !Array.isArray(pp.consideration))
      reject('seaport_build_mismatch', 'build response has no partialParameters');
    const zone = parseAddress(pp.zone, 'partialParameters.zone');
    if (!same(zone, signedZone)) {
      reject('seaport_untrusted_zone', `build zone ${zone} is not the configured signed zone`, { zone });
    }
    const zoneHash = parseBytes32(pp.zoneHash, 'partialParameters.zoneHash');
    if (pp.consideration.length !== 1) {
      reject(
        'seaport_build_mismatch',
        `build consideration has ${pp.consideration.length} items; exactly one criteria item is expected (fees are added locally)`,
      );
    }
    const item = parseConsiderationItem(pp.consideration[0], 'partialParameters.consideration[0]');
    if (item.itemType !== ItemType.ERC721_WITH_CRITERIA && item.itemType !== ItemType.ERC1155_WITH_CRITERIA) {
      reject('seaport_build_mismatch', `build item type ${item.itemType} is not a criteria item (4 or 5)`);
    }
    if (!same(item.recipient, offerer)) {
      reject('seaport_build_mismatch', 'build criteria item does not pay the NFT to our wallet');
    }
    const parsed = { item, zoneHash };
    buildCache.set(b, parsed);
    return parsed;
  };
  const checkBuild = (input: CriteriaOfferInput, quantity: bigint) => {
    const parsed = parseBuild(input.build);
    const { item } = parsed;
    if (input.contract !== undefined && !same(item.token, input.contract)) {
      reject('seaport_build_mismatch', `build criteria item is for ${item.token}, not ${input.contract}`);
    }
    if (item.startAmount !== quantity || item.endAmount !== quantity) {
      reject(
        'seaport_build_mismatch',
        `build criteria item asks for ${item.startAmount} units, not ${quantity}`,
      );
    }
    const criteria = input.build.criteria;
    if (!criteria || typeof criteria !== 'object' || typeof criteria.collection?.slug !== 'string') {
      reject('seaport_build_mismatch', 'build response has no criteria');
    }
    if (input.requested !== undefined) checkCriteria(criteria, input.requested);
    return { ...parsed, criteria };
  };

  const signCriteriaOffer = (input: CriteriaOfferInput, ctx: OrderContext): SignedCriteriaOffer => {
    const quantity = input.quantity ?? 1n;
    checkPositive(quantity, 'quantity');
    const { item, zoneHash, criteria } = checkBuild(input, quantity);
    const signed = signComponents(
      offerComponents(
        item,
        input.price,
        quantity,
        input.fees,
        signedZone,
        zoneHash,
        quantity > 1n,
        ctx,
        input.expirySec,
      ),
    );
    return Object.freeze({ ...signed, criteria });
  };

  const prepare = async (): Promise<OrderContext> => {
    const [nowSec, counter] = await Promise.all([clock.nowSec(), counters.getCounter(offerer)]);
    return Object.freeze({ nowSec: BigInt(nowSec), counter: BigInt(counter) });
  };

  return Object.freeze({
    offerer,
    options: Object.freeze({ ...options }),
    hasher,
    prepare,
    signListing,
    signItemOffer,
    signCriteriaOffer,
    signComponents,
    listing: async (input: ListingInput) => signListing(input, await prepare()),
    itemOffer: async (input: ItemOfferInput) => signItemOffer(input, await prepare()),
    criteriaOffer: async (input: CriteriaOfferInput) => signCriteriaOffer(input, await prepare()),
    signCancel: (orderHash: string) => signDigest(hasher.cancelDigest(orderHash)),
  });
}

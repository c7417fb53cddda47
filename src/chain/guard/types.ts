/**
 * Intents (what we mean to do, computed locally) and proposed transactions (what the API says to
 * sign). The guard checks the second against the first.
 *
 * Addresses are `0x` strings in any case; amounts are `bigint` in the token's smallest unit; the
 * native coin is the zero address.
 */

export interface NftRef {
  readonly contract: string;
  readonly identifier: bigint;
  /** When given, the item type must match (ERC721 = 2, ERC1155 = 3 on Seaport). */
  readonly standard?: 'erc721' | 'erc1155';
}

/** Buy a listing: pay at most `maxPrice` (everything we pay, fees and tips included). */
export interface BuyListingIntent {
  readonly kind: 'buy_listing';
  readonly chainId: number;
  readonly nft: NftRef;
  /** Units of the NFT to receive; default 1. */
  readonly quantity?: bigint;
  /** The listing's order hash; when given, the order in the calldata must hash to it. */
  readonly orderHash?: string;
  /** Cap on the total we pay (all consideration items we fund), in `paymentToken` units. */
  readonly maxPrice: bigint;
  /** Zero address = native ETH. */
  readonly paymentToken: string;
  /** Who receives the NFT: one of our wallets (also the sender). */
  readonly recipient: string;
  /** The collection's fee recipients, allowed beside the seller (added to the guard's list). */
  readonly feeRecipients?: readonly string[];
}

/** Accept an offer on an NFT we own: receive at least `minProceeds` after fees. */
export interface AcceptOfferIntent {
  readonly kind: 'accept_offer';
  readonly chainId: number;
  readonly nft: NftRef;
  /** Units of the NFT we give; default 1. */
  readonly quantity?: bigint;
  readonly orderHash?: string;
  /** Floor on what we net: offer amount received minus the fee items we pay out of it. */
  readonly minProceeds: bigint;
  /** The offer's ERC20 (WETH). */
  readonly paymentToken: string;
  /** Who receives the proceeds: one of our wallets (also the sender). */
  readonly recipient: string;
  /** The collection's fee recipients (added to the guard's list). */
  readonly feeRecipients?: readonly string[];
}

/** Swap exactly `amountIn` of `fromToken` for at least `minAmountOut` of `toToken`. */
export interface SwapIntent {
  readonly kind: 'swap';
  readonly chainId: number;
  /** Zero address (or 0xeeee…eeee) = native ETH. */
  readonly fromToken: string;
  readonly toToken: string;
  readonly amountIn: bigint;
  readonly minAmountOut: bigint;
  /** One of our wallets (also the sender). */
  readonly recipient: string;
  /** Latest acceptable swap deadline (unix seconds); unchecked when absent. */
  readonly maxDeadline?: bigint;
}

/** Mint `quantity` tokens of a drop to our wallet, paying at most `maxValue` in total. */
export interface MintIntent {
  readonly kind: 'mint';
  readonly chainId: number;
  /** The drop contract. */
  readonly drop: string;
  readonly quantity: bigint;
  readonly maxValue: bigint;
  /** The minter (receives the tokens): one of our wallets (also the sender). */
  readonly recipient: string;
}

export type Intent = BuyListingIntent | AcceptOfferIntent | SwapIntent | MintIntent;
export type IntentKind = Intent['kind'];

/** One transaction the API proposes, in the exact form that would be signed. */
export interface ProposedTx {
  readonly chainId: number;
  readonly to: string;
  /** Full calldata (`0x…`), suffix included. */
  readonly data: string;
  readonly value: bigint;
  /** The wire `function` (fulfillment data only): must name the function the calldata encodes. */
  readonly functionSignature?: string;
  /** The offerer's counter the API says the order was signed with (fulfillment data only). */
  readonly orderCounter?: bigint;
}

/** What a guarded step is. */
export type StepKind = 'fulfill_listing' | 'fulfill_offer' | 'approve' | 'swap' | 'wrap' | 'unwrap' | 'mint';

/** A transaction that passed every check: sign exactly `{chainId, to, data, value}`. */
export interface GuardedTx {
  readonly chainId: number;
  readonly to: string;
  readonly data: string;
  readonly value: bigint;
  readonly step: StepKind;
  /** The decoded function (`name(types)`). */
  readonly function: string;
  /** Whether `eth_call` ran on it (later steps of a swap run only after the earlier ones are mined). */
  readonly simulated: boolean;
  /** What the checks established (price paid, proceeds, amount out…), for the record. */
  readonly facts: Readonly<Record<string, string | number | boolean>>;
}

/** A call to simulate (`eth_call` at `latest`): resolves with the return data, rejects on revert. */
export interface SimulationCall {
  readonly chainId: number;
  readonly from: string;
  readonly to: string;
  readonly data: string;
  readonly value: bigint;
}

export type SimulateFn = (call: SimulationCall) => Promise<string>;

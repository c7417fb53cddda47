/**
 * Execution: the operations that commit money (buy a listing, accept an offer, swap, mint), each
 * one an intent in the store, written before any request and settled to done or failed.
 */
import type { ApiClient } from '../api/index.ts';
import type { CalldataGuard, GuardedTx } from '../chain/guard/index.ts';
import type { ChainRpc, ReconcileReport, TxSender } from '../chain/index.ts';
import type { Logger } from '../observability/index.ts';
import type { Approvals } from '../seaport/index.ts';
import type { IntentState, Store } from '../store/index.ts';

/** The API calls execution makes (a subset of `ApiClient`, so tests can pass fakes). */
export interface ExecutionApi {
  readonly listings: Pick<ApiClient['listings'], 'fulfillmentData'>;
  readonly offers: Pick<ApiClient['offers'], 'fulfillmentData'>;
  readonly swap: Pick<ApiClient['swap'], 'quote'>;
  readonly drops: Pick<ApiClient['drops'], 'mint'>;
}

/** Seaport's view of one order (`getOrderStatus`), used by reconcile. */
export interface OrderStatusReader {
  getOrderStatus(orderHash: string): Promise<{
    readonly isValidated: boolean;
    readonly isCancelled: boolean;
    readonly totalFilled: bigint;
    readonly totalSize: bigint;
  }>;
}

/** The intent kinds this layer executes (the store's `intents.kind`). */
export type ExecutionKind = 'buy_listing' | 'accept_offer' | 'swap' | 'mint';
export const EXECUTION_KINDS: readonly ExecutionKind[] = Object.freeze([
  'buy_listing',
  'accept_offer',
  'swap',
  'mint',
]);

/**
 * Steps of an execution, reported through `onStep` as each one completes (crash tests kill the
 * process there; benchmarks timestamp them):
 * - intent:      the intent row is written (`pending`), before any request;
 * - fulfillment: the API answered (fulfillment data, swap quote, mint transaction);
 * - guard:       the calldata guard's static checks passed;
 * - prepared:    (fulfillments) the transaction is signed ahead while the simulation is in
 *                flight: nonce held, nothing written, nothing broadcast; may come before or
 *                after `simulated`;
 * - simulated:   the `eth_call` simulation passed (and the gas estimate, run beside it);
 * - submitted:   the transaction is signed, written ahead and broadcast (intent `sent`/`unknown`);
 * - receipt:     the receipt has its confirmations, not yet recorded as a fill;
 * - recorded:    fill and spend rows written, intent `done`.
 */
export type ExecutionStep =
  | 'intent'
  | 'fulfillment'
  | 'guard'
  | 'prepared'
  | 'simulated'
  | 'submitted'
  | 'receipt'
  | 'recorded';

export interface ExecutorOptions {
  readonly api: ExecutionApi;
  readonly guard: CalldataGuard;
  /** The wallet's serialized sender (write-ahead journal, nonce ledger, fee caps). */
  readonly sender: TxSender;
  /** For the gas estimate, run in parallel with the simulation (no extra round trip on the snipe path). */
  readonly rpc: Pick<ChainRpc, 'estimateGas'>;
  readonly store: Store;
  readonly chainId: number;
  /** The API's chain name (`ethereum`, `base`…). */
  readonly chain: string;
  /** Our wallet (the sender's address): fulfiller, recipient, minter. */
  readonly wallet: string;
  /** The Seaport contract (the API's `protocol_address`) used when an operation names none. */
  readonly protocolAddress: string;
  /** Approvals to the configured conduit (accepting offers: NFT operator approval, WETH for fees). */
  readonly approvals?: Approvals;
  /** Seaport `getOrderStatus`, for reconcile's report on listings whose buy did not settle. */
  readonly orders?: OrderStatusReader;
  /** Margin on the gas estimate, basis points; default 2,000 (+20 %). */
  readonly gasMarginBps?: number;
  /**
   * A fixed gas limit for Seaport fulfillments instead of the estimate (skips `eth_estimateGas`);
   * default: estimated beside the simulation.
   */
  readonly fulfillmentGasLimit?: bigint;
  /**
   * Seaport fulfillments are signed ahead, while the simulation is in flight (`sender.prepare`),
   * with this gas limit; when the estimate (with margin) fits under it the pre-signed bytes are
   * sent, otherwise the transaction is signed again with the estimate. Ignored when
   * `fulfillmentGasLimit` is set (that one is signed ahead). Default 500,000.
   */
  readonly fulfillmentGasCeiling?: bigint;
  /** Sign fulfillments ahead during the simulation (above); default true. */
  readonly presign?: boolean;
  /** The `strategy` column of intents written without one; default `executor`. */
  readonly strategy?: string;
  /** Epoch-ms clock for fill timestamps; default Date.now. */
  readonly now?: () => number;
  readonly logger?: Logger;
  /** Called after each step of an execution (see `ExecutionStep`). */
  readonly onStep?: (step: ExecutionStep, intentId: string) => void;
}

export interface NftInput {
  readonly contract: string;
  readonly tokenId: bigint;
  readonly standard?: 'erc721' | 'erc1155';
}

interface Common {
  /** Idempotency key: the same id never executes twice; repeating a call returns the recorded outcome. */
  readonly intentId: string;
  /** Default the executor's `strategy`. */
  readonly strategy?: string;
}

export interface BuyListingInput extends Common {
  readonly orderHash: string;
  /** Collection slug, for the fill record. */
  readonly collection: string;
  readonly nft: NftInput;
  /** Most we pay, everything included, in `paymentToken` units. */
  readonly maxPrice: bigint;
  /** Zero address = ETH. */
  readonly paymentToken: string;
  /** Default the executor's `protocolAddress`. */
  readonly protocolAddress?: string;
  /** Units to buy (ERC-1155); default 1. */
  readonly quantity?: bigint;
  /** The collection's fee recipients, allowed beside the seller. */
  readonly feeRecipients?: readonly string[];
  /**
   * Reads the collection's fee recipients again (all of them, old ones too): asked when the guard
   * refuses a payment to an address it does not know, which the creator may have moved their fee
   * to since `feeRecipients` was read (see the executor's checkFill).
   */
  readonly renewFeeRecipients?: () => Promise<readonly string[]>;
}

export interface AcceptOfferInput extends Common {
  readonly orderHash: string;
  readonly collection: string;
  /** The NFT we own and give. */
  readonly nft: NftInput;
  /** The offer's gross amount (what Seaport pays out before fees), to size the fee allowance. */
  readonly offerPrice: bigint;
  /** Floor on what we net after fees. */
  readonly minProceeds: bigint;
  /** The offer's ERC-20 (WETH). */
  readonly paymentToken: string;
  readonly protocolAddress?: string;
  readonly quantity?: bigint;
  readonly feeRecipients?: readonly string[];
  /** As a buy's (see BuyListingInput). */
  readonly renewFeeRecipients?: () => Promise<readonly string[]>;
}

export interface SwapInput extends Common {
  /** Zero address = ETH. */
  readonly fromToken: string;
  readonly toToken: string;
  readonly amountIn: bigint;
  /** Sent to the API as the slippage tolerance (bps / 10,000) and applied to `expectedAmountOut`. */
  readonly slippageBps: number;
  /** Our own expectation of the output (e.g. from reserves): the floor is it less the slippage. */
  readonly expectedAmountOut?: bigint;
  /** An explicit floor (wins over `expectedAmountOut`). */
  readonly minAmountOut?: bigint;
}

export interface MintInput extends Common {
  /** Drop slug (`/api/v2/drops/{slug}/mint`). */
  readonly slug: string;
  /** The drop contract (must be on the guard's allowlist). */
  readonly drop: string;
  readonly quantity: number;
  /** Cap on the total value sent. */
  readonly maxValue: bigint;
}

/** How an execution ended (or stands, for `sent`/`unknown`). */
export interface ExecutionOutcome {
  readonly intentId: string;
  readonly kind: ExecutionKind;
  readonly state: IntentState;
  /** The main transaction (fulfillment, swap or mint), once one was signed. */
  readonly txHash?: string;
  readonly blockNumber?: number;
  /** What was paid: the buy's price, the swap's amount in, the mint's value (in the payment token). */
  readonly spent?: bigint;
  /** What an accepted offer netted. */
  readonly proceeds?: bigint;
  /** Token ids minted to us (mint). */
  readonly minted?: readonly string[];
  /** Why it failed, when it did (`error` of the intent). */
  readonly error?: string;
  /** True when the call found the intent already settled and did nothing. */
  readonly replayed?: boolean;
}

export interface ExecutionReconcileReport {
  readonly sender: ReconcileReport;
  /** Every open execution intent found at start, and how it stands now. */
  readonly intents: readonly ExecutionOutcome[];
}

export interface Executor {
  readonly wallet: string;
  /**
   * Start-up step, required before any operation: the sender's reconcile (chain id, nonce ledger,
   * every written-ahead transaction resolved or re-sent), then every open execution intent
   * resolved: a transaction mined → recorded and done; reverted or never sent → failed. Nothing is
   * bought again.
   */
  reconcile(): Promise<ExecutionReconcileReport>;
  /** The snipe path: fulfillment data → guard → simulate → sign → send → confirm → record. */
  buyListing(input: BuyListingInput): Promise<ExecutionOutcome>;
  /** Accept an offer on an NFT we own (NFT and fee approvals to the conduit first, if needed). */
  acceptOffer(input: AcceptOfferInput): Promise<ExecutionOutcome>;
  /**
   * A fill's first two steps only — the API's fulfillment data, then the calldata guard against
   * the intent — and nothing after: no intent written, nothing signed or sent (a simulation).
   * Throws the guard's refusal (GuardRejectedError) or the API's error.
   */
  checkFill(
    input:
      | (Omit<BuyListingInput, 'intentId'> & { readonly kind: 'buy_listing' })
      | (Omit<AcceptOfferInput, 'intentId'> & { readonly kind: 'accept_offer' }),
  ): Promise<GuardedTx>;
  /** Swap from a quote (approval step first when returned, the swap simulated after it is mined). */
  swap(input: SwapInput): Promise<ExecutionOutcome>;
  /** Mint from a drop (409 → `mint_not_active`, 422 → `mint_precondition_failed`). */
  mint(input: MintInput): Promise<ExecutionOutcome>;
  /** How an intent stands (undefined for an unknown id). */
  status(intentId: string): ExecutionOutcome | undefined;
}

// The live executor: the engine's Executor port on the real API and chain. Offers go through the
// one order path (./orders.ts: signed locally, recorded in the ledger, posted, cancelled until
// really gone); buys, swaps and mints go through ./executor.ts (write-ahead intents, calldata
// guard, simulation, tx sender).
import type { CallOptions } from '../api/index.ts';
import type { GuardedTx } from '../chain/guard/index.ts';
import type { ExecutionContext, ExecutionResult, Executor } from '../engine/index.ts';
import { RejectedError, TransientError } from '../errors/index.ts';
import type { AcceptOffer, BuyListing, Intent } from '../strategy.ts';
import type { CollectionInfo, OrderDesk } from './orders.ts';
import type { Executor as ChainExecutor, ExecutionOutcome } from './types.ts';

export interface LiveExecutorOptions {
  readonly desk: OrderDesk;
  readonly execution: ChainExecutor;
  readonly collection: (slug: string) => Promise<CollectionInfo>;
  /**
   * The next `collection(slug)` reads the collection again (its fees may have changed): asked when
   * the calldata guard refuses a fill's payment to an address it does not know. Absent: what
   * `collection` answers is all a fill is checked against.
   */
  readonly doubtCollection?: (slug: string) => void;
  /** ERC-721 or ERC-1155 of an NFT contract, when known. */
  readonly standardOf?: (contract: string) => Promise<'erc721' | 'erc1155'>;
  /** Drop contract of a drop slug. */
  readonly dropContract: (slug: string) => string | undefined;
  /**
   * Called with every settled buy/mint/swap/accepted offer (metrics, status, the wallet's balances
   * read again); what it returns is awaited before the engine hears the outcome, so the next hook
   * reads balances that hold it.
   */
  readonly onExecution?: (
    kind: string,
    outcome: ExecutionOutcome,
    strategyId: string,
    /** Collection or drop slug; for a swap `FROM→TO`. */
    what: string | null,
    /** What was paid in. */
    token: { readonly symbol: string; readonly decimals: number },
  ) => undefined | Promise<void>;
  /**
   * Our own expectation of a swap's output (e.g. from an allowlisted router's reserves); the
   * execution layer does not trust the API's quote for the slippage floor. Undefined = refuse.
   */
  readonly expectedAmountOut?: (from: string, to: string, amountIn: bigint) => Promise<bigint | undefined>;
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

/** The live executor, and the calldata check of a fill without executing it (simulate_intent). */
export interface LiveExecutor extends Executor {
  /** Fulfillment data and the calldata guard for a buy or an accepted offer; nothing is signed or sent. */
  checkFill(intent: BuyListing | AcceptOffer): Promise<GuardedTx>;
}

export function createLiveExecutor(o: LiveExecutorOptions): LiveExecutor {
  const doubt = o.doubtCollection;
  const recipientsOf = (info: CollectionInfo) => info.feeRecipients ?? info.fees.map((f) => f.recipient);
  /** What both fills tell the chain executor: the order, the NFT (its standard), token, units, fee recipients. */
  async function fillOf(intent: BuyListing | AcceptOffer) {
    const info = await o.collection(intent.collection);
    const standard = o.standardOf !== undefined ? await o.standardOf(intent.nft.contract) : undefined;
    return {
      orderHash: intent.orderHash,
      collection: intent.collection,
      nft: {
        contract: intent.nft.contract,
        tokenId: BigInt(intent.nft.identifier),
        ...(standard !== undefined ? { standard } : {}),
      },
      paymentToken: intent.paymentToken.address,
      quantity: intent.quantity,
      // those of orders signed before a fee change too
      feeRecipients: recipientsOf(info),
      // and those of orders signed after one we have not read yet
      ...(doubt !== undefined
        ? {
            renewFeeRecipients: async () => {
              doubt(intent.collection);
              return recipientsOf(await o.collection(intent.collection));
            },
          }
        : {}),
    };
  }

  async function execute(intent: Intent, ctx: ExecutionContext): Promise<ExecutionResult> {
    const call: CallOptions = { priority: ctx.priority, coalesceKey: ctx.coalesceKey };
    switch (intent.kind) {
      case 'place_offer':
        return {
          orderHash: await o.desk.place({
            intentId: ctx.intentId,
            strategyId: ctx.strategyId,
            target: intent.target,
            offer: intent.offer,
            price: intent.price,
            paymentToken: intent.paymentToken,
            quantity: intent.quantity,
            expiresAt: intent.expiresAt,
            call,
          }),
        };
      case 'replace_offer':
        return {
          orderHash: await o.desk.replace(intent.orderHash, {
            intentId: ctx.intentId,
            strategyId: ctx.strategyId,
            price: intent.price,
            expiresAt: intent.expiresAt,
            overlap: ctx.replaceOverlap === true,
            call,
          }),
        };
      case 'cancel_order':
        await o.desk.cancel(intent.orderHash, {
          intentId: ctx.intentId,
          call,
          ...(ctx.mustBeGone === true ? { requireGone: true } : {}),
        });
        return {};
      case 'buy_listing': {
        const out = await o.execution.buyListing({
          intentId: ctx.intentId,
          strategy: ctx.strategyId,
          ...(await fillOf(intent)),
          maxPrice: intent.maxPrice,
        });
        await o.onExecution?.('buy', out, ctx.strategyId, intent.collection, intent.paymentToken);
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
        await o.onExecution?.(
          'swap',
          out,
          ctx.strategyId,
          `${intent.fromToken.symbol}→${intent.toToken.symbol}`,
          intent.fromToken,
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
        await o.onExecution?.('mint', out, ctx.strategyId, intent.drop, intent.paymentToken);
        return outcomeResult('mint', out);
      }
      case 'place_listing':
        return {
          orderHash: await o.desk.list({
            intentId: ctx.intentId,
            strategyId: ctx.strategyId,
            target: intent.target,
            collection: intent.collection,
            nft: intent.nft,
            price: intent.price,
            paymentToken: intent.paymentToken,
            quantity: intent.quantity,
            expiresAt: intent.expiresAt,
            call,
          }),
        };
      case 'replace_listing':
        return {
          orderHash: await o.desk.replaceListing(intent.orderHash, {
            intentId: ctx.intentId,
            strategyId: ctx.strategyId,
            price: intent.price,
            expiresAt: intent.expiresAt,
            call,
          }),
        };
      case 'accept_offer': {
        const out = await o.execution.acceptOffer({
          intentId: ctx.intentId,
          strategy: ctx.strategyId,
          ...(await fillOf(intent)),
          offerPrice: intent.offerPrice,
          minProceeds: intent.minProceeds,
        });
        await o.onExecution?.('sell', out, ctx.strategyId, intent.collection, intent.paymentToken);
        return outcomeResult('accept_offer', out);
      }
    }
  }

  return {
    mode: 'live',
    execute,
    checkFill: async (intent) =>
      intent.kind === 'buy_listing'
        ? o.execution.checkFill({ kind: 'buy_listing', ...(await fillOf(intent)), maxPrice: intent.maxPrice })
        : o.execution.checkFill({
            kind: 'accept_offer',
            ...(await fillOf(intent)),
            offerPrice: intent.offerPrice,
            minProceeds: intent.minProceeds,
          }),
  };
}

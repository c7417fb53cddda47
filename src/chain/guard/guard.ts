/**
 * The calldata guard: every transaction the API proposes (listing or offer fulfillment, swap,
 * mint) is decoded with the guard's own ABIs and checked against the locally computed intent,
 * then simulated with an injected `eth_call`. Any mismatch throws a `GuardRejectedError`
 * (a `RejectedError`, code `guard_<reason>`), logged and counted per reason; nothing is signed.
 *
 * Order of checks per transaction: intent sanity → chain → selector known → no danger shape →
 * target allowlisted → function allowed for the intent → strict decode (canonical, no trailing
 * bytes) → semantics (recipient, NFT, quantity, payment token, price/proceeds, items, value,
 * order hash) → simulation.
 */
import { ZeroHash } from 'ethers';
import type { Logger } from '../../observability/index.ts';
import { routerInterface, seaportInterface } from './abis.ts';
import {
  addressSet,
  type DecodedCall,
  decodeStrict,
  isNative,
  lookupFunction,
  normAddress,
} from './calldata.ts';
import { type GuardReason, GuardRejectedError, reject } from './reasons.ts';
import { fulfillmentProposal, mintProposal, swapQuoteProposals } from './responses.ts';
import { checkAcceptOffer, checkBuyListing, type SeaportPolicy, seaportFill } from './seaport.ts';
import { checkMint, checkRouterSwap, checkSwapApproval, checkWrap, type SwapPolicy } from './swap.ts';
import type { GuardedTx, Intent, ProposedTx, SimulateFn, StepKind, SwapIntent } from './types.ts';

export interface CalldataGuardOptions {
  /** The chain the daemon trades on; every intent and transaction must be on it. */
  readonly chainId: number;
  /** Our wallets: an intent's recipient (and sender) must be one of them. */
  readonly wallets: readonly string[];
  /** Seaport contracts fulfillments may target (Seaport 1.6 of the chain). */
  readonly seaport: readonly string[];
  /** Allowed `fulfillerConduitKey`s; default only the zero key (Seaport itself moves our tokens). */
  readonly conduitKeys?: readonly string[];
  /** Fee recipients allowed beside the seller (marketplace fee, known creators). */
  readonly feeRecipients?: readonly string[];
  /** Swap routers (Uniswap v2). */
  readonly routers?: readonly string[];
  /** WETH of the chain (swap paths through ETH, wrap and unwrap). */
  readonly weth?: string;
  /** Drop contracts mints may target. */
  readonly drops?: readonly string[];
  /** Byte strings allowed after the ABI-encoded arguments (e.g. the API's `calldata_suffix`). */
  readonly calldataSuffixes?: readonly string[];
  /** `eth_call` at `latest`: resolves with the return data, rejects on revert. */
  readonly call: SimulateFn;
  readonly logger?: Logger;
  /** Called once per refusal (a metrics counter hooks in here). */
  readonly onRejected?: (reason: GuardReason, error: GuardRejectedError) => void;
}

export interface CalldataGuard {
  /**
   * Pure checks (no simulation) of the transactions for `intent`; throws `GuardRejectedError`. A
   * refusal for which `deferred` says true is thrown untold (not counted, logged or passed to
   * onRejected): the caller may still pass the fill (a fee recipient read again) and tells the
   * refusal with `tell` when it stands.
   */
  check(
    txs: ProposedTx | readonly ProposedTx[],
    intent: Intent,
    deferred?: (e: GuardRejectedError) => boolean,
  ): readonly GuardedTx[];
  /** Tells a refusal `check` deferred and that stands: counted, logged and passed to onRejected. */
  tell(e: GuardRejectedError, intent: Intent): void;
  /** `check`, then `eth_call` of the first step (of every step that does not wait on an earlier one). */
  guard(txs: ProposedTx | readonly ProposedTx[], intent: Intent): Promise<readonly GuardedTx[]>;
  /** Simulates one guarded step (a later step of a swap, once the earlier ones are mined). */
  simulate(tx: GuardedTx, intent: Intent): Promise<GuardedTx>;
  /** Fulfillment-data response → guarded transaction (listing or offer). */
  guardFulfillment(response: unknown, intent: Intent): Promise<GuardedTx>;
  /** Swap-quote response → guarded transactions, in order. */
  guardSwapQuote(response: unknown, intent: SwapIntent): Promise<readonly GuardedTx[]>;
  /** Drop-mint response → guarded transaction. */
  guardMint(response: unknown, intent: Intent): Promise<GuardedTx>;
  /** Refusals so far, per reason. */
  rejections(): Readonly<Partial<Record<GuardReason, number>>>;
}

const SEAPORT_FULFILL = new Set([
  'fulfillBasicOrder',
  'fulfillBasicOrder_efficient_6GL6yc',
  'fulfillOrder',
  'fulfillAdvancedOrder',
]);

const str = (v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

export function createCalldataGuard(options: CalldataGuardOptions): CalldataGuard {
  const wallets = addressSet(options.wallets, 'wallets');
  const seaport = addressSet(options.seaport, 'seaport');
  const routers = addressSet(options.routers, 'routers');
  const drops = addressSet(options.drops, 'drops');
  const feeRecipients = addressSet(options.feeRecipients, 'feeRecipients');
  const weth = options.weth === undefined ? undefined : normAddress(options.weth);
  if (options.weth !== undefined && !weth) throw new TypeError(`weth: '${options.weth}' is not an address`);
  const conduitKeys = new Set((options.conduitKeys ?? [ZeroHash]).map((k) => k.toLowerCase()));
  const suffixes = (options.calldataSuffixes ?? []).map((s) => s.toLowerCase());
  const counts: Partial<Record<GuardReason, number>> = {};

  function refused(e: unknown, intent: Intent | undefined): never {
    if (e instanceof GuardRejectedError) {
      counts[e.reason] = (counts[e.reason] ?? 0) + 1;
      options.logger?.warn(
        { reason: e.reason, code: e.code, intent: intent?.kind, details: e.details },
        `calldata guard refused: ${e.shortMessage}`,
      );
      options.onRejected?.(e.reason, e);
    }
    throw e;
  }

  function checkIntent(intent: Intent): void {
    if (intent.chainId !== options.chainId) {
      reject(
        'chain_mismatch',
        `the intent is for chain ${intent.chainId}, the guard for ${options.chainId}`,
        {
          chainId: intent.chainId,
        },
      );
    }
    const r = normAddress(intent.recipient);
    if (!r) reject('intent_invalid', 'the intent recipient is not an address');
    if (!wallets.has(r)) reject('intent_invalid', `the intent recipient ${r} is not one of our wallets`);
    const addr = (v: string, what: string) => {
      if (!normAddress(v)) reject('intent_invalid', `intent ${what} is not an address`);
    };
    switch (intent.kind) {
      case 'buy_listing':
      case 'accept_offer':
        addr(intent.nft.contract, 'nft.contract');
        addr(intent.paymentToken, 'paymentToken');
        if (intent.nft.identifier < 0n) reject('intent_invalid', 'intent nft.identifier is negative');
        if ((intent.quantity ?? 1n) <= 0n) reject('intent_invalid', 'intent quantity must be positive');
        for (const f of intent.feeRecipients ?? []) addr(f, 'feeRecipients');
        break;
      case 'swap':
        addr(intent.fromToken, 'fromToken');
        addr(intent.toToken, 'toToken');
        if (intent.amountIn <= 0n) reject('intent_invalid', 'intent amountIn must be positive');
        break;
      case 'mint':
        addr(intent.drop, 'drop');
        if (intent.quantity <= 0n) reject('intent_invalid', 'intent quantity must be positive');
        break;
    }
  }

  /** Chain, shape of the tx, selector, the wire function name; returns the known function. */
  function preflight(tx: ProposedTx, intent: Intent, index: number) {
    if (tx.chainId !== intent.chainId || tx.chainId !== options.chainId) {
      reject('chain_mismatch', `transaction ${index} is for chain ${tx.chainId}, not ${intent.chainId}`, {
        index,
        chainId: tx.chainId,
      });
    }
    const to = normAddress(tx.to);
    if (!to) reject('malformed_response', `transaction ${index} has no valid 'to'`, { index });
    if (typeof tx.value !== 'bigint' || tx.value < 0n) {
      reject('malformed_response', `transaction ${index} has no valid value`, { index });
    }
    const known = lookupFunction(tx.data);
    if (tx.functionSignature !== undefined && tx.functionSignature.replace(/\s+/g, '') !== known.signature) {
      reject(
        'function_mismatch',
        `the response names ${tx.functionSignature.slice(0, 120)} but the calldata is ${known.signature}`,
        {
          index,
          function: known.signature,
        },
      );
    }
    return { to, known };
  }

  function noDanger(known: ReturnType<typeof lookupFunction>, index: number): void {
    if (known.family === 'danger') {
      reject('dangerous_call', `transaction ${index} calls ${known.signature}`, {
        index,
        function: known.signature,
      });
    }
  }

  function targetIn(set: ReadonlySet<string>, to: string, what: string, index: number): void {
    if (!set.has(to))
      reject('target_not_allowed', `transaction ${index} targets ${to}, not an allowlisted ${what}`, {
        index,
        to,
      });
  }

  function single(txs: readonly ProposedTx[], what: string): ProposedTx {
    if (txs.length !== 1) {
      reject('unexpected_transaction', `${what} takes exactly one transaction, got ${txs.length}`, {
        count: txs.length,
      });
    }
    return txs[0] as ProposedTx;
  }

  const done = (
    tx: ProposedTx,
    to: string,
    call: DecodedCall,
    step: StepKind,
    facts: Record<string, unknown>,
  ): GuardedTx => ({
    chainId: tx.chainId,
    to,
    data: tx.data.toLowerCase(),
    value: tx.value,
    step,
    function: call.known.signature,
    simulated: false,
    facts: Object.fromEntries(
      Object.entries(facts)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, str(v) as string | number | boolean]),
    ),
  });

  function checkSeaport(
    txs: readonly ProposedTx[],
    intent: Intent & { kind: 'buy_listing' | 'accept_offer' },
  ): GuardedTx {
    const tx = single(txs, intent.kind === 'buy_listing' ? 'buying a listing' : 'accepting an offer');
    const { to, known } = preflight(tx, intent, 0);
    noDanger(known, 0);
    targetIn(seaport, to, 'Seaport contract', 0);
    if (known.family !== 'seaport' || !SEAPORT_FULFILL.has(known.fragment.name)) {
      reject('function_not_allowed', `${known.signature} is not an allowed fulfillment function`, {
        function: known.signature,
      });
    }
    const call = decodeStrict(known, tx.data, suffixes);
    const fill = seaportFill(call);
    const policy: SeaportPolicy = {
      conduitKeys,
      feeRecipients: new Set([...feeRecipients, ...addressSet(intent.feeRecipients, 'intent.feeRecipients')]),
    };
    const facts =
      intent.kind === 'buy_listing'
        ? checkBuyListing(fill, intent, policy, tx.value, tx.orderCounter)
        : checkAcceptOffer(fill, intent, policy, tx.value, tx.orderCounter);
    return done(tx, to, call, intent.kind === 'buy_listing' ? 'fulfill_listing' : 'fulfill_offer', {
      ...facts,
      offerer: fill.offerer,
    });
  }

  function checkSwap(txs: readonly ProposedTx[], intent: SwapIntent): GuardedTx[] {
    const policy: SwapPolicy = { weth, routers };
    const wethIs = (t: string) => weth !== undefined && t.toLowerCase() === weth;
    const wrap = isNative(intent.fromToken) && wethIs(intent.toToken);
    const unwrap = wethIs(intent.fromToken) && isNative(intent.toToken);
    if (wrap || unwrap) {
      const tx = single(txs, wrap ? 'a wrap' : 'an unwrap');
      const { to, known } = preflight(tx, intent, 0);
      noDanger(known, 0);
      targetIn(new Set([weth as string]), to, 'WETH', 0);
      if (known.family !== 'weth')
        reject('function_not_allowed', `${known.signature} is not a WETH wrap/unwrap`);
      const call = decodeStrict(known, tx.data, suffixes);
      return [done(tx, to, call, wrap ? 'wrap' : 'unwrap', checkWrap(call, intent, tx.value))];
    }
    if (isNative(intent.fromToken) && isNative(intent.toToken))
      reject('intent_invalid', 'a swap from ETH to ETH');
    if (weth === undefined) reject('intent_invalid', 'no WETH configured for swaps');
    const withApproval = !isNative(intent.fromToken) && txs.length === 2;
    if (txs.length !== 1 && !withApproval) {
      reject(
        'unexpected_transaction',
        `a swap takes one transaction (two with an approval), got ${txs.length}`,
        {
          count: txs.length,
        },
      );
    }
    const out: GuardedTx[] = [];
    if (withApproval) {
      const tx = txs[0] as ProposedTx;
      const { to, known } = preflight(tx, intent, 0);
      if (known.family === 'danger' && known.fragment.name !== 'approve') noDanger(known, 0);
      if (known.family !== 'danger' || known.fragment.name !== 'approve') {
        reject(
          'unexpected_transaction',
          `a swap's first of two steps must be an approval, got ${known.signature}`,
        );
      }
      const call = decodeStrict(known, tx.data, suffixes);
      out.push(done(tx, to, call, 'approve', checkSwapApproval(call, intent, policy, to, tx.value)));
    }
    const index = out.length;
    const tx = txs[index] as ProposedTx;
    const { to, known } = preflight(tx, intent, index);
    noDanger(known, index);
    targetIn(routers, to, 'router', index);
    if (known.family !== 'router') reject('function_not_allowed', `${known.signature} is not a router swap`);
    const call = decodeStrict(known, tx.data, suffixes);
    const facts = checkRouterSwap(call, intent, policy, tx.value);
    const approval = out[0];
    if (approval && approval.facts['spender'] !== to) {
      reject(
        'approval_not_allowed',
        `the approval is for ${String(approval.facts['spender'])}, the swap goes through ${to}`,
      );
    }
    out.push(done(tx, to, call, 'swap', facts));
    return out;
  }

  function checkMintTx(txs: readonly ProposedTx[], intent: Intent & { kind: 'mint' }): GuardedTx {
    const tx = single(txs, 'a mint');
    const { to, known } = preflight(tx, intent, 0);
    noDanger(known, 0);
    targetIn(drops, to, 'drop contract', 0);
    if (to !== intent.drop.toLowerCase()) {
      reject(
        'target_not_allowed',
        `the mint targets ${to}, not the intent's drop ${intent.drop.toLowerCase()}`,
        { to },
      );
    }
    if (known.family !== 'drop') reject('function_not_allowed', `${known.signature} is not a drop mint`);
    const call = decodeStrict(known, tx.data, suffixes);
    return done(tx, to, call, 'mint', checkMint(call, intent, tx.value));
  }

  function checkAll(input: ProposedTx | readonly ProposedTx[], intent: Intent): GuardedTx[] {
    const txs: readonly ProposedTx[] = Array.isArray(input) ? input : [input as ProposedTx];
    checkIntent(intent);
    switch (intent.kind) {
      case 'buy_listing':
      case 'accept_offer':
        return [checkSeaport(txs, intent)];
      case 'swap':
        return checkSwap(txs, intent);
      case 'mint':
        return [checkMintTx(txs, intent)];
    }
  }

  async function simulateOne(tx: GuardedTx, intent: Intent): Promise<GuardedTx> {
    let ret: string;
    try {
      ret = await options.call({
        chainId: tx.chainId,
        from: intent.recipient.toLowerCase(),
        to: tx.to,
        data: tx.data,
        value: tx.value,
      });
    } catch (e) {
      const why =
        (e as { shortMessage?: unknown })?.shortMessage ?? (e instanceof Error ? e.message : 'call failed');
      return reject(
        'simulation_reverted',
        `simulation of ${tx.function.split('(')[0]} reverted: ${String(why).slice(0, 200)}`,
        {
          step: tx.step,
        },
      );
    }
    if (tx.step === 'fulfill_listing' || tx.step === 'fulfill_offer') {
      let ok = false;
      try {
        ok = seaportInterface.decodeFunctionResult(tx.function.split('(')[0] as string, ret)[0] === true;
      } catch {
        ok = false;
      }
      if (!ok)
        reject('simulation_output_mismatch', 'the simulated fulfillment did not report success', {
          step: tx.step,
        });
    }
    if (tx.step === 'swap' && intent.kind === 'swap') {
      let out: bigint | undefined;
      try {
        const amounts = routerInterface.decodeFunctionResult(
          tx.function.split('(')[0] as string,
          ret,
        )[0] as bigint[];
        out = amounts[amounts.length - 1];
      } catch {
        out = undefined;
      }
      if (out === undefined || out < intent.minAmountOut) {
        reject(
          'simulation_output_mismatch',
          `the simulated swap yields ${String(out)}, below ${intent.minAmountOut}`,
          {
            amountOut: String(out),
          },
        );
      }
      return {
        ...tx,
        simulated: true,
        facts: { ...tx.facts, simulatedAmountOut: (out as bigint).toString() },
      };
    }
    return { ...tx, simulated: true };
  }

  async function guardAll(input: ProposedTx | readonly ProposedTx[], intent: Intent): Promise<GuardedTx[]> {
    const checked = checkAll(input, intent);
    // Only the first step runs against the current state; a later step (a swap after its
    // approval) is simulated by `simulate` once the earlier one is mined.
    const first = await simulateOne(checked[0] as GuardedTx, intent);
    return [first, ...checked.slice(1)];
  }

  return {
    check(txs, intent, deferred) {
      try {
        return checkAll(txs, intent);
      } catch (e) {
        if (deferred !== undefined && e instanceof GuardRejectedError && deferred(e)) throw e;
        return refused(e, intent);
      }
    },
    tell(e, intent) {
      try {
        refused(e, intent);
      } catch {
        // told: the caller throws it
      }
    },
    async guard(txs, intent) {
      try {
        return await guardAll(txs, intent);
      } catch (e) {
        return refused(e, intent);
      }
    },
    async simulate(tx, intent) {
      try {
        return await simulateOne(tx, intent);
      } catch (e) {
        return refused(e, intent);
      }
    },
    async guardFulfillment(response, intent) {
      try {
        return (await guardAll(fulfillmentProposal(response), intent))[0] as GuardedTx;
      } catch (e) {
        return refused(e, intent);
      }
    },
    async guardSwapQuote(response, intent) {
      try {
        return await guardAll(swapQuoteProposals(response), intent);
      } catch (e) {
        return refused(e, intent);
      }
    },
    async guardMint(response, intent) {
      try {
        return (await guardAll(mintProposal(response), intent))[0] as GuardedTx;
      } catch (e) {
        return refused(e, intent);
      }
    },
    rejections() {
      return { ...counts };
    },
  };
}

/**
 * Swap and mint checks on decoded calls. Pure. The swap quote may carry an exact ERC20 approval
 * of the router before the swap; wraps and unwraps are WETH `deposit`/`withdraw`.
 */
import type { DecodedCall } from './calldata.ts';
import { isNative, sameAddress } from './calldata.ts';
import { reject } from './reasons.ts';
import type { MintIntent, SwapIntent } from './types.ts';

// biome-ignore lint/suspicious/noExplicitAny: decoded arguments are plain untyped values
type R = any;

/** The one router function allowed per direction (exact-in only; no fee-on-transfer variants). */
export function routerFunctionFor(intent: SwapIntent): string {
  if (isNative(intent.fromToken)) return 'swapExactETHForTokens';
  if (isNative(intent.toToken)) return 'swapExactTokensForETH';
  return 'swapExactTokensForTokens';
}

export interface SwapPolicy {
  readonly weth: string | undefined;
  readonly routers: ReadonlySet<string>;
}

/** Checks the router call of a swap; returns its facts. */
export function checkRouterSwap(
  call: DecodedCall,
  intent: SwapIntent,
  policy: SwapPolicy,
  value: bigint,
): Record<string, string> {
  const name = call.known.fragment.name;
  const want = routerFunctionFor(intent);
  if (name !== want) {
    reject(
      'function_not_allowed',
      `${call.known.signature} is not allowed for this swap (expected ${want})`,
      {
        function: call.known.signature,
        expected: want,
      },
    );
  }
  const a = call.args as R;
  const path = (a.path as string[]).map((p) => p.toLowerCase());
  const weth = policy.weth?.toLowerCase();
  const first = isNative(intent.fromToken) ? weth : intent.fromToken.toLowerCase();
  const last = isNative(intent.toToken) ? weth : intent.toToken.toLowerCase();
  if (path.length < 2 || path.length > 4 || path[0] !== first || path[path.length - 1] !== last) {
    reject('swap_path_mismatch', `swap path ${path.join(' -> ')} does not go from ${first} to ${last}`, {
      path,
    });
  }
  const amountIn: bigint = name === 'swapExactETHForTokens' ? value : BigInt(a.amountIn);
  if (amountIn !== intent.amountIn) {
    reject('swap_amount_mismatch', `the swap spends ${amountIn}, not ${intent.amountIn}`, {
      amountIn: amountIn.toString(),
      expected: intent.amountIn.toString(),
    });
  }
  if (name !== 'swapExactETHForTokens' && value !== 0n) {
    reject('value_above_cap', `a token swap sends no native value, got ${value}`, {
      value: value.toString(),
    });
  }
  const minOut = BigInt(a.amountOutMin);
  if (minOut < intent.minAmountOut) {
    reject(
      'swap_min_out_too_low',
      `the swap accepts ${minOut} out, below the minimum ${intent.minAmountOut}`,
      {
        amountOutMin: minOut.toString(),
        minAmountOut: intent.minAmountOut.toString(),
      },
    );
  }
  const to = String(a.to).toLowerCase();
  if (!sameAddress(to, intent.recipient)) {
    reject('recipient_mismatch', `the swap pays ${to}, not ${intent.recipient.toLowerCase()}`, {
      recipient: to,
    });
  }
  const deadline = BigInt(a.deadline);
  if (intent.maxDeadline !== undefined && deadline > intent.maxDeadline) {
    reject('function_not_allowed', `swap deadline ${deadline} is later than ${intent.maxDeadline}`, {
      deadline: deadline.toString(),
    });
  }
  return { amountIn: amountIn.toString(), amountOutMin: minOut.toString(), deadline: deadline.toString() };
}

/** Checks the approval step of a swap: exact (or smaller) allowance of an allowlisted router. */
export function checkSwapApproval(
  call: DecodedCall,
  intent: SwapIntent,
  policy: SwapPolicy,
  to: string,
  value: bigint,
): Record<string, string> {
  if (call.known.fragment.name !== 'approve') {
    reject('dangerous_call', `${call.known.signature} is not allowed in a swap`, {
      function: call.known.signature,
    });
  }
  if (isNative(intent.fromToken) || !sameAddress(to, intent.fromToken)) {
    reject(
      'approval_not_allowed',
      `an approval on ${to.toLowerCase()}, which is not the token the swap spends`,
      {
        token: to.toLowerCase(),
      },
    );
  }
  const a = call.args as R;
  const spender = String(a.spender).toLowerCase();
  if (!policy.routers.has(spender)) {
    reject('approval_not_allowed', `approval of ${spender}, which is not an allowlisted router`, { spender });
  }
  const amount = BigInt(a.value);
  if (amount > intent.amountIn) {
    reject('approval_not_allowed', `approval of ${amount}, more than the swap's ${intent.amountIn}`, {
      amount: amount.toString(),
      amountIn: intent.amountIn.toString(),
    });
  }
  if (value !== 0n) reject('value_above_cap', `an approval sends no native value, got ${value}`);
  return { spender, amount: amount.toString() };
}

/** Checks a WETH wrap (`deposit`) or unwrap (`withdraw`). */
export function checkWrap(call: DecodedCall, intent: SwapIntent, value: bigint): Record<string, string> {
  const name = call.known.fragment.name;
  const wrap = isNative(intent.fromToken);
  if (name !== (wrap ? 'deposit' : 'withdraw')) {
    reject(
      'function_not_allowed',
      `${call.known.signature} is not allowed for this ${wrap ? 'wrap' : 'unwrap'}`,
      {
        function: call.known.signature,
      },
    );
  }
  const amountIn = wrap ? value : BigInt((call.args as R).wad);
  if (amountIn !== intent.amountIn) {
    reject(
      'swap_amount_mismatch',
      `the ${wrap ? 'wrap' : 'unwrap'} moves ${amountIn}, not ${intent.amountIn}`,
      {
        amountIn: amountIn.toString(),
      },
    );
  }
  if (!wrap && value !== 0n) reject('value_above_cap', `an unwrap sends no native value, got ${value}`);
  if (amountIn < intent.minAmountOut) {
    reject(
      'swap_min_out_too_low',
      `the ${wrap ? 'wrap' : 'unwrap'} yields ${amountIn}, below ${intent.minAmountOut}`,
    );
  }
  return { amountIn: amountIn.toString(), amountOut: amountIn.toString() };
}

/** Checks the drop contract's staged mint. */
export function checkMint(call: DecodedCall, intent: MintIntent, value: bigint): Record<string, string> {
  if (call.known.family !== 'drop' || call.known.fragment.name !== 'mint') {
    reject('function_not_allowed', `${call.known.signature} is not a drop mint`, {
      function: call.known.signature,
    });
  }
  const a = call.args as R;
  const minter = String(a.minter).toLowerCase();
  if (!sameAddress(minter, intent.recipient)) {
    reject(
      'recipient_mismatch',
      `the mint sends the tokens to ${minter}, not ${intent.recipient.toLowerCase()}`,
      {
        recipient: minter,
      },
    );
  }
  const quantity = BigInt(a.quantity);
  if (quantity !== intent.quantity) {
    reject('quantity_mismatch', `the mint is for ${quantity} token(s), not ${intent.quantity}`, {
      quantity: quantity.toString(),
    });
  }
  if (value > intent.maxValue) {
    reject('value_above_cap', `the mint pays ${value}, above the cap ${intent.maxValue}`, {
      value: value.toString(),
      cap: intent.maxValue.toString(),
    });
  }
  return {
    stageIndex: BigInt(a.stageIndex).toString(),
    quantity: quantity.toString(),
    value: value.toString(),
  };
}

import { Contract, getAddress, Interface, isAddress, toBeHex } from 'ethers';
import { isChainName } from '../../domain/chains.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import { HttpError } from '../errors.ts';
import {
  decimalString,
  type PriceBook,
  poolReserves,
  priceOf,
  round,
  type TokenInfo,
  toDisplay,
  tokenByAddress,
} from './currencies.ts';

/**
 * `GET /api/v2/swap/quote` on the sandbox's Uniswap v2 venue (chain/uniswap.ts): the router's
 * `getAmountsOut` prices the swap; the answer carries executable transactions — the ERC20
 * approval of the router first when the sender's allowance is short, then
 * `swapExactETHForTokens` / `swapExactTokensForETH` / `swapExactTokensForTokens` (through WETH)
 * with `amountOutMin = out × (1 − slippage)`, the recipient and a deadline 20 minutes after the
 * chain's time. ETH ↔ WETH is a wrap/unwrap on WETH itself (plus a transfer to a different
 * recipient). Native ETH is the zero address or 0xeeee…eeee.
 */

export const DEFAULT_SLIPPAGE = 0.01;
export const MAX_SLIPPAGE = 0.5;
export const DEADLINE_SECONDS = 1200;
export const SWAP_PROVIDER = 'UNISWAP_V2';
/** Uniswap v2 LP fee per hop, in basis points. */
export const LP_FEE_BPS = 30;

export const ERC20_SWAP_ABI = [
  'function approve(address spender, uint256 value) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function deposit() payable',
  'function withdraw(uint256 value)',
];
const erc20 = new Interface(ERC20_SWAP_ABI);

export interface SwapQuery {
  readonly chain: string;
  readonly from: TokenInfo;
  readonly to: TokenInfo;
  /** Smallest unit of `from`. */
  readonly quantity: bigint;
  /** Checksummed. */
  readonly sender: string;
  readonly recipient: string;
  readonly slippage: number;
}

const REQUIRED = ['from_chain', 'from_address', 'to_chain', 'to_address', 'quantity', 'address'] as const;

/** Checks every parameter of the spec; 400 with every problem found. */
export function parseSwapQuery(q: URLSearchParams, chain: string, tokens: readonly TokenInfo[]): SwapQuery {
  const get = (k: string) => {
    const v = q.get(k);
    return v === null || v.trim() === '' ? undefined : v.trim();
  };
  const missing = REQUIRED.filter((k) => get(k) === undefined);
  if (missing.length > 0)
    throw new HttpError(
      400,
      missing.map((k) => `${k}: required parameter is missing`),
    );
  const problems: string[] = [];
  for (const k of ['from_chain', 'to_chain'] as const) {
    const c = get(k) as string;
    if (!isChainName(c)) problems.push(`${k}: unknown chain '${c}'`);
    else if (c !== chain) problems.push(`${k}: the sandbox swaps only on ${chain}, not ${c}`);
  }
  const addr = (k: string): string | undefined => {
    const v = get(k);
    if (v === undefined) return undefined;
    if (!isAddress(v)) {
      problems.push(`${k}: '${v}' is not an address`);
      return undefined;
    }
    return getAddress(v.toLowerCase());
  };
  const fromAddress = addr('from_address');
  const toAddress = addr('to_address');
  const sender = addr('address');
  const recipient = addr('recipient') ?? sender;
  const known = tokens.map((t) => `${t.symbol} ${t.address.toLowerCase()}`).join(', ');
  const from = fromAddress !== undefined ? tokenByAddress(tokens, fromAddress) : undefined;
  const to = toAddress !== undefined ? tokenByAddress(tokens, toAddress) : undefined;
  if (fromAddress !== undefined && !from)
    problems.push(`from_address: no swappable token ${fromAddress.toLowerCase()} (${known})`);
  if (toAddress !== undefined && !to)
    problems.push(`to_address: no swappable token ${toAddress.toLowerCase()} (${known})`);
  if (from && to && from.symbol === to.symbol)
    problems.push('from_address and to_address are the same token');
  const rawQ = get('quantity') as string;
  let quantity = 0n;
  if (!/^\d+$/.test(rawQ))
    problems.push(`quantity: '${rawQ}' is not an integer amount in the token's smallest unit`);
  else {
    quantity = BigInt(rawQ);
    if (quantity === 0n) problems.push('quantity: must be positive');
  }
  const rawS = get('slippage');
  let slippage = DEFAULT_SLIPPAGE;
  if (rawS !== undefined) {
    const s = Number(rawS);
    if (
      !/^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(rawS) ||
      !Number.isFinite(s) ||
      s < 0 ||
      s > MAX_SLIPPAGE
    ) {
      problems.push(`slippage: must be a number from 0.0 to ${MAX_SLIPPAGE}, got '${rawS}'`);
    } else slippage = s;
  }
  if (problems.length > 0) throw new HttpError(400, problems);
  return {
    chain,
    from: from as TokenInfo,
    to: to as TokenInfo,
    quantity,
    sender: sender as string,
    recipient: recipient as string,
    slippage,
  };
}

// ── pure math ───────────────────────────────────────────────────────────────────────────────

/** Uniswap v2 `getAmountOut` (0.3 % fee). */
export function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const inWithFee = amountIn * 997n;
  return (inWithFee * reserveOut) / (reserveIn * 1000n + inWithFee);
}

/** What `amountIn` would buy at the pools' mid prices (no fee, no price impact). */
export function midAmountOut(amountIn: bigint, hops: readonly (readonly [bigint, bigint])[]): bigint {
  let a = amountIn;
  for (const [rIn, rOut] of hops) a = rIn === 0n ? 0n : (a * rOut) / rIn;
  return a;
}

const SLIPPAGE_SCALE = 1_000_000n;

/** `out × (1 − slippage)`, rounded down (slippage 0.0–0.5, micro precision). */
export function minimumOut(out: bigint, slippage: number): bigint {
  const s = BigInt(Math.round(slippage * Number(SLIPPAGE_SCALE)));
  return (out * (SLIPPAGE_SCALE - s)) / SLIPPAGE_SCALE;
}

/** Price impact in percent of the mid-price outcome (negative: the swapper gets less). */
export function priceImpactPercent(out: bigint, ideal: bigint): number {
  if (ideal === 0n) return 0;
  return (Number(out - ideal) / Number(ideal)) * 100;
}

export type SwapRoute =
  | { readonly kind: 'wrap' }
  | { readonly kind: 'unwrap' }
  | {
      readonly kind: 'router';
      readonly fn: 'swapExactETHForTokens' | 'swapExactTokensForETH' | 'swapExactTokensForTokens';
      /** Token addresses (WETH for ETH). */
      readonly path: readonly string[];
    };

export function routeOf(from: TokenInfo, to: TokenInfo, weth: string): SwapRoute {
  const isWeth = (t: TokenInfo) => !t.native && t.address.toLowerCase() === weth.toLowerCase();
  if (from.native && isWeth(to)) return { kind: 'wrap' };
  if (isWeth(from) && to.native) return { kind: 'unwrap' };
  if (from.native) return { kind: 'router', fn: 'swapExactETHForTokens', path: [weth, to.address] };
  if (to.native) return { kind: 'router', fn: 'swapExactTokensForETH', path: [from.address, weth] };
  const path = isWeth(from) || isWeth(to) ? [from.address, to.address] : [from.address, weth, to.address];
  return { kind: 'router', fn: 'swapExactTokensForTokens', path };
}

/** Gas units the sandbox estimates per step (for the GAS cost; wallets estimate their own). */
export const GAS_UNITS = {
  approve: 46_000n,
  swapExactETHForTokens: 110_000n,
  swapExactTokensForETH: 120_000n,
  swapExactTokensForTokens: 170_000n,
  wrap: 45_000n,
  unwrap: 40_000n,
  transfer: 52_000n,
  send: 21_000n,
} as const;

// ── the quote ───────────────────────────────────────────────────────────────────────────────

export interface SwapTransaction {
  readonly chain: string;
  readonly to: string;
  readonly data: string;
  /** Decimal wei. */
  readonly value: string;
  readonly value_hex: string;
  /** With a safety buffer over the estimate; use as-is. */
  readonly gas_limit: string;
}

export interface SwapQuoteResponse {
  readonly quote: {
    readonly total_price_usd: number;
    readonly total_cost_usd: number;
    readonly slippage_tolerance: number;
    readonly estimated_duration_ms: number;
    readonly refresh_after_ms: number;
    readonly marketplace_fee_bps: number;
    readonly price_impact: { readonly usd: string; readonly percent: string };
    readonly swap_provider: string;
    readonly costs: readonly { readonly type: string; readonly usd: string }[];
    readonly route_errors: readonly { readonly type: string }[];
  };
  readonly transactions: readonly SwapTransaction[];
}

type UnsignedTx = Omit<SwapTransaction, 'gas_limit'>;

function tx(chain: string, to: string, data: string, value = 0n): UnsignedTx {
  return { chain, to: to.toLowerCase(), data, value: value.toString(), value_hex: toBeHex(value) };
}

/** Gas limit buffer over the node's estimate (pool updates cost more in a later second). */
export const GAS_BUFFER_PERCENT = 25n;

/**
 * The gas limit of each step: the node's estimate plus GAS_BUFFER_PERCENT when the step can be
 * estimated now, else (a step that needs an earlier one mined, e.g. a swap after its approval)
 * twice the sandbox's own figure.
 */
async function withGasLimits(
  fx: ChainFixture,
  from: string,
  txs: readonly UnsignedTx[],
  units: readonly bigint[],
): Promise<SwapTransaction[]> {
  return Promise.all(
    txs.map(async (t, i) => {
      let limit: bigint;
      try {
        const est = await fx.provider.estimateGas({ from, to: t.to, data: t.data, value: BigInt(t.value) });
        limit = (est * (100n + GAS_BUFFER_PERCENT)) / 100n;
      } catch {
        limit = (units[i] ?? 200_000n) * 2n;
      }
      return { ...t, gas_limit: limit.toString() };
    }),
  );
}

export async function buildSwapQuote(
  fx: ChainFixture,
  q: SwapQuery,
  prices: PriceBook,
): Promise<SwapQuoteResponse> {
  const uni = fx.uniswap;
  const weth = getAddress(String(fx.weth.target));
  const route = routeOf(q.from, q.to, weth);
  if (route.kind === 'router' && !uni) throw new HttpError(400, 'The sandbox has no swap venue deployed');

  const block = await fx.provider.getBlock('latest');
  const deadline = BigInt((block?.timestamp ?? Math.floor(Date.now() / 1000)) + DEADLINE_SECONDS);
  const transactions: UnsignedTx[] = [];
  let out: bigint;
  let ideal: bigint;
  /** Estimated gas units per transaction (the GAS cost; the fallback gas limit). */
  const units: bigint[] = [];
  let hops = 0;

  if (route.kind === 'router') {
    const router = new Contract(
      (uni as NonNullable<typeof uni>).router,
      (uni as NonNullable<typeof uni>).routerAbi as never[],
      fx.provider,
    );
    try {
      const amounts = (await router.getFunction('getAmountsOut')(q.quantity, route.path)) as bigint[];
      out = amounts[amounts.length - 1] ?? 0n;
    } catch {
      throw new HttpError(400, `No route: insufficient liquidity for ${q.from.symbol} → ${q.to.symbol}`);
    }
    if (out === 0n)
      throw new HttpError(400, `No route: the amount is too small to swap ${q.from.symbol} → ${q.to.symbol}`);
    const reserves: [bigint, bigint][] = [];
    for (let i = 0; i + 1 < route.path.length; i++) {
      const a = route.path[i] as string;
      const b = route.path[i + 1] as string;
      const aIsWeth = a.toLowerCase() === weth.toLowerCase();
      const r = await poolReserves(fx, aIsWeth ? b : a);
      if (!r) throw new HttpError(400, `No route: no pool for ${a} → ${b}`);
      reserves.push(aIsWeth ? [r[1], r[0]] : [r[0], r[1]]);
    }
    ideal = midAmountOut(q.quantity, reserves);
    hops = reserves.length;
    const minOut = minimumOut(out, q.slippage);
    if (!q.from.native) {
      const token = new Contract(q.from.address, ERC20_SWAP_ABI, fx.provider);
      const allowance = (await token.getFunction('allowance')(q.sender, router.target)) as bigint;
      if (allowance < q.quantity) {
        transactions.push(
          tx(q.chain, q.from.address, erc20.encodeFunctionData('approve', [router.target, q.quantity])),
        );
        units.push(GAS_UNITS.approve);
      }
    }
    const args =
      route.fn === 'swapExactETHForTokens'
        ? [minOut, route.path, q.recipient, deadline]
        : [q.quantity, minOut, route.path, q.recipient, deadline];
    const data = router.interface.encodeFunctionData(route.fn, args);
    transactions.push(tx(q.chain, String(router.target), data, q.from.native ? q.quantity : 0n));
    units.push(GAS_UNITS[route.fn]);
  } else {
    out = q.quantity;
    ideal = q.quantity;
    if (route.kind === 'wrap') {
      transactions.push(tx(q.chain, weth, erc20.encodeFunctionData('deposit', []), q.quantity));
      units.push(GAS_UNITS.wrap);
      if (q.recipient !== q.sender) {
        transactions.push(tx(q.chain, weth, erc20.encodeFunctionData('transfer', [q.recipient, q.quantity])));
        units.push(GAS_UNITS.transfer);
      }
    } else {
      transactions.push(tx(q.chain, weth, erc20.encodeFunctionData('withdraw', [q.quantity])));
      units.push(GAS_UNITS.unwrap);
      if (q.recipient !== q.sender) {
        transactions.push(tx(q.chain, q.recipient, '0x', q.quantity));
        units.push(GAS_UNITS.send);
      }
    }
  }

  // The sender's funds: a quote is still given, flagged as a route error (as the API does).
  const routeErrors: { type: string }[] = [];
  const balance = q.from.native
    ? await fx.provider.getBalance(q.sender)
    : ((await new Contract(q.from.address, ERC20_SWAP_ABI, fx.provider).getFunction('balanceOf')(
        q.sender,
      )) as bigint);
  if (balance < q.quantity) routeErrors.push({ type: 'INSUFFICIENT_FUNDS' });

  const fee = await fx.provider.getFeeData();
  const gasPrice = fee.gasPrice ?? fee.maxFeePerGas ?? 1_000_000_000n;
  const usdIn = toDisplay(q.quantity, q.from.decimals) * (priceOf(prices, q.from.symbol)?.usd ?? 0);
  const usdOut = toDisplay(out, q.to.decimals) * (priceOf(prices, q.to.symbol)?.usd ?? 0);
  const usdIdeal = toDisplay(ideal, q.to.decimals) * (priceOf(prices, q.to.symbol)?.usd ?? 0);
  const gas = units.reduce((a, b) => a + b, 0n);
  const gasUsd = toDisplay(gas * gasPrice, 18) * prices.ethUsd;
  const lpUsd = usdIn * (1 - (1 - LP_FEE_BPS / 10_000) ** hops);
  return {
    quote: {
      total_price_usd: round(usdOut),
      total_cost_usd: round(usdIn),
      slippage_tolerance: q.slippage,
      estimated_duration_ms: 2000 * transactions.length,
      refresh_after_ms: 2000,
      marketplace_fee_bps: 0,
      price_impact: {
        usd: decimalString(round(usdOut - usdIdeal), 6),
        percent: decimalString(round(priceImpactPercent(out, ideal), 4), 4),
      },
      swap_provider: SWAP_PROVIDER,
      costs: [
        { type: 'GAS', usd: decimalString(round(gasUsd), 6) },
        ...(hops > 0 ? [{ type: 'SWAP', usd: decimalString(round(lpUsd), 6) }] : []),
      ],
      route_errors: routeErrors,
    },
    transactions: await withGasLimits(fx, q.sender, transactions, units),
  };
}

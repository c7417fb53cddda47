import { describe, expect, it } from 'vitest';
import { ETH_TOKEN, type TokenInfo } from '../../../../src/sandbox/data/currencies.ts';
import {
  amountOut,
  midAmountOut,
  minimumOut,
  parseSwapQuery,
  priceImpactPercent,
  routeOf,
} from '../../../../src/sandbox/data/swap.ts';
import { HttpError } from '../../../../src/sandbox/errors.ts';

const WETH = '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9';
const USDC = '0xB7f8BC63BbcaD18155201308C8f3540b07f84F5e';
const HRP = '0xA51c1fc2f0D1a1b8494Ed1FE312d7C3a78Ed91C0';
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const tok = (symbol: string, address: string, decimals: number): TokenInfo => ({
  symbol,
  name: symbol,
  decimals,
  address,
  native: false,
});
const TOKENS = [ETH_TOKEN, tok('WETH', WETH, 18), tok('USDC', USDC, 6), tok('HRP', HRP, 18)];

function query(over: Record<string, string | undefined> = {}): URLSearchParams {
  const base: Record<string, string | undefined> = {
    from_chain: 'ethereum',
    to_chain: 'ethereum',
    from_address: '0x0000000000000000000000000000000000000000',
    to_address: USDC,
    quantity: '1000000000000000000',
    address: WALLET,
    ...over,
  };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(base)) if (v !== undefined) q.set(k, v);
  return q;
}

function reasons(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    return (e as HttpError).reasons.join(' | ');
  }
  throw new Error('expected a 400');
}

describe('swap quote math', () => {
  it('Uniswap v2 getAmountOut with the 0.3 % fee', () => {
    // 1 ETH into 500 ETH / 1.5M USDC: 997·1500000e6·1e18 / (500e18·1000 + 997e15)
    const out = amountOut(10n ** 18n, 500n * 10n ** 18n, 1_500_000n * 10n ** 6n);
    expect(out).toBe(2_985_047_814n);
    expect(amountOut(0n, 1n, 1n)).toBe(0n);
    expect(amountOut(1n, 0n, 1n)).toBe(0n);
  });

  it('mid-price outcome multiplies hop by hop, without fee', () => {
    expect(midAmountOut(10n ** 18n, [[500n * 10n ** 18n, 1_500_000n * 10n ** 6n]])).toBe(3_000_000_000n);
    // 3000 USDC → 1 ETH → 10000 HRP
    expect(
      midAmountOut(3_000n * 10n ** 6n, [
        [1_500_000n * 10n ** 6n, 500n * 10n ** 18n],
        [200n * 10n ** 18n, 2_000_000n * 10n ** 18n],
      ]),
    ).toBe(10_000n * 10n ** 18n);
  });

  it('amountOutMin = out × (1 − slippage), rounded down', () => {
    expect(minimumOut(1_000_000n, 0.01)).toBe(990_000n);
    expect(minimumOut(1_000_000n, 0)).toBe(1_000_000n);
    expect(minimumOut(1_000_000n, 0.5)).toBe(500_000n);
    expect(minimumOut(999n, 0.01)).toBe(989n); // 989.01 → 989
    expect(minimumOut(10n ** 18n, 0.000001)).toBe(10n ** 18n - 10n ** 12n);
  });

  it('price impact relative to the mid-price outcome', () => {
    expect(priceImpactPercent(2_985_047_814n, 3_000_000_000n)).toBeCloseTo(-0.4984, 4);
    expect(priceImpactPercent(5n, 0n)).toBe(0);
  });

  it('routes: wrap, unwrap, through the router with WETH in the path', () => {
    const [eth, weth, usdc, hrp] = TOKENS as [TokenInfo, TokenInfo, TokenInfo, TokenInfo];
    expect(routeOf(eth, weth, WETH)).toEqual({ kind: 'wrap' });
    expect(routeOf(weth, eth, WETH)).toEqual({ kind: 'unwrap' });
    expect(routeOf(eth, usdc, WETH)).toEqual({
      kind: 'router',
      fn: 'swapExactETHForTokens',
      path: [WETH, USDC],
    });
    expect(routeOf(usdc, eth, WETH)).toEqual({
      kind: 'router',
      fn: 'swapExactTokensForETH',
      path: [USDC, WETH],
    });
    expect(routeOf(usdc, hrp, WETH)).toEqual({
      kind: 'router',
      fn: 'swapExactTokensForTokens',
      path: [USDC, WETH, HRP],
    });
    expect(routeOf(weth, hrp, WETH)).toEqual({
      kind: 'router',
      fn: 'swapExactTokensForTokens',
      path: [WETH, HRP],
    });
    expect(routeOf(usdc, weth, WETH)).toEqual({
      kind: 'router',
      fn: 'swapExactTokensForTokens',
      path: [USDC, WETH],
    });
  });
});

describe('swap quote parameters', () => {
  it('accepts the spec parameters; slippage defaults to 0.01, recipient to the sender', () => {
    const q = parseSwapQuery(query(), 'ethereum', TOKENS);
    expect(q.from.symbol).toBe('ETH');
    expect(q.to.symbol).toBe('USDC');
    expect(q.quantity).toBe(10n ** 18n);
    expect(q.slippage).toBe(0.01);
    expect(q.sender).toBe(WALLET);
    expect(q.recipient).toBe(WALLET);
    const r = parseSwapQuery(query({ slippage: '0.5', recipient: OTHER.toLowerCase() }), 'ethereum', TOKENS);
    expect(r.slippage).toBe(0.5);
    expect(r.recipient).toBe(OTHER);
    expect(parseSwapQuery(query({ slippage: '0' }), 'ethereum', TOKENS).slippage).toBe(0);
  });

  it('native ETH may be spelled 0xeeee…eeee', () => {
    const q = parseSwapQuery(
      query({ from_address: USDC, to_address: '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE' }),
      'ethereum',
      TOKENS,
    );
    expect(q.to.native).toBe(true);
  });

  it('every required parameter is checked', () => {
    for (const k of ['from_chain', 'from_address', 'to_chain', 'to_address', 'quantity', 'address']) {
      expect(reasons(() => parseSwapQuery(query({ [k]: undefined }), 'ethereum', TOKENS))).toContain(
        `${k}: required`,
      );
    }
    const all = reasons(() => parseSwapQuery(new URLSearchParams(), 'ethereum', TOKENS));
    expect(all.split(' | ')).toHaveLength(6);
  });

  it('rejects bad slippage, amounts, addresses, chains and tokens', () => {
    const bad = (over: Record<string, string>) =>
      reasons(() => parseSwapQuery(query(over), 'ethereum', TOKENS));
    expect(bad({ slippage: '0.51' })).toMatch(/slippage/);
    expect(bad({ slippage: '-0.01' })).toMatch(/slippage/);
    expect(bad({ slippage: 'abc' })).toMatch(/slippage/);
    expect(bad({ quantity: '0' })).toMatch(/quantity: must be positive/);
    expect(bad({ quantity: '1.5' })).toMatch(/quantity/);
    expect(bad({ address: '0x1234' })).toMatch(/address: '0x1234' is not an address/);
    expect(bad({ recipient: 'bob' })).toMatch(/recipient/);
    expect(bad({ from_chain: 'base' })).toMatch(/only on ethereum/);
    expect(bad({ to_chain: 'nochain' })).toMatch(/unknown chain/);
    expect(bad({ to_address: OTHER })).toMatch(/no swappable token/);
    expect(bad({ to_address: '0x0000000000000000000000000000000000000000' })).toMatch(/same token/);
  });
});

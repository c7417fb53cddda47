import { Contract, formatUnits, getAddress, isAddress, ZeroAddress } from 'ethers';
import type { ChainFixture } from '../chain/fixture.ts';

/**
 * The fungible tokens of the sandbox chain: native ETH, WETH and the swap venue's ERC20s (USDC,
 * HRP), with their prices. Prices are read from the chain: every token is paired with WETH on the
 * Uniswap v2 venue, so a token's ETH price is its pool's mid price, and the ETH/USD price is the
 * USDC pool's (USDC counted as one dollar). Without the swap venue ETH is 3000 USD.
 */

export const NATIVE_ADDRESS = ZeroAddress;
/** The other spelling of native ETH that swap APIs accept. */
export const NATIVE_ALIAS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
export const FALLBACK_ETH_USD = 3000;

export interface TokenInfo {
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  /** Checksummed; the zero address for native ETH. */
  readonly address: string;
  readonly native: boolean;
}

export const ETH_TOKEN: TokenInfo = Object.freeze({
  symbol: 'ETH',
  name: 'Ether',
  decimals: 18,
  address: NATIVE_ADDRESS,
  native: true,
});

/** ETH, WETH, then the swap tokens in deployment order. */
export function tokensOf(fx: ChainFixture | undefined): TokenInfo[] {
  const out: TokenInfo[] = [ETH_TOKEN];
  if (!fx) return out;
  out.push({
    symbol: 'WETH',
    name: 'Wrapped Ether',
    decimals: 18,
    address: getAddress(String(fx.weth.target)),
    native: false,
  });
  for (const t of fx.uniswap?.tokens ?? []) {
    out.push({ symbol: t.symbol, name: t.name, decimals: t.decimals, address: t.address, native: false });
  }
  return out;
}

export const isNativeAddress = (address: string): boolean => {
  const a = address.toLowerCase();
  return a === NATIVE_ADDRESS || a === NATIVE_ALIAS;
};

export function tokenByAddress(tokens: readonly TokenInfo[], address: string): TokenInfo | undefined {
  if (!isAddress(address)) return undefined;
  if (isNativeAddress(address)) return tokens.find((t) => t.native);
  const a = address.toLowerCase();
  return tokens.find((t) => !t.native && t.address.toLowerCase() === a);
}

export function tokenBySymbol(tokens: readonly TokenInfo[], symbol: string): TokenInfo | undefined {
  const s = symbol.toUpperCase();
  return tokens.find((t) => t.symbol.toUpperCase() === s);
}

/** An amount in smallest units as a number of display units (`1500000`, 6 → 1.5). */
export function toDisplay(amount: bigint, decimals: number): number {
  return Number(formatUnits(amount, decimals));
}

/** Rounds to `digits` decimals (USD figures without float noise). */
export function round(n: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** ETH per token unit from a token/WETH pool's reserves (mid price, no fee). */
export function ethPerToken(reserveToken: bigint, tokenDecimals: number, reserveWeth: bigint): number {
  if (reserveToken === 0n) return 0;
  return toDisplay(reserveWeth, 18) / toDisplay(reserveToken, tokenDecimals);
}

export interface TokenPrice {
  readonly eth: number;
  readonly usd: number;
}

export interface PriceBook {
  readonly ethUsd: number;
  /** By upper-case symbol. */
  readonly bySymbol: ReadonlyMap<string, TokenPrice>;
}

export function priceOf(book: PriceBook, symbol: string): TokenPrice | undefined {
  return book.bySymbol.get(symbol.toUpperCase());
}

/** Reserves of a token/WETH pool as [token, weth]. */
export async function poolReserves(fx: ChainFixture, token: string): Promise<[bigint, bigint] | undefined> {
  const uni = fx.uniswap;
  const t = uni?.tokens.find((x) => x.address.toLowerCase() === token.toLowerCase());
  const pairAddress = t ? uni?.pairs[t.symbol] : undefined;
  if (!uni || !t || !pairAddress) return undefined;
  const pair = new Contract(pairAddress, uni.pairAbi as never[], fx.provider);
  const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint, bigint];
  const token0 = String(await pair.getFunction('token0')());
  return token0.toLowerCase() === token.toLowerCase() ? [r0, r1] : [r1, r0];
}

/** Current prices of every token of the chain (one read per pool). */
export async function readPrices(fx: ChainFixture | undefined): Promise<PriceBook> {
  const tokens = tokensOf(fx);
  const ethPrices = new Map<string, number>([
    ['ETH', 1],
    ['WETH', 1],
  ]);
  if (fx?.uniswap) {
    await Promise.all(
      fx.uniswap.tokens.map(async (t) => {
        const r = await poolReserves(fx, t.address);
        if (r) ethPrices.set(t.symbol.toUpperCase(), ethPerToken(r[0], t.decimals, r[1]));
      }),
    );
  }
  const usdcEth = ethPrices.get('USDC');
  const ethUsd = usdcEth !== undefined && usdcEth > 0 ? 1 / usdcEth : FALLBACK_ETH_USD;
  const bySymbol = new Map<string, TokenPrice>();
  for (const t of tokens) {
    const eth = ethPrices.get(t.symbol.toUpperCase());
    if (eth !== undefined) bySymbol.set(t.symbol.toUpperCase(), { eth, usd: eth * ethUsd });
  }
  return { ethUsd, bySymbol };
}

/** A decimal string without exponent notation (`1e-7` → `0.0000001`), for wire price strings. */
export function decimalString(n: number, maxDigits = 12): string {
  if (!Number.isFinite(n)) return '0';
  const s = n.toFixed(maxDigits);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

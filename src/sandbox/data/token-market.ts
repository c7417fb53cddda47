import { Contract, id as topicOf } from 'ethers';
import type { ChainFixture } from '../chain/fixture.ts';
import { FALLBACK_ETH_USD, type PriceBook, priceOf, type TokenInfo, toDisplay } from './currencies.ts';

/**
 * Market figures of the sandbox's fungible tokens, from the swap venue's own history on the chain:
 * every token/WETH pool's `Sync` logs (reserves after each change: the price history) and `Swap`
 * logs (the traded amounts: the volume). A token's ETH price at a time is its pool's mid price
 * after the last `Sync` at or before that time (the first `Sync` for a time before the pool
 * existed); its USD price is that times the ETH/USD price of the USDC pool at the same time (USDC
 * counted as one dollar). ETH and WETH cost one ETH; the venue trades native ETH as WETH (the
 * router wraps it), so both have WETH's volume: the WETH side of every pool's swaps. Volumes are
 * in USD at the current price. Windows end at `nowMs`.
 */

export const SYNC_TOPIC = topicOf('Sync(uint112,uint112)');
export const SWAP_TOPIC = topicOf('Swap(address,uint256,uint256,uint256,uint256,address)');

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The price-change windows of the token endpoints (`sort_by` names and `stats` fields). */
export const CHANGE_WINDOWS = {
  one_hour: HOUR,
  one_day: DAY,
  seven_day: 7 * DAY,
  fourteen_day: 14 * DAY,
  thirty_day: 30 * DAY,
  two_hundred_day: 200 * DAY,
  one_year: 365 * DAY,
} as const;
export type ChangeWindow = keyof typeof CHANGE_WINDOWS;

/** Reserves of one pool after a change (token side, WETH side). */
export interface PoolSync {
  readonly timestampMs: number;
  readonly reserveToken: bigint;
  readonly reserveWeth: bigint;
}

/** One swap of a pool: units of each side that went in or out. */
export interface PoolSwap {
  readonly timestampMs: number;
  readonly tokenUnits: bigint;
  readonly wethUnits: bigint;
}

/** A pool's history, oldest first. */
export interface PoolHistory {
  readonly token: TokenInfo;
  readonly syncs: readonly PoolSync[];
  readonly swaps: readonly PoolSwap[];
}

export interface TokenFigures {
  readonly token: TokenInfo;
  readonly usdPrice: number;
  /** Percent change of the USD price over each window; undefined without any price history. */
  readonly changes: Readonly<Record<ChangeWindow, number | undefined>>;
  readonly volumeUsd1h: number;
  readonly volumeUsd24h: number;
  /** Total supply × USD price; undefined for native ETH (no supply on a contract). */
  readonly marketCapUsd: number | undefined;
  readonly totalSupply: number | undefined;
  /** Epoch ms of the token's first pool activity; undefined when it has none. */
  readonly genesisMs: number | undefined;
}

/** ETH per token unit after the last sync at or before `t` (the first sync when all are later). */
export function ethPerAt(h: PoolHistory, t: number): number | undefined {
  let chosen: PoolSync | undefined;
  for (const s of h.syncs) {
    if (s.timestampMs <= t || chosen === undefined) chosen = s;
    if (s.timestampMs > t) break;
  }
  if (!chosen || chosen.reserveToken === 0n) return undefined;
  return toDisplay(chosen.reserveWeth, 18) / toDisplay(chosen.reserveToken, h.token.decimals);
}

const isEthLike = (t: TokenInfo) => t.native || t.symbol.toUpperCase() === 'WETH';

/** USD per unit of `token` at time `t` from the pools' history (undefined without a price). */
export function usdAt(token: TokenInfo, pools: readonly PoolHistory[], t: number): number | undefined {
  const usdc = pools.find((p) => p.token.symbol.toUpperCase() === 'USDC');
  const usdcEth = usdc ? ethPerAt(usdc, t) : undefined;
  const ethUsd = usdcEth !== undefined && usdcEth > 0 ? 1 / usdcEth : FALLBACK_ETH_USD;
  if (isEthLike(token)) return ethUsd;
  const pool = pools.find((p) => p.token.address.toLowerCase() === token.address.toLowerCase());
  const eth = pool ? ethPerAt(pool, t) : undefined;
  return eth === undefined ? undefined : eth * ethUsd;
}

/** Units of `token` traded in (from, to] (display units). */
function tradedUnits(token: TokenInfo, pools: readonly PoolHistory[], from: number, to: number): number {
  let units = 0n;
  for (const p of pools) {
    const own = p.token.address.toLowerCase() === token.address.toLowerCase();
    if (!own && !isEthLike(token)) continue;
    for (const s of p.swaps) {
      if (s.timestampMs > from && s.timestampMs <= to) units += own ? s.tokenUnits : s.wethUnits;
    }
  }
  return toDisplay(units, isEthLike(token) ? 18 : token.decimals);
}

function genesisOf(token: TokenInfo, pools: readonly PoolHistory[]): number | undefined {
  const own = pools.filter(
    (p) => isEthLike(token) || p.token.address.toLowerCase() === token.address.toLowerCase(),
  );
  const times = own.flatMap((p) => (p.syncs[0] ? [p.syncs[0].timestampMs] : []));
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** Every figure of one token at `nowMs` (`prices`: the current price book; `supply` in units). */
export function figuresOf(
  token: TokenInfo,
  pools: readonly PoolHistory[],
  nowMs: number,
  prices: PriceBook,
  supply: bigint | undefined,
): TokenFigures {
  const usdPrice = priceOf(prices, token.symbol)?.usd ?? 0;
  const nowUsd = usdAt(token, pools, nowMs);
  const changes = {} as Record<ChangeWindow, number | undefined>;
  for (const [name, ms] of Object.entries(CHANGE_WINDOWS) as [ChangeWindow, number][]) {
    const then = usdAt(token, pools, nowMs - ms);
    changes[name] =
      nowUsd === undefined || then === undefined || then === 0 ? undefined : ((nowUsd - then) / then) * 100;
  }
  const totalSupply = supply === undefined ? undefined : toDisplay(supply, token.decimals);
  return {
    token,
    usdPrice,
    changes,
    volumeUsd1h: tradedUnits(token, pools, nowMs - HOUR, nowMs) * usdPrice,
    volumeUsd24h: tradedUnits(token, pools, nowMs - DAY, nowMs) * usdPrice,
    marketCapUsd: totalSupply === undefined ? undefined : totalSupply * usdPrice,
    totalSupply,
    genesisMs: genesisOf(token, pools),
  };
}

interface PoolReader {
  readonly token: TokenInfo;
  readonly pair: string;
  /** Whether the token is the pair's token0. */
  readonly tokenIsToken0: boolean;
  readonly syncs: PoolSync[];
  readonly swaps: PoolSwap[];
}

/**
 * The pools' history read from the chain, incrementally: each `sync()` reads the logs of the
 * blocks it has not seen (their timestamps cached per block), so the figures follow every swap.
 */
export class PoolTape {
  readonly #fx: ChainFixture;
  #pools: Promise<PoolReader[]> | undefined;
  #nextBlock = 0;
  #syncing: Promise<void> | undefined;
  readonly #blockMs = new Map<number, number>();

  constructor(fx: ChainFixture) {
    this.#fx = fx;
  }

  get fixture(): ChainFixture {
    return this.#fx;
  }

  async #readers(): Promise<PoolReader[]> {
    this.#pools ??= (async () => {
      const uni = this.#fx.uniswap;
      if (!uni) return [];
      const out: PoolReader[] = [];
      for (const t of uni.tokens) {
        const pair = uni.pairs[t.symbol];
        if (!pair) continue;
        const c = new Contract(pair, uni.pairAbi as never[], this.#fx.provider);
        const token0 = String(await c.getFunction('token0')());
        out.push({
          token: { symbol: t.symbol, name: t.name, decimals: t.decimals, address: t.address, native: false },
          pair: pair.toLowerCase(),
          tokenIsToken0: token0.toLowerCase() === t.address.toLowerCase(),
          syncs: [],
          swaps: [],
        });
      }
      return out;
    })();
    return this.#pools;
  }

  async #timeOf(block: number): Promise<number> {
    let t = this.#blockMs.get(block);
    if (t === undefined) {
      const b = await this.#fx.provider.getBlock(block);
      t = (b?.timestamp ?? 0) * 1000;
      this.#blockMs.set(block, t);
    }
    return t;
  }

  async #syncOnce(): Promise<void> {
    const pools = await this.#readers();
    if (pools.length === 0) return;
    const latest = await this.#fx.provider.getBlockNumber();
    if (latest < this.#nextBlock) return;
    const logs = await this.#fx.provider.getLogs({
      address: pools.map((p) => p.pair),
      fromBlock: this.#nextBlock,
      toBlock: latest,
      topics: [[SYNC_TOPIC, SWAP_TOPIC]],
    });
    for (const log of logs) {
      const p = pools.find((x) => x.pair === log.address.toLowerCase());
      if (!p) continue;
      const timestampMs = await this.#timeOf(log.blockNumber);
      const words = (log.data.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`));
      if (log.topics[0] === SYNC_TOPIC) {
        const [r0 = 0n, r1 = 0n] = words;
        p.syncs.push({
          timestampMs,
          reserveToken: p.tokenIsToken0 ? r0 : r1,
          reserveWeth: p.tokenIsToken0 ? r1 : r0,
        });
      } else {
        const [in0 = 0n, in1 = 0n, out0 = 0n, out1 = 0n] = words;
        const side0 = in0 + out0;
        const side1 = in1 + out1;
        p.swaps.push({
          timestampMs,
          tokenUnits: p.tokenIsToken0 ? side0 : side1,
          wethUnits: p.tokenIsToken0 ? side1 : side0,
        });
      }
    }
    this.#nextBlock = latest + 1;
  }

  /** Reads the new blocks (one read at a time; concurrent callers share it). */
  async history(): Promise<PoolHistory[]> {
    while (this.#syncing) await this.#syncing;
    this.#syncing = this.#syncOnce().finally(() => {
      this.#syncing = undefined;
    });
    await this.#syncing;
    return (await this.#readers()).map((p) => ({ token: p.token, syncs: p.syncs, swaps: p.swaps }));
  }
}

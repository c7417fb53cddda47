import type { z } from 'zod';
import type { ListingEvent, NftRef, PaymentToken } from '../../../src/domain/events.ts';
import type { Address, OrderHash } from '../../../src/domain/ids.ts';
import { ETH_TOKEN, ManualClock, MemoryMarket } from '../../../src/engine/memory.ts';
import { MemoryStrategyState } from '../../../src/engine/runner.ts';
import type { OwnOrder } from '../../../src/market/snapshot.ts';
import {
  type Holding,
  type Intent,
  nftKey,
  type Strategy,
  type StrategyContext,
} from '../../../src/strategy.ts';

export const E = 10n ** 18n;
/** ETH amount from a decimal string. */
export function eth(text: string): bigint {
  const [w = '0', f = ''] = text.split('.');
  return BigInt(w) * E + BigInt(f.padEnd(18, '0') || '0');
}
export const NOW = 1_800_000_000_000;
export const WALLET = '0x00000000000000000000000000000000000000aa' as Address;
export const OTHER = '0x00000000000000000000000000000000000000bb' as Address;
export const WETH: PaymentToken = {
  address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as Address,
  symbol: 'WETH',
  decimals: 18,
};
export const USDC: PaymentToken = {
  address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' as Address,
  symbol: 'USDC',
  decimals: 6,
};
export { ETH_TOKEN };
export const CONTRACT = '0x00000000000000000000000000000000000000c1' as Address;

export function hash(n: number): OrderHash {
  return `0x${n.toString(16).padStart(64, '0')}` as OrderHash;
}

export function nft(id: number): NftRef {
  return { chain: 'ethereum', contract: CONTRACT, identifier: String(id) as NftRef['identifier'] };
}

export function nftKeyOf(id: number): string {
  return `ethereum/${CONTRACT}/${id}`;
}

export function listing(a: {
  id?: number;
  price: bigint;
  hash?: number;
  quantity?: bigint;
  maker?: Address;
  isPrivate?: boolean;
  expiresAt?: number | null;
  token?: PaymentToken;
  collection?: string;
}): ListingEvent {
  return {
    kind: 'listing',
    id: `listing-${a.hash ?? 1}`,
    collection: (a.collection ?? 'apes') as ListingEvent['collection'],
    chain: 'ethereum',
    occurredAt: NOW,
    receivedAt: NOW,
    source: 'stream',
    orderHash: hash(a.hash ?? 1),
    maker: a.maker ?? OTHER,
    taker: null,
    quantity: a.quantity ?? 1n,
    price: a.price,
    paymentToken: a.token ?? ETH_TOKEN,
    expiresAt: a.expiresAt === undefined ? NOW + 3_600_000 : a.expiresAt,
    nft: nft(a.id ?? 1),
    isPrivate: a.isPrivate ?? false,
  };
}

export function ownOffer(a: {
  hash: number;
  price: bigint;
  side?: OwnOrder['side'];
  collection?: string;
  trait?: { type: string; value: string } | null;
  expiresAt?: number | null;
  status?: OwnOrder['status'];
  quantity?: bigint;
  token?: PaymentToken;
}): OwnOrder {
  return {
    orderHash: hash(a.hash),
    side: a.side ?? (a.trait ? 'trait_offer' : 'collection_offer'),
    collection: (a.collection ?? 'apes') as OwnOrder['collection'],
    nftKey: null,
    trait: a.trait ?? null,
    price: a.price,
    paymentToken: a.token ?? WETH,
    quantity: a.quantity ?? 1n,
    expiresAt: a.expiresAt === undefined ? NOW + 3_600_000 : a.expiresAt,
    status: a.status ?? 'open',
  };
}

export interface Harness<P> {
  readonly clock: ManualClock;
  readonly market: MemoryMarket;
  readonly state: MemoryStrategyState;
  ownOrders: OwnOrder[];
  /** What `ctx.holdings` shows (NFTs we hold). */
  holdings: Holding[];
  budget: bigint | null;
  /** What the strategy logged, in order. */
  readonly logs: { level: 'debug' | 'info' | 'warn' | 'error'; obj: object; msg?: string }[];
  readonly params: P;
  ctx(): StrategyContext<P>;
}

/** Parses params with the strategy's schema and builds a context over an in-memory market. */
export function harness<S extends z.ZodType>(strategy: Strategy<S>, raw: unknown): Harness<z.output<S>> {
  const clock = new ManualClock(NOW);
  const market = new MemoryMarket(clock);
  const state = new MemoryStrategyState();
  const params = strategy.params.parse(raw) as z.output<S>;
  const h: Harness<z.output<S>> = {
    clock,
    market,
    state,
    ownOrders: [],
    holdings: [],
    budget: null,
    logs: [],
    params,
    ctx() {
      const at = (level: Harness<unknown>['logs'][number]['level']) => (obj: object, msg?: string) =>
        void h.logs.push({ level, obj, ...(msg !== undefined ? { msg } : {}) });
      return {
        id: strategy.id,
        now: clock.now(),
        clock,
        market: market.snapshot(),
        ownOrders: h.ownOrders,
        budget: { remaining: () => h.budget },
        state,
        params,
        log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
        wallet: WALLET,
        balances: market.balances(),
        drops: market.drops(),
        nfts: market.nfts(),
        holdings: {
          all: () => h.holdings,
          get: (key) => h.holdings.find((x) => nftKey(x.nft) === key.toLowerCase()),
        },
        prices: market.prices(),
      };
    },
  };
  return h;
}

export async function run(out: unknown): Promise<Intent[]> {
  const v = await out;
  return (v ?? []) as Intent[];
}

/** A compact view of intents for table assertions. */
export function brief(intents: readonly Intent[]): string[] {
  return intents.map((i) => {
    switch (i.kind) {
      case 'place_offer':
        return `place ${i.target} ${i.price}`;
      case 'replace_offer':
        return `replace ${i.orderHash.slice(-4)} ${i.price}`;
      case 'cancel_order':
        return `cancel ${i.orderHash.slice(-4)}`;
      case 'buy_listing':
        return `buy ${i.orderHash.slice(-4)} ${i.maxPrice}`;
      case 'swap':
        return `swap ${i.fromToken.symbol}->${i.toToken.symbol} ${i.amountIn}`;
      case 'mint':
        return `mint ${i.drop} x${i.quantity} @${i.maxPricePerToken}`;
      case 'place_listing':
        return `list #${i.nft.identifier} ${i.price}${i.stopLoss !== undefined ? ' stop-loss' : ''}`;
      case 'replace_listing':
        return `relist ${i.orderHash.slice(-4)} ${i.price}${i.stopLoss !== undefined ? ' stop-loss' : ''}`;
      case 'accept_offer':
        return `accept ${i.orderHash.slice(-4)} net ${i.minProceeds}${i.stopLoss !== undefined ? ' stop-loss' : ''}`;
      default:
        return 'unknown';
    }
  });
}

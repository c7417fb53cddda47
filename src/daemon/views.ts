// What hook contexts see besides the market snapshot: the wallet's balances (read from the chain),
// the status of configured drops (read from the API) and the payment tokens' market prices (the
// swap router's quote on the chain, else the API's), refreshed on a timer.

import type { DropEligibilityResponse } from '@opensea/api-types';
import { Interface } from 'ethers';
import type { ApiClient } from '../api/index.ts';
import type { ChainRpc } from '../chain/index.ts';
import type { PaymentToken } from '../domain/events.ts';
import { type Address, ZERO_ADDRESS } from '../domain/ids.ts';
import type { Known } from '../market/snapshot.ts';
import type { Logger } from '../observability/index.ts';
import type { Balances, DropStatus, DropsView, PricesView, TokenPrice } from '../strategy.ts';
import type { DropReading, TokenPriceReading } from '../tape/recorder.ts';
import { routerAmountOut } from './router.ts';

const ERC20 = new Interface(['function balanceOf(address owner) view returns (uint256)']);
const NFT = new Interface([
  'function ownerOf(uint256 id) view returns (address)',
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
]);

/**
 * Units of an NFT our wallet holds on chain: 1 or 0 for ERC-721 (`ownerOf`), `balanceOf` for
 * ERC-1155. For checking holdings against the chain.
 */
export function nftBalanceReader(o: {
  readonly rpc: Pick<ChainRpc, 'call'>;
  readonly wallet: string;
  readonly standardOf: (contract: string) => Promise<'erc721' | 'erc1155'>;
}): (nft: { readonly contract: string; readonly identifier: string }) => Promise<bigint> {
  return async (nft) => {
    const id = BigInt(nft.identifier);
    if ((await o.standardOf(nft.contract)) === 'erc1155') {
      const raw = await o.rpc.call({
        to: nft.contract,
        data: NFT.encodeFunctionData('balanceOf', [o.wallet, id]),
      });
      return NFT.decodeFunctionResult('balanceOf', raw)[0] as bigint;
    }
    const raw = await o.rpc.call({ to: nft.contract, data: NFT.encodeFunctionData('ownerOf', [id]) });
    const owner = String(NFT.decodeFunctionResult('ownerOf', raw)[0]).toLowerCase();
    return owner === o.wallet.toLowerCase() ? 1n : 0n;
  };
}

export interface BalancesReader {
  refresh(): Promise<void>;
  get(): Balances | null;
}

/** Native balance (key: the zero address) and each token's `balanceOf`, keyed by lower-case address. */
export function createBalancesReader(o: {
  readonly rpc: Pick<ChainRpc, 'balance' | 'call'>;
  readonly wallet: string;
  readonly tokens: readonly PaymentToken[];
  readonly clock: { now(): number };
  readonly logger?: Logger;
}): BalancesReader {
  let known: Balances | null = null;
  // reads overlap (the poll's, and one after each execution): the one started last wins, whenever
  // it ends — an older read ending later would take back what the newer one saw (a swap's result)
  let started = 0;
  let applied = 0;
  return {
    async refresh() {
      const seq = ++started;
      const out = new Map<string, bigint>();
      out.set(ZERO_ADDRESS, await o.rpc.balance(o.wallet));
      await Promise.all(
        o.tokens.map(async (t) => {
          const data = ERC20.encodeFunctionData('balanceOf', [o.wallet]);
          const raw = await o.rpc.call({ to: t.address, data });
          out.set(t.address.toLowerCase(), BigInt(raw === '0x' ? 0 : raw));
        }),
      );
      if (seq < applied) return;
      applied = seq;
      known = { value: out, learnedAt: o.clock.now(), from: 'rest' };
    },
    get: () => known,
  };
}

type DropResponse = Awaited<ReturnType<ApiClient['drops']['get']>>;
type Stage = NonNullable<DropResponse['active_stage']>;

function stageOf(d: DropResponse, now: number): DropStatus['stage'] {
  if (
    d.max_supply !== undefined &&
    d.total_supply !== undefined &&
    BigInt(d.total_supply) >= BigInt(d.max_supply)
  )
    return 'sold_out';
  if (d.is_minting && d.active_stage) return 'active';
  if (d.next_stage) return 'upcoming';
  const ends = d.stages.map((s) => Date.parse(s.end_time)).filter(Number.isFinite);
  return ends.length > 0 && Math.max(...ends) <= now ? 'ended' : 'upcoming';
}

/**
 * Maps the API's drop to what strategies see. With the wallet's eligibility (wallet JWT) the
 * stage's own answer counts, allowlist stages included; without it: public stages only.
 */
export function dropStatusOf(
  slug: string,
  d: DropResponse,
  now: number,
  nativeSymbol = 'ETH',
  eligibility?: DropEligibilityResponse,
): DropStatus {
  const stage: Stage | undefined = d.active_stage ?? d.next_stage ?? d.stages[0];
  const mine = stage !== undefined ? eligibility?.stages.find((e) => e.stage_uuid === stage.uuid) : undefined;
  const currency = (stage?.price_currency_address ?? ZERO_ADDRESS).toLowerCase() as Address;
  const public_ =
    stage !== undefined && (stage.stage_type === 'public_sale' || stage.allowlist_wallet_count == null);
  const max = stage?.max_per_wallet !== undefined ? Number(stage.max_per_wallet) : Number.NaN;
  return {
    slug,
    stage: stageOf(d, now),
    eligible: mine !== undefined ? mine.is_eligible : public_ ? true : null,
    pricePerToken: BigInt(stage?.price ?? '0'),
    paymentToken: {
      address: currency,
      symbol: currency === ZERO_ADDRESS ? nativeSymbol : 'ERC20',
      decimals: 18,
    },
    maxPerWallet: Number.isFinite(max) && max > 0 ? max : null,
    mintedByWallet: null,
    remaining:
      d.max_supply !== undefined && d.total_supply !== undefined
        ? BigInt(d.max_supply) - BigInt(d.total_supply)
        : null,
    startsAt: stage ? Date.parse(stage.start_time) : null,
    endsAt: stage ? Date.parse(stage.end_time) : null,
  };
}

export interface DropsReader extends DropsView {
  refresh(): Promise<void>;
  /** The drop's contract, as the API says. */
  contract(slug: string): string | undefined;
}

export function createDropsReader(o: {
  readonly api: Pick<ApiClient, 'drops'>;
  readonly slugs: readonly string[];
  readonly clock: { now(): number };
  readonly logger?: Logger;
  /** True while a wallet JWT can be had: eligibility is then asked per stage (allowlists count). */
  readonly walletCredential?: () => boolean;
}): DropsReader {
  const known = new Map<string, Known<DropStatus>>();
  /** The wallet's eligibility per stage (through the wallet JWT); undefined when it cannot be read. */
  async function eligibilityOf(slug: string): Promise<DropEligibilityResponse | undefined> {
    try {
      return await o.api.drops.eligibility(slug);
    } catch (err) {
      o.logger?.warn({ err, slug }, 'drop eligibility unavailable; public stages only');
      return undefined;
    }
  }
  const contracts = new Map<string, string>();
  return {
    async refresh() {
      await Promise.all(
        o.slugs.map(async (slug) => {
          try {
            const d = await o.api.drops.get(slug);
            const eligibility = o.walletCredential?.() ? await eligibilityOf(slug) : undefined;
            const now = o.clock.now();
            contracts.set(slug, d.contract_address.toLowerCase());
            known.set(slug, {
              value: dropStatusOf(slug, d, now, 'ETH', eligibility),
              learnedAt: now,
              from: 'rest',
            });
          } catch (err) {
            o.logger?.warn({ err, slug }, 'drop status unavailable');
          }
        }),
      );
    },
    get: (slug) => known.get(slug),
    contract: (slug) => contracts.get(slug),
  };
}

export interface PricesReader extends PricesView {
  refresh(): Promise<void>;
}

const WEI_PER_ETH = 10n ** 18n;

/** Whether an address is ETH (the zero address) or the chain's WETH (`weth`): the same money, wrapped or not. */
export function nativeTokenTest(weth: string | undefined): (address: string) => boolean {
  const w = weth?.toLowerCase();
  return (address) => {
    const a = address.toLowerCase();
    return a === ZERO_ADDRESS || a === w;
  };
}

/** What a swap between ETH and WETH (a wrap or an unwrap) receives: all of it; undefined for any other pair. */
export function wrapAmountOut(
  isNative: (address: string) => boolean,
  from: string,
  to: string,
  amountIn: bigint,
): bigint | undefined {
  return isNative(from) && isNative(to) && from.toLowerCase() !== to.toLowerCase() ? amountIn : undefined;
}

/** ETH and WETH (`isNative`) are worth 1e18 wei a whole token by definition; no other token is known. */
export function nativePricesView(
  isNative: (address: string) => boolean,
  clock: { now(): number },
): PricesView {
  return {
    get: (token) =>
      isNative(token)
        ? { value: { priceIn: WEI_PER_ETH, source: 'native' }, learnedAt: clock.now(), from: 'own' }
        : undefined,
  };
}

/**
 * The prices `view` knows of `tokens` other than ETH and WETH, as a tape records them: each with
 * when it was read (a price not read yet is left out).
 */
export function priceReadings(view: PricesView, tokens: readonly PaymentToken[]): TokenPriceReading[] {
  const out: TokenPriceReading[] = [];
  for (const t of tokens) {
    const k = view.get(t.address);
    if (k === undefined || k.value.source === 'native') continue;
    out.push({
      token: t.address.toLowerCase(),
      priceIn: k.value.priceIn,
      source: k.value.source,
      learnedAt: k.learnedAt,
    });
  }
  return out;
}

/**
 * The status `view` knows of each drop of `slugs`, as a tape records them (a drop not read yet is
 * left out).
 */
export function dropReadings(view: DropsView | undefined, slugs: readonly string[]): DropReading[] {
  const out: DropReading[] = [];
  if (view !== undefined)
    for (const slug of slugs) {
      const k = view.get(slug);
      if (k !== undefined) out.push({ drop: k.value, learnedAt: k.learnedAt });
    }
  return out;
}

/** A USD price as the API writes it ("2500.12", rarely "1e-7") in 1e-18 dollars; undefined when not positive. */
export function usdOf(text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  const decimal = /^\d+(\.\d+)?$/;
  // rarely written with an exponent ("1e-7"): as a decimal with 18 places
  const plain = decimal.test(t) ? t : Number(t).toFixed(18);
  if (!decimal.test(plain)) return undefined;
  const [whole = '0', frac = ''] = plain.split('.');
  const v = BigInt(whole) * WEI_PER_ETH + BigInt(frac.slice(0, 18).padEnd(18, '0'));
  return v > 0n ? v : undefined;
}

/**
 * One whole token of each payment token valued in wei, refreshed on the poll timer: the router's
 * `getAmountsOut` for selling one whole token into WETH (the on-chain quote the daemon swaps by;
 * the chain is the truth), or — without a router, or when the router has no pool for it — the
 * API's USD price of the token over the API's USD price of WETH, asked in one batch read at most
 * every `apiIntervalMs`. ETH and WETH are worth 1e18 by definition. A token whose price cannot be
 * read keeps its last price, which ages (strategies see `learnedAt` and refuse stale prices).
 */
export function createPricesReader(o: {
  readonly tokens: readonly PaymentToken[];
  readonly weth: string;
  /** Chain name for the API's token endpoints. */
  readonly chain: string;
  readonly rpc?: Pick<ChainRpc, 'call'>;
  /** The first swap router of the config; absent = the API's prices only. */
  readonly router?: string;
  readonly api?: Pick<ApiClient, 'tokens'>;
  /** Least time between two API reads of prices (ms); default 60 000. */
  readonly apiIntervalMs?: number;
  readonly clock: { now(): number };
  readonly logger?: Logger;
}): PricesReader {
  const weth = o.weth.toLowerCase();
  const isNative = nativeTokenTest(weth);
  const native = nativePricesView(isNative, o.clock);
  const others = o.tokens.filter((t) => !isNative(t.address));
  const apiIntervalMs = o.apiIntervalMs ?? 60_000;
  const known = new Map<string, Known<TokenPrice>>();
  const { rpc, router, api } = o;
  let apiAt: number | undefined;

  /** Prices `t` at the router's quote for one whole token into WETH; false when there is none. */
  async function quoted(t: PaymentToken): Promise<boolean> {
    if (rpc === undefined || router === undefined) return false;
    try {
      const out = await routerAmountOut({ rpc, router, weth }, t.address, weth, 10n ** BigInt(t.decimals));
      if (out > 0n) {
        const value: TokenPrice = { priceIn: out, source: 'quote' };
        known.set(t.address.toLowerCase(), { value, learnedAt: o.clock.now(), from: 'poll' });
        return true;
      }
      o.logger?.warn({ token: t.symbol }, 'the router quotes nothing for the token');
    } catch (err) {
      o.logger?.warn({ err, token: t.symbol }, 'router quote unavailable');
    }
    return false;
  }

  /** The API's USD prices of `rest` over WETH's, in one batch read. */
  async function fromApi(rest: readonly PaymentToken[]): Promise<void> {
    if (api === undefined || rest.length === 0) return;
    const now = o.clock.now();
    if (apiAt !== undefined && now - apiAt < apiIntervalMs) return;
    apiAt = now;
    const addresses = [weth, ...rest.map((t) => t.address.toLowerCase())];
    const res = await api.tokens.batch(addresses.map((address) => ({ chain: o.chain, address })));
    const usd = new Map(res.tokens.map((t) => [t.address.toLowerCase(), usdOf(t.usd_price)]));
    const perEth = usd.get(weth);
    for (const t of rest) {
      const tokenUsd = usd.get(t.address.toLowerCase());
      if (tokenUsd === undefined || perEth === undefined) {
        o.logger?.warn({ token: t.symbol }, 'the API gives no USD price for the token or for WETH');
        continue;
      }
      const value: TokenPrice = { priceIn: (tokenUsd * WEI_PER_ETH) / perEth, source: 'api' };
      known.set(t.address.toLowerCase(), { value, learnedAt: o.clock.now(), from: 'rest' });
    }
  }

  return {
    async refresh() {
      const ok = await Promise.all(others.map(quoted));
      await fromApi(others.filter((_, i) => !ok[i]));
    },
    get(token) {
      return native.get(token) ?? known.get(token.toLowerCase());
    },
  };
}

// What hook contexts see besides the market snapshot: the wallet's balances (read from the chain)
// and the status of configured drops (read from the API), refreshed on a timer.

import type { DropEligibilityResponse } from '@opensea/api-types';
import { Interface } from 'ethers';
import type { ApiClient } from '../api/index.ts';
import type { ChainRpc } from '../chain/index.ts';
import type { PaymentToken } from '../domain/events.ts';
import { type Address, ZERO_ADDRESS } from '../domain/ids.ts';
import type { Known } from '../market/snapshot.ts';
import type { Logger } from '../observability/index.ts';
import type { Balances, DropStatus, DropsView } from '../strategy.ts';

const ERC20 = new Interface(['function balanceOf(address owner) view returns (uint256)']);

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
  return {
    async refresh() {
      const out = new Map<string, bigint>();
      out.set(ZERO_ADDRESS, await o.rpc.balance(o.wallet));
      await Promise.all(
        o.tokens.map(async (t) => {
          const data = ERC20.encodeFunctionData('balanceOf', [o.wallet]);
          const raw = await o.rpc.call({ to: t.address, data });
          out.set(t.address.toLowerCase(), BigInt(raw === '0x' ? 0 : raw));
        }),
      );
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

/**
 * A one-off order book without ongoing activity: the simulator's initial listings (signed by the
 * trader wallets, approvals sent on chain), then nothing moves. For benchmarks and tests that
 * want a book in a quiet sandbox (`activity: 0`).
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import type { EventLog } from '../events/log.ts';
import type { SandboxMarket } from '../market/index.ts';
import { createSimulator, type SimulatorLogger } from './index.ts';

export interface SeedListingsOptions {
  /** Listings per collection. Default 10. */
  readonly perCollection?: number;
  /** Default 1. */
  readonly seed?: number;
  /** Share of listings 20–40 % under the floor. Default 0.1. */
  readonly underpricedShare?: number;
  /** Fixture wallet indices of the sellers; default 3 on (as the simulator). */
  readonly traders?: readonly number[];
  readonly floors?: Readonly<Record<string, bigint>>;
  readonly logger?: SimulatorLogger;
}

export interface SeededListing {
  readonly orderHash: string;
  readonly collection: string;
  readonly tokenId: string;
  readonly maker: string;
  /** Wei, the whole listing. */
  readonly price: bigint;
}

/**
 * Posts `perCollection` listings per collection from the trader wallets and returns them (the
 * active listings those wallets have in the book afterwards).
 */
export async function seedListings(
  sandbox: {
    readonly market: SandboxMarket;
    readonly fixture: ChainFixture;
    readonly catalog: Catalog;
    readonly events: EventLog;
  },
  options: SeedListingsOptions = {},
): Promise<SeededListing[]> {
  const sim = createSimulator({
    market: sandbox.market,
    fixture: sandbox.fixture,
    catalog: sandbox.catalog,
    events: sandbox.events,
    activity: 0,
    initialBook: {
      listings: options.perCollection ?? 10,
      collectionOffers: 0,
      traitOffers: 0,
      itemOffers: 0,
    },
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.underpricedShare !== undefined ? { underpricedShare: options.underpricedShare } : {}),
    ...(options.traders !== undefined ? { traders: options.traders } : {}),
    ...(options.floors !== undefined ? { floors: options.floors } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  try {
    await sim.start();
  } finally {
    await sim.stop();
  }
  const out: SeededListing[] = [];
  for (const c of sandbox.catalog.collections()) {
    for (const maker of sim.traders) {
      for (const l of sandbox.market.allListings(c.slug, { maker, limit: 200 }).items) {
        const v = l as unknown as {
          order_hash: string;
          asset: { identifier: string };
          price: { current: { value: string } };
        };
        out.push({
          orderHash: v.order_hash,
          collection: c.slug,
          tokenId: v.asset.identifier,
          maker,
          price: BigInt(v.price.current.value),
        });
      }
    }
  }
  return out;
}

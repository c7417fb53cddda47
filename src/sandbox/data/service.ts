import type { Catalog } from '../catalog/catalog.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import type { EventLog } from '../events/log.ts';
import type { Market } from '../market/types.ts';
import { type CollectionProfile, emptyProfile } from './collection-edits.ts';
import { type CollectionView, catalogViews, dropViews, offchainView } from './collections.ts';
import { type PriceBook, readPrices, type TokenInfo, tokensOf } from './currencies.ts';
import { ExternalListings, seedExternalListings } from './external.ts';
import { type PricePoint, pointOfExternal, pointOfListing, type WireListingLike } from './floors.ts';
import { Holdings } from './holdings.ts';
import { type OffchainCollection, seedOffchainListings } from './offchain.ts';

/**
 * The state behind the market-data, swap and drop routes, shared by them: the external
 * (other-marketplace) listings, the chain-derived holdings, refresh bookkeeping, and the views of
 * collections and tokens. It reads the server's collaborators as they are attached (the catalog,
 * market and chain fixture arrive after the server starts).
 */

/** The parts of the server state the data layer reads (`ServerState` satisfies it). */
export interface DataSources {
  readonly chain: string;
  readonly events: EventLog;
  readonly createdAtMs: number;
  readonly publicUrl: string;
  readonly catalog: Catalog | undefined;
  readonly market: Market | undefined;
  readonly fixture: ChainFixture | undefined;
  /** A collection known only from other marketplaces (src/sandbox/data/offchain.ts). */
  readonly offchain?: OffchainCollection | undefined;
}

export interface MarketDataOptions {
  /** Seed the external listings (EXTERNAL_SEEDS) when the catalog arrives. Default true. */
  readonly seedExternal?: boolean;
  readonly now?: () => number;
}

export class MarketData {
  readonly #src: DataSources;
  readonly #seed: boolean;
  readonly #now: () => number;
  readonly #external: ExternalListings;
  #seededFor: Catalog | undefined;
  #seededOffchain: OffchainCollection | undefined;
  #holdings:
    | { readonly fixture: ChainFixture; readonly catalog: Catalog | undefined; readonly h: Holdings }
    | undefined;
  #owner: { readonly fixture: ChainFixture; readonly address: Promise<string> } | undefined;
  /** Epoch ms of the last metadata refresh per NFT (`contract:id`, lower-case). */
  readonly nftRefreshedAt = new Map<string, number>();
  /** NFTs whose metadata is missing (their last fetch failed): `contract:id`, lower-case. */
  readonly nftMissing = new Set<string>();
  /** What owners and editors saved (PATCH) and refreshes replaced, per slug. */
  readonly #profiles = new Map<string, CollectionProfile>();

  constructor(src: DataSources, options: MarketDataOptions = {}) {
    this.#src = src;
    this.#seed = options.seedExternal ?? true;
    this.#now = options.now ?? Date.now;
    this.#external = new ExternalListings(this.#now);
  }

  /** The saved profile of a collection (created empty on first use). */
  profile(slug: string): CollectionProfile {
    let p = this.#profiles.get(slug);
    if (!p) {
      p = emptyProfile();
      this.#profiles.set(slug, p);
    }
    return p;
  }

  /** The profile if anything was saved or refreshed for the collection. */
  profileIfAny(slug: string): CollectionProfile | undefined {
    return this.#profiles.get(slug);
  }

  get chain(): string {
    return this.#src.chain;
  }

  get sources(): DataSources {
    return this.#src;
  }

  now(): number {
    return this.#now();
  }

  /** The other marketplaces' listings (seeded once the catalog is attached). */
  external(): ExternalListings {
    const catalog = this.#src.catalog;
    if (this.#seed && catalog && this.#seededFor !== catalog) {
      this.#seededFor = catalog;
      seedExternalListings(this.#external, catalog, this.tokens());
    }
    const off = this.#src.offchain;
    if (off && this.#seededOffchain !== off) {
      this.#seededOffchain = off;
      seedOffchainListings(this.#external, off, this.tokens(), catalog?.seed ?? 1);
    }
    return this.#external;
  }

  tokens(): TokenInfo[] {
    return tokensOf(this.#src.fixture);
  }

  prices(): Promise<PriceBook> {
    return readPrices(this.#src.fixture);
  }

  /** The address owning the sandbox's contracts (the fixture's deployer). */
  async owner(): Promise<string | undefined> {
    const fx = this.#src.fixture;
    if (!fx) return this.#src.catalog?.collections()[0]?.owner;
    if (this.#owner?.fixture !== fx) this.#owner = { fixture: fx, address: fx.admin.getAddress() };
    return this.#owner.address;
  }

  async views(): Promise<CollectionView[]> {
    const out = catalogViews(this.#src.catalog);
    const fx = this.#src.fixture;
    if (fx && fx.drops.length > 0) out.push(...dropViews(fx.drops, (await this.owner()) ?? ''));
    const off = this.#src.offchain;
    if (off) out.push(offchainView(off, (await this.owner()) ?? ''));
    return out;
  }

  async view(slug: string): Promise<CollectionView | undefined> {
    return (await this.views()).find((v) => v.slug === slug);
  }

  async viewByContract(address: string): Promise<CollectionView | undefined> {
    const a = address.toLowerCase();
    return (await this.views()).find((v) => v.contract.toLowerCase() === a);
  }

  /** Holdings synced to the latest block, or undefined without a chain. */
  async holdings(): Promise<Holdings | undefined> {
    const fx = this.#src.fixture;
    if (!fx) return undefined;
    const catalog = this.#src.catalog;
    if (this.#holdings?.fixture !== fx || this.#holdings.catalog !== catalog) {
      const contracts = [
        ...(catalog?.collections() ?? []).map((c) => c.contract),
        ...fx.drops.map((d) => d.address),
      ];
      this.#holdings = { fixture: fx, catalog, h: new Holdings(fx.provider, contracts) };
    }
    await this.#holdings.h.sync();
    return this.#holdings.h;
  }

  /** Active listings of the sandbox's own book for a catalog collection (all pages). */
  bookListings(slug: string): WireListingLike[] {
    const market = this.#src.market;
    if (!market || !this.#src.catalog?.bySlug(slug)) return [];
    const out: WireListingLike[] = [];
    let next: string | undefined;
    for (let guard = 0; guard < 10_000; guard++) {
      const page = market.allListings(slug, { limit: 200, ...(next !== undefined ? { next } : {}) });
      out.push(...(page.items as unknown as WireListingLike[]));
      next = page.next;
      if (next === undefined) break;
    }
    return out;
  }

  /** Every active listing of a collection on the aggregated basis (own book + other marketplaces). */
  pricePoints(slug: string): PricePoint[] {
    const points: PricePoint[] = [];
    for (const l of this.bookListings(slug)) {
      const p = pointOfListing(l);
      if (p) points.push(p);
    }
    for (const l of this.external().active(slug)) points.push(pointOfExternal(l));
    return points;
  }

  /** `updated_at` of an NFT: the latest of creation, metadata update events and refreshes. */
  nftUpdatedAt(contract: string, identifier: string): number {
    const key = `${contract.toLowerCase()}:${identifier}`;
    let t = Math.max(this.#src.createdAtMs, this.nftRefreshedAt.get(key) ?? 0);
    for (const e of this.#src.events.all()) {
      if (
        e.kind === 'metadata_update' &&
        e.nft?.identifier === identifier &&
        e.nft.contract.toLowerCase() === contract.toLowerCase()
      ) {
        t = Math.max(t, e.timestampMs);
      }
    }
    return t;
  }

  /** The same for many NFTs of one contract at once (one pass over the log). */
  nftUpdatedAtMap(contract: string): Map<string, number> {
    const c = contract.toLowerCase();
    const out = new Map<string, number>();
    for (const e of this.#src.events.all()) {
      if (e.kind === 'metadata_update' && e.nft && e.nft.contract.toLowerCase() === c) {
        out.set(e.nft.identifier, Math.max(out.get(e.nft.identifier) ?? 0, e.timestampMs));
      }
    }
    for (const [k, t] of this.nftRefreshedAt) {
      const [kc, id] = k.split(':') as [string, string];
      if (kc === c) out.set(id, Math.max(out.get(id) ?? 0, t));
    }
    return out;
  }
}

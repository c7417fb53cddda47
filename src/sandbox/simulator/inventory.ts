/**
 * What the traders hold: read from the chain once at start, then followed from the event log's
 * transfers (the market's chain watcher records every NFT transfer and mint, whoever sent it).
 * A hint for choosing what to list, sell or give away — the market re-checks ownership itself,
 * so a stale entry only makes one action fail.
 */
import { Contract, type Provider } from 'ethers';
import type { CatalogCollection } from '../catalog/catalog.ts';
import type { EventLog, MarketEvent } from '../events/log.ts';
import { NFT_ABI } from '../market/seaport.ts';

export interface Holding {
  readonly tokenId: bigint;
  readonly units: bigint;
}

export class Inventory {
  /** slug → token id → owner (lower case) → units. */
  readonly #held = new Map<string, Map<bigint, Map<string, bigint>>>();
  readonly #collections: readonly CatalogCollection[];

  constructor(collections: readonly CatalogCollection[]) {
    this.#collections = collections;
    for (const c of collections) this.#held.set(c.slug, new Map());
  }

  /** Reads ERC721 owners of every token and the ERC1155 balances of `holders` (the traders, the wallets). */
  async load(provider: Provider, holders: readonly string[]): Promise<void> {
    const reads: Promise<void>[] = [];
    for (const c of this.#collections) {
      const nft = new Contract(c.contract, NFT_ABI as unknown as string[], provider);
      for (let id = 1n; id <= BigInt(c.supply); id++) {
        const tokenId = id;
        if (c.standard === 'erc721') {
          reads.push(
            (nft.getFunction('ownerOf')(tokenId) as Promise<string>).then(
              (owner) => this.set(c.slug, tokenId, owner, 1n),
              () => undefined, // not minted
            ),
          );
        } else {
          for (const t of holders) {
            reads.push(
              (nft.getFunction('balanceOf')(t, tokenId) as Promise<bigint>).then((units) =>
                this.set(c.slug, tokenId, t, units),
              ),
            );
          }
        }
      }
    }
    await Promise.all(reads);
  }

  /** Follows transfers and mints of the event log; returns the unsubscribe function. */
  follow(events: EventLog): () => void {
    return events.subscribe((e) => this.apply(e));
  }

  apply(e: MarketEvent): void {
    if ((e.kind !== 'transfer' && e.kind !== 'mint') || !e.nft || e.to === undefined) return;
    const slug = e.collection;
    if (!this.#held.has(slug)) return;
    const id = BigInt(e.nft.identifier);
    const units = BigInt(e.quantity ?? 1);
    if (e.nft.standard === 'erc721') {
      this.#tokens(slug, id).clear();
      this.set(slug, id, e.to, 1n);
      return;
    }
    if (e.from !== undefined && e.kind === 'transfer') {
      const before = this.units(slug, id, e.from);
      this.set(slug, id, e.from, before > units ? before - units : 0n);
    }
    this.set(slug, id, e.to, this.units(slug, id, e.to) + units);
  }

  set(slug: string, tokenId: bigint, owner: string, units: bigint): void {
    const m = this.#tokens(slug, tokenId);
    if (units > 0n) m.set(owner.toLowerCase(), units);
    else m.delete(owner.toLowerCase());
  }

  units(slug: string, tokenId: bigint, owner: string): bigint {
    return this.#held.get(slug)?.get(tokenId)?.get(owner.toLowerCase()) ?? 0n;
  }

  /** The tokens of `slug` that `owner` holds, by token id ascending (a stable order for the dice). */
  holdings(slug: string, owner: string): Holding[] {
    const o = owner.toLowerCase();
    const out: Holding[] = [];
    for (const [tokenId, owners] of this.#held.get(slug) ?? []) {
      const units = owners.get(o);
      if (units !== undefined && units > 0n) out.push({ tokenId, units });
    }
    return out.sort((a, b) => (a.tokenId < b.tokenId ? -1 : a.tokenId > b.tokenId ? 1 : 0));
  }

  /** Every holder of `slug`'s tokens with their units, by token id, then owner (lower case). */
  holders(slug: string): { readonly tokenId: bigint; readonly owner: string; readonly units: bigint }[] {
    const out: { tokenId: bigint; owner: string; units: bigint }[] = [];
    for (const [tokenId, owners] of this.#held.get(slug) ?? []) {
      for (const [owner, units] of owners) if (units > 0n) out.push({ tokenId, owner, units });
    }
    return out.sort((a, b) =>
      a.tokenId !== b.tokenId
        ? a.tokenId < b.tokenId
          ? -1
          : 1
        : a.owner < b.owner
          ? -1
          : a.owner > b.owner
            ? 1
            : 0,
    );
  }

  #tokens(slug: string, tokenId: bigint): Map<string, bigint> {
    let bySlug = this.#held.get(slug);
    if (!bySlug) {
      bySlug = new Map();
      this.#held.set(slug, bySlug);
    }
    let m = bySlug.get(tokenId);
    if (!m) {
      m = new Map();
      bySlug.set(tokenId, m);
    }
    return m;
  }
}

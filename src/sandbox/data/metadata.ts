import { Contract } from 'ethers';
import type { ChainFixture } from '../chain/fixture.ts';
import { HttpError } from '../errors.ts';
import { applyRefresh, type ContractMetadata, parseContractMetadata } from './collection-edits.ts';
import type { CollectionView } from './collections.ts';
import type { MarketData } from './service.ts';

/**
 * NFT metadata as the marketplace ingests it: the token URI read from the contract
 * (`tokenURI` / `uri` with `{id}` substituted), then the JSON fetched from it.
 *
 * - validate-metadata fetches now (never from a cache) and persists nothing.
 * - refresh answers at once ("queued") and re-reads in the background: the token's text traits
 *   that differ from what the sandbox knows are taken over (catalog metadata update), the NFT's
 *   `updated_at` moves to the refresh time, and a `metadata_update` event (stream
 *   `item_metadata_updated`) is recorded after every successful re-read.
 * - a collection refresh follows the spec's rules 1–3 (src/sandbox/data/collection-edits.ts):
 *   contract-level metadata from `contractURI()` (or `name()` without one) over the saved
 *   values, and the items whose metadata is missing are refetched.
 */

const NFT_ABI = [
  'function contractURI() view returns (string)',
  'function tokenURI(uint256) view returns (string)',
  'function uri(uint256) view returns (string)',
  'function name() view returns (string)',
];

export const FETCH_TIMEOUT_MS = 5000;

export interface FetchedAttribute {
  readonly trait_type: string;
  readonly value: string | number;
  readonly display_type?: string;
}

export interface FetchedMetadata {
  readonly name?: string;
  readonly description?: string;
  readonly image?: string;
  readonly animation_url?: string;
  readonly external_url?: string;
  readonly background_color?: string;
  readonly attributes: readonly FetchedAttribute[];
}

export type MetadataResult =
  | { readonly ok: true; readonly tokenUri: string; readonly metadata: FetchedMetadata }
  | {
      readonly ok: false;
      readonly tokenUri: string | undefined;
      readonly error: { errorType: string; message: string; url?: string; statusCode?: number };
    };

/** The token URI on chain; 404 when the token does not exist. */
export async function tokenUriOf(fx: ChainFixture, v: CollectionView, id: bigint): Promise<string> {
  const c = new Contract(v.contract, NFT_ABI, fx.provider);
  try {
    if (v.standard === 'erc721') return String(await c.getFunction('tokenURI')(id));
    const raw = String(await c.getFunction('uri')(id));
    return raw.replace('{id}', id.toString(16).padStart(64, '0'));
  } catch {
    throw new HttpError(404, `NFT ${v.contract.toLowerCase()}/${id} not found`);
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function parseMetadataJson(json: unknown): FetchedMetadata {
  const o = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const attrs = Array.isArray(o['attributes']) ? (o['attributes'] as unknown[]) : [];
  const attributes: FetchedAttribute[] = [];
  for (const a of attrs) {
    if (typeof a !== 'object' || a === null) continue;
    const r = a as Record<string, unknown>;
    const type = str(r['trait_type']);
    const value = r['value'];
    if (type === undefined || (typeof value !== 'string' && typeof value !== 'number')) continue;
    const display = str(r['display_type']);
    attributes.push({ trait_type: type, value, ...(display !== undefined ? { display_type: display } : {}) });
  }
  const pick = (k: string) => {
    const s = str(o[k]);
    return s !== undefined ? { [k]: s } : {};
  };
  return {
    ...pick('name'),
    ...pick('description'),
    ...pick('image'),
    ...pick('animation_url'),
    ...pick('external_url'),
    ...pick('background_color'),
    attributes,
  };
}

/** Reads the token URI and fetches its JSON; fetch failures come back as `ok: false`. */
export async function fetchMetadata(
  fx: ChainFixture,
  v: CollectionView,
  id: bigint,
): Promise<MetadataResult> {
  const tokenUri = await tokenUriOf(fx, v, id);
  let res: Response;
  try {
    res = await fetch(tokenUri, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (e) {
    return {
      ok: false,
      tokenUri,
      error: {
        errorType: 'FETCH_FAILED',
        message: e instanceof Error ? e.message : String(e),
        url: tokenUri,
      },
    };
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    return {
      ok: false,
      tokenUri,
      error: {
        errorType: 'HTTP_ERROR',
        message: `HTTP ${res.status}`,
        url: tokenUri,
        statusCode: res.status,
      },
    };
  }
  try {
    return { ok: true, tokenUri, metadata: parseMetadataJson(await res.json()) };
  } catch (e) {
    return {
      ok: false,
      tokenUri,
      error: {
        errorType: 'INVALID_JSON',
        message: e instanceof Error ? e.message : String(e),
        url: tokenUri,
      },
    };
  }
}

/** The ValidateMetadataResponse of a fetch (the sandbox has no media CDN: processed = original). */
export function renderValidation(
  chain: string,
  v: CollectionView,
  id: bigint,
  r: MetadataResult,
): Record<string, unknown> {
  const assetIdentifier = { chain, contractAddress: v.contract.toLowerCase(), tokenId: id.toString() };
  if (!r.ok) {
    return { assetIdentifier, ...(r.tokenUri !== undefined ? { tokenUri: r.tokenUri } : {}), error: r.error };
  }
  const m = r.metadata;
  return {
    assetIdentifier,
    tokenUri: r.tokenUri,
    metadata: {
      ...(m.name !== undefined ? { name: m.name } : {}),
      ...(m.description !== undefined ? { description: m.description } : {}),
      ...(m.image !== undefined ? { originalImageUrl: m.image, processedImageUrl: m.image } : {}),
      ...(m.animation_url !== undefined
        ? { originalAnimationUrl: m.animation_url, processedAnimationUrl: m.animation_url }
        : {}),
      ...(m.external_url !== undefined ? { externalUrl: m.external_url } : {}),
      ...(m.background_color !== undefined ? { backgroundColor: m.background_color } : {}),
      attributes: m.attributes.map((a) => ({
        traitType: a.trait_type,
        value: String(a.value),
        ...(a.display_type !== undefined ? { displayType: a.display_type } : {}),
      })),
    },
  };
}

/**
 * The background part of an NFT refresh: re-read, take over changed text traits (catalog
 * collections), record the refresh time, then — once all of that is visible through the API —
 * record a `metadata_update` event (the stream's `item_metadata_updated`) with the token's traits
 * and the fetched description and background colour. A failed fetch changes nothing and records
 * nothing. Returns the trait names that changed.
 */
export async function refreshNft(data: MarketData, v: CollectionView, id: bigint): Promise<string[]> {
  const src = data.sources;
  const fx = src.fixture;
  if (!fx) return [];
  const r = await fetchMetadata(fx, v, id);
  const key = `${v.contract.toLowerCase()}:${id}`;
  if (!r.ok) {
    data.nftMissing.add(key);
    return [];
  }
  data.nftMissing.delete(key);
  const changed: string[] = [];
  const catalog = src.catalog;
  const isCatalog = v.kind === 'catalog' && catalog !== undefined;
  if (isCatalog) {
    const current = catalog.traits(v.slug, id);
    for (const a of r.metadata.attributes) {
      const had = current.find((t) => t.trait_type === a.trait_type);
      if (!had || had.display_type === 'number' || typeof had.value === 'number') continue;
      if (typeof a.value === 'string' && a.value !== had.value) {
        catalog.setTrait(v.slug, id, a.trait_type, a.value);
        changed.push(a.trait_type);
      }
    }
  }
  data.nftRefreshedAt.set(key, data.now());
  const m = r.metadata;
  src.events.append({
    kind: 'metadata_update',
    chain: src.chain,
    collection: v.slug,
    nft: { contract: v.contract, identifier: id.toString(), standard: v.standard },
    traits: (isCatalog ? catalog.traits(v.slug, id) : m.attributes).map((t) => ({
      trait_type: t.trait_type,
      value: t.value,
    })),
    metadata: {
      ...(m.name !== undefined ? { name: m.name } : {}),
      ...(m.description !== undefined ? { description: m.description } : {}),
      ...(m.background_color !== undefined ? { backgroundColor: m.background_color } : {}),
    },
  });
  return changed;
}

/**
 * Contract-level metadata (rule 1): the JSON at `contractURI()` when the contract has a non-empty
 * one, else `{name: name()}`. A contract-level URI that cannot be fetched or parsed gives nothing
 * (every saved value stays).
 */
export async function readContractMetadata(fx: ChainFixture, v: CollectionView): Promise<ContractMetadata> {
  const c = new Contract(v.contract, NFT_ABI, fx.provider);
  let uri = '';
  try {
    uri = String(await c.getFunction('contractURI')()).trim();
  } catch {
    uri = '';
  }
  if (uri === '') {
    const name = String(await c.getFunction('name')()).trim();
    return name !== '' ? { name } : {};
  }
  try {
    const res = await fetch(uri, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return {};
    }
    return parseContractMetadata(await res.json());
  } catch {
    return {};
  }
}

/**
 * The background part of a collection refresh (rules 1–3): re-read the contract-level metadata
 * and apply it over what was saved, then refetch the collection's items whose metadata is missing.
 */
export async function refreshCollection(data: MarketData, v: CollectionView): Promise<void> {
  const fx = data.sources.fixture;
  if (!fx) return;
  const m = await readContractMetadata(fx, v);
  applyRefresh(data.profile(v.slug), m, data.now());
  const prefix = `${v.contract.toLowerCase()}:`;
  const missing = [...data.nftMissing].filter((k) => k.startsWith(prefix));
  for (const k of missing) {
    await refreshNft(data, v, BigInt(k.slice(prefix.length))).catch(() => undefined);
  }
}

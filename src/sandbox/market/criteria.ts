/**
 * Criteria of collection and trait offers: Seaport merkle roots and proofs over token ids
 * (`CriteriaResolution.sol`: leaf = keccak256(uint256 id), pairs hashed in sorted order), the
 * API's `encoded_token_ids` notation, and parsing/matching of trait criteria.
 */
import { toBeHex } from 'ethers';
import type { Catalog, CatalogCollection } from '../catalog/catalog.ts';
import { MerkleTree, tokenIdLeaf, verifyProof as verifyLeafProof } from '../merkle.ts';
import { ParseError } from './seaport.ts';

const word = (n: bigint) => toBeHex(n, 32);

/**
 * A merkle tree over token ids in Seaport's proof format (`CriteriaResolution.sol`; the layout of
 * merkletreejs with `sort: true`, as seaport-js uses): the sandbox's sorted-pair tree over
 * `tokenIdLeaf` leaves.
 */
export class TokenMerkleTree {
  readonly #tree: MerkleTree;

  constructor(ids: readonly bigint[]) {
    if (ids.length === 0) throw new Error('a merkle tree needs at least one token id');
    this.#tree = new MerkleTree(ids.map(tokenIdLeaf));
  }

  get root(): bigint {
    return BigInt(this.#tree.root);
  }

  /** The proof (bytes32 hex strings) for `id`, or undefined when `id` is not in the tree. */
  proof(id: bigint): string[] | undefined {
    return this.#tree.proof(tokenIdLeaf(id));
  }
}

/** `_verifyProof` of CriteriaResolution.sol. */
export function verifyProof(id: bigint, root: bigint, proof: readonly string[]): boolean {
  return verifyLeafProof(tokenIdLeaf(id), proof, word(root));
}

/** `encoded_token_ids`: sorted ids as a comma list, consecutive runs as `a:b`. */
export function encodeTokenIds(ids: readonly bigint[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const parts: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    const start = sorted[i] as bigint;
    let end = start;
    while (i + 1 < sorted.length && sorted[i + 1] === end + 1n) {
      i++;
      end = sorted[i] as bigint;
    }
    parts.push(end === start ? start.toString() : `${start}:${end}`);
    i++;
  }
  return parts.join(',');
}

// ---------------------------------------------------------------------------------------------
// Trait criteria

export interface TraitCriterion {
  readonly type: string;
  readonly value: string;
}

export interface NumericTraitCriterion {
  readonly type: string;
  readonly min?: number;
  readonly max?: number;
}

/** The criteria of a collection or trait offer, normalized. */
export interface OfferCriteria {
  readonly slug: string;
  readonly contract: string;
  readonly traits: readonly TraitCriterion[];
  readonly numericTraits: readonly NumericTraitCriterion[];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseTrait(v: unknown, path: string): TraitCriterion {
  if (!isRecord(v)) throw new ParseError(`${path} must be an object {type, value}`);
  if (typeof v.type !== 'string' || v.type === '')
    throw new ParseError(`${path}.type must be a non-empty string`);
  if (typeof v.value !== 'string' && typeof v.value !== 'number')
    throw new ParseError(`${path}.value must be a string`);
  return { type: v.type, value: String(v.value) };
}

function parseNumericTrait(v: unknown, path: string): NumericTraitCriterion {
  if (!isRecord(v)) throw new ParseError(`${path} must be an object {type, min?, max?}`);
  if (typeof v.type !== 'string' || v.type === '')
    throw new ParseError(`${path}.type must be a non-empty string`);
  const num = (x: unknown, name: string): number | undefined => {
    if (x === undefined || x === null) return undefined;
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new ParseError(`${path}.${name} must be a number`);
    return x;
  };
  const min = num(v.min, 'min');
  const max = num(v.max, 'max');
  if (min === undefined && max === undefined) throw new ParseError(`${path} needs min or max`);
  if (min !== undefined && max !== undefined && min > max) throw new ParseError(`${path}.min exceeds max`);
  return { type: v.type, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

/**
 * Parses the API's criteria object (`collection{slug}`, `contract{address}?`, deprecated
 * `trait`, `traits[]`, `numericTraits[]` — also `numeric_traits`) against the catalog.
 */
export function parseCriteria(v: unknown, catalog: Catalog, path = 'criteria'): OfferCriteria {
  if (!isRecord(v)) throw new ParseError(`${path} must be an object`);
  const coll = v.collection;
  if (!isRecord(coll) || typeof coll.slug !== 'string' || coll.slug === '') {
    throw new ParseError(`${path}.collection.slug is required`);
  }
  const c = catalog.bySlug(coll.slug);
  if (!c) throw new ParseError(`collection '${coll.slug}' not found`);
  if (v.contract !== undefined && v.contract !== null) {
    if (!isRecord(v.contract) || typeof v.contract.address !== 'string') {
      throw new ParseError(`${path}.contract.address must be a string`);
    }
    if (v.contract.address.toLowerCase() !== c.contract.toLowerCase()) {
      throw new ParseError(`${path}.contract.address is not the contract of collection '${c.slug}'`);
    }
  }
  const traits: TraitCriterion[] = [];
  if (v.traits !== undefined && v.traits !== null) {
    if (!Array.isArray(v.traits)) throw new ParseError(`${path}.traits must be an array`);
    v.traits.forEach((t, i) => {
      traits.push(parseTrait(t, `${path}.traits[${i}]`));
    });
  }
  if (v.trait !== undefined && v.trait !== null) {
    if (traits.length > 0)
      throw new ParseError(`${path}: give either trait (deprecated) or traits, not both`);
    traits.push(parseTrait(v.trait, `${path}.trait`));
  }
  const numericRaw = v.numericTraits ?? v.numeric_traits;
  const numericTraits: NumericTraitCriterion[] = [];
  if (numericRaw !== undefined && numericRaw !== null) {
    if (!Array.isArray(numericRaw)) throw new ParseError(`${path}.numericTraits must be an array`);
    numericRaw.forEach((t, i) => {
      numericTraits.push(parseNumericTrait(t, `${path}.numericTraits[${i}]`));
    });
  }
  for (const t of traits) {
    const values = c.traits.text[t.type];
    if (!values) throw new ParseError(`collection '${c.slug}' has no text trait '${t.type}'`);
    if (!values.some(([val]) => val === t.value)) {
      throw new ParseError(`collection '${c.slug}' has no trait value '${t.type}: ${t.value}'`);
    }
  }
  for (const t of numericTraits) {
    if (!c.traits.numeric[t.type])
      throw new ParseError(`collection '${c.slug}' has no numeric trait '${t.type}'`);
  }
  return { slug: c.slug, contract: c.contract, traits, numericTraits };
}

export const isTraitCriteria = (c: OfferCriteria): boolean =>
  c.traits.length > 0 || c.numericTraits.length > 0;

/** True when the token has all text traits and lies within all numeric ranges. */
export function tokenMatches(catalog: Catalog, c: OfferCriteria, id: bigint): boolean {
  if (!catalog.matches(c.slug, id, c.traits)) return false;
  if (c.numericTraits.length === 0) return true;
  const have = catalog.traits(c.slug, id);
  return c.numericTraits.every((n) => {
    const t = have.find((x) => x.trait_type === n.type);
    const value = typeof t?.value === 'number' ? t.value : Number(t?.value);
    if (t === undefined || !Number.isFinite(value)) return false;
    return (n.min === undefined || value >= n.min) && (n.max === undefined || value <= n.max);
  });
}

export function tokensMatching(catalog: Catalog, coll: CatalogCollection, c: OfferCriteria): bigint[] {
  const out: bigint[] = [];
  for (let i = 1n; i <= BigInt(coll.supply); i++) if (tokenMatches(catalog, c, i)) out.push(i);
  return out;
}

/**
 * How an offer with these criteria is settled: root 0 (any token; trait offers on collections
 * that support '0', and plain collection offers), or the merkle root of the matching ids.
 */
export interface CriteriaResolution {
  /** The consideration item's identifierOrCriteria. */
  readonly root: bigint;
  /** Token ids the offer may buy (all of the collection's for a collection offer). */
  readonly tokenIds: readonly bigint[];
  readonly encodedTokenIds: string;
  /** Present when root ≠ 0. */
  readonly tree?: TokenMerkleTree;
}

export function resolveCriteria(
  catalog: Catalog,
  coll: CatalogCollection,
  c: OfferCriteria,
): CriteriaResolution {
  if (!isTraitCriteria(c)) {
    const all: bigint[] = [];
    for (let i = 1n; i <= BigInt(coll.supply); i++) all.push(i);
    return { root: 0n, tokenIds: all, encodedTokenIds: '*' };
  }
  const ids = tokensMatching(catalog, coll, c);
  if (coll.traitOffersSupported) return { root: 0n, tokenIds: ids, encodedTokenIds: encodeTokenIds(ids) };
  if (ids.length === 0)
    throw new ParseError(`no token of collection '${coll.slug}' matches the trait criteria`);
  const tree = new TokenMerkleTree(ids);
  return { root: tree.root, tokenIds: ids, encodedTokenIds: encodeTokenIds(ids), tree };
}

import { MerkleTree } from '@opensea/seaport-js/lib/utils/merkletree.js';
import { describe, expect, it } from 'vitest';
import {
  encodeTokenIds,
  parseCriteria,
  resolveCriteria,
  TokenMerkleTree,
  tokenMatches,
  verifyProof,
} from '../../../../src/sandbox/market/criteria.ts';
import { tokenIdLeaf } from '../../../../src/sandbox/merkle.ts';
import { decodeTokenIds } from '../../../helpers/token-ids.ts';
import { testCatalog } from './catalog-fixture.ts';

const ids = (...n: number[]) => n.map(BigInt);

describe('merkle criteria (Seaport proof format)', () => {
  it.each([
    [ids(5)],
    [ids(1, 2)],
    [ids(1, 2, 3)],
    [ids(3, 9, 27, 81, 243)],
    [ids(...Array.from({ length: 40 }, (_, i) => i + 1))],
  ])('matches seaport-js MerkleTree and every proof verifies: %s', (list) => {
    const tree = new TokenMerkleTree(list);
    const js = new MerkleTree(list.map(String));
    expect(`0x${tree.root.toString(16).padStart(64, '0')}`).toBe(js.getRoot());
    for (const id of list) {
      const proof = tree.proof(id) as string[];
      expect(proof).toEqual(js.getProof(String(id)));
      expect(verifyProof(id, tree.root, proof)).toBe(true);
    }
  });

  it('gives no proof for a non-member and a member proof fails for another id', () => {
    const tree = new TokenMerkleTree(ids(1, 4, 6));
    expect(tree.proof(2n)).toBeUndefined();
    const proof = tree.proof(4n) as string[];
    expect(verifyProof(5n, tree.root, proof)).toBe(false);
  });

  it('uses keccak256 of the 32-byte id as the leaf; one id = root is the leaf', () => {
    expect(new TokenMerkleTree(ids(5)).root).toBe(BigInt(tokenIdLeaf(5n)));
    expect(new TokenMerkleTree(ids(5)).proof(5n)).toEqual([]);
  });
});

describe('encoded_token_ids', () => {
  it('encodes runs as ranges', () => {
    expect(encodeTokenIds(ids(1, 2, 3, 5, 7, 8))).toBe('1:3,5,7:8');
    expect(encodeTokenIds(ids(9, 1, 2))).toBe('1:2,9');
    expect(encodeTokenIds([])).toBe('');
  });

  it('decodes back to membership', () => {
    const has = decodeTokenIds('1:3,5,7:8');
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].filter((n) => has(BigInt(n)))).toEqual([1, 2, 3, 5, 7, 8]);
    expect(decodeTokenIds('*')(123456n)).toBe(true);
    expect(() => decodeTokenIds('3:1')).toThrow(/reversed/);
    expect(() => decodeTokenIds('a')).toThrow(/bad element/);
  });
});

describe('criteria', () => {
  const catalog = testCatalog();

  it('parses collection, deprecated trait and traits, numeric traits', () => {
    const c = parseCriteria(
      { collection: { slug: 'harpoon-apes' }, trait: { type: 'Fur', value: 'Zombie' } },
      catalog,
    );
    expect(c.traits).toEqual([{ type: 'Fur', value: 'Zombie' }]);
    const n = parseCriteria(
      { collection: { slug: 'harpoon-apes' }, numericTraits: [{ type: 'Level', min: 3, max: 5 }] },
      catalog,
    );
    expect(n.numericTraits).toEqual([{ type: 'Level', min: 3, max: 5 }]);
  });

  it.each([
    [{}, 'criteria.collection.slug is required'],
    [{ collection: { slug: 'nope' } }, "collection 'nope' not found"],
    [
      { collection: { slug: 'harpoon-apes' }, traits: [{ type: 'Fur', value: 'Plaid' }] },
      "no trait value 'Fur: Plaid'",
    ],
    [
      { collection: { slug: 'harpoon-apes' }, traits: [{ type: 'Wings', value: 'x' }] },
      "no text trait 'Wings'",
    ],
    [
      {
        collection: { slug: 'harpoon-apes' },
        contract: { address: '0x0000000000000000000000000000000000000001' },
      },
      'is not the contract',
    ],
    [
      { collection: { slug: 'harpoon-apes' }, numericTraits: [{ type: 'Level', min: 5, max: 3 }] },
      'min exceeds max',
    ],
  ])('rejects %j', (v, message) => {
    expect(() => parseCriteria(v, catalog)).toThrow(message);
  });

  it("resolves '0' for collection offers and trait offers on supported collections, merkle roots otherwise", () => {
    const apes = catalog.bySlug('harpoon-apes');
    const punks = catalog.bySlug('harpoon-punks');
    if (!apes || !punks) throw new Error('catalog');
    const coll = resolveCriteria(
      catalog,
      apes,
      parseCriteria({ collection: { slug: 'harpoon-apes' } }, catalog),
    );
    expect(coll.root).toBe(0n);
    expect(coll.encodedTokenIds).toBe('*');
    const apeTrait = parseCriteria(
      { collection: { slug: 'harpoon-apes' }, traits: [{ type: 'Fur', value: 'Black' }] },
      catalog,
    );
    const ar = resolveCriteria(catalog, apes, apeTrait);
    expect(ar.root).toBe(0n);
    expect(ar.tokenIds.length).toBeGreaterThan(0);
    expect(ar.tokenIds.every((id) => catalog.matches('harpoon-apes', id, apeTrait.traits))).toBe(true);
    const punkTrait = parseCriteria(
      { collection: { slug: 'harpoon-punks' }, traits: [{ type: 'Type', value: 'Zombie' }] },
      catalog,
    );
    const pr = resolveCriteria(catalog, punks, punkTrait);
    expect(pr.root).not.toBe(0n);
    expect(pr.root).toBe(new TokenMerkleTree(catalog.tokensMatching('harpoon-punks', punkTrait.traits)).root);
    const has = decodeTokenIds(pr.encodedTokenIds);
    for (let i = 1n; i <= 40n; i++) expect(has(i)).toBe(pr.tokenIds.includes(i));
  });

  it('matches numeric ranges against the token traits', () => {
    const c = parseCriteria(
      { collection: { slug: 'harpoon-apes' }, numericTraits: [{ type: 'Level', min: 10 }] },
      catalog,
    );
    for (let i = 1n; i <= 60n; i++) {
      const level = catalog.traits('harpoon-apes', i).find((t) => t.trait_type === 'Level')?.value;
      expect(tokenMatches(catalog, c, i)).toBe(level === 10);
    }
  });
});

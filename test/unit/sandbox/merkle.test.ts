import { keccak256 } from 'ethers';
import { describe, expect, it } from 'vitest';
import { addressLeaf, hashPair, MerkleTree, tokenIdLeaf, verifyProof } from '../../../src/sandbox/merkle.ts';

describe('sorted-pair merkle tree', () => {
  it('proves every leaf and nothing else, for odd and even sizes', () => {
    for (const n of [1, 2, 3, 5, 8, 13]) {
      const leaves = Array.from({ length: n }, (_, i) => tokenIdLeaf(BigInt(i + 1)));
      const tree = new MerkleTree(leaves);
      for (const leaf of leaves) expect(verifyProof(leaf, tree.proof(leaf)!, tree.root)).toBe(true);
      expect(tree.proof(tokenIdLeaf(999n))).toBeUndefined();
      expect(verifyProof(tokenIdLeaf(999n), tree.proof(leaves[0]!)!, tree.root)).toBe(false);
    }
  });

  it('a single leaf is its own root; a pair hashes in sorted order', () => {
    const a = tokenIdLeaf(1n);
    const b = tokenIdLeaf(2n);
    expect(new MerkleTree([a]).root).toBe(a.toLowerCase());
    expect(new MerkleTree([a, b]).root).toBe(hashPair(b, a));
  });

  it('leaves: token id as a 32-byte word, address packed', () => {
    expect(tokenIdLeaf(1n)).toBe(keccak256(`0x${'0'.repeat(63)}1`));
    const addr = '0x00000000000000000000000000000000000000Aa';
    expect(addressLeaf(addr)).toBe(keccak256(addr.toLowerCase()));
  });
});

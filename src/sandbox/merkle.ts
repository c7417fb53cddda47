import { concat, keccak256 } from 'ethers';

/**
 * A sorted-pair keccak256 merkle tree over 32-byte leaf hashes: the proof format Seaport's
 * criteria resolution and the sandbox drop's allowlist verify (hash(a, b) with a < b).
 */
export class MerkleTree {
  readonly #layers: string[][];

  constructor(leafHashes: readonly string[]) {
    if (leafHashes.length === 0) throw new RangeError('a merkle tree needs at least one leaf');
    const leaves = [...new Set(leafHashes.map((h) => h.toLowerCase()))].sort();
    const layers: string[][] = [leaves];
    while ((layers[layers.length - 1] as string[]).length > 1) {
      const prev = layers[layers.length - 1] as string[];
      const next: string[] = [];
      for (let i = 0; i < prev.length; i += 2) {
        const a = prev[i] as string;
        const b = prev[i + 1];
        next.push(b === undefined ? a : hashPair(a, b));
      }
      layers.push(next);
    }
    this.#layers = layers;
  }

  get root(): string {
    return (this.#layers[this.#layers.length - 1] as string[])[0] as string;
  }

  /** The proof of a leaf hash, or undefined when it is not in the tree. */
  proof(leafHash: string): string[] | undefined {
    let index = (this.#layers[0] as string[]).indexOf(leafHash.toLowerCase());
    if (index < 0) return undefined;
    const proof: string[] = [];
    for (let l = 0; l < this.#layers.length - 1; l++) {
      const layer = this.#layers[l] as string[];
      const sibling = layer[index % 2 === 0 ? index + 1 : index - 1];
      if (sibling !== undefined) proof.push(sibling);
      index = Math.floor(index / 2);
    }
    return proof;
  }
}

export function hashPair(a: string, b: string): string {
  return a.toLowerCase() < b.toLowerCase() ? keccak256(concat([a, b])) : keccak256(concat([b, a]));
}

export function verifyProof(leafHash: string, proof: readonly string[], root: string): boolean {
  let h = leafHash;
  for (const p of proof) h = hashPair(h, p);
  return h.toLowerCase() === root.toLowerCase();
}

/** Leaf of a Seaport criteria tree: keccak256 of the token id as a 32-byte word. */
export function tokenIdLeaf(tokenId: bigint): string {
  return keccak256(`0x${tokenId.toString(16).padStart(64, '0')}`);
}

/** Leaf of the drop allowlist: keccak256(abi.encodePacked(address)). */
export function addressLeaf(address: string): string {
  return keccak256(address.toLowerCase());
}

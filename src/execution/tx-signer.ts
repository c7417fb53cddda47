/**
 * The fast transaction signer of the snipe path. src/chain's `LocalSigner` itself now signs
 * transactions and digests on the noble path (RLP + keccak-256 + precomputed secp256k1, byte-equal
 * to ethers), so this is the same signer over a key from the environment; kept as the execution
 * layer's named entry point.
 */
import { type Signer, signerFromPrivateKey } from '../chain/index.ts';
import type { Secret } from '../domain/secret.ts';

/** A `Signer` over `key` whose `signTransaction` takes the fast path. */
export function createFastTxSigner(key: Secret): Signer {
  return signerFromPrivateKey(key);
}

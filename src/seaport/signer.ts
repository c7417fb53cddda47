/**
 * The signer port Seaport orders need: an address and a raw 32-byte digest signature. The chain
 * layer's wallet adapter implements it for the daemon; `createLocalDigestSigner` is the fast
 * in-process implementation (noble secp256k1, RFC 6979 deterministic, low-s) for tests, the
 * benchmark and any caller that holds key bytes. The key lives only in a closure: it is never a
 * property, never logged, never serialized.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { addressOfPublicKey } from '../chain/digest-signer.ts';
import { RejectedError } from '../errors/index.ts';

export {
  addressOfPublicKey,
  createLocalDigestSigner,
  LOCAL_SIGNER,
  type LocalDigestSigner,
  type LocalSignerOptions,
} from '../chain/digest-signer.ts';

export interface Signer {
  /** Checksummed address of the key. */
  readonly address: string;
  /**
   * Signs a 32-byte digest given as 0x-hex, as is (no prefix, no hashing): 65 bytes r ‖ s ‖ v
   * (v = 27 or 28) as bytes or 0x-hex; a 64-byte EIP-2098 compact signature is accepted too.
   * The chain layer's `Signer` (src/chain/signer.ts) has exactly this method, so it plugs in as is.
   */
  signDigest(digest: string): Uint8Array | string;
}

/**
 * Normalizes a signer's answer to 0x-hex r ‖ s ‖ v (65 bytes). Compact 64-byte (EIP-2098) input is
 * expanded; v 0/1 becomes 27/28. Anything else is rejected.
 */
export function signatureHex(sig: Uint8Array | string): string {
  let bytes: Uint8Array;
  if (typeof sig === 'string') {
    const h = sig.replace(/^0x/i, '');
    if (!/^[0-9a-fA-F]*$/.test(h) || (h.length !== 130 && h.length !== 128)) {
      throw new RejectedError('seaport_bad_signature', 'the signer returned a malformed signature');
    }
    bytes = new Uint8Array(h.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(h.slice(i * 2, i * 2 + 2), 16);
  } else {
    bytes = sig;
  }
  if (bytes.length === 64) {
    const out = new Uint8Array(65);
    out.set(bytes.subarray(0, 64), 0);
    const yParity = ((out[32] as number) & 0x80) >> 7;
    out[32] = (out[32] as number) & 0x7f;
    out[64] = 27 + yParity;
    bytes = out;
  }
  if (bytes.length !== 65) throw new RejectedError('seaport_bad_signature', 'a signature must be 65 bytes');
  let v = bytes[64] as number;
  if (v === 0 || v === 1) v += 27;
  if (v !== 27 && v !== 28)
    throw new RejectedError('seaport_bad_signature', `signature v ${v} is not 27 or 28`);
  if (bytes[64] !== v) {
    bytes = bytes.slice();
    bytes[64] = v;
  }
  return `0x${bytesToHex(bytes)}`;
}

/** Recovers the signer address of a 65-byte r ‖ s ‖ v signature over `digest`. */
export function recoverDigestSigner(digest: Uint8Array, signature: string): string {
  const h = signatureHex(signature).slice(2);
  const rec = new Uint8Array(65);
  rec[0] = Number.parseInt(h.slice(128, 130), 16) - 27;
  for (let i = 0; i < 64; i++) rec[i + 1] = Number.parseInt(h.slice(i * 2, i * 2 + 2), 16);
  const pub = secp256k1.recoverPublicKey(rec, digest, { prehash: false });
  return addressOfPublicKey(pub);
}

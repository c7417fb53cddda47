import { hashMessage } from 'ethers';
import type { Signer } from './signer.ts';

/**
 * EIP-191 `personal_sign` over the signer's digest signing: the digest is
 * keccak256("\x19Ethereum Signed Message:\n" + byte length + message), the message as UTF-8.
 * Used for Sign-In with Ethereum (EIP-4361), whose text is signed this way. The signature is
 * r ‖ s ‖ v (65 bytes, 0x-hex), byte-equal to ethers' `Wallet.signMessage` for the same key.
 */
export function personalMessageDigest(message: string | Uint8Array): string {
  return hashMessage(message);
}

/** Signs `message` as `personal_sign` does (see personalMessageDigest). */
export function signPersonalMessage(
  signer: Pick<Signer, 'signDigest'>,
  message: string | Uint8Array,
): string {
  return signer.signDigest(personalMessageDigest(message));
}

import { type LocalSigner, signerFromPrivateKey } from '../../../../src/chain/index.ts';
import { Secret } from '../../../../src/domain/secret.ts';

/** A fixed test key (never a real wallet): the fake signer signs for real, deterministically. */
export const FAKE_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const FAKE_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

export function fakeSigner(key: string = FAKE_KEY): LocalSigner {
  return signerFromPrivateKey(new Secret(key, 'test key'));
}

import { verifyMessage, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  personalMessageDigest,
  signerFromPrivateKey,
  signPersonalMessage,
} from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';

const KEYS = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x0000000000000000000000000000000000000000000000000000000000000001',
  '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140',
];

const MESSAGES = [
  '',
  'hello',
  // an EIP-4361 message: several lines, a URL, an ISO date
  [
    '127.0.0.1:8545 wants you to sign in with your Ethereum account:',
    '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    '',
    'Click to sign in.',
    '',
    'URI: http://127.0.0.1:8545',
    'Version: 1',
    'Chain ID: 1',
    'Nonce: 0123456789abcdef',
    'Issued At: 2026-01-02T03:04:05.678Z',
  ].join('\n'),
  // multi-byte UTF-8: the length prefix counts bytes, not characters
  'naïve — ✓ 署名',
];

describe('personal_sign (EIP-191) over the signer’s digest signing', () => {
  for (const key of KEYS) {
    for (const message of MESSAGES) {
      it(`equals ethers' Wallet.signMessage byte for byte (key …${key.slice(-4)}, ${JSON.stringify(message.slice(0, 12))})`, async () => {
        const signer = signerFromPrivateKey(new Secret(key, 'test key'));
        const ours = signPersonalMessage(signer, message);
        expect(ours).toBe(await new Wallet(key).signMessage(message));
        expect(verifyMessage(message, ours)).toBe(signer.address);
      });
    }
  }

  it('hashes with the byte length prefix (not a plain keccak of the text)', () => {
    // keccak256("\x19Ethereum Signed Message:\n5hello"), a known EIP-191 vector
    expect(personalMessageDigest('hello')).toBe(
      '0x50b2c43fd39106bafbba0da34fc430e1f91e3c96ea2acee2bc34119f92b37750',
    );
  });

  it('signs bytes as bytes', async () => {
    const key = KEYS[0] as string;
    const bytes = new Uint8Array([0, 1, 2, 255]);
    expect(signPersonalMessage(signerFromPrivateKey(new Secret(key)), bytes)).toBe(
      await new Wallet(key).signMessage(bytes),
    );
  });
});

import { inspect } from 'node:util';
import { SigningKey, Transaction } from 'ethers';
import { describe, expect, it } from 'vitest';
import { signerFromPrivateKey } from '../../../src/chain/index.ts';
import type { UnsignedTx } from '../../../src/chain/signer.ts';
import { Secret } from '../../../src/domain/secret.ts';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** A small deterministic PRNG for the cases. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s;
  };
}

/** The reference: ethers' own Transaction object and SigningKey. */
function ethersSigned(tx: UnsignedTx): string {
  const t = Transaction.from({
    type: 2,
    chainId: BigInt(tx.chainId),
    nonce: tx.nonce,
    to: tx.to,
    data: tx.data ?? '0x',
    value: tx.value ?? 0n,
    gasLimit: tx.gasLimit,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
  });
  t.signature = new SigningKey(KEY).sign(t.unsignedHash);
  return t.serialized;
}

describe('LocalSigner on the noble path (own RLP + precomputed secp256k1)', () => {
  const fast = signerFromPrivateKey(new Secret(KEY));

  it('never shows the key', () => {
    const shown = `${inspect(fast)} ${JSON.stringify(fast)} ${String(Object.keys(fast))}`;
    expect(shown).not.toContain(KEY.slice(2, 20));
    expect(inspect(fast)).toContain(fast.address);
  });

  it('signs digests byte-equal to ethers', () => {
    for (let i = 0; i < 20; i++) {
      const digest = `0x${i.toString(16).padStart(2, '0').repeat(32)}`;
      expect(fast.signDigest(digest)).toBe(new SigningKey(KEY).sign(digest).serialized);
    }
  });

  it("signs transactions byte-equal to ethers' Transaction for edge and random cases", async () => {
    const rnd = prng(7);
    const big = (bytes: number) => {
      let v = 0n;
      for (let i = 0; i < bytes; i++) v = (v << 8n) | BigInt(rnd() & 255);
      return v;
    };
    const hex = (n: number) =>
      `0x${Array.from({ length: n }, () => (rnd() & 255).toString(16).padStart(2, '0')).join('')}`;
    const cases = [
      {
        chainId: 1,
        nonce: 0,
        to: `0x${'00'.repeat(20)}`,
        gasLimit: 21_000n,
        maxFeePerGas: 0n,
        maxPriorityFeePerGas: 0n,
      },
      {
        chainId: 31337,
        nonce: 127,
        to: `0x${'11'.repeat(20)}`,
        data: '0x00',
        value: 1n,
        gasLimit: 1n,
        maxFeePerGas: 128n,
        maxPriorityFeePerGas: 55n,
      },
      {
        chainId: 8453,
        nonce: 1_000_000,
        to: `0x${'ab'.repeat(20)}`,
        data: hex(60),
        value: 10n ** 30n,
        gasLimit: 500_000n,
        maxFeePerGas: 10n ** 12n,
        maxPriorityFeePerGas: 3n * 10n ** 9n,
      },
      {
        chainId: 1,
        nonce: 5,
        to: `0x${'cd'.repeat(20)}`,
        data: hex(1500),
        value: 0n,
        gasLimit: 300_000n,
        maxFeePerGas: 55n,
        maxPriorityFeePerGas: 1n,
      },
    ];
    for (let i = 0; i < 60; i++) {
      const maxFeePerGas = big(rnd() % 9);
      cases.push({
        chainId: 1 + (rnd() % 100_000),
        nonce: rnd() % 100_000,
        to: hex(20),
        data: hex(rnd() % 700),
        value: big(rnd() % 33),
        gasLimit: big(1 + (rnd() % 4)),
        maxFeePerGas,
        maxPriorityFeePerGas: maxFeePerGas / BigInt(1 + (rnd() % 3)),
      });
    }
    for (const tx of cases) {
      const a = await fast.signTransaction(tx);
      expect(a).toBe(ethersSigned(tx));
      expect(Transaction.from(a).from).toBe(fast.address);
    }
  });

  it('refuses malformed fields', async () => {
    await expect(
      fast.signTransaction({
        chainId: 1,
        nonce: 0,
        to: '0x1234',
        gasLimit: 1n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
      }),
    ).rejects.toThrow(/20-byte/);
    await expect(
      fast.signTransaction({
        chainId: 1,
        nonce: -1,
        to: `0x${'11'.repeat(20)}`,
        gasLimit: 1n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
      }),
    ).rejects.toThrow(/negative/);
    await expect(
      fast.signTransaction({
        chainId: 1,
        nonce: 0,
        to: `0x${'11'.repeat(20)}`,
        gasLimit: 1n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 2n,
      }),
    ).rejects.toThrow(/above maxFeePerGas/);
  });
});

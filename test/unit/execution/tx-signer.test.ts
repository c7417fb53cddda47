import { inspect } from 'node:util';
import { Transaction } from 'ethers';
import { describe, expect, it } from 'vitest';
import { signerFromPrivateKey } from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { createFastTxSigner } from '../../../src/execution/tx-signer.ts';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** A small deterministic PRNG for the cases. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s;
  };
}

describe('fast transaction signer', () => {
  const fast = createFastTxSigner(new Secret(KEY));
  const slow = signerFromPrivateKey(new Secret(KEY));

  it('has the same address and never shows the key', () => {
    expect(fast.address).toBe(slow.address);
    const shown = `${inspect(fast)} ${JSON.stringify(fast)} ${String(Object.keys(fast))}`;
    expect(shown).not.toContain(KEY.slice(2, 20));
    expect(inspect(fast)).toContain(slow.address);
  });

  it('signs byte-equal to LocalSigner for edge and random transactions', async () => {
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
      const b = await slow.signTransaction(tx);
      expect(a).toBe(b);
      expect(Transaction.from(a).from).toBe(slow.address);
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

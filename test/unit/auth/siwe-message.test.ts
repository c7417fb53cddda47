import { createSiwxMessage, parseSiwxMessage } from '@opensea/sdk';
import { verifyMessage, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { buildSiweMessage, SIWE_STATEMENT, siweOriginOf } from '../../../src/auth/siwe-message.ts';

const ADDRESS = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe('siweOriginOf: the domain and URI a sign-in message names', () => {
  it('the web site of the marketplace API, else the API host itself', () => {
    const cases: [string, string, string][] = [
      ['https://api.opensea.io', 'opensea.io', 'https://opensea.io'],
      ['https://testnets-api.opensea.io/', 'testnets.opensea.io', 'https://testnets.opensea.io'],
      ['http://127.0.0.1:41234', '127.0.0.1:41234', 'http://127.0.0.1:41234'],
      ['http://localhost:8080/prefix', 'localhost:8080', 'http://localhost:8080'],
    ];
    for (const [baseUrl, domain, uri] of cases)
      expect(siweOriginOf(baseUrl), baseUrl).toEqual({ domain, uri });
  });
});

describe('buildSiweMessage (EIP-4361 with the account type)', () => {
  const input = {
    baseUrl: 'http://127.0.0.1:41234',
    address: ADDRESS,
    chainId: 1,
    nonce: 'a1b2c3d4e5f6a7b8',
    nowMs: NOW,
  };

  it('is the text the official SDK builds for the same fields, header naming the Ethereum account', () => {
    const m = buildSiweMessage(input);
    expect(m.text).toBe(
      createSiwxMessage({
        address: ADDRESS,
        chainArch: 'EVM',
        chainId: 1,
        nonce: input.nonce,
        domain: '127.0.0.1:41234',
        uri: 'http://127.0.0.1:41234',
        statement: SIWE_STATEMENT,
        issuedAt: new Date(NOW),
      }),
    );
    expect(m.text.split('\n')[0]).toBe('127.0.0.1:41234 wants you to sign in with your Ethereum account:');
    expect(m.text).toContain('\n0x70997970C51812dc3A010C7d01b50e0d17dc79C8\n'); // checksummed
    expect(m.text).toContain('\nIssued At: 2026-01-02T03:04:05.678Z');
  });

  it('its fields are the text parsed (what siwe/verify rebuilds and checks), accountType included', () => {
    const m = buildSiweMessage({ ...input, chainId: 8453 });
    expect(m.fields).toEqual(parseSiwxMessage(m.text));
    expect(m.fields.accountType).toBe('Ethereum');
    expect(m.fields.chainId).toBe('8453');
  });

  it('a personal_sign over the text recovers the wallet', async () => {
    const w = Wallet.createRandom();
    const m = buildSiweMessage({ ...input, address: w.address });
    expect(verifyMessage(m.text, await w.signMessage(m.text))).toBe(w.address);
  });

  it('refuses a bad chain id, a short nonce and a multi-line statement', () => {
    expect(() => buildSiweMessage({ ...input, chainId: 0 })).toThrow(/chain id/);
    expect(() => buildSiweMessage({ ...input, nonce: 'abc' })).toThrow(/nonce/);
    expect(() => buildSiweMessage({ ...input, nonce: 'abc-def-ghi' })).toThrow(/nonce/);
    expect(() => buildSiweMessage({ ...input, statement: 'a\nb' })).toThrow(/one line/);
  });
});

import { createSiwxMessage, parseSiwxMessage } from '@opensea/sdk';
import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  checkSiweFields,
  INVALID_SIGNATURE,
  parseSiweMessage,
  type SiweFields,
  SiweRejected,
  signedBy,
  siweFieldsOf,
  siweMessageText,
} from '../../../../src/sandbox/auth/siwe.ts';

const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const NOW = Date.UTC(2025, 0, 1, 12);
const ctx = { domains: ['opensea.io'], chainIds: [1], nowMs: NOW, skewMs: 300_000 };

function text(extra: Partial<Parameters<typeof createSiwxMessage>[0]> = {}): string {
  return createSiwxMessage({
    address: wallet.address,
    chainArch: 'EVM',
    chainId: 1,
    nonce: 'abcdef0123456789',
    statement: 'Click to sign in.',
    issuedAt: new Date(NOW - 1000),
    ...extra,
  });
}

describe('SIWE message: parse and rebuild', () => {
  it('parses the text the official SDK builds into the fields the SDK sends, and rebuilds it exactly', () => {
    const t = text({
      expirationTime: new Date(NOW + 60_000),
      notBefore: new Date(NOW - 60_000),
      requestId: 'r1',
      resources: ['https://opensea.io/a', 'https://opensea.io/b'],
    });
    const f = parseSiweMessage(t);
    expect(f).toEqual(parseSiwxMessage(t));
    expect(f.accountType).toBe('Ethereum');
    expect(f.chainId).toBe('1');
    expect(siweMessageText(f)).toBe(t);
  });

  it('rebuilds a message without statement or optional fields', () => {
    const t = createSiwxMessage({
      address: wallet.address,
      chainArch: 'EVM',
      chainId: 1,
      nonce: 'abcdef0123456789',
    });
    const f = parseSiweMessage(t);
    expect(f.statement).toBeUndefined();
    expect(siweMessageText(f)).toBe(t);
  });

  it('reads a message without an account type (no accountType field) and refuses broken texts', () => {
    const t = createSiwxMessage({ address: wallet.address, chainId: 1, nonce: 'abcdef0123456789' });
    expect(parseSiweMessage(t).accountType).toBeUndefined();
    expect(() => parseSiweMessage('hello')).toThrow(SiweRejected);
    expect(() => parseSiweMessage(t.replace(/\nNonce: .*/, ''))).toThrow(/no nonce/);
    expect(() => parseSiweMessage(t.replace('your account', 'your Bitcoin account'))).toThrow(/account type/);
  });

  it('takes the parsed object or the text as the verify body message', () => {
    const t = text();
    expect(siweFieldsOf(parseSiwxMessage(t))).toEqual(siweFieldsOf(t));
    expect(() => siweFieldsOf({ ...parseSiwxMessage(t), nonce: undefined })).toThrow(/nonce is required/);
    expect(() => siweFieldsOf({ ...parseSiwxMessage(t), accountType: 'Dogecoin' })).toThrow(/accountType/);
    expect(() => siweFieldsOf(42)).toThrow(SiweRejected);
  });
});

describe('SIWE message: checks', () => {
  const base = (): SiweFields => parseSiweMessage(text());

  it('accepts a good message and returns the checksummed address', () => {
    expect(checkSiweFields({ ...base(), address: wallet.address.toLowerCase() }, ctx)).toBe(wallet.address);
  });

  it('without accountType answers the invalid-signature message', () => {
    const { accountType: _a, ...rest } = base();
    expect(() => checkSiweFields(rest, ctx)).toThrow(INVALID_SIGNATURE);
  });

  it.each([
    ['domain', { domain: 'evil.example' }, /domain 'evil.example'/],
    ['version', { version: '2' }, /version/],
    ['chain id', { chainId: '5' }, /chain id 5/],
    ['uri', { uri: 'not a uri' }, /uri/],
    ['address', { address: '0x1234' }, /address/],
    ['issuedAt ahead', { issuedAt: new Date(NOW + 3_600_000).toISOString() }, /future/],
    ['issuedAt junk', { issuedAt: 'yesterday' }, /RFC 3339/],
    ['expired', { expirationTime: new Date(NOW - 1).toISOString() }, /expired/],
    ['notBefore ahead', { notBefore: new Date(NOW + 3_600_000).toISOString() }, /not valid yet/],
    ['Solana', { accountType: 'Solana' as const }, /not supported/],
  ])('refuses a bad %s', (_name, patch, why) => {
    expect(() => checkSiweFields({ ...base(), ...patch }, ctx)).toThrow(why);
  });

  it('recovers the signer of the rebuilt text, and only that signer', async () => {
    const t = text();
    const sig = await wallet.signMessage(t);
    const f = parseSiweMessage(t);
    expect(signedBy(f, sig, wallet.address)).toBe(true);
    expect(signedBy(f, sig, Wallet.createRandom().address)).toBe(false);
    // The same signature over a message that differs in one field (here the nonce) is not the wallet's.
    expect(signedBy({ ...f, nonce: 'abcdef0123456780' }, sig, wallet.address)).toBe(false);
    // Dropping accountType changes the text, so the signature no longer matches either.
    const { accountType: _a, ...noType } = f;
    expect(signedBy(noType, sig, wallet.address)).toBe(false);
    expect(signedBy(f, '0xdead', wallet.address)).toBe(false);
  });
});

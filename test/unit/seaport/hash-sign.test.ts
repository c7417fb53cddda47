import { inspect } from 'node:util';
import { Seaport } from '@opensea/seaport-js';
import { JsonRpcProvider, Network, Signature, TypedDataEncoder, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { seaportOrderTypes } from '../../../src/domain/seaport.ts';
import { createOrderHasher, domainSeparator } from '../../../src/seaport/hash.ts';
import { createSeaportOrders } from '../../../src/seaport/orders.ts';
import {
  addressOfPublicKey,
  createLocalDigestSigner,
  recoverDigestSigner,
  signatureHex,
} from '../../../src/seaport/signer.ts';
import type { OrderComponents } from '../../../src/seaport/types.ts';
import { toWire } from '../../../src/seaport/wire.ts';
import { ADDRESS, buildResponse, deps, FEES, NFT, OPTIONS, PRIVATE_KEY, SEAPORT } from './fixtures.ts';

const domain = { name: 'Seaport', version: '1.6', chainId: 1, verifyingContract: SEAPORT };

// A provider that never touches the network: seaport-js only asks it for the chain id.
const provider = new JsonRpcProvider('http://127.0.0.1:9', Network.from(1), { staticNetwork: true });
const wallet = new Wallet(PRIVATE_KEY, provider);
// seaport-js bundles its own ethers copy: the Wallet is structurally its Signer
const seaportJs = new Seaport(wallet as unknown as ConstructorParameters<typeof Seaport>[0], {
  overrides: { contractAddress: SEAPORT },
});

async function sampleOrders(): Promise<OrderComponents[]> {
  const orders = createSeaportOrders(OPTIONS, deps().deps);
  const ctx = await orders.prepare();
  return [
    orders.signListing(
      { nft: { contract: NFT, tokenId: 42n, standard: 'erc721' }, price: 10n ** 18n, fees: FEES },
      ctx,
    ).components,
    orders.signListing(
      {
        nft: { contract: NFT, tokenId: 7n, standard: 'erc1155' },
        quantity: 4n,
        price: 4n * 123_456_789n,
        fees: FEES,
        signedZone: true,
      },
      ctx,
    ).components,
    orders.signItemOffer(
      {
        nft: { contract: NFT, tokenId: (1n << 255n) + 3n, standard: 'erc721' },
        price: 5n * 10n ** 17n,
        fees: FEES,
      },
      ctx,
    ).components,
    orders.signCriteriaOffer({ build: buildResponse(), price: 2n * 10n ** 18n, fees: FEES }, ctx).components,
  ];
}

describe('EIP-712 hashing', () => {
  it('domain separator equals ethers TypedDataEncoder.hashDomain', () => {
    const ours = `0x${Buffer.from(domainSeparator({ chainId: 1, verifyingContract: SEAPORT })).toString('hex')}`;
    expect(ours).toBe(TypedDataEncoder.hashDomain(domain));
    const other = `0x${Buffer.from(domainSeparator({ chainId: 8453, verifyingContract: SEAPORT })).toString('hex')}`;
    expect(other).toBe(TypedDataEncoder.hashDomain({ ...domain, chainId: 8453 }));
  });

  it('order hash equals seaport-js getOrderHash and the digest equals ethers TypedDataEncoder.hash', async () => {
    const hasher = createOrderHasher({ chainId: 1, verifyingContract: SEAPORT });
    for (const c of await sampleOrders()) {
      const wire = toWire(c);
      expect(hasher.orderHash(c)).toBe(seaportJs.getOrderHash(wire));
      const { digest } = hasher.hashAndDigest(c);
      expect(`0x${Buffer.from(digest).toString('hex')}`).toBe(
        TypedDataEncoder.hash(domain, seaportOrderTypes(), wire),
      );
    }
  });

  it('a changed counter, salt or chain changes the hash', async () => {
    const [c] = (await sampleOrders()) as [OrderComponents];
    const h = createOrderHasher({ chainId: 1, verifyingContract: SEAPORT });
    const base = h.orderHash(c);
    expect(h.orderHash({ ...c, counter: c.counter + 1n })).not.toBe(base);
    expect(h.orderHash({ ...c, salt: c.salt + 1n })).not.toBe(base);
    const d1 = h.hashAndDigest(c).digest;
    const d2 = createOrderHasher({ chainId: 5, verifyingContract: SEAPORT }).hashAndDigest(c).digest;
    expect(Buffer.from(d1).equals(Buffer.from(d2))).toBe(false);
  });

  it('rejects values outside uint256 and malformed addresses', async () => {
    const [c] = (await sampleOrders()) as [OrderComponents];
    const h = createOrderHasher({ chainId: 1, verifyingContract: SEAPORT });
    expect(() => h.orderHash({ ...c, salt: 1n << 256n })).toThrow(/salt/);
    expect(() => h.orderHash({ ...c, salt: -1n })).toThrow(/salt/);
    expect(() => h.orderHash({ ...c, zone: '0x1234' })).toThrow(/zone/);
  });
});

describe('golden vs @opensea/seaport-js signOrder', () => {
  it('same signature (RFC 6979) for every sample order; ours is the 65-byte form of its compact one', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    for (const c of await sampleOrders()) {
      const ours = orders.signComponents(c);
      const theirs = await seaportJs.signOrder(toWire(c));
      expect(ours.signature).toMatch(/^0x[0-9a-f]{130}$/);
      expect(Signature.from(ours.signature).compactSerialized).toBe(theirs);
      expect(ours.orderHash).toBe(seaportJs.getOrderHash(toWire(c)));
      // and ethers' generic typed-data signer agrees byte for byte
      expect(ours.signature).toBe(await wallet.signTypedData(domain, seaportOrderTypes(), toWire(c)));
    }
  });

  it('a hex-digest Signer port (as the chain layer provides) signs the same orders identically', async () => {
    const port = { address: wallet.address, signDigest: (d: string) => wallet.signingKey.sign(d).serialized };
    const viaPort = createSeaportOrders(OPTIONS, { ...deps().deps, signer: port });
    const local = createSeaportOrders(OPTIONS, deps().deps);
    for (const c of await sampleOrders()) {
      expect(viaPort.signComponents(c)).toEqual(local.signComponents(c));
    }
    expect(viaPort.signCancel(`0x${'cd'.repeat(32)}`)).toBe(local.signCancel(`0x${'cd'.repeat(32)}`));
  });

  it('a port whose key is not its address fails at the first signature (FatalError)', async () => {
    const other = Wallet.createRandom();
    const port = { address: wallet.address, signDigest: (d: string) => other.signingKey.sign(d).serialized };
    const orders = createSeaportOrders(OPTIONS, { ...deps().deps, signer: port });
    const [c] = (await sampleOrders()) as [OrderComponents];
    expect(() => orders.signComponents(c)).toThrow(/other than its address/);
  });

  it('off-chain cancel signature equals ethers signTypedData over OrderHash', async () => {
    const orders = createSeaportOrders(OPTIONS, deps().deps);
    const hash = `0x${'ab'.repeat(32)}`;
    const ethersSig = await wallet.signTypedData(
      domain,
      { OrderHash: [{ name: 'orderHash', type: 'bytes32' }] },
      {
        orderHash: hash,
      },
    );
    expect(orders.signCancel(hash)).toBe(ethersSig);
  });
});

describe('local digest signer', () => {
  it('derives the address of the key and signs recoverably, never exposing the key', () => {
    const s = createLocalDigestSigner(PRIVATE_KEY);
    expect(s.address).toBe(ADDRESS);
    const digest = new Uint8Array(32).fill(9);
    const sig = signatureHex(s.signDigest(digest));
    expect(recoverDigestSigner(digest, sig)).toBe(ADDRESS);
    const dump = JSON.stringify(s) + String(Object.keys(s)) + inspect(s, { showHidden: true });
    expect(dump).not.toContain(PRIVATE_KEY.slice(2));
    expect(dump.toLowerCase()).not.toContain('ac0974bec39a17e3');
  });

  it('equals ethers SigningKey.sign byte for byte over random keys and digests (RFC 6979, low-s)', () => {
    for (let i = 0; i < 40; i++) {
      const key = Wallet.createRandom().privateKey;
      const digest = Uint8Array.from({ length: 32 }, (_, j) => (i * 31 + j * 7) & 255);
      const ours = signatureHex(createLocalDigestSigner(key).signDigest(digest));
      expect(ours).toBe(new Wallet(key).signingKey.sign(digest).serialized);
    }
  });

  it('accepts a key as bytes and rejects bad keys and digests', () => {
    const bytes = Uint8Array.from(Buffer.from(PRIVATE_KEY.slice(2), 'hex'));
    expect(createLocalDigestSigner(bytes).address).toBe(ADDRESS);
    expect(() => createLocalDigestSigner('0x1234')).toThrow(/32 bytes/);
    expect(() => createLocalDigestSigner(new Uint8Array(32))).toThrow(/valid/);
    expect(() => createLocalDigestSigner(PRIVATE_KEY).signDigest(new Uint8Array(31))).toThrow(/32 bytes/);
    expect(() => createLocalDigestSigner(PRIVATE_KEY).signDigest('0x1234')).toThrow(/32 bytes/);
    const hex = `0x${'11'.repeat(32)}`;
    const s = createLocalDigestSigner(PRIVATE_KEY);
    expect(signatureHex(s.signDigest(hex))).toBe(signatureHex(s.signDigest(new Uint8Array(32).fill(0x11))));
  });

  it('signatureHex expands EIP-2098 compact signatures and normalizes v 0/1', () => {
    const s = createLocalDigestSigner(PRIVATE_KEY);
    const full = signatureHex(s.signDigest(new Uint8Array(32).fill(1)));
    const compact = Signature.from(full).compactSerialized;
    expect(signatureHex(compact)).toBe(full);
    const v01 = `${full.slice(0, 130)}${(Number.parseInt(full.slice(130), 16) - 27).toString(16).padStart(2, '0')}`;
    expect(signatureHex(v01)).toBe(full);
    expect(() => signatureHex(`${full.slice(0, 130)}1d`)).toThrow(/v 29/);
    expect(() => signatureHex('0x1234')).toThrow(/malformed/);
  });

  it('addressOfPublicKey works for compressed keys too', () => {
    const w = new Wallet(PRIVATE_KEY);
    expect(addressOfPublicKey(Buffer.from(w.signingKey.compressedPublicKey.slice(2), 'hex'))).toBe(ADDRESS);
  });
});

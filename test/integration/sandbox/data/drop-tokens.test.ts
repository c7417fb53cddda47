import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { at, call, obj, rows, startSandbox } from './helpers.ts';

/**
 * Tokens of drops once minted: the metadata host serves what their `tokenURI` points at, and the
 * NFT endpoints (one NFT, by collection, by contract, by account, validate-metadata) show them
 * with their owners from the chain. Unminted ids are 404 everywhere.
 */

let sb: Sandbox;
const SLUG = 'harpoon-genesis';
let contract: string;
let minter: string;

beforeAll(async () => {
  sb = await startSandbox(13);
  const d = sb.fixture.drops.find((x) => x.slug === SLUG);
  if (!d) throw new Error('no drop');
  contract = d.address.toLowerCase();
  minter = sb.wallets[4]?.address as string;
  const m = await call(sb, 'POST', `/api/v2/drops/${SLUG}/mint`, { minter, quantity: 2 });
  expect(m.status, JSON.stringify(m.body)).toBe(200);
  const tx = obj(m) as { to: string; data: string; value: string };
  const sender = sb.fixture.wallets[0];
  if (!sender) throw new Error('no wallet');
  const r = await (
    await sender.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value) })
  ).wait();
  expect(r?.status).toBe(1);
}, 120_000);
afterAll(async () => {
  await sb?.close();
});

describe('drop token metadata (/metadata/{slug}/{tokenId})', () => {
  it('serves minted tokens, where tokenURI points; unminted ids are 404', async () => {
    const d = sb.fixture.drops.find((x) => x.slug === SLUG);
    const uri = String(await d?.contract.getFunction('tokenURI')(1n));
    expect(uri).toBe(`${sb.apiUrl}/metadata/${SLUG}/1`);
    const r = await fetch(uri);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      name: 'Harpoon Genesis #1',
      description: d?.description,
      image: `${sb.apiUrl}/metadata/${SLUG}/1/image.svg`,
      attributes: [],
    });
    const img = await fetch(`${sb.apiUrl}/metadata/${SLUG}/2/image.svg`);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/svg+xml');
    expect(await img.text()).toMatch(/^<svg /);
    for (const p of [`/metadata/${SLUG}/3`, `/metadata/${SLUG}/0`, '/metadata/harpoon-future/1']) {
      const a = await call(sb, 'GET', p, undefined, null);
      expect(a.status, p).toBe(404);
      expect(a.body).toEqual({ errors: [expect.any(String)] });
    }
  });
});

describe('drop tokens in the NFT endpoints', () => {
  it('one NFT: owner from the chain, metadata URL on the metadata host', async () => {
    const P = '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}';
    const a = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contract}/nfts/2`);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expectValidResponse('GET', P, 200, a.body);
    expect(at(a.body, 'nft.collection')).toBe(SLUG);
    expect(at(a.body, 'nft.metadata_url')).toBe(`${sb.apiUrl}/metadata/${SLUG}/2`);
    expect(at(a.body, 'nft.owners.0.address')).toBe(minter.toLowerCase());
    const missing = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contract}/nfts/3`);
    expect(missing.status).toBe(404);
    expectValidResponse('GET', P, 404, missing.body);
  });

  it('lists: by collection, by contract and by account show the minted tokens', async () => {
    const byColl = await call(sb, 'GET', `/api/v2/collection/${SLUG}/nfts`);
    expectValidResponse('GET', '/api/v2/collection/{slug}/nfts', 200, byColl.body);
    expect(rows(byColl.body, 'nfts').map((n) => n['identifier'])).toEqual(['1', '2']);
    const byContract = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${contract}/nfts`);
    expectValidResponse('GET', '/api/v2/chain/{chain}/contract/{address}/nfts', 200, byContract.body);
    expect(rows(byContract.body, 'nfts')).toHaveLength(2);
    const byAccount = await call(
      sb,
      'GET',
      `/api/v2/chain/ethereum/account/${minter}/nfts?collection=${SLUG}`,
    );
    expectValidResponse('GET', '/api/v2/chain/{chain}/account/{address}/nfts', 200, byAccount.body);
    expect(
      rows(byAccount.body, 'nfts')
        .map((n) => n['identifier'])
        .sort(),
    ).toEqual(['1', '2']);
    const none = await call(sb, 'GET', '/api/v2/collection/harpoon-future/nfts');
    expect(rows(none.body, 'nfts')).toEqual([]);
  });

  it('validate-metadata of a drop token fetches it through its token URI', async () => {
    const V = '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/validate-metadata';
    const a = await call(sb, 'POST', `/api/v2/chain/ethereum/contract/${contract}/nfts/1/validate-metadata`);
    expect(a.status).toBe(200);
    expectValidResponse('POST', V, 200, a.body);
    expect(obj(a)['error']).toBeUndefined();
    expect(at(a.body, 'metadata.name')).toBe('Harpoon Genesis #1');
    expect(at(a.body, 'metadata.originalImageUrl')).toBe(`${sb.apiUrl}/metadata/${SLUG}/1/image.svg`);
  });
});

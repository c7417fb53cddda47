import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Contract, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FEE_RECIPIENT, type Sandbox } from '../../../../src/sandbox/index.ts';
import { expectSchema, expectValidResponse } from '../../../helpers/openapi.ts';
import {
  approveNft,
  execute,
  fundWeth,
  listingParameters,
  offerParameters,
  sign,
  wait,
} from '../market/helpers.ts';
import { type Answer, call, harnessOf, listOnBook, obj, startSandbox } from './helpers.ts';

/**
 * Collection edits and the collection refresh rules of the spec:
 * `PATCH /api/v2/collections/{slug}` (fields), `PATCH /api/v2/collections/{slug}/metadata` (page
 * content), who may edit (owner, authorized editors), the error statuses with their bodies, and
 * what a refresh does to saved values — rule 1 (contract-level metadata from `contractURI`, items
 * with missing metadata refetched), rule 2 (set fields replace saved ones, left-out or blank ones
 * keep them), rule 3 (overview and about kept, hero/preview media replaced only when fetched) —
 * and creator fees: an owner's `creator_fees` replace a catalog collection's, the collection shows
 * them, orders posted from then on must pay them, orders posted before stay fillable.
 */

let sb: Sandbox;
let host: Server;
let base: string;
const served = new Map<string, unknown>();
const P = '/api/v2/collections/{slug}';
const PM = '/api/v2/collections/{slug}/metadata';

beforeAll(async () => {
  sb = await startSandbox(19);
  host = createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (body === undefined || typeof body === 'number') {
      res.statusCode = typeof body === 'number' ? body : 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  host?.close();
  await sb?.close();
});

const patch = (slug: string, body: unknown, key?: string | null) =>
  call(sb, 'PATCH', `/api/v2/collections/${slug}`, body, key === undefined ? sb.apiKey : key);
const patchMeta = (slug: string, body: unknown, key?: string | null) =>
  call(sb, 'PATCH', `/api/v2/collections/${slug}/metadata`, body, key === undefined ? sb.apiKey : key);

async function detail(slug: string): Promise<Record<string, unknown>> {
  const a = await call(sb, 'GET', `/api/v2/collections/${slug}`);
  expect(a.status).toBe(200);
  expectValidResponse('GET', P, 200, a.body);
  return obj(a);
}

async function profile(slug: string): Promise<Record<string, unknown>> {
  const a = await call(sb, 'GET', `/_sandbox/collections/${slug}/profile`, undefined, null);
  expect(a.status).toBe(200);
  return obj(a);
}

function expectOk(a: Answer, path: string) {
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  expectValidResponse('PATCH', path, 200, a.body);
  expect(a.body).toEqual({ success: true });
}

function expectError(a: Answer, path: string, status: number, reason?: RegExp) {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expectValidResponse('PATCH', path, status, a.body);
  expect(obj(a)['errors']).toEqual(expect.arrayContaining([expect.any(String)]));
  if (reason) expect((obj(a)['errors'] as string[]).join(' | ')).toMatch(reason);
}

async function refresh(slug: string): Promise<void> {
  const before = (await profile(slug))['refreshedAt'];
  const r = await call(sb, 'POST', `/api/v2/collections/${slug}/refresh`);
  expect(r.status).toBe(200);
  for (let i = 0; i < 100; i++) {
    const now = (await profile(slug))['refreshedAt'];
    if (now !== null && now !== before) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('refresh did not complete');
}

const contractOf = (slug: string): Contract => {
  const c = sb.fixture.collections.find((x) => x.slug === slug)?.contract;
  if (!c) throw new Error(`no collection ${slug}`);
  return c;
};

describe('PATCH /api/v2/collections/{slug}', () => {
  it('saves name, description, logo, banner, category, NSFW flag and URLs; the collection shows them', async () => {
    const slug = 'harpoon-punks';
    expectOk(
      await patch(slug, {
        name: 'Punks Edited',
        description: 'Saved by the owner',
        logo_image_token: 'https://img.example/logo.png',
        banner_image_token: 'https://img.example/banner.png',
        category: 'art',
        is_nsfw: true,
        external_url: 'https://punks.example',
        telegram_url: '',
      }),
      P,
    );
    const d = await detail(slug);
    expect(d).toMatchObject({
      name: 'Punks Edited',
      description: 'Saved by the owner',
      image_url: 'https://img.example/logo.png',
      banner_image_url: 'https://img.example/banner.png',
      category: 'art',
      is_nsfw: true,
      project_url: 'https://punks.example',
      telegram_url: '',
    });
    // a later PATCH changes only what it names
    expectOk(await patch(slug, { description: 'Second edit' }), P);
    expect(await detail(slug)).toMatchObject({ name: 'Punks Edited', description: 'Second edit' });
  });

  it('errors: 400 with every reason, 404 unknown slug, 401 without a key, 403 for a stranger', async () => {
    const slug = 'harpoon-punks';
    expectError(await patch(slug, { name: 'Ünïcode' }), P, 400, /name/);
    expectError(await patch(slug, { name: '' }), P, 400, /name/);
    expectError(await patch(slug, { description: 'x'.repeat(1001) }), P, 400, /description/);
    expectError(await patch(slug, { slug: 'new-slug' }), P, 400, /slug/);
    expectError(
      await patch(slug, { creator_fees: [{ address: '0x12', basis_points: 1 }] }),
      P,
      400,
      /creator_fees/,
    );
    expectError(await patch(slug, { is_rarity_disabled: true }), P, 400, /is_rarity_disabled/);
    expectError(await patch(slug, { logo_image_token: 'tok_123' }), P, 400, /logo_image_token/);
    expectError(await patch(slug, { external_url: 'ftp://x' }), P, 400, /external_url/);
    expectError(await patch(slug, { colour: 'red' }), P, 400, /colour/);
    expectError(await patch(slug, {}), P, 400);
    expectError(await patch(slug, '[1]'), P, 400);
    const many = await patch(slug, { name: '', is_nsfw: 'yes' });
    const reasons = obj(many)['errors'] as string[];
    expect(reasons.some((r) => r.startsWith('name:'))).toBe(true);
    expect(reasons.some((r) => r.startsWith('is_nsfw:'))).toBe(true);
    expectError(await patch('nope', { name: 'X' }), P, 404);
    const noKey = await patch(slug, { name: 'X' }, null);
    expect(noKey.status).toBe(401);
    expectSchema('V1ErrorWrapper', noKey.body);
    const stranger = sb.server.keys.issue(
      (sb.wallets[2] as { address: string }).address.toLowerCase(),
    ).apiKey;
    const denied = await patch(slug, { name: 'Hijacked' }, stranger);
    expect(denied.status).toBe(403);
    expectValidResponse('PATCH', P, 403, denied.body);
    expect(obj(denied)['success']).toBe(false);
    expect((await detail(slug))['name']).not.toBe('Hijacked');
  });

  it('authorized editors may edit and refresh; they are listed among the editors', async () => {
    const slug = 'harpoon-items';
    const editor = (sb.wallets[3] as { address: string }).address.toLowerCase();
    const key = sb.server.keys.issue(editor).apiKey;
    expect((await patch(slug, { name: 'Not yet' }, key)).status).toBe(403);
    expect((await call(sb, 'POST', `/api/v2/collections/${slug}/refresh`, undefined, key)).status).toBe(403);
    expectOk(await patch(slug, { authorized_editors: [editor] }), P);
    expect((await detail(slug))['editors']).toContain(editor);
    expectOk(await patch(slug, { name: 'Items By Editor' }, key), P);
    expect((await detail(slug))['name']).toBe('Items By Editor');
    expect((await call(sb, 'POST', `/api/v2/collections/${slug}/refresh`, undefined, key)).status).toBe(200);
    expectError(await patch(slug, { authorized_editors: ['bob'] }), P, 400, /authorized_editors/);
  });
});

describe('PATCH /api/v2/collections/{slug}: creator_fees', () => {
  const slug = 'harpoon-apes';
  const PAYEE = `0x${'c4'.repeat(20)}`;
  const marketplaceFee = { fee: 1, recipient: SANDBOX_FEE_RECIPIENT.toLowerCase(), required: true };
  const wallet = (i: number) => sb.fixture.wallets[i] as Wallet;
  /** The fixture mints apes round-robin over its wallets. */
  const ownerOfApe = (id: bigint) => wallet(Number(id - 1n) % sb.fixture.wallets.length);
  const postListing = (parameters: unknown, signature: string) =>
    call(sb, 'POST', '/api/v2/orders/ethereum/seaport/listings', {
      parameters,
      signature,
      protocol_address: sb.seaport,
    });

  it('the owner replaces the creator fees: the collection shows them, new orders must pay them, older orders stay fillable', async () => {
    const owner = (await detail(slug))['owner'] as string;
    expect((await detail(slug))['fees']).toEqual([
      marketplaceFee,
      { fee: 2.5, recipient: owner, required: true },
    ]);
    const h = harnessOf(sb);
    const ETH = 10n ** 18n;
    // before the change: one listing posted, one signed but not yet posted (both with the old fees)
    const posted = await listOnBook(sb, ownerOfApe(21n), slug, 21n, ETH);
    const late = ownerOfApe(22n);
    await approveNft(h, late, slug);
    const oldParameters = await listingParameters(h, late, { slug, tokenId: 22n, price: ETH });
    const oldSignature = await sign(h, late, oldParameters);
    const bidder = wallet(3);
    await fundWeth(h, bidder, 2n * ETH);
    const oldOffer = await offerParameters(h, bidder, { slug, tokenId: 23n, price: ETH });
    const oldOfferSignature = await sign(h, bidder, oldOffer);

    expectOk(await patch(slug, { creator_fees: [{ address: PAYEE, basis_points: 400 }] }), P);
    expect((await detail(slug))['fees']).toEqual([
      marketplaceFee,
      { fee: 4, recipient: PAYEE, required: true },
    ]);

    // an order without the new fee is refused; one with it is accepted
    const stale = await postListing(oldParameters, oldSignature);
    expect(stale.status, JSON.stringify(stale.body)).toBe(400);
    expect(JSON.stringify(stale.body)).toMatch(/lacks the required fee of 4% to 0x[cC]4/);
    const fresh = await listingParameters(h, late, { slug, tokenId: 22n, price: ETH });
    expect(fresh.consideration.map((c) => c.recipient.toLowerCase())).toContain(PAYEE);
    const ok = await postListing(fresh, await sign(h, late, fresh));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const postOffer = (parameters: unknown, signature: string) =>
      call(sb, 'POST', '/api/v2/orders/ethereum/seaport/offers', {
        parameters,
        signature,
        protocol_address: sb.seaport,
      });
    const staleOffer = await postOffer(oldOffer, oldOfferSignature);
    expect(staleOffer.status, JSON.stringify(staleOffer.body)).toBe(400);
    expect(JSON.stringify(staleOffer.body)).toMatch(/lacks the required fee of 4% to/);
    const offer = await offerParameters(h, bidder, { slug, tokenId: 23n, price: ETH });
    const offered = await postOffer(offer, await sign(h, bidder, offer));
    expect(offered.status, JSON.stringify(offered.body)).toBe(200);

    // the listing posted before the change keeps the fees it was signed with and is filled
    const buyer = wallet(4);
    const ful = await call(sb, 'POST', '/api/v2/listings/fulfillment_data', {
      listing: { hash: posted, chain: 'ethereum', protocol_address: sb.seaport },
      fulfiller: { address: buyer.address },
    });
    expect(ful.status, JSON.stringify(ful.body)).toBe(200);
    const payeeBefore = await sb.fixture.provider.getBalance(PAYEE);
    expect((await execute(buyer, ful.body as never)).status).toBe(1);
    expect(String(await contractOf(slug).getFunction('ownerOf')(21n))).toBe(buyer.address);
    expect(await sb.fixture.provider.getBalance(PAYEE)).toBe(payeeBefore);
  });

  it('0 bps pays no one; an empty list leaves the marketplace fee only', async () => {
    expectOk(
      await patch(slug, {
        creator_fees: [
          { address: PAYEE, basis_points: 150 },
          { address: `0x${'d5'.repeat(20)}`, basis_points: 0 },
        ],
      }),
      P,
    );
    expect((await detail(slug))['fees']).toEqual([
      marketplaceFee,
      { fee: 1.5, recipient: PAYEE, required: true },
    ]);
    expectOk(await patch(slug, { creator_fees: [] }), P);
    expect((await detail(slug))['fees']).toEqual([marketplaceFee]);
    expectOk(await patch(slug, { creator_fees: [{ address: PAYEE, basis_points: 400 }] }), P);
  });

  it('refused requests change nothing: a stranger (403), a bad entry beside a valid field (400), a drop (400)', async () => {
    const fees = (await detail(slug))['fees'];
    const name = (await detail(slug))['name'];
    const stranger = sb.server.keys.issue(wallet(2).address.toLowerCase()).apiKey;
    const denied = await patch(slug, { creator_fees: [{ address: PAYEE, basis_points: 1000 }] }, stranger);
    expect(denied.status).toBe(403);
    expectValidResponse('PATCH', P, 403, denied.body);
    expectError(
      await patch(slug, {
        name: 'Should Not Stick',
        creator_fees: [
          { address: PAYEE, basis_points: 100 },
          { address: PAYEE.toUpperCase().replace('0X', '0x'), basis_points: 200 },
        ],
      }),
      P,
      400,
      /creator_fees\.1\.address: .*twice/,
    );
    expectError(
      await patch(slug, { name: 'Should Not Stick', creator_fees: [{ address: PAYEE, basis_points: 1001 }] }),
      P,
      400,
      /creator_fees\.0\.basis_points/,
    );
    expect(await detail(slug)).toMatchObject({ fees, name });

    const drop = 'harpoon-genesis';
    const dropBefore = await detail(drop);
    expectError(
      await patch(drop, { name: 'Should Not Stick', creator_fees: [{ address: PAYEE, basis_points: 100 }] }),
      P,
      400,
      /creator_fees: the sandbox keeps creator fees for its catalog collections only/,
    );
    const dropAfter = await detail(drop);
    expect(dropAfter['fees']).toEqual([marketplaceFee]);
    expect(dropAfter).toEqual(dropBefore);
    // the drop's other fields remain editable
    expectOk(await patch(drop, { description: 'A drop edited by its owner' }), P);
    expect((await detail(drop))['description']).toBe('A drop edited by its owner');

    // back to the fixture's royalty for the tests that follow
    const owner = (await detail(slug))['owner'] as string;
    expectOk(await patch(slug, { creator_fees: [{ address: owner, basis_points: 250 }] }), P);
    expect((await detail(slug))['fees']).toEqual([
      marketplaceFee,
      { fee: 2.5, recipient: owner, required: true },
    ]);
  });
});

describe('PATCH /api/v2/collections/{slug}/metadata', () => {
  it('saves page content; 400 for bodies off the schema; 403 for a stranger', async () => {
    const slug = 'harpoon-punks';
    expectOk(
      await patchMeta(slug, {
        overview: {
          modules: { narrative: [{ index: 0, title: 'Story', description: 'Once upon a block' }] },
        },
        about: { sections: [{ title: 'About', description: 'Punks on the sandbox' }] },
      }),
      PM,
    );
    const page = (await profile(slug))['page'] as Record<string, unknown>;
    expect(page['overview']).toEqual({
      modules: { narrative: [{ index: 0, title: 'Story', description: 'Once upon a block' }] },
    });
    expect(page['about_sections']).toEqual([{ title: 'About', description: 'Punks on the sandbox' }]);
    expectError(
      await patchMeta(slug, { about: { sections: [{ title: 'No description' }] } }),
      PM,
      400,
      /sections/,
    );
    expectError(await patchMeta(slug, { overview: {} }), PM, 400, /overview/);
    expectError(await patchMeta(slug, { hero: { desktop_hero_media: { image: {} } } }), PM, 400, /token/);
    expectError(await patchMeta(slug, { logo_image_token: 'x' }), PM, 400);
    expectError(await patchMeta(slug, {}), PM, 400);
    expectError(await patchMeta('nope', { about: {} }), PM, 404);
    const stranger = sb.server.keys.issue(
      (sb.wallets[4] as { address: string }).address.toLowerCase(),
    ).apiKey;
    const denied = await patchMeta(slug, { about: { sections: [] } }, stranger);
    expect(denied.status).toBe(403);
    expectValidResponse('PATCH', PM, 403, denied.body);
  });
});

describe('collection refresh rules', () => {
  it('rule 2: contract-level fields replace saved ones; left-out or blank fields keep them', async () => {
    const slug = 'harpoon-apes';
    expectOk(
      await patch(slug, {
        name: 'Saved Apes',
        description: 'Saved description',
        logo_image_token: 'https://img.example/saved-logo.png',
        banner_image_token: 'https://img.example/saved-banner.png',
      }),
      P,
    );
    served.set('/contract/apes.json', {
      name: 'Chain Apes',
      description: '   ',
      image: 'https://img.example/chain-logo.png',
    });
    await wait(contractOf(slug).getFunction('setContractURI')(`${base}/contract/apes.json`));
    await refresh(slug);
    expect(await detail(slug)).toMatchObject({
      name: 'Chain Apes',
      description: 'Saved description',
      image_url: 'https://img.example/chain-logo.png',
      banner_image_url: 'https://img.example/saved-banner.png',
    });
    // a contract-level URI that cannot be fetched changes nothing
    served.set('/contract/apes.json', 500);
    expectOk(await patch(slug, { name: 'Saved Again' }), P);
    await refresh(slug);
    expect((await detail(slug))['name']).toBe('Saved Again');
  });

  it('rule 2 without contractURI: the contract name() is the contract-level name', async () => {
    const slug = 'harpoon-items';
    expectOk(await patch(slug, { name: 'Items Renamed', description: 'Kept' }), P);
    await refresh(slug);
    const d = await detail(slug);
    expect(d['name']).toBe(String(await contractOf(slug).getFunction('name')()));
    expect(d['description']).toBe('Kept');
  });

  it('rule 3: overview and about kept; hero and preview media replaced only when the refresh fetched them', async () => {
    const slug = 'harpoon-punks';
    const img = (t: string) => ({ image: { token: t } });
    expectOk(
      await patchMeta(slug, {
        hero: { desktop_hero_media: img('saved-desktop'), mobile_hero_media: img('saved-mobile') },
        about: {
          preview_media: [img('saved-preview')],
          sections: [{ title: 'About', description: 'Saved about' }],
        },
      }),
      PM,
    );
    served.set('/contract/punks.json', {
      hero_image: 'https://img.example/chain-hero.png',
      description: 'From the chain',
    });
    await wait(contractOf(slug).getFunction('setContractURI')(`${base}/contract/punks.json`));
    await refresh(slug);
    let page = (await profile(slug))['page'] as Record<string, unknown>;
    expect(page['desktop_hero_media']).toEqual(img('https://img.example/chain-hero.png'));
    expect(page['mobile_hero_media']).toEqual(img('saved-mobile'));
    expect(page['preview_media']).toEqual([img('saved-preview')]);
    expect(page['about_sections']).toEqual([{ title: 'About', description: 'Saved about' }]);
    expect(page['overview']).toEqual({
      modules: { narrative: [{ index: 0, title: 'Story', description: 'Once upon a block' }] },
    });
    expect((await detail(slug))['description']).toBe('From the chain');

    served.set('/contract/punks.json', {
      mobile_hero_image: 'https://img.example/chain-mobile.png',
      featured_image: 'https://img.example/chain-featured.png',
    });
    await refresh(slug);
    page = (await profile(slug))['page'] as Record<string, unknown>;
    expect(page['mobile_hero_media']).toEqual(img('https://img.example/chain-mobile.png'));
    expect(page['preview_media']).toEqual([img('https://img.example/chain-featured.png')]);
    expect(page['desktop_hero_media']).toEqual(img('https://img.example/chain-hero.png'));
    expect(page['about_sections']).toEqual([{ title: 'About', description: 'Saved about' }]);
  });

  it('rule 1: items whose metadata is missing are refetched by the collection refresh', async () => {
    const slug = 'harpoon-apes';
    const apes = contractOf(slug);
    const address = String(apes.target).toLowerCase();
    const id = 9n;
    const hat = sb.catalog.traits(slug, id).find((t) => t.trait_type === 'Hat')?.value;
    const newHat = hat === 'Halo' ? 'Crown' : 'Halo';
    await wait(apes.getFunction('setBaseURI')(`${base}/tokens/`));
    try {
      served.set('/tokens/9', 503);
      const r = await call(sb, 'POST', `/api/v2/chain/ethereum/contract/${address}/nfts/9/refresh`);
      expect(r.status).toBe(200);
      for (let i = 0; i < 100 && !((await profile(slug))['missingItems'] as string[]).includes('9'); i++) {
        await new Promise((res) => setTimeout(res, 50));
      }
      expect((await profile(slug))['missingItems']).toEqual(['9']);
      served.set('/tokens/9', {
        name: 'Ape 9',
        attributes: sb.catalog
          .traits(slug, id)
          .map((t) => ({ trait_type: t.trait_type, value: t.trait_type === 'Hat' ? newHat : t.value })),
      });
      await refresh(slug);
      expect((await profile(slug))['missingItems']).toEqual([]);
      const nft = obj(await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${address}/nfts/9`))['nft'] as {
        traits: unknown[];
      };
      expect(nft.traits).toContainEqual({ trait_type: 'Hat', value: newHat });
    } finally {
      await wait(apes.getFunction('setBaseURI')(`${sb.apiUrl}/metadata/${slug}/`));
    }
  });
});

import { Chain, camelizeKeysDeep, OPENSEA_SCOPES, OpenSeaAPI, OpenSeaAuth, OrderSide } from '@opensea/sdk';
import { MaxUint256, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageUuid } from '../../../src/sandbox/data/drops.ts';
import type { Sandbox } from '../../../src/sandbox/index.ts';
import { call, harnessOf, listOnBook, obj, startSandbox } from './data/helpers.ts';
import { ETH, fundWeth, offerParameters, sign } from './market/helpers.ts';

/**
 * Proof of issue 12: the official `@opensea/sdk` (its `OpenSeaAPI`, `OpenSeaAuth` and the static
 * `OpenSeaAPI.requestInstantApiKey`) reads the sandbox unchanged but the base URL. Every SDK method
 * whose endpoint is in the spec and served by the sandbox is called here, and each answer is
 * checked against the sandbox's own data: the same endpoint read over plain HTTP and camelized
 * the way the SDK says it does (`camelizeKeysDeep`), plus facts the sandbox set up (the catalog's
 * contracts, the venue's tokens, the order hashes posted below, the drop's allowlist stages).
 *
 * Not callable through the SDK, though the sandbox serves them (checked here by plain HTTP where
 * the SDK has a counterpart to compare with):
 * - `GET /api/v2/auth/scopes`: the SDK has no method; it ships the scope names as `OPENSEA_SCOPES`
 *   (from the document's `AuthScope`), and the sandbox's scope list must name exactly those.
 * - SIWE nonce/verify, PAT create/revoke and the exchange are used inside `OpenSeaAuth.authenticate`
 *   (the PAT list/rotate and session refresh have no SDK method).
 * - The deprecated legacy order lists and `/api/v1/events/` have no SDK method.
 * SDK methods on endpoints the spec does not list and the sandbox does not serve (404 from its
 * router), e.g. `collections.getCollections` (`GET /api/v2/collections`), `nfts.getNFTCollection`,
 * the token price/ohlcv/holders reads, profile and portfolio reads: out of scope, see the README's
 * coverage table.
 */

let sb: Sandbox;
let api: OpenSeaAPI;
const APES = 'harpoon-apes';
const GENESIS = 'harpoon-genesis';
let listingHash = '';
let offerHash = '';
const wallet = (i: number) => sb.fixture.wallets[i] as Wallet;
const apes = () => sb.catalog.bySlug(APES)?.contract as string;
const usdc = () => sb.tokens.find((t) => t.symbol === 'USDC')?.address as string;

/** The sandbox's answer to the same request over plain HTTP, as the SDK's camelCase view. */
async function raw(method: string, path: string, body?: unknown): Promise<unknown> {
  const a = await call(sb, method, path, body);
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return camelizeKeysDeep(a.body);
}

beforeAll(async () => {
  sb = await startSandbox(41);
  api = new OpenSeaAPI({ apiKey: sb.apiKey, apiBaseUrl: sb.apiUrl, chain: Chain.Mainnet });
  // one listing (wallet 1 owns apes #2) and one WETH offer (wallet 0 on apes #2) in the book
  listingHash = await listOnBook(sb, wallet(1), APES, 2n, ETH / 10n);
  const h = harnessOf(sb);
  await fundWeth(h, wallet(0), ETH, MaxUint256);
  const parameters = await offerParameters(h, wallet(0), { slug: APES, tokenId: 2n, price: ETH / 50n });
  const r = await call(sb, 'POST', '/api/v2/orders/ethereum/seaport/offers', {
    parameters,
    signature: await sign(h, wallet(0), parameters),
    protocol_address: sb.seaport,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  offerHash = String((obj(r)['offer'] as { order_hash: string }).order_hash);
}, 300_000);

afterAll(async () => {
  await sb?.close();
});

describe('the new read endpoints of issue 12 through the SDK', () => {
  it('search: collections, tokens and accounts ranked by relevance', async () => {
    const r = await api.search({ query: 'apes' });
    expect(r).toEqual(await raw('GET', '/api/v2/search?query=apes'));
    expect(r.results[0]).toMatchObject({ type: 'collection', collection: { collection: APES } });
    const usd = await api.search({ query: 'USDC' });
    expect(usd.results.map((x) => x.token?.address)).toContain(usdc().toLowerCase());
  });

  it('tokens trending and top: every sandbox token, with the limit and cursor the SDK sends', async () => {
    const top = await api.tokens.getTopTokens({ limit: 100 });
    expect(top).toEqual(await raw('GET', '/api/v2/tokens/top?limit=100'));
    // ETH, then WETH and the venue's tokens
    expect(top.tokens.map((t) => t.symbol).sort()).toEqual(['ETH', ...sb.tokens.map((t) => t.symbol)].sort());
    const trending = await api.tokens.getTrendingTokens({ limit: 2 });
    expect(trending.tokens).toHaveLength(2);
    expect(trending).toEqual(await raw('GET', '/api/v2/tokens/trending?limit=2'));
    const next = await api.tokens.getTrendingTokens({ limit: 2, cursor: trending.next as string });
    expect(next.tokens.map((t) => t.address)).not.toContain(trending.tokens[0]?.address);
  });

  it('one token and a token batch: the venue token by chain and address', async () => {
    const one = await api.tokens.getToken('ethereum', usdc());
    expect(one).toEqual(await raw('GET', `/api/v2/chain/ethereum/token/${usdc()}`));
    expect(one).toMatchObject({ symbol: 'USDC', decimals: 6, chain: 'ethereum' });
    const batch = await api.tokens.getTokensBatch({
      contracts: [
        { chain: 'ethereum', address: usdc() },
        { chain: 'ethereum', address: sb.weth },
      ],
    });
    expect(batch.tokens.map((t) => t.symbol).sort()).toEqual(['USDC', 'WETH']);
  });

  it('collections trending, top and batch: the catalog’s collections', async () => {
    // the catalog's collections and the drops' collections
    const slugs = [...sb.collections.map((c) => c.slug), ...sb.drops].sort();
    const trending = await api.collections.getTrendingCollections({ limit: 10 });
    expect(trending).toEqual(await raw('GET', '/api/v2/collections/trending?limit=10'));
    expect(trending.collections.map((c) => c.collection).sort()).toEqual(slugs);
    const top = await api.collections.getTopCollections({ limit: 10 });
    expect(top.collections.map((c) => c.collection).sort()).toEqual(slugs);
    const batch = await api.collections.getCollectionsBatch({ slugs: [APES, 'no-such-slug'] });
    expect(batch.collections.map((c) => c.collection)).toEqual([APES]);
    expect(batch.collections[0]?.contracts?.[0]?.address.toLowerCase()).toBe(apes().toLowerCase());
  });

  it('NFT batch: NFTs by chain, contract and token id, owners from the chain', async () => {
    const batch = await api.nfts.getNFTsBatch({
      identifiers: [
        { chain: 'ethereum', contractAddress: apes(), tokenId: '2' },
        { chain: 'ethereum', contractAddress: apes(), tokenId: '3' },
      ],
    });
    expect(batch.nfts.map((n) => n.identifier)).toEqual(['2', '3']);
    expect(batch.nfts[0]?.collection).toBe(APES);
  });

  it('accounts get and resolve: the sandbox wallet by address and by username', async () => {
    const w = wallet(1).address;
    const account = await api.accounts.getAccount(w);
    expect(account).toEqual(await raw('GET', `/api/v2/accounts/${w}`));
    expect(account.address).toBe(w.toLowerCase());
    const byName = await api.accounts.resolveAccount(String(account.username));
    expect(byName.address.toLowerCase()).toBe(w.toLowerCase());
    expect((await api.accounts.resolveAccount(w)).username).toBe(account.username);
  });

  it('drop eligibility with a wallet JWT from OpenSeaAuth: allowlist stages per wallet', async () => {
    const drop = sb.fixture.drops.find((d) => d.slug === GENESIS)?.address as string;
    const jwtOf = async (w: Wallet) =>
      (await new OpenSeaAuth({ apiBaseUrl: sb.apiUrl }).authenticate(w, { scopes: ['read:eligibility'] }))
        .accessToken;
    const eligibility = async (w: Wallet) =>
      new OpenSeaAPI({ apiKey: sb.apiKey, apiBaseUrl: sb.apiUrl, authToken: await jwtOf(w) }).walletAuth
        .getDropEligibility(GENESIS)
        .then((r) => r.stages.map((s) => [s.stageUuid, s.isEligible]));
    // wallet 0 is on the genesis allowlist, wallet 4 is not
    expect(await eligibility(wallet(0))).toEqual([
      [stageUuid(drop, 0), true],
      [stageUuid(drop, 1), true],
    ]);
    expect(await eligibility(wallet(4))).toEqual([
      [stageUuid(drop, 0), false],
      [stageUuid(drop, 1), true],
    ]);
    // without a JWT the SDK's call is refused (401), as the spec says
    await expect(api.walletAuth.getDropEligibility(GENESIS)).rejects.toThrow(/401|wallet JWT/i);
  });

  it('auth scopes: the sandbox names exactly the SDK’s scope list (the SDK has no call for it)', async () => {
    const r = await call(sb, 'GET', '/api/v2/auth/scopes', undefined, null);
    const names = (obj(r)['scopes'] as { name: string }[]).map((s) => s.name).sort();
    expect(names).toEqual(Object.values(OPENSEA_SCOPES).sort());
  });

  it('an instant key from the static requestInstantApiKey works with a new OpenSeaAPI', async () => {
    const key = await OpenSeaAPI.requestInstantApiKey(sb.apiUrl);
    expect(key.apiKey).toMatch(/^[0-9a-f]{32}$/);
    const withKey = new OpenSeaAPI({ apiKey: key.apiKey, apiBaseUrl: sb.apiUrl });
    expect((await withKey.chains.getChains()).chains.map((c) => c.chain)).toContain('ethereum');
  });
});

describe('the rest of the spec’s reads through the SDK', () => {
  it('collection, stats, traits and trait floors', async () => {
    const c = await api.collections.getCollection(APES);
    expect(c).toEqual(await raw('GET', `/api/v2/collections/${APES}`));
    expect(c.contracts[0]?.address.toLowerCase()).toBe(apes().toLowerCase());
    const stats = await api.collections.getCollectionStats(APES);
    expect(stats).toEqual(await raw('GET', `/api/v2/collections/${APES}/stats`));
    const traits = await api.collections.getTraits(APES);
    expect(Object.keys(traits.categories)).toContain('Background');
    const floors = await api.collections.getCollectionTraitFloors(APES);
    expect(floors).toEqual(await raw('GET', `/api/v2/traits/${APES}/floors`));
  });

  it('NFTs by collection, contract, account, one NFT, contract and payment token', async () => {
    const owner = wallet(1).address;
    const byCollection = await api.nfts.getNFTsByCollection(APES, 3);
    expect(byCollection.nfts).toHaveLength(3);
    const byContract = await api.nfts.getNFTsByContract(apes(), 3);
    expect(byContract.nfts.map((n) => n.identifier)).toEqual(byCollection.nfts.map((n) => n.identifier));
    const mine = await api.nfts.getNFTsByAccount(owner, 50);
    expect(mine.nfts.map((n) => `${n.collection}#${n.identifier}`)).toContain(`${APES}#2`);
    const one = await api.nfts.getNFT(apes(), '2');
    expect(one.nft.owners?.[0]?.address.toLowerCase()).toBe(owner.toLowerCase());
    const contract = await api.nfts.getContract(apes());
    expect(contract).toMatchObject({ collection: APES, contractStandard: 'erc721' });
    const weth = await api.accounts.getPaymentToken(sb.weth);
    expect(weth).toMatchObject({ symbol: 'WETH', decimals: 18 });
    const balances = await api.accounts.getAccountTokens(owner);
    expect(balances).toEqual(await raw('GET', `/api/v2/account/${owner}/tokens`));
  });

  it('NFT metadata refresh and validation', async () => {
    expect(await api.nfts.refreshNFTMetadata(apes(), '2')).toMatch(/queued/i);
    const v = await api.nfts.validateMetadata(apes(), '2');
    expect(v.assetIdentifier.tokenId).toBe('2');
    expect(v.metadata?.name).toBe('Harpoon Apes #2');
  });

  it('listings and offers of the book, one order by hash, the best of an NFT', async () => {
    const all = await api.listings.getAllListings(APES);
    expect(all.listings.map((l) => l.orderHash)).toContain(listingHash);
    const best = await api.listings.getBestListings(APES);
    expect(best.listings[0]?.orderHash).toBe(listingHash);
    expect((await api.listings.getBestListing(APES, '2')).orderHash).toBe(listingHash);
    const offers = await api.offers.getAllOffers(APES);
    expect(offers.offers.map((o) => o.orderHash)).toContain(offerHash);
    expect((await api.offers.getOffersByNFT(APES, '2')).offers.map((o) => o.orderHash)).toEqual([offerHash]);
    expect((await api.offers.getBestOffer(APES, '2')).orderHash).toBe(offerHash);
    expect((await api.offers.getCollectionOffers(APES)).offers).toEqual([]);
    expect((await api.offers.getTraitOffers(APES, 'Background', 'Blue')).offers).toEqual([]);
    const order = await api.orders.getOrderByHash(listingHash, sb.seaport);
    expect(order.orderHash).toBe(listingHash);
  });

  it('fulfillment data for the listing: the sandbox’s Seaport to call', async () => {
    const data = await api.orders.generateFulfillmentData(
      wallet(2).address,
      listingHash,
      sb.seaport,
      OrderSide.LISTING,
    );
    expect(data.fulfillmentData.transaction.to.toLowerCase()).toBe(sb.seaport.toLowerCase());
    expect(data.protocol).toBe('seaport1.6');
  });

  it('offers.buildOffer cannot reach the sandbox unchanged: the SDK hardcodes mainnet’s Seaport address', async () => {
    // The SDK builds the body itself with `protocol_address: getSeaportAddress(chain)` (the
    // canonical Seaport 1.6 address, 0x0000000000000068F116a894984e2DB1123eB395) and takes no
    // protocol address from the caller. The sandbox's Seaport is deployed by anvil at another
    // address, and the spec says a `protocol_address` that is not a supported order-protocol
    // contract is a 400 — so the sandbox is right to refuse. The same body with the sandbox's
    // Seaport (what our client sends) is built.
    const canonical = '0x0000000000000068F116a894984e2DB1123eB395';
    expect(sb.seaport.toLowerCase()).not.toBe(canonical.toLowerCase());
    await expect(api.offers.buildOffer(wallet(2).address, 1, APES)).rejects.toThrow(
      new RegExp(`protocol_address ${canonical} is not a supported order-protocol contract`),
    );
    const built = await call(sb, 'POST', '/api/v2/offers/build', {
      offerer: wallet(2).address,
      quantity: 1,
      criteria: { collection: { slug: APES } },
      protocol_address: sb.seaport,
      offer_protection_enabled: true,
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    const partial = obj(built)['partialParameters'] as { consideration: { token: string }[] };
    expect(partial.consideration[0]?.token.toLowerCase()).toBe(apes().toLowerCase());
  });

  it('events: all, by collection, by NFT and by account show the posted listing', async () => {
    const hashes = (r: { assetEvents: readonly unknown[] }) =>
      r.assetEvents.map((e) => (e as { orderHash?: string }).orderHash);
    expect(hashes(await api.events.getEvents({ limit: 50 }))).toContain(listingHash);
    expect(hashes(await api.events.getEventsByCollection(APES, { limit: 50 }))).toContain(listingHash);
    expect(hashes(await api.events.getEventsByNFT(Chain.Mainnet, apes(), '2', { limit: 50 }))).toContain(
      listingHash,
    );
    expect(hashes(await api.events.getEventsByAccount(wallet(1).address, { limit: 50 }))).toContain(
      listingHash,
    );
  });

  it('drops: list, one drop, a mint transaction for the minter', async () => {
    const drops = await api.drops.getDrops();
    expect(drops.drops.map((d) => d.collectionSlug).sort()).toEqual([...sb.drops].sort());
    const one = await api.drops.getDrop(GENESIS);
    expect(one).toEqual(await raw('GET', `/api/v2/drops/${GENESIS}`));
    const mint = await api.drops.buildMintTransaction(GENESIS, { minter: wallet(0).address, quantity: 1 });
    expect(mint.to.toLowerCase()).toBe(String(one.contractAddress).toLowerCase());
  });

  it('chains and a swap quote on the venue', async () => {
    expect(await api.chains.getChains()).toEqual(await raw('GET', '/api/v2/chains'));
    const q = await api.tokens.getSwapQuote({
      fromChain: 'ethereum',
      fromAddress: sb.weth,
      toChain: 'ethereum',
      toAddress: usdc(),
      quantity: String(ETH / 1000n),
      address: wallet(1).address,
    });
    expect(q.quote.swapProvider).toBe('UNISWAP_V2');
    expect(q.transactions.length).toBeGreaterThan(0);
  });

  it('an off-chain cancel of the offer by its offerer’s wallet JWT', async () => {
    const token = await new OpenSeaAuth({ apiBaseUrl: sb.apiUrl }).authenticate(wallet(0), {
      scopes: ['write:orders'],
    });
    const asOfferer = new OpenSeaAPI({
      apiKey: sb.apiKey,
      apiBaseUrl: sb.apiUrl,
      authToken: token.accessToken,
    });
    const r = await asOfferer.orders.offchainCancelOrder(sb.seaport, offerHash);
    expect(
      r.lastSignatureIssuedValidUntil === null || typeof r.lastSignatureIssuedValidUntil === 'string',
    ).toBe(true);
    expect((await api.offers.getAllOffers(APES)).offers.map((o) => o.orderHash)).not.toContain(offerHash);
  });
});

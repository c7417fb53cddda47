/**
 * Every endpoint row of the spec (and the extra reads of the brief) called through the typed client
 * against the recording fake transport: method, exact path, group, auth, priority, idempotency and
 * the query/body wire names.
 */
import { describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/client.ts';
import type { RequestSpec } from '../../../src/api/request.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { ConfigError } from '../../../src/errors/index.ts';
import { Priority } from '../../../src/ratelimit/types.ts';
import { RecordingTransport } from '../fakes/transport.ts';
import { seaportRequest, siweVerifyRequest } from './samples.ts';

const MIXED = '0xABCDEFabcdef0123456789abcdef0123456789AB';
const ADDR = MIXED.toLowerCase();
const HASH_MIXED = `0x${'Ab'.repeat(32)}`;
const HASH = HASH_MIXED.toLowerCase();
const SEAPORT = '0x0000000000000068F116a894984e2DB1123eB395';
const SLUG = 'cool-cats_2';

const seaportBody = seaportRequest(ADDR, SEAPORT);

function setup(reply: unknown = {}) {
  const transport = new RecordingTransport().otherwise({ data: reply });
  const api = createApiClient(transport);
  return { transport, api };
}

/** The fields of a spec that every row pins down. */
function shape(spec: RequestSpec) {
  return {
    method: spec.method,
    path: spec.path,
    group: spec.group,
    auth: spec.auth,
    priority: spec.priority,
    idempotent: spec.idempotent,
    query: spec.query,
    body: spec.body,
    deprecated: spec.deprecated,
    text: spec.text,
    acceptStatus: spec.acceptStatus,
  };
}

interface Row {
  readonly name: string;
  readonly call: (api: ApiClient) => Promise<unknown>;
  readonly expect: {
    readonly [K in keyof ReturnType<typeof shape>]?: ReturnType<typeof shape>[K] | undefined;
  } & Pick<RequestSpec, 'method' | 'path'>;
  readonly reply?: unknown;
}

const read = { group: 'read', auth: 'apiKey', priority: Priority.read } as const;

const rows: Row[] = [
  // --- Orders, listings, offers -------------------------------------------------------------
  {
    name: 'GET legacy offers list (deprecated)',
    call: (api) =>
      api.offers.legacyList('ethereum', {
        asset_contract_address: MIXED,
        token_ids: ['1', '2'],
        maker: MIXED,
        order_by: 'price',
        order_direction: 'asc',
        listed_before: '2024-01-31T12:00:00Z',
        listed_after: new Date(0),
        payment_token_address: MIXED,
        limit: 200,
        'cursor.value': 'c1',
      }),
    expect: {
      method: 'GET',
      path: '/api/v2/orders/ethereum/seaport/offers',
      ...read,
      query: {
        asset_contract_address: ADDR,
        token_ids: ['1', '2'],
        maker: ADDR,
        order_by: 'price',
        order_direction: 'asc',
        listed_before: '2024-01-31T12:00:00Z',
        listed_after: '1970-01-01T00:00:00.000Z',
        payment_token_address: ADDR,
        limit: 200,
        'cursor.value': 'c1',
      },
      deprecated: { replacement: '/api/v2/offers/collection/{slug}/all' },
    },
  },
  {
    name: 'POST item offer',
    call: (api) => api.offers.create('base', seaportBody),
    reply: { offer: { order_hash: HASH } },
    expect: {
      method: 'POST',
      path: '/api/v2/orders/base/seaport/offers',
      group: 'write',
      auth: 'apiKey',
      priority: Priority.bidRefresh,
      idempotent: false,
      body: seaportBody,
    },
  },
  {
    name: 'GET legacy listings list (deprecated)',
    call: (api) =>
      api.listings.legacyList('polygon', {
        include_private_listings: true,
        limit: 1,
        order_by: 'created_at',
      }),
    expect: {
      method: 'GET',
      path: '/api/v2/orders/polygon/seaport/listings',
      ...read,
      query: { include_private_listings: true, limit: 1, order_by: 'created_at' },
      deprecated: { replacement: '/api/v2/listings/collection/{slug}/all' },
    },
  },
  {
    name: 'POST listing',
    call: (api) => api.listings.create('ethereum', seaportBody),
    reply: { listing: { order_hash: HASH } },
    expect: {
      method: 'POST',
      path: '/api/v2/orders/ethereum/seaport/listings',
      group: 'write',
      auth: 'apiKey',
      priority: Priority.trade,
      idempotent: false,
      body: seaportBody,
    },
  },
  {
    name: 'POST cancel (API key)',
    call: (api) => api.orders.cancel('ethereum', SEAPORT, HASH_MIXED, { offererSignature: '0xsig' }),
    expect: {
      method: 'POST',
      path: `/api/v2/orders/chain/ethereum/protocol/${SEAPORT.toLowerCase()}/${HASH}/cancel`,
      group: 'write',
      auth: 'apiKey',
      priority: Priority.cancel,
      idempotent: false,
      body: { offererSignature: '0xsig' },
    },
  },
  {
    name: 'POST cancel (wallet JWT), no body',
    call: (api) => api.orders.cancelWithWallet('base', SEAPORT, HASH),
    expect: {
      method: 'POST',
      path: `/api/v2/orders/chain/base/protocol/${SEAPORT.toLowerCase()}/${HASH}/cancel`,
      group: 'write',
      auth: 'wallet',
      priority: Priority.cancel,
      idempotent: false,
      body: undefined,
    },
  },
  {
    name: 'GET one order',
    call: (api) => api.orders.get('ethereum', SEAPORT, HASH_MIXED),
    expect: {
      method: 'GET',
      path: `/api/v2/orders/chain/ethereum/protocol/${SEAPORT.toLowerCase()}/${HASH}`,
      ...read,
    },
  },
  {
    name: 'POST criteria offer',
    call: (api) =>
      api.offers.createCriteria({
        protocol_data: { parameters: seaportBody.parameters, signature: '0xsig' },
        criteria: { collection: { slug: SLUG }, traits: [{ type: 'Background', value: 'Red' }] },
        protocol_address: SEAPORT,
      }),
    reply: { order_hash: HASH, criteria: {} },
    expect: {
      method: 'POST',
      path: '/api/v2/offers',
      group: 'write',
      auth: 'apiKey',
      priority: Priority.bidRefresh,
      idempotent: false,
      body: {
        protocol_data: { parameters: seaportBody.parameters, signature: '0xsig' },
        criteria: { collection: { slug: SLUG }, traits: [{ type: 'Background', value: 'Red' }] },
        protocol_address: SEAPORT,
      },
    },
  },
  {
    name: 'POST build offer',
    call: (api) =>
      api.offers.build({
        offerer: ADDR,
        quantity: 1,
        criteria: { collection: { slug: SLUG }, numericTraits: [{ type: 'Level', min: 1 }] },
        protocol_address: SEAPORT,
        offer_protection_enabled: true,
      }),
    expect: {
      method: 'POST',
      path: '/api/v2/offers/build',
      group: 'write',
      auth: 'apiKey',
      priority: Priority.bidRefresh,
      idempotent: true,
      body: {
        offerer: ADDR,
        quantity: 1,
        criteria: { collection: { slug: SLUG }, numericTraits: [{ type: 'Level', min: 1 }] },
        protocol_address: SEAPORT,
        offer_protection_enabled: true,
      },
    },
  },
  {
    name: 'POST offer fulfillment data',
    call: (api) =>
      api.offers.fulfillmentData({
        offer: { hash: HASH_MIXED, chain: 'ethereum', protocol_address: SEAPORT },
        fulfiller: { address: MIXED },
        consideration: { asset_contract_address: MIXED, token_id: '7' },
        units_to_fill: 1,
      }),
    expect: {
      method: 'POST',
      path: '/api/v2/offers/fulfillment_data',
      group: 'fulfillment',
      auth: 'apiKey',
      priority: Priority.snipe,
      idempotent: true,
      body: {
        offer: { hash: HASH, chain: 'ethereum', protocol_address: SEAPORT.toLowerCase() },
        fulfiller: { address: ADDR },
        consideration: { asset_contract_address: ADDR, token_id: '7' },
        units_to_fill: 1,
      },
    },
  },
  {
    name: 'POST listing fulfillment data',
    call: (api) =>
      api.listings.fulfillmentData({
        listing: { hash: HASH, chain: 'base', protocol_address: SEAPORT },
        fulfiller: { address: ADDR },
        recipient: MIXED,
        include_optional_creator_fees: false,
      }),
    expect: {
      method: 'POST',
      path: '/api/v2/listings/fulfillment_data',
      group: 'fulfillment',
      auth: 'apiKey',
      priority: Priority.snipe,
      idempotent: true,
      body: {
        listing: { hash: HASH, chain: 'base', protocol_address: SEAPORT.toLowerCase() },
        fulfiller: { address: ADDR },
        recipient: ADDR,
        include_optional_creator_fees: false,
      },
    },
  },
  // --- Collection-based replacements --------------------------------------------------------
  {
    name: 'GET item offers',
    call: (api) => api.offers.item(SLUG, '42', { limit: 10, next: 'n1' }),
    expect: {
      method: 'GET',
      path: `/api/v2/offers/collection/${SLUG}/nfts/42`,
      ...read,
      query: { limit: 10, next: 'n1' },
    },
  },
  {
    name: 'GET all offers',
    call: (api) => api.offers.all(SLUG, { maker: MIXED }),
    expect: { method: 'GET', path: `/api/v2/offers/collection/${SLUG}/all`, ...read, query: { maker: ADDR } },
  },
  {
    name: 'GET collection offers',
    call: (api) => api.offers.collection(SLUG),
    expect: { method: 'GET', path: `/api/v2/offers/collection/${SLUG}`, ...read, query: undefined },
  },
  {
    name: 'GET trait offers',
    call: (api) =>
      api.offers.traits(SLUG, {
        mode: 'MULTI',
        traits: [{ traitType: 'Background', value: 'Red' }],
        min_value: 1.5,
        int_value: 3,
      }),
    expect: {
      method: 'GET',
      path: `/api/v2/offers/collection/${SLUG}/traits`,
      ...read,
      query: {
        mode: 'MULTI',
        traits: '[{"traitType":"Background","value":"Red"}]',
        min_value: 1.5,
        int_value: 3,
      },
    },
  },
  {
    name: 'GET best offer of an NFT',
    call: (api) => api.offers.bestForNft(SLUG, '42'),
    expect: {
      method: 'GET',
      path: `/api/v2/offers/collection/${SLUG}/nfts/42/best`,
      ...read,
      acceptStatus: [404],
    },
  },
  {
    name: 'GET all listings',
    call: (api) => api.listings.all(SLUG, { include_private_listings: false, maker: MIXED, limit: 200 }),
    expect: {
      method: 'GET',
      path: `/api/v2/listings/collection/${SLUG}/all`,
      ...read,
      query: { include_private_listings: false, maker: ADDR, limit: 200 },
    },
  },
  {
    name: 'GET best listings',
    call: (api) => api.listings.best(SLUG, { traits: '[{"traitType":"Eyes","value":"Laser"}]', next: 'p2' }),
    expect: {
      method: 'GET',
      path: `/api/v2/listings/collection/${SLUG}/best`,
      ...read,
      query: { traits: '[{"traitType":"Eyes","value":"Laser"}]', next: 'p2' },
    },
  },
  {
    name: 'GET best listing of an NFT',
    call: (api) => api.listings.bestForNft(SLUG, '42', { include_private_listings: true }),
    expect: {
      method: 'GET',
      path: `/api/v2/listings/collection/${SLUG}/nfts/42/best`,
      ...read,
      query: { include_private_listings: true },
      acceptStatus: [404],
    },
  },
  // --- Drops ---------------------------------------------------------------------------------
  {
    name: 'POST drop mint',
    call: (api) => api.drops.mint(SLUG, { minter: MIXED, quantity: 2 }),
    expect: {
      method: 'POST',
      path: `/api/v2/drops/${SLUG}/mint`,
      group: 'write',
      auth: 'apiKey',
      priority: Priority.trade,
      idempotent: false,
      body: { minter: ADDR, quantity: 2 },
    },
  },
  {
    name: 'GET drop eligibility (wallet)',
    call: (api) => api.drops.eligibility(SLUG),
    expect: { method: 'GET', path: `/api/v2/drops/${SLUG}/eligibility`, ...read, auth: 'wallet' },
  },
  {
    name: 'GET drops',
    call: (api) => api.drops.list({ type: 'upcoming', chains: ['base'], limit: 5, cursor: 'c' }),
    expect: {
      method: 'GET',
      path: '/api/v2/drops',
      ...read,
      query: { type: 'upcoming', chains: ['base'], limit: 5, cursor: 'c' },
    },
  },
  {
    name: 'GET drop',
    call: (api) => api.drops.get(SLUG),
    expect: { method: 'GET', path: `/api/v2/drops/${SLUG}`, ...read },
  },
  // --- NFT metadata --------------------------------------------------------------------------
  {
    name: 'POST validate-metadata',
    call: (api) => api.nfts.validateMetadata('ethereum', MIXED, '1', { ignoreCachedItemUrls: true }),
    expect: {
      method: 'POST',
      path: `/api/v2/chain/ethereum/contract/${ADDR}/nfts/1/validate-metadata`,
      group: 'write',
      auth: 'apiKey',
      idempotent: true,
      query: { ignoreCachedItemUrls: true },
    },
  },
  {
    name: 'POST NFT refresh (text)',
    call: (api) => api.nfts.refreshMetadata('ethereum', MIXED, '1', { ignoreCachedItemUrls: false }),
    reply: 'queued',
    expect: {
      method: 'POST',
      path: `/api/v2/chain/ethereum/contract/${ADDR}/nfts/1/refresh`,
      group: 'write',
      auth: 'apiKey',
      query: { ignoreCachedItemUrls: false },
      text: true,
    },
  },
  // --- Collections ---------------------------------------------------------------------------
  {
    name: 'GET traits',
    call: (api) => api.collections.traits(SLUG),
    expect: { method: 'GET', path: `/api/v2/traits/${SLUG}`, ...read },
  },
  {
    name: 'POST collection metadata refresh (default path)',
    call: (api) => api.collections.refreshMetadata(SLUG),
    expect: { method: 'POST', path: `/api/v2/collections/${SLUG}/refresh`, group: 'write', auth: 'apiKey' },
  },
  {
    name: 'GET trait floors',
    call: (api) => api.collections.traitFloors(SLUG),
    expect: { method: 'GET', path: `/api/v2/traits/${SLUG}/floors`, ...read },
  },
  {
    name: 'GET collection',
    call: (api) => api.collections.get(SLUG),
    expect: { method: 'GET', path: `/api/v2/collections/${SLUG}`, ...read },
  },
  {
    name: 'GET collection stats',
    call: (api) => api.collections.stats(SLUG),
    expect: { method: 'GET', path: `/api/v2/collections/${SLUG}/stats`, ...read },
  },
  {
    name: 'PATCH collection',
    call: (api) => api.collections.update(SLUG, { name: 'Cool Cats', description: 'meow' }),
    expect: {
      method: 'PATCH',
      path: `/api/v2/collections/${SLUG}`,
      group: 'write',
      auth: 'wallet',
      body: { name: 'Cool Cats', description: 'meow' },
    },
  },
  {
    name: 'PATCH collection metadata',
    call: (api) => api.collections.updateMetadata(SLUG, { logo_image_token: 'tok' }),
    expect: {
      method: 'PATCH',
      path: `/api/v2/collections/${SLUG}/metadata`,
      group: 'write',
      auth: 'wallet',
      body: { logo_image_token: 'tok' },
    },
  },
  {
    name: 'POST collections batch',
    call: (api) => api.collections.batch([SLUG, 'doodles-official']),
    expect: {
      method: 'POST',
      path: '/api/v2/collections/batch',
      ...read,
      idempotent: true,
      body: { slugs: [SLUG, 'doodles-official'] },
    },
  },
  {
    name: 'POST nfts batch',
    call: (api) => api.nfts.batch([{ chain: 'ethereum', contract_address: MIXED, token_id: '5' }]),
    expect: {
      method: 'POST',
      path: '/api/v2/nfts/batch',
      ...read,
      idempotent: true,
      body: { identifiers: [{ chain: 'ethereum', contract_address: ADDR, token_id: '5' }] },
    },
  },
  {
    name: 'POST tokens batch',
    call: (api) => api.tokens.batch([{ chain: 'base', address: MIXED }]),
    expect: {
      method: 'POST',
      path: '/api/v2/tokens/batch',
      ...read,
      idempotent: true,
      body: { contracts: [{ chain: 'base', address: ADDR }] },
    },
  },
  // --- Tokens, swap, search ------------------------------------------------------------------
  {
    name: 'GET trending tokens',
    call: (api) => api.tokens.trending({ limit: 100, chains: ['ethereum', 'base'], cursor: 'c2' }),
    expect: {
      method: 'GET',
      path: '/api/v2/tokens/trending',
      ...read,
      query: { limit: 100, chains: ['ethereum', 'base'], cursor: 'c2' },
    },
  },
  {
    name: 'GET top tokens',
    call: (api) => api.tokens.top({ sort_by: 'one_day_volume', sort_direction: 'desc' }),
    expect: {
      method: 'GET',
      path: '/api/v2/tokens/top',
      ...read,
      query: { sort_by: 'one_day_volume', sort_direction: 'desc' },
    },
  },
  {
    name: 'GET swap quote (default slippage)',
    call: (api) =>
      api.swap.quote({
        from_chain: 'ethereum',
        from_address: '0x0000000000000000000000000000000000000000',
        to_chain: 'base',
        to_address: MIXED,
        quantity: 10n ** 18n,
        address: MIXED,
      }),
    expect: {
      method: 'GET',
      path: '/api/v2/swap/quote',
      ...read,
      query: {
        from_chain: 'ethereum',
        from_address: '0x0000000000000000000000000000000000000000',
        to_chain: 'base',
        to_address: ADDR,
        quantity: '1000000000000000000',
        address: ADDR,
        slippage: 0.01,
      },
    },
  },
  {
    name: 'GET swap quote (slippage and recipient)',
    call: (api) =>
      api.swap.quote({
        from_chain: 'base',
        from_address: MIXED,
        to_chain: 'base',
        to_address: MIXED,
        quantity: '5',
        address: MIXED,
        slippage: 0.5,
        recipient: MIXED,
      }),
    expect: {
      method: 'GET',
      path: '/api/v2/swap/quote',
      ...read,
      query: {
        from_chain: 'base',
        from_address: ADDR,
        to_chain: 'base',
        to_address: ADDR,
        quantity: '5',
        address: ADDR,
        slippage: 0.5,
        recipient: ADDR,
      },
    },
  },
  {
    name: 'GET search',
    call: (api) =>
      api.search.query({
        query: 'bored ape',
        chains: ['ethereum'],
        asset_types: ['collection', 'nft'],
        limit: 5,
      }),
    expect: {
      method: 'GET',
      path: '/api/v2/search',
      ...read,
      query: { query: 'bored ape', chains: ['ethereum'], asset_types: ['collection', 'nft'], limit: 5 },
    },
  },
  // --- Auth ----------------------------------------------------------------------------------
  {
    name: 'POST instant key',
    call: (api) => api.auth.createInstantKey(),
    expect: {
      method: 'POST',
      path: '/api/v2/auth/keys',
      group: 'write',
      auth: 'none',
      idempotent: false,
      body: undefined,
      acceptStatus: [201],
    },
  },
  {
    name: 'POST SIWE nonce',
    call: (api) => api.auth.siweNonce(),
    expect: { method: 'POST', path: '/api/v2/auth/siwe/nonce', auth: 'none', body: undefined },
  },
  {
    name: 'POST SIWE verify',
    call: (api) => api.auth.siweVerify(siweVerifyRequest(MIXED)),
    expect: {
      method: 'POST',
      path: '/api/v2/auth/siwe/verify',
      auth: 'none',
      idempotent: false,
      body: siweVerifyRequest(MIXED),
    },
  },
  {
    name: 'POST session refresh',
    call: (api) => api.auth.refreshSession(),
    expect: { method: 'POST', path: '/api/v2/auth/session/refresh', auth: 'session', idempotent: false },
  },
  {
    name: 'GET PATs',
    call: (api) => api.auth.listTokens(),
    reply: { tokens: [{ id: 'p1' }] },
    expect: { method: 'GET', path: '/api/v2/auth/tokens', group: 'read', auth: 'session' },
  },
  {
    name: 'POST PAT',
    call: (api) => api.auth.createToken({ label: 'harpoon', scopes: ['write:orders'], expiresInDays: 1 }),
    expect: {
      method: 'POST',
      path: '/api/v2/auth/tokens',
      auth: 'session',
      idempotent: false,
      body: { label: 'harpoon', scopes: ['write:orders'], expiresInDays: 1 },
    },
  },
  {
    name: 'POST PAT rotate',
    call: (api) => api.auth.rotateToken('pat_1'),
    expect: { method: 'POST', path: '/api/v2/auth/tokens/pat_1/rotate', auth: 'session', idempotent: false },
  },
  {
    name: 'DELETE PAT',
    call: (api) => api.auth.revokeToken('pat_1'),
    expect: { method: 'DELETE', path: '/api/v2/auth/tokens/pat_1', group: 'write', auth: 'session' },
  },
  {
    name: 'POST PAT exchange',
    call: (api) => api.auth.exchange(new Secret('pat_0123456789', 'pat')),
    expect: {
      method: 'POST',
      path: '/api/v2/auth/tokens/exchange',
      auth: 'none',
      body: { subjectToken: 'pat_0123456789', subjectTokenType: 'ACCESS_TOKEN' },
    },
  },
  {
    name: 'GET scopes',
    call: (api) => api.auth.scopes(),
    expect: { method: 'GET', path: '/api/v2/auth/scopes', group: 'read', auth: 'none' },
  },
  // --- Events --------------------------------------------------------------------------------
  {
    name: 'GET events',
    call: (api) =>
      api.events.list({ event_type: ['sale', 'listing'], after: 100, before: new Date(200_000), limit: 50 }),
    expect: {
      method: 'GET',
      path: '/api/v2/events',
      ...read,
      query: { event_type: ['sale', 'listing'], after: 100, before: 200, limit: 50 },
    },
  },
  {
    name: 'GET events by collection',
    call: (api) =>
      api.events.byCollection(SLUG, {
        event_type: 'trait_offer',
        traits: [{ traitType: 'Hat', value: 'Cap' }],
      }),
    expect: {
      method: 'GET',
      path: `/api/v2/events/collection/${SLUG}`,
      ...read,
      query: { event_type: ['trait_offer'], traits: '[{"traitType":"Hat","value":"Cap"}]' },
    },
  },
  {
    name: 'GET events by NFT',
    call: (api) => api.events.byNft('ethereum', MIXED, '9', { next: 'n' }),
    expect: {
      method: 'GET',
      path: `/api/v2/events/chain/ethereum/contract/${ADDR}/nfts/9`,
      ...read,
      query: { next: 'n' },
    },
  },
  {
    name: 'GET events by account',
    call: (api) => api.events.byAccount(MIXED, { chain: 'base', event_type: 'transfer' }),
    expect: {
      method: 'GET',
      path: `/api/v2/events/accounts/${ADDR}`,
      ...read,
      query: { event_type: ['transfer'], chain: 'base' },
    },
  },
  {
    name: 'GET legacy v1 events',
    call: (api) =>
      api.events.legacyList({
        collection_slug: SLUG,
        asset_contract_address: MIXED,
        token_id: '3',
        event_type: 'successful',
        occurred_after: 10,
        cursor: 'cur',
      }),
    reply: { asset_events: [] },
    expect: {
      method: 'GET',
      path: '/api/v1/events/',
      ...read,
      query: {
        collection_slug: SLUG,
        asset_contract_address: ADDR,
        token_id: '3',
        event_type: 'successful',
        occurred_after: 10,
        cursor: 'cur',
      },
      deprecated: { replacement: '/api/v2/events' },
    },
  },
  // --- Other reads of the brief ----------------------------------------------------------------
  {
    name: 'GET chains',
    call: (api) => api.chains.list(),
    expect: { method: 'GET', path: '/api/v2/chains', ...read },
  },
  {
    name: 'GET account by address (lower-cased)',
    call: (api) => api.accounts.get(MIXED),
    expect: { method: 'GET', path: `/api/v2/accounts/${ADDR}`, ...read },
  },
  {
    name: 'GET account by username (encoded)',
    call: (api) => api.accounts.get('a?b#c'),
    expect: { method: 'GET', path: '/api/v2/accounts/a%3Fb%23c', ...read },
  },
  {
    name: 'GET resolve account',
    call: (api) => api.accounts.resolve('vitalik.eth'),
    expect: { method: 'GET', path: '/api/v2/accounts/resolve/vitalik.eth', ...read },
  },
  {
    name: 'GET NFT',
    call: (api) =>
      api.nfts.get(
        'ethereum',
        MIXED,
        '115792089237316195423570985008687907853269984665640564039457584007913129639935',
      ),
    expect: {
      method: 'GET',
      path: `/api/v2/chain/ethereum/contract/${ADDR}/nfts/115792089237316195423570985008687907853269984665640564039457584007913129639935`,
      ...read,
    },
  },
  {
    name: 'GET NFTs by collection',
    call: (api) => api.nfts.byCollection(SLUG, { has_agent_binding: false, limit: 20 }),
    expect: {
      method: 'GET',
      path: `/api/v2/collection/${SLUG}/nfts`,
      ...read,
      query: { has_agent_binding: false, limit: 20 },
    },
  },
  {
    name: 'GET NFTs by contract',
    call: (api) => api.nfts.byContract('base', MIXED, { next: 'x' }),
    expect: {
      method: 'GET',
      path: `/api/v2/chain/base/contract/${ADDR}/nfts`,
      ...read,
      query: { next: 'x' },
    },
  },
  {
    name: 'GET NFTs by account',
    call: (api) => api.nfts.byAccount('ethereum', MIXED, { collection: SLUG, include_auto_hidden: true }),
    expect: {
      method: 'GET',
      path: `/api/v2/chain/ethereum/account/${ADDR}/nfts`,
      ...read,
      query: { collection: SLUG, include_auto_hidden: true },
    },
  },
  {
    name: 'GET contract',
    call: (api) => api.contracts.get('arbitrum', MIXED),
    expect: { method: 'GET', path: `/api/v2/chain/arbitrum/contract/${ADDR}`, ...read },
  },
  {
    name: 'GET payment token',
    call: (api) => api.contracts.paymentToken('ethereum', MIXED),
    expect: { method: 'GET', path: `/api/v2/chain/ethereum/payment_token/${ADDR}`, ...read },
  },
  {
    name: 'GET token',
    call: (api) => api.tokens.get('base', MIXED),
    expect: { method: 'GET', path: `/api/v2/chain/base/token/${ADDR}`, ...read },
  },
  {
    name: 'GET token balances',
    call: (api) =>
      api.tokens.balances(MIXED, { limit: 100, sort_by: 'usd_value', disable_spam_filtering: true }),
    expect: {
      method: 'GET',
      path: `/api/v2/account/${ADDR}/tokens`,
      ...read,
      query: { limit: 100, sort_by: 'usd_value', disable_spam_filtering: true },
    },
  },
];

describe('endpoint rows → RequestSpec', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const { transport, api } = setup(row.reply ?? {});
    await row.call(api);
    expect(transport.calls).toHaveLength(1);
    const got = shape(transport.last);
    for (const [key, value] of Object.entries(row.expect)) {
      expect(got[key as keyof typeof got], `${row.name}: ${key}`).toEqual(value);
    }
  });

  it('every write and fulfillment row is explicit about idempotency where the brief requires it', async () => {
    const { transport, api } = setup({ listing: { order_hash: HASH }, offer: { order_hash: HASH } });
    await api.listings.create('ethereum', seaportBody);
    await api.offers.create('ethereum', seaportBody);
    await api.orders.cancel('ethereum', SEAPORT, HASH);
    await api.drops.mint(SLUG, { minter: ADDR, quantity: 1 });
    expect(transport.calls.map((c) => c.idempotent)).toEqual([false, false, false, false]);
  });
});

describe('call options', () => {
  it('priority, coalesceKey, signal and format pass through to the RequestSpec', async () => {
    const { transport, api } = setup({ listings: [] });
    const signal = new AbortController().signal;
    await api.listings.best(
      SLUG,
      {},
      { priority: Priority.snipe, coalesceKey: 'floor:x', signal, format: 'toon' },
    );
    expect(transport.last).toMatchObject({
      priority: Priority.snipe,
      coalesceKey: 'floor:x',
      format: 'toon',
    });
    expect(transport.last.signal).toBe(signal);
  });

  it('a caller priority overrides the default of offer create and build', async () => {
    const { transport, api } = setup({ offer: { order_hash: HASH } });
    await api.offers.create('ethereum', seaportBody, { priority: Priority.snipe });
    expect(transport.last.priority).toBe(Priority.snipe);
  });

  it('the protocol segment can be chosen per call', async () => {
    const { transport, api } = setup({ listing: { order_hash: HASH } });
    await api.listings.create('ethereum', seaportBody, { protocol: 'seaport_v2' });
    expect(transport.last.path).toBe('/api/v2/orders/ethereum/seaport_v2/listings');
    expect(transport.last).not.toHaveProperty('protocol');
  });
});

describe('client options', () => {
  it('collection refresh path is configurable', async () => {
    const transport = new RecordingTransport().otherwise({ data: '' });
    const api = createApiClient(transport, {
      collectionRefreshPath: '/api/v2/collection/{slug}/metadata/refresh',
    });
    await api.collections.refreshMetadata(SLUG);
    expect(transport.last.path).toBe(`/api/v2/collection/${SLUG}/metadata/refresh`);
  });

  it('rejects a refresh template without exactly one {slug}', () => {
    const t = new RecordingTransport();
    expect(() => createApiClient(t, { collectionRefreshPath: '/api/v2/refresh' })).toThrow(ConfigError);
    expect(() => createApiClient(t, { collectionRefreshPath: '/x/{slug}/{slug}' })).toThrow(ConfigError);
    expect(() => createApiClient(t, { collectionRefreshPath: 'api/{slug}' })).toThrow(ConfigError);
  });

  it('default protocol is configurable', async () => {
    const transport = new RecordingTransport().otherwise({ data: { orders: [] } });
    const api = createApiClient(transport, { defaultProtocol: 'seaport16' });
    await api.listings.legacyList('ethereum');
    expect(transport.last.path).toBe('/api/v2/orders/ethereum/seaport16/listings');
  });
});

describe('response handling', () => {
  it('create listing returns the current `listing` field and does not report a deprecation', async () => {
    const seen: unknown[] = [];
    const transport = new RecordingTransport().reply({
      data: { order: { old: true }, listing: { order_hash: HASH } },
    });
    const api = createApiClient(transport, { onDeprecatedField: (e) => seen.push(e) });
    await expect(api.listings.create('ethereum', seaportBody)).resolves.toEqual({ order_hash: HASH });
    expect(seen).toEqual([]);
  });

  it('create listing falls back to the deprecated `order` and reports it', async () => {
    const seen: unknown[] = [];
    const transport = new RecordingTransport().reply({ data: { order: { order_hash: HASH, legacy: 1 } } });
    const api = createApiClient(transport, { onDeprecatedField: (e) => seen.push(e) });
    await expect(api.listings.create('ethereum', seaportBody)).resolves.toEqual({
      order_hash: HASH,
      legacy: 1,
    });
    expect(seen).toEqual([
      { endpoint: '/api/v2/orders/{chain}/{protocol}/listings', field: 'order', replacement: 'listing' },
    ]);
  });

  it('create offer falls back to `order` and reports replacement `offer`', async () => {
    const seen: unknown[] = [];
    const transport = new RecordingTransport().reply({ data: { order: { order_hash: HASH } } });
    const api = createApiClient(transport, { onDeprecatedField: (e) => seen.push(e) });
    await api.offers.create('ethereum', seaportBody);
    expect(seen).toEqual([
      { endpoint: '/api/v2/orders/{chain}/{protocol}/offers', field: 'order', replacement: 'offer' },
    ]);
  });

  it('a bare order object (current interface description) is returned as is', async () => {
    const { api } = setup({ order_hash: HASH, chain: 'ethereum' });
    await expect(api.offers.create('ethereum', seaportBody)).resolves.toEqual({
      order_hash: HASH,
      chain: 'ethereum',
    });
  });

  it('a create response with no order at all is a maybe-processed transient error', async () => {
    const { api } = setup({ hello: 'world' });
    await expect(api.listings.create('ethereum', seaportBody)).rejects.toMatchObject({
      code: 'unexpected_response',
      maybeProcessed: true,
    });
  });

  it('best listing of an NFT: 404 → null', async () => {
    const transport = new RecordingTransport().reply({ status: 404, data: { errors: ['not found'] } });
    const api = createApiClient(transport);
    await expect(api.listings.bestForNft(SLUG, '1')).resolves.toBeNull();
    expect(transport.calls).toHaveLength(1);
  });

  it('best listing of an NFT: 200 → the listing', async () => {
    const { api } = setup({ order_hash: HASH });
    await expect(api.listings.bestForNft(SLUG, '1')).resolves.toEqual({ order_hash: HASH });
  });

  it('best offer of an NFT: 404 → null', async () => {
    const transport = new RecordingTransport().reply({ status: 404, data: null });
    await expect(createApiClient(transport).offers.bestForNft(SLUG, '1')).resolves.toBeNull();
  });

  it('without acceptStatus a 404 stays an error (the fake mirrors the transport)', async () => {
    const transport = new RecordingTransport().reply({ status: 404, data: {} });
    await expect(createApiClient(transport).collections.get(SLUG)).rejects.toMatchObject({
      code: 'http_404',
    });
  });

  it('PAT list accepts a bare array or a wrapper object, and rejects anything else', async () => {
    const t = new RecordingTransport().reply(
      { data: [{ id: 'a' }] },
      { data: { items: [{ id: 'b' }] } },
      { data: {} },
    );
    const api = createApiClient(t);
    await expect(api.auth.listTokens()).resolves.toEqual([{ id: 'a' }]);
    await expect(api.auth.listTokens()).resolves.toEqual([{ id: 'b' }]);
    await expect(api.auth.listTokens()).rejects.toMatchObject({ code: 'unexpected_response' });
  });

  it('NFT refresh returns the text answer', async () => {
    const { api } = setup('Refresh queued');
    await expect(api.nfts.refreshMetadata('ethereum', ADDR, '1')).resolves.toBe('Refresh queued');
  });
});

describe('spec coverage', () => {
  /** Every path of the spec's endpoint tables (and the paths named in its prose), verbatim. */
  const SPEC_PATHS: ReadonlyArray<readonly [string, string]> = [
    // Orders, listings, offers
    ['GET', '/api/v2/orders/{chain}/{protocol}/offers'],
    ['POST', '/api/v2/orders/{chain}/{protocol}/offers'],
    ['GET', '/api/v2/orders/{chain}/{protocol}/listings'],
    ['POST', '/api/v2/orders/{chain}/{protocol}/listings'],
    ['POST', '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel'],
    ['GET', '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}'],
    ['POST', '/api/v2/offers'],
    ['POST', '/api/v2/offers/build'],
    ['POST', '/api/v2/offers/fulfillment_data'],
    ['POST', '/api/v2/listings/fulfillment_data'],
    // Collection-based replacements
    ['GET', '/api/v2/offers/collection/{slug}/nfts/{identifier}'],
    ['GET', '/api/v2/offers/collection/{slug}/all'],
    ['GET', '/api/v2/offers/collection/{slug}'],
    ['GET', '/api/v2/offers/collection/{slug}/traits'],
    ['GET', '/api/v2/listings/collection/{slug}/all'],
    ['GET', '/api/v2/listings/collection/{slug}/best'],
    ['GET', '/api/v2/listings/collection/{slug}/nfts/{identifier}/best'],
    // Drops
    ['POST', '/api/v2/drops/{slug}/mint'],
    ['GET', '/api/v2/drops/{slug}/eligibility'],
    // NFT metadata
    ['POST', '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/validate-metadata'],
    ['POST', '/api/v2/chain/{chain}/contract/{address}/nfts/{identifier}/refresh'],
    // Collections (metadata refresh and trait floors have no path in the spec: the defaults are used)
    ['GET', '/api/v2/traits/{slug}'],
    ['POST', '/api/v2/collections/{slug}/refresh'],
    ['GET', '/api/v2/traits/{slug}/floors'],
    ['GET', '/api/v2/collections/{slug}'],
    ['GET', '/api/v2/collections/{slug}/stats'],
    ['PATCH', '/api/v2/collections/{slug}'],
    ['PATCH', '/api/v2/collections/{slug}/metadata'],
    ['POST', '/api/v2/collections/batch'],
    ['POST', '/api/v2/nfts/batch'],
    ['POST', '/api/v2/tokens/batch'],
    // Tokens, swap, search
    ['GET', '/api/v2/tokens/trending'],
    ['GET', '/api/v2/tokens/top'],
    ['GET', '/api/v2/swap/quote'],
    ['GET', '/api/v2/search'],
    // Authentication and key endpoints
    ['POST', '/api/v2/auth/keys'],
    ['POST', '/api/v2/auth/siwe/nonce'],
    ['POST', '/api/v2/auth/siwe/verify'],
    ['POST', '/api/v2/auth/session/refresh'],
    ['GET', '/api/v2/auth/tokens'],
    ['POST', '/api/v2/auth/tokens'],
    ['POST', '/api/v2/auth/tokens/{id}/rotate'],
    ['DELETE', '/api/v2/auth/tokens/{id}'],
    ['POST', '/api/v2/auth/tokens/exchange'],
    ['GET', '/api/v2/auth/scopes'],
    // Events
    ['GET', '/api/v2/events'],
    ['GET', '/api/v1/events/'],
  ];

  function matcher(template: string): RegExp {
    const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[a-z_]+\}/g, '[^/]+');
    return new RegExp(`^${escaped}$`);
  }

  it('every spec path is produced by some client method', async () => {
    const transport = new RecordingTransport().otherwise((spec) => ({
      data:
        spec.path.endsWith('/listings') && spec.method === 'POST'
          ? { listing: { order_hash: HASH } }
          : spec.path.endsWith('/offers') && spec.method === 'POST'
            ? { offer: { order_hash: HASH } }
            : spec.path === '/api/v2/auth/tokens'
              ? []
              : {},
    }));
    const api = createApiClient(transport);
    for (const row of rows) await row.call(api);

    const produced = transport.calls.map((c) => `${c.method} ${c.path}`);
    const missing = SPEC_PATHS.filter(
      ([method, template]) =>
        !transport.calls.some((c) => c.method === method && matcher(template).test(c.path)),
    );
    expect(missing, `produced:\n${produced.join('\n')}`).toEqual([]);
  });

  it('the matcher itself can fail (a path nobody produces is reported)', () => {
    expect(matcher('/api/v2/collections/{slug}').test('/api/v2/collections/a/stats')).toBe(false);
    expect(matcher('/api/v2/collections/{slug}').test('/api/v2/collections/a')).toBe(true);
  });
});

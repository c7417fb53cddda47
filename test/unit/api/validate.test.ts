import { describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../../src/api/client.ts';
import {
  checkSlippage,
  encodeTraits,
  INVALID_INPUT,
  requireAddress,
  requireIsoDate,
  requireQuantity,
  requireTokenId,
  requireUnixSeconds,
} from '../../../src/api/validate.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import { RecordingTransport } from '../fakes/transport.ts';

const ADDR = '0x1111111111111111111111111111111111111111';
const HASH = `0x${'ab'.repeat(32)}`;
const SLUG = 'doodles-official';
const PARAMS = {
  offerer: ADDR,
  zone: ADDR,
  offer: [],
  consideration: [],
  orderType: 0,
  startTime: '0',
  endTime: '1',
  zoneHash: HASH,
  salt: '0',
  conduitKey: HASH,
  totalOriginalConsiderationItems: 0,
  counter: '0',
};
const SWAP = {
  from_chain: 'ethereum',
  from_address: ADDR,
  to_chain: 'base',
  to_address: ADDR,
  quantity: '1000',
  address: ADDR,
};
const SIWE = {
  domain: 'opensea.io',
  address: ADDR,
  uri: 'https://opensea.io',
  version: '1',
  chainId: 1,
  nonce: 'abc',
  issuedAt: '2024-01-01T00:00:00Z',
  accountType: 'Ethereum' as const,
};

// biome-ignore lint/suspicious/noExplicitAny: the cases pass deliberately ill-typed input, as JS callers could
type Loose = any;

/** [what, call, parameter named in the message, fragment of the bad value in the message] */
type Case = readonly [string, (api: ApiClient) => unknown, string, string];

const cases: Case[] = [
  // slugs (a slug that would need encoding never reaches the path)
  ['slug with a slash', (a) => a.collections.get('a/b'), 'slug', '"a/b"'],
  ['slug with a dot segment', (a) => a.collections.stats('..'), 'slug', '".."'],
  ['slug with a query char', (a) => a.listings.best('x?y=1'), 'slug', '"x?y=1"'],
  ['empty slug', (a) => a.collections.traits(''), 'slug', '""'],
  ['batch with a bad slug', (a) => a.collections.batch([SLUG, 'no spaces']), 'slugs[1]', '"no spaces"'],
  ['empty batch', (a) => a.collections.batch([]), 'slugs', 'an array'],
  // addresses
  ['short address', (a) => a.contracts.get('ethereum', '0x1234'), 'address', '"0x1234"'],
  ['address without 0x', (a) => a.tokens.get('base', '1'.repeat(40)), 'address', '1111'],
  ['non-hex address', (a) => a.tokens.balances(`0x${'g'.repeat(40)}`), 'address', '0xggg'],
  ['bad maker', (a) => a.listings.all(SLUG, { maker: 'alice' }), 'maker', '"alice"'],
  ['bad 0x account id', (a) => a.accounts.get(`0x${'z'.repeat(40)}`), 'address_or_username', '0xzzz'],
  // chains
  ['unknown chain', (a) => a.nfts.get('eth', ADDR, '1'), 'chain', '"eth"'],
  ['old chain alias', (a) => a.contracts.paymentToken('matic', ADDR), 'chain', '"matic"'],
  ['chain case', (a) => a.tokens.trending({ chains: ['Ethereum'] }), 'chains[0]', '"Ethereum"'],
  // token ids
  ['negative token id', (a) => a.nfts.get('ethereum', ADDR, '-1'), 'identifier', '"-1"'],
  ['leading zero token id', (a) => a.offers.item(SLUG, '01'), 'identifier', '"01"'],
  ['hex token id', (a) => a.listings.bestForNft(SLUG, '0x10'), 'identifier', '"0x10"'],
  [
    'token id beyond uint256',
    (a) => a.nfts.get('ethereum', ADDR, (1n << 256n).toString()),
    'identifier',
    '1157',
  ],
  // limits
  ['token list limit 101', (a) => a.tokens.trending({ limit: 101 }), 'limit', '101'],
  ['token list limit 0', (a) => a.tokens.top({ limit: 0 }), 'limit', '0'],
  ['legacy list limit 201', (a) => a.listings.legacyList('ethereum', { limit: 201 }), 'limit', '201'],
  ['legacy list limit 0', (a) => a.offers.legacyList('ethereum', { limit: 0 }), 'limit', '0'],
  ['v2 list limit 201', (a) => a.offers.all(SLUG, { limit: 201 }), 'limit', '201'],
  ['fractional limit', (a) => a.events.list({ limit: 1.5 }), 'limit', '1.5'],
  // slippage
  ['negative slippage', (a) => a.swap.quote({ ...SWAP, slippage: -0.01 }), 'slippage', '-0.01'],
  ['slippage above 0.5', (a) => a.swap.quote({ ...SWAP, slippage: 0.51 }), 'slippage', '0.51'],
  ['slippage NaN', (a) => a.swap.quote({ ...SWAP, slippage: Number.NaN }), 'slippage', 'NaN'],
  ['slippage as string', (a) => a.swap.quote({ ...SWAP, slippage: '0.1' as Loose }), 'slippage', '"0.1"'],
  // quantities
  ['zero quantity', (a) => a.swap.quote({ ...SWAP, quantity: '0' }), 'quantity', '"0"'],
  ['negative quantity', (a) => a.swap.quote({ ...SWAP, quantity: '-5' }), 'quantity', '"-5"'],
  ['decimal quantity', (a) => a.swap.quote({ ...SWAP, quantity: '1.5' }), 'quantity', '"1.5"'],
  ['exponent quantity', (a) => a.swap.quote({ ...SWAP, quantity: '1e18' }), 'quantity', '"1e18"'],
  ['mint quantity 0', (a) => a.drops.mint(SLUG, { minter: ADDR, quantity: 0 }), 'body.quantity', '0'],
  ['mint quantity 101', (a) => a.drops.mint(SLUG, { minter: ADDR, quantity: 101 }), 'body.quantity', '101'],
  [
    'build quantity 0',
    (a) =>
      a.offers.build({
        offerer: ADDR,
        quantity: 0,
        criteria: { collection: { slug: SLUG } },
        protocol_address: ADDR,
        offer_protection_enabled: true,
      }),
    'body.quantity',
    '0',
  ],
  // required fields
  [
    'swap without wallet address',
    (a) => a.swap.quote({ ...SWAP, address: undefined as Loose }),
    'address',
    'undefined',
  ],
  ['search without query', (a) => a.search.query({} as Loose), 'query', 'undefined'],
  ['search with blank query', (a) => a.search.query({ query: '  ' }), 'query', '"  "'],
  ['mint without minter', (a) => a.drops.mint(SLUG, { quantity: 1 } as Loose), 'body.minter', 'undefined'],
  [
    'build without criteria',
    (a) =>
      a.offers.build({
        offerer: ADDR,
        quantity: 1,
        protocol_address: ADDR,
        offer_protection_enabled: true,
      } as Loose),
    'body.criteria',
    'undefined',
  ],
  [
    'build criteria without slug',
    (a) =>
      a.offers.build({
        offerer: ADDR,
        quantity: 1,
        criteria: { collection: {} },
        protocol_address: ADDR,
        offer_protection_enabled: true,
      } as Loose),
    'body.criteria.collection.slug',
    'undefined',
  ],
  [
    'listing without signature',
    (a) => a.listings.create('ethereum', { parameters: PARAMS, protocol_address: ADDR } as Loose),
    'body.signature',
    'undefined',
  ],
  [
    'offer with a bad protocol_address',
    (a) => a.offers.create('ethereum', { parameters: PARAMS, signature: '0x1', protocol_address: 'seaport' }),
    'body.protocol_address',
    '"seaport"',
  ],
  [
    'criteria offer without protocol_data',
    (a) =>
      a.offers.createCriteria({ criteria: { collection: { slug: SLUG } }, protocol_address: ADDR } as Loose),
    'body.protocol_data',
    'undefined',
  ],
  [
    'fulfillment without fulfiller',
    (a) =>
      a.listings.fulfillmentData({
        listing: { hash: HASH, chain: 'ethereum', protocol_address: ADDR },
      } as Loose),
    'body.fulfiller',
    'undefined',
  ],
  [
    'fulfillment with a bad order hash',
    (a) =>
      a.offers.fulfillmentData({
        offer: { hash: '0x12', chain: 'ethereum', protocol_address: ADDR },
        fulfiller: { address: ADDR },
      }),
    'body.offer.hash',
    '"0x12"',
  ],
  [
    'fulfillment on an unknown chain',
    (a) =>
      a.listings.fulfillmentData({
        listing: { hash: HASH, chain: 'goerli', protocol_address: ADDR },
        fulfiller: { address: ADDR },
      }),
    'body.listing.chain',
    '"goerli"',
  ],
  [
    'fulfillment units_to_fill 0',
    (a) =>
      a.listings.fulfillmentData({
        listing: { hash: HASH, chain: 'ethereum', protocol_address: ADDR },
        fulfiller: { address: ADDR },
        units_to_fill: 0,
      }),
    'body.units_to_fill',
    '0',
  ],
  [
    'SIWE message without accountType',
    (a) =>
      a.auth.siweVerify({
        message: { ...SIWE, accountType: undefined as Loose },
        signature: '0x1',
        chainArch: 'EVM',
      }),
    'body.message.accountType',
    'undefined',
  ],
  [
    'SIWE accountType in the wrong case',
    (a) =>
      a.auth.siweVerify({
        message: { ...SIWE, accountType: 'ethereum' as Loose },
        signature: '0x1',
        chainArch: 'EVM',
      }),
    'body.message.accountType',
    '"ethereum"',
  ],
  [
    'SIWE without chainArch',
    (a) => a.auth.siweVerify({ message: SIWE, signature: '0x1' } as Loose),
    'body.chainArch',
    'undefined',
  ],
  [
    'PAT without scopes',
    (a) => a.auth.createToken({ label: 'x', scopes: [], expiresInDays: 1 }),
    'body.scopes',
    'an array',
  ],
  [
    'PAT with 0 days',
    (a) => a.auth.createToken({ label: 'x', scopes: ['write:orders'], expiresInDays: 0 }),
    'body.expiresInDays',
    '0',
  ],
  ['PAT id with whitespace', (a) => a.auth.revokeToken('a b'), 'id', '"a b"'],
  ['cancel with a short hash', (a) => a.orders.cancel('ethereum', ADDR, '0xabc'), 'order_hash', '"0xabc"'],
  [
    'order with a bad protocol address',
    (a) => a.orders.get('ethereum', 'seaport', HASH),
    'protocol_address',
    '"seaport"',
  ],
  [
    'bad protocol segment',
    (a) =>
      a.listings.create(
        'ethereum',
        { parameters: PARAMS, signature: '0x1', protocol_address: ADDR },
        { protocol: 'Seaport/1' },
      ),
    'protocol',
    '"Seaport/1"',
  ],
  [
    'token_ids without contract',
    (a) => a.listings.legacyList('ethereum', { token_ids: ['1'] }),
    'asset_contract_address',
    'undefined',
  ],
  [
    'token_id without contract (v1 events)',
    (a) => a.events.legacyList({ token_id: '1' }),
    'asset_contract_address',
    'undefined',
  ],
  // enums
  ['unknown event type', (a) => a.events.list({ event_type: 'sales' as Loose }), 'event_type', '"sales"'],
  [
    'one bad event type in a list',
    (a) => a.events.byAccount(ADDR, { event_type: ['sale', 'bogus' as Loose] }),
    'event_type[1]',
    '"bogus"',
  ],
  ['empty event type list', (a) => a.events.list({ event_type: [] }), 'event_type', 'an array'],
  [
    'v2 type on the legacy endpoint',
    (a) => a.events.legacyList({ event_type: 'sale' as Loose }),
    'event_type',
    '"sale"',
  ],
  ['order_by', (a) => a.listings.legacyList('ethereum', { order_by: 'date' as Loose }), 'order_by', '"date"'],
  [
    'order_direction',
    (a) => a.offers.legacyList('ethereum', { order_direction: 'up' as Loose }),
    'order_direction',
    '"up"',
  ],
  ['token sort_by', (a) => a.tokens.trending({ sort_by: 'volume' as Loose }), 'sort_by', '"volume"'],
  ['trait offer mode', (a) => a.offers.traits(SLUG, { mode: 'string' as Loose }), 'mode', '"string"'],
  [
    'search asset type',
    (a) => a.search.query({ query: 'x', asset_types: ['wallet' as Loose] }),
    'asset_types[0]',
    '"wallet"',
  ],
  ['drop calendar type', (a) => a.drops.list({ type: 'soon' as Loose }), 'type', '"soon"'],
  // dates and times
  [
    'impossible ISO date',
    (a) => a.listings.legacyList('ethereum', { listed_before: '2024-13-45T00:00:00Z' }),
    'listed_before',
    '"2024-13-45',
  ],
  [
    'not a date',
    (a) => a.offers.legacyList('ethereum', { listed_after: 'yesterday' }),
    'listed_after',
    '"yesterday"',
  ],
  [
    'epoch seconds as listed_after',
    (a) => a.offers.legacyList('ethereum', { listed_after: '1700000000' }),
    'listed_after',
    '"1700000000"',
  ],
  [
    'invalid Date',
    (a) => a.listings.legacyList('ethereum', { listed_after: new Date('nope') }),
    'listed_after',
    '"Invalid Date"',
  ],
  ['negative unix seconds', (a) => a.events.list({ after: -1 }), 'after', '-1'],
  ['after later than before', (a) => a.events.byCollection(SLUG, { after: 20, before: 10 }), 'after', '20'],
  // traits
  ['traits not JSON', (a) => a.listings.best(SLUG, { traits: '{bad' }), 'traits', '"{bad"'],
  ['traits empty', (a) => a.nfts.byCollection(SLUG, { traits: [] }), 'traits', 'an array'],
  [
    'trait without value',
    (a) => a.events.byCollection(SLUG, { traits: [{ traitType: 'Hat' } as Loose] }),
    'traits[0].value',
    'undefined',
  ],
  // cursors and booleans
  ['empty next cursor', (a) => a.listings.all(SLUG, { next: '' }), 'next', '""'],
  [
    'boolean as string',
    (a) => a.listings.all(SLUG, { include_private_listings: 'yes' as Loose }),
    'include_private_listings',
    '"yes"',
  ],
];

describe('invalid input is rejected before any request', () => {
  it.each(cases)('%s', async (_what, call, param, badValue) => {
    const transport = new RecordingTransport().otherwise({ data: {} });
    const api = createApiClient(transport);
    let error: unknown;
    try {
      await call(api);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RejectedError);
    const e = error as RejectedError;
    expect(e.code).toBe(INVALID_INPUT);
    expect(e.message).toContain(`invalid ${param}:`);
    expect(e.message).toContain(badValue);
    expect(e.message).toMatch(/expected .+/);
    expect(e.details['param']).toBe(param);
    expect(transport.calls).toHaveLength(0);
  });

  it('the message names the parameter, the value and what is allowed', async () => {
    const api = createApiClient(new RecordingTransport());
    await expect(api.tokens.trending({ limit: 500 })).rejects.toThrow(
      'invalid limit: got 500; expected an integer from 1 to 100',
    );
  });

  it('promise-returning methods reject instead of throwing synchronously', () => {
    const api = createApiClient(new RecordingTransport());
    let pending: Promise<unknown> | undefined;
    expect(() => {
      pending = api.collections.get('bad/slug');
    }).not.toThrow();
    return expect(pending).rejects.toMatchObject({ code: INVALID_INPUT });
  });

  it('a PAT that is too short is rejected without echoing it', async () => {
    const t = new RecordingTransport();
    const api = createApiClient(t);
    const error = await api.auth.exchange('secret').catch((e: unknown) => e);
    const message = (error as Error).message;
    expect(message).toContain('subjectToken');
    expect(message).not.toContain('secret"');
    expect(message).toContain('<6 chars>');
    expect(t.calls).toHaveLength(0);
  });

  it('valid edge values pass (limits at their bounds, slippage 0 and 0.5)', async () => {
    const t = new RecordingTransport().otherwise({ data: { tokens: [], listings: [], orders: [] } });
    const api = createApiClient(t);
    await api.tokens.trending({ limit: 1 });
    await api.tokens.trending({ limit: 100 });
    await api.listings.legacyList('ethereum', { limit: 200 });
    await api.listings.all(SLUG, { limit: 200 });
    await api.swap.quote({ ...SWAP, slippage: 0 });
    await api.swap.quote({ ...SWAP, slippage: 0.5 });
    expect(t.calls).toHaveLength(6);
  });
});

describe('validators', () => {
  it('requireAddress lower-cases', () => {
    expect(requireAddress('a', '0xABCDEF0123456789abcdef0123456789ABCDEF01')).toBe(
      '0xabcdef0123456789abcdef0123456789abcdef01',
    );
  });

  it('requireTokenId accepts bigint and the uint256 maximum', () => {
    expect(requireTokenId('id', 7n)).toBe('7');
    expect(requireTokenId('id', ((1n << 256n) - 1n).toString())).toBe(((1n << 256n) - 1n).toString());
    expect(() => requireTokenId('id', 7)).toThrow(RejectedError);
  });

  it('requireQuantity normalizes bigint and safe integers to decimal strings', () => {
    expect(requireQuantity('q', 10n ** 30n)).toBe('1000000000000000000000000000000');
    expect(requireQuantity('q', 3)).toBe('3');
    expect(() => requireQuantity('q', 2 ** 60)).toThrow(RejectedError);
  });

  it('checkSlippage defaults to 0.01', () => {
    expect(checkSlippage('slippage', undefined)).toBe(0.01);
    expect(checkSlippage('slippage', 0.2)).toBe(0.2);
  });

  it('requireUnixSeconds converts a Date to whole seconds', () => {
    expect(requireUnixSeconds('after', new Date(1_700_000_000_999))).toBe(1_700_000_000);
    expect(requireUnixSeconds('after', 5n)).toBe(5);
  });

  it('requireIsoDate accepts ISO strings and converts Dates', () => {
    expect(requireIsoDate('d', '2024-01-31')).toBe('2024-01-31');
    expect(requireIsoDate('d', '2024-01-31T12:00:00.123+02:00')).toBe('2024-01-31T12:00:00.123+02:00');
    expect(requireIsoDate('d', new Date(Date.UTC(2024, 0, 31)))).toBe('2024-01-31T00:00:00.000Z');
  });

  it('encodeTraits normalizes arrays and JSON strings to the same wire form', () => {
    const wire = '[{"traitType":"Background","value":"Red"}]';
    expect(encodeTraits('traits', [{ traitType: 'Background', value: 'Red' }])).toBe(wire);
    expect(encodeTraits('traits', ' [ {"value":"Red", "traitType":"Background"} ] ')).toBe(wire);
  });
});

import { describe, expect, it } from 'vitest';
import { Router } from '../../../../src/sandbox/server/router.ts';

describe('Router', () => {
  const r = new Router<string>()
    .add('GET', '/api/v2/offers/collection/{slug}', 'collection')
    .add('GET', '/api/v2/offers/collection/{slug}/nfts/{identifier}', 'item')
    .add('GET', '/api/v2/offers/collection/{slug}/all', 'all')
    .add('POST', '/api/v2/orders/{chain}/{protocol}/listings', 'create')
    .add('GET', '/api/v2/orders/{chain}/{protocol}/listings', 'legacy')
    .add('GET', '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}', 'get');

  it('captures path params by name', () => {
    const m = r.match('GET', '/api/v2/offers/collection/apes/nfts/42');
    expect(m).toEqual({
      kind: 'found',
      handler: 'item',
      params: { slug: 'apes', identifier: '42' },
      pattern: '/api/v2/offers/collection/{slug}/nfts/{identifier}',
    });
  });

  it('prefers literal segments over params regardless of registration order', () => {
    expect(r.match('GET', '/api/v2/offers/collection/apes/all')).toMatchObject({ handler: 'all' });
    const got = r.match('GET', '/api/v2/orders/chain/ethereum/protocol/0xabc/0xdef');
    expect(got).toMatchObject({
      handler: 'get',
      params: { chain: 'ethereum', protocol_address: '0xabc', order_hash: '0xdef' },
    });
    // a non-literal first segment still reaches the param route
    expect(r.match('GET', '/api/v2/orders/ethereum/seaport/listings')).toMatchObject({
      handler: 'legacy',
      params: { chain: 'ethereum', protocol: 'seaport' },
    });
  });

  it('backtracks from a literal branch that does not lead to a route', () => {
    // "chain" is a literal under /orders, but /orders/chain/x/listings exists only through {chain}/{protocol}
    expect(r.match('POST', '/api/v2/orders/chain/seaport/listings')).toMatchObject({
      handler: 'create',
      params: { chain: 'chain', protocol: 'seaport' },
    });
  });

  it('tells a wrong method (405 with the allowed ones) from an unknown path', () => {
    expect(r.match('DELETE', '/api/v2/orders/ethereum/seaport/listings')).toEqual({
      kind: 'method_not_allowed',
      allowed: ['POST', 'GET'],
    });
    expect(r.match('GET', '/api/v2/nothing')).toEqual({ kind: 'not_found' });
    expect(r.match('GET', '/api/v2/offers/collection/apes/nfts')).toEqual({ kind: 'not_found' });
  });

  it('ignores a trailing slash, decodes segments, and treats HEAD as GET', () => {
    expect(r.match('GET', '/api/v2/offers/collection/apes/')).toMatchObject({ handler: 'collection' });
    expect(r.match('GET', '/api/v2/offers/collection/a%20b')).toMatchObject({ params: { slug: 'a b' } });
    expect(r.match('HEAD', '/api/v2/offers/collection/apes')).toMatchObject({ handler: 'collection' });
    expect(r.match('GET', '/api/v2/offers/collection/%E0%A4%A')).toEqual({ kind: 'not_found' });
  });

  it('refuses ambiguous or duplicate registrations', () => {
    const x = new Router<number>().add('GET', '/a/{id}', 1);
    expect(() => x.add('GET', '/a/{name}/b', 2)).toThrow(/clashes/);
    expect(() => x.add('GET', '/a/{id}', 3)).toThrow(/twice/);
  });
});

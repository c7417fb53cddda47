import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AUTH_SCOPES } from '@opensea/api-types';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  BUILTIN_STRATEGY_INTENTS,
  INTENT_WALLET_ENDPOINTS,
  parseScopeList,
  requiredScopes,
  strategyIntents,
  unknownScopes,
} from '../../../src/auth/scopes.ts';
import { INTENT_KINDS, type IntentKind } from '../../../src/strategy.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const s = (id: string, module = id) => ({ id, module });

describe('requiredScopes: the smallest scope set of the configured strategies', () => {
  it('offer strategies need write:orders (cancel), the drop minter read:eligibility', () => {
    const r = requiredScopes([s('collection-bidder'), s('trait-bidder')], AUTH_SCOPES);
    expect(r.scopes).toEqual(['write:orders']);
    expect(r.needs).toEqual([
      {
        scope: 'write:orders',
        strategies: ['collection-bidder', 'trait-bidder'],
        endpoints: ['/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel'],
      },
    ]);
    expect(requiredScopes([s('mint-it', 'drop-minter')], AUTH_SCOPES)).toMatchObject({
      scopes: ['read:eligibility'],
      needs: [{ scope: 'read:eligibility', strategies: ['mint-it'] }],
      assumed: [],
    });
  });

  it('buying and swapping need none; no strategy, none', () => {
    expect(requiredScopes([s('sniper'), s('rebalancer')], AUTH_SCOPES).scopes).toEqual([]);
    expect(requiredScopes([], AUTH_SCOPES).scopes).toEqual([]);
  });

  it('the demo config (all six built-ins) needs exactly read:eligibility and write:orders', () => {
    const demo = parse(readFileSync(join(REPO, 'config/demo.yaml'), 'utf8')) as {
      strategies: { id: string; module: string }[];
    };
    expect(demo.strategies).toHaveLength(6);
    const r = requiredScopes(demo.strategies, AUTH_SCOPES);
    expect(r.scopes).toEqual(['read:eligibility', 'write:orders']);
    // never a scope a trading daemon has no use for
    expect(r.scopes).not.toContain('write:drops');
  });

  it('a module of the user’s own is assumed to emit every intent (and named as assumed)', () => {
    const r = requiredScopes([s('mine', './strategies/floor-sniper.ts'), s('sniper')], AUTH_SCOPES);
    expect(r.assumed).toEqual(['mine']);
    expect(r.scopes).toEqual(['read:eligibility', 'write:orders']);
    expect(strategyIntents({ module: './x.ts' })).toEqual({ intents: INTENT_KINDS, known: false });
  });

  it('matches the registry’s endpoints whatever the parameter names, and reports what no scope covers', () => {
    const registry = [
      { name: 'orders:write', endpoints: ['/api/v2/orders/chain/{c}/protocol/{p}/{h}/cancel'] },
      { name: 'other', endpoints: ['/api/v2/drops/{slug}'] },
    ];
    const r = requiredScopes([s('drop-minter'), s('collection-bidder')], registry);
    expect(r.scopes).toEqual(['orders:write']);
    expect(r.uncovered).toEqual(['/api/v2/drops/{slug}/eligibility']);
  });

  it('the built-in table says what each strategy module really emits (its intent builders)', () => {
    const builders: Record<string, IntentKind> = {
      placeOffer: 'place_offer',
      replaceOffer: 'replace_offer',
      cancelOrder: 'cancel_order',
      buyListing: 'buy_listing',
      swap: 'swap',
      mint: 'mint',
      placeListing: 'place_listing',
      replaceListing: 'replace_listing',
      acceptOffer: 'accept_offer',
    };
    for (const [name, intents] of Object.entries(BUILTIN_STRATEGY_INTENTS)) {
      const source = readFileSync(join(REPO, 'strategies', `${name}.ts`), 'utf8');
      const used = Object.entries(builders)
        .filter(([fn]) => new RegExp(`\\b${fn}\\(`).test(source))
        .map(([, kind]) => kind);
      expect([...intents].sort(), name).toEqual(used.sort());
    }
    // every intent kind has an entry (an empty list: API key only)
    expect(Object.keys(INTENT_WALLET_ENDPOINTS).sort()).toEqual([...INTENT_KINDS].sort());
  });
});

describe('--scopes values', () => {
  it('splits, trims and deduplicates', () => {
    expect(parseScopeList('write:orders, read:eligibility,,write:orders')).toEqual([
      'write:orders',
      'read:eligibility',
    ]);
  });

  it('names the scopes the registry does not list', () => {
    expect(unknownScopes(['write:orders', 'write:order', 'x:y'], AUTH_SCOPES)).toEqual([
      'write:order',
      'x:y',
    ]);
    expect(unknownScopes(['read:eligibility'], AUTH_SCOPES)).toEqual([]);
  });
});

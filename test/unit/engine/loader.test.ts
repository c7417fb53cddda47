import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, loadStrategies, loadStrategy, resolveStrategyPath } from '../../../src/engine/loader.ts';
import { ConfigError } from '../../../src/errors/index.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const FIX = resolve(REPO, 'test/fixtures/strategies');
const opts = { baseDir: FIX, strategiesDir: resolve(REPO, 'strategies') };

async function loadError(
  module: string,
  params: Record<string, unknown> = {},
  id = 's1',
): Promise<ConfigError> {
  try {
    await loadStrategy({ id, module, params }, opts);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('strategy loader', () => {
  it('loads a module by path, validates params, resolves subscriptions and schedules', async () => {
    const s = await loadStrategy(
      { id: 'mine', module: './good.ts', params: { price: 7, collection: 'cats' } },
      opts,
    );
    expect(s.id).toBe('mine');
    expect(s.definition.id).toBe('good');
    expect(s.params).toEqual({ price: 7, collection: 'cats' });
    expect([...(s.subscriptions.collections ?? [])]).toEqual(['cats']);
    expect([...s.subscriptions.events]).toEqual(['listing']);
    expect(s.schedules).toEqual(['*/5 * * * *']);
  });

  it('loads the five built-in strategies by name', async () => {
    const weth = { address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', symbol: 'WETH' };
    const entries = [
      { id: 'a', module: 'sniper', params: { collections: ['apes'], maxPrice: '1' } },
      {
        id: 'b',
        module: 'collection-bidder',
        params: { collection: 'apes', paymentToken: weth, maxPrice: '1' },
      },
      { id: 'c', module: 'trait-bidder', params: { collection: 'apes', paymentToken: weth, maxPrice: '1' } },
      {
        id: 'd',
        module: 'rebalancer',
        params: {
          tokens: [
            { token: weth, weight: 1, referencePrice: '1' },
            {
              token: { address: '0x0000000000000000000000000000000000000000', symbol: 'ETH' },
              weight: 1,
              referencePrice: '1',
            },
          ],
        },
      },
      { id: 'e', module: 'drop-minter', params: { drop: 'genesis', maxPricePerToken: '0.1' } },
    ];
    const loaded = await Promise.all(entries.map((e) => loadStrategy(e, opts)));
    expect(loaded.map((l) => l.definition.id)).toEqual([
      'sniper',
      'collection-bidder',
      'trait-bidder',
      'rebalancer',
      'drop-minter',
    ]);
    expect(loaded[3]?.schedules).toEqual(['*/15 * * * *']);
  });

  it('resolves bare names in strategies/ and paths against the config folder', () => {
    expect(resolveStrategyPath('sniper', opts)).toBe(resolve(REPO, 'strategies/sniper.ts'));
    expect(resolveStrategyPath('./good.ts', opts)).toBe(resolve(FIX, 'good.ts'));
    expect(resolveStrategyPath('/abs/x.ts', opts)).toBe('/abs/x.ts');
  });

  const broken: [string, string, Record<string, unknown>, RegExp, string][] = [
    ['a missing module', './nope.ts', {}, /module cannot be read/, 'module'],
    ['a module without id', './missing-id.ts', {}, /id of the module is missing/, 'id'],
    [
      'params that are not a zod schema',
      './bad-params-schema.ts',
      {},
      /params schema is not a zod schema/,
      'params schema',
    ],
    [
      'an unknown event kind',
      './bad-event-kind.ts',
      {},
      /unknown event kind 'listings'/,
      'subscriptions.events',
    ],
    [
      'an unknown market part to follow',
      './bad-change.ts',
      {},
      /unknown part 'floors'.*floor, collection_offer, trait_offers, listings, trait_floors, traits, holdings/,
      'subscriptions.changes',
    ],
    [
      'a misspelt subscriptions key',
      './bad-subscription-key.ts',
      {},
      /subscriptions has an unknown key 'event'.*use collections, events, changes, held/,
      'subscriptions',
    ],
    [
      'subscribed event kinds that are not a list',
      './bad-subscription-list.ts',
      {},
      /subscriptions\.events is not a list of names/,
      'subscriptions.events',
    ],
    [
      'an onEvent hook no event reaches',
      './deaf-on-event.ts',
      {},
      /onEvent is never called: subscriptions name no events, changes or held kinds/,
      'onEvent',
    ],
    [
      'a bad cron expression',
      './bad-cron.ts',
      {},
      /invalid cron expression 'every five minutes'/,
      'schedules',
    ],
    ['a plain object export', './not-a-strategy.ts', {}, /does not export a strategy/, 'module'],
    ['a module that throws at load', './throws-on-load.ts', {}, /failed to load: boom at load/, 'module'],
    ['a forbidden static import', './forbidden-import.ts', {}, /imports 'node:fs'/, 'module'],
    [
      'a forbidden dynamic import',
      './forbidden-dynamic-import.ts',
      {},
      /imports '\.\.\/\.\.\/\.\.\/src\/api\/index\.ts'/,
      'module',
    ],
  ];
  for (const [what, module, params, message, key] of broken) {
    it(`refuses ${what} with a ConfigError naming strategy and key`, async () => {
      const err = await loadError(module, params);
      expect(err.message).toMatch(message);
      expect(err.message).toContain("strategy 's1'");
      expect(err.details.key).toBe(key);
      expect(err.details.strategyId).toBe('s1');
    });
  }

  it('reports every invalid param with its key', async () => {
    const err = await loadError('./good.ts', { price: -1, extra: true });
    expect(err.code).toBe('strategy_params_invalid');
    expect(err.message).toMatch(/params\.price: /);
    expect(err.message).toMatch(/extra/);
    expect(err.details.key).toBe('params.price');
  });

  it('loadStrategies reports every broken strategy at once', async () => {
    const ok = await loadStrategies([{ id: 'a', module: './good.ts', params: {} }], opts);
    expect(ok.map((s) => s.id)).toEqual(['a']);
    const err = await loadStrategies(
      [
        { id: 'a', module: './good.ts', params: {} },
        { id: 'b', module: './missing-id.ts', params: {} },
        { id: 'c', module: './bad-cron.ts', params: {} },
      ],
      opts,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/2 strategies cannot be loaded/);
    expect((err as ConfigError).message).toMatch(/strategy 'b'.*\n.*strategy 'c'/s);
  });

  it('refuses a bad instance id', async () => {
    const err = await loadError('./good.ts', {}, 'bad id!');
    expect(err.details.key).toBe('id');
  });

  it('finds static, type-only, dynamic, require and computed imports, ignoring comments', () => {
    const src = [
      "import { a } from '../src/strategy.ts';",
      "import type { B } from 'node:fs';",
      "export * from './other.ts';",
      "// import x from 'commented';",
      "const m = await import('ethers');",
      "const r = require('child_process');",
      'const c = await import(name);',
    ].join('\n');
    expect(importsOf(src)).toEqual([
      '../src/strategy.ts',
      'node:fs',
      './other.ts',
      'ethers',
      'child_process',
      '<computed import>',
    ]);
  });
});

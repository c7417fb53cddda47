import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.ts';
import { riskLimitsFromConfig } from '../../../src/engine/config.ts';
import { configError } from './helpers.ts';

const E = 10n ** 18n;

describe('config: engine, control and the extended risk section', () => {
  it('has sensible defaults', () => {
    const { config } = resolveConfig({}, { env: {}, cwd: '/tmp' });
    expect(config.engine).toEqual({
      hookTimeoutMs: 2000,
      maxErrors: 5,
      errorWindowMs: 60_000,
      maxInFlight: 8,
      queueTtlMs: 30_000,
    });
    expect(config.control).toEqual({ host: '127.0.0.1', port: 8787 });
    expect(config.risk.budget).toBeUndefined();
    expect(config.risk.tokens).toEqual({});
    expect(config.risk.maxPriceVsFloorBps).toBe(10_000);
    expect(config.risk.staleAfterMs).toBe(300_000);
    expect(config.risk.floorMaxAgeMs).toBe(900_000);
  });

  it('parses budgets per token, per strategy and caps per collection into bigints', () => {
    const { config } = resolveConfig(
      {
        risk: {
          budget: '1.5',
          tokens: {
            USDC: {
              decimals: 6,
              budget: '1000',
              maxOpenOffersTotal: '500',
              maxSpendPerDay: '200.5',
              maxPricePerItem: '50',
            },
          },
          strategies: { sniper: { budgets: { WETH: '0.3', USDC: { amount: '10', decimals: 6 } } } },
          collectionDefaults: { maxItemsPerDay: 3 },
          collections: { azuki: { maxOpenOffersTotal: '0.1', maxSpendPerDay: '0.2' } },
          maxPriceVsFloorBps: 9500,
        },
        engine: { hookTimeoutMs: 250 },
        control: { port: 0 },
        strategies: [{ id: 'sniper', module: 'sniper', params: {} }],
      },
      { env: {}, cwd: '/tmp' },
    );
    expect(config.risk.budget).toBe(15n * 10n ** 17n);
    expect(config.risk.tokens.USDC).toEqual({
      decimals: 6,
      budget: 1_000_000_000n,
      maxOpenOffersTotal: 500_000_000n,
      maxSpendPerDay: 200_500_000n,
      maxPricePerItem: 50_000_000n,
    });
    expect(config.risk.strategies.sniper?.budgets).toEqual({ WETH: 3n * 10n ** 17n, USDC: 10_000_000n });
    expect(config.risk.collections.azuki).toEqual({ maxOpenOffersTotal: E / 10n, maxSpendPerDay: E / 5n });
    expect(config.engine.hookTimeoutMs).toBe(250);
    expect(config.control.port).toBe(0);

    const limits = riskLimitsFromConfig(config.risk);
    expect(limits.ethLike?.budget).toBe(15n * 10n ** 17n);
    expect(limits.tokens.get('USDC')?.maxSpendPerDay).toBe(200_500_000n);
    expect(limits.strategies.get('sniper')?.budgets.get('WETH')).toBe(3n * 10n ** 17n);
    expect(limits.collections.get('azuki')?.maxExposure).toBe(E / 10n);
    expect(limits.collectionDefaults.maxItemsPerDay).toBe(3);
    expect(limits.maxPriceVsFloorBps).toBe(9500);
  });

  it('names the key and the fix for bad values', () => {
    const err = configError(() =>
      resolveConfig(
        {
          risk: {
            tokens: {
              USDC: {
                decimals: 6,
                maxOpenOffersTotal: '1.1234567',
                maxSpendPerDay: '1',
                maxPricePerItem: '1',
              },
            },
          },
          control: { host: 'http://0.0.0.0' },
          engine: { hookTimeoutMs: 1 },
        },
        { env: {}, cwd: '/tmp' },
      ),
    );
    expect(err.message).toMatch(/risk\.tokens\.USDC\.maxOpenOffersTotal.*at most 6 decimals/);
    expect(err.message).toMatch(/control\.host.*not a host name/);
    expect(err.message).toMatch(/engine\.hookTimeoutMs/);
  });

  it('refuses a per-strategy budget for a strategy that is not configured', () => {
    const err = configError(() =>
      resolveConfig(
        {
          strategies: [{ id: 'sniper', module: 'sniper', params: {} }],
          risk: { strategies: { snipper: { budgets: { WETH: '1' } } } },
        },
        { env: {}, cwd: '/tmp' },
      ),
    );
    expect(err.message).toMatch(
      /risk\.strategies\.snipper.*names no configured strategy.*did you mean sniper/,
    );
  });
});

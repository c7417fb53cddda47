import cron from 'node-cron';
import type { LoadedStrategy } from '../../../src/engine/loader.ts';
import { validateDefinition } from '../../../src/engine/loader.ts';
import type { CronPort, WriteBudget } from '../../../src/engine/ports.ts';
import { DEFAULT_RISK_TIMING, type RiskLimits, type TokenLimits } from '../../../src/engine/risk/limits.ts';
import type { Strategy } from '../../../src/strategy.ts';
import { type DropStatus, defineStrategy, type Intent, placeOffer, z } from '../../../src/strategy.ts';
import { eth, WETH } from '../strategies/helpers.ts';

export function limits(o: Partial<RiskLimits> & { eth?: Partial<TokenLimits> } = {}): RiskLimits {
  return {
    tokens: new Map(),
    ethLike: {
      budget: null,
      maxExposure: eth('10'),
      maxSpendPerDay: eth('10'),
      maxPricePerItem: eth('5'),
      ...o.eth,
    },
    strategies: new Map(),
    collectionDefaults: {},
    collections: new Map(),
    ...DEFAULT_RISK_TIMING,
    ...o,
  };
}

/** Limits of USDC (6 decimals) wide enough to refuse nothing: `tokens` of `limits()`. */
export function usdcLimits(): RiskLimits['tokens'] {
  const wide = 10n ** 12n;
  return new Map([
    ['USDC', { budget: null, maxExposure: wide, maxSpendPerDay: wide, maxPricePerItem: wide }],
  ]);
}

export function load(def: Strategy, params: Record<string, unknown> = {}, id = def.id): LoadedStrategy {
  return validateDefinition({ id, module: `inline:${def.id}`, params }, `/inline/${def.id}.ts`, def);
}

export function offer(
  collection: string,
  price: bigint,
  priority = 0,
  extra: Partial<{ trait: string }> = {},
): Intent {
  return placeOffer({
    offer: extra.trait
      ? { type: 'trait', collection, traitType: 'Fur', value: extra.trait }
      : { type: 'collection', collection },
    price,
    paymentToken: WETH,
    expiresAt: 1_900_000_000_000,
    priority,
  });
}

/** A strategy whose onEvent/onTick return whatever `plan` says. */
export function scripted(
  id: string,
  plan: { event?: () => Intent[] | Promise<Intent[]>; tick?: () => Intent[]; events?: string[] },
  onUpdate?: (u: unknown) => void,
): Strategy {
  const def = defineStrategy({
    id,
    version: '1.0.0',
    params: z.strictObject({}),
    subscriptions: { events: (plan.events ?? ['listing']) as never },
    schedules: ['*/5 * * * *'],
    onEvent: () => plan.event?.() ?? [],
    onTick: () => plan.tick?.() ?? [],
    onOrderUpdate: (_ctx, u) => {
      onUpdate?.(u);
      return [];
    },
  });
  return def as unknown as Strategy;
}

export type { DropStatus };

/** A cron that fires only when told. */
export class ManualCron implements CronPort {
  readonly tasks = new Map<number, { expression: string; fn: () => void }>();
  private seq = 0;
  validate(expression: string): boolean {
    return cron.validate(expression);
  }
  schedule(expression: string, fn: () => void): { stop(): void } {
    const id = this.seq++;
    this.tasks.set(id, { expression, fn });
    return { stop: () => this.tasks.delete(id) };
  }
  /** Fires every task with `expression` (all when omitted). */
  fire(expression?: string): number {
    let n = 0;
    for (const t of [...this.tasks.values()])
      if (expression === undefined || t.expression === expression) {
        t.fn();
        n++;
      }
    return n;
  }
}

/** A write budget that says what it is told. */
export class FixedWriteBudget implements WriteBudget {
  constructor(public available: number) {}
  writesAvailable(): number {
    return this.available;
  }
}

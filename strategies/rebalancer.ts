// rebalancer: on a cron schedule, swaps toward target token weights from the wallet's balances,
// valued at a configured reference price per token; within slippage and a minimum trade size.
import {
  amountSchema,
  defineStrategy,
  type Intent,
  type PaymentToken,
  paymentTokenSchema,
  swap,
  toScore,
  z,
} from '../src/strategy.ts';

const params = z
  .strictObject({
    schedule: z.string().default('*/15 * * * *'),
    tokens: z
      .array(
        z.strictObject({
          token: paymentTokenSchema,
          /** Relative target weight (any positive numbers; they are normalised). */
          weight: z.number().positive(),
          /** Value of one whole token in the reference unit (e.g. ETH), 18 decimals. */
          referencePrice: amountSchema(18),
          /** Never sell below this balance (in whole tokens; e.g. gas money for the native token). */
          keep: amountSchema(36).prefault('0'),
        }),
      )
      .min(2, 'list at least two tokens'),
    /** Act only when a token is off its target by more than this share of the portfolio (bps). */
    toleranceBps: z.number().int().min(1).max(10_000).default(500),
    /** Smallest swap, in the reference unit (18 decimals). */
    minTradeValue: amountSchema(18).prefault('0.01'),
    slippageBps: z.number().int().min(1).max(5_000).default(50),
    maxSwapsPerRun: z.number().int().min(1).max(10).default(2),
    maxBalanceAgeMs: z.number().int().min(1_000).default(300_000),
  })
  .refine((p) => new Set(p.tokens.map((t) => t.token.address)).size === p.tokens.length, {
    message: 'a token is listed twice',
    path: ['tokens'],
  })
  .refine((p) => p.tokens.every((t) => t.referencePrice > 0n), {
    message: 'every referencePrice must be above 0',
    path: ['tokens'],
  });

interface Position {
  token: PaymentToken;
  price: bigint;
  decimals: number;
  balance: bigint;
  keep: bigint;
  value: bigint;
  diff: bigint;
}

/** Value (reference unit, 18 decimals) of `amount` smallest units. */
function worth(amount: bigint, price: bigint, decimals: number): bigint {
  return (amount * price) / 10n ** BigInt(decimals);
}

/** Smallest units of a token worth `value`. */
function amountFor(value: bigint, price: bigint, decimals: number): bigint {
  return (value * 10n ** BigInt(decimals)) / price;
}

export default defineStrategy({
  id: 'rebalancer',
  version: '1.0.0',
  description: 'Swaps toward target token weights on a schedule.',
  params,
  subscriptions: { events: [] },
  schedules: (p) => [p.schedule],
  onTick(ctx) {
    const p = ctx.params;
    const bal = ctx.balances;
    if (bal === null || ctx.now - bal.learnedAt > p.maxBalanceAgeMs) return [];
    const positions: Position[] = p.tokens.map((t) => {
      const balance = bal.value.get(t.token.address.toLowerCase()) ?? 0n;
      return {
        token: t.token,
        price: t.referencePrice,
        decimals: t.token.decimals,
        balance,
        keep: (t.keep * 10n ** BigInt(t.token.decimals)) / 10n ** 36n,
        value: worth(balance, t.referencePrice, t.token.decimals),
        diff: 0n,
      };
    });
    const total = positions.reduce((s, x) => s + x.value, 0n);
    if (total === 0n) return [];
    // weights as integers (1e6 per unit of weight), so targets are exact ratios of bigints
    const w = p.tokens.map((t) => BigInt(Math.round(t.weight * 1_000_000)));
    const wSum = w.reduce((a, b) => a + b, 0n);
    positions.forEach((pos, i) => {
      pos.diff = pos.value - (total * (w[i] ?? 0n)) / wSum;
    });
    const tolerance = (total * BigInt(p.toleranceBps)) / 10_000n;
    const out: Intent[] = [];
    for (let n = 0; n < p.maxSwapsPerRun; n++) {
      const surplus = positions
        .filter((x) => x.diff > tolerance)
        .sort((a, b) => (b.diff > a.diff ? 1 : -1))[0];
      const deficit = positions
        .filter((x) => -x.diff > tolerance)
        .sort((a, b) => (a.diff > b.diff ? 1 : -1))[0];
      if (surplus === undefined || deficit === undefined) break;
      let value = surplus.diff < -deficit.diff ? surplus.diff : -deficit.diff;
      const sellable = worth(surplus.balance - surplus.keep, surplus.price, surplus.decimals);
      if (sellable < value) value = sellable;
      if (value < p.minTradeValue || value <= 0n) break;
      const amountIn = amountFor(value, surplus.price, surplus.decimals);
      if (amountIn <= 0n) break;
      out.push(
        swap({
          fromToken: surplus.token,
          toToken: deficit.token,
          amountIn,
          slippageBps: p.slippageBps,
          priority: toScore(value),
          reason: `rebalance ${surplus.token.symbol} -> ${deficit.token.symbol} worth ${value} (ref unit, 1e18 = 1)`,
        }),
      );
      surplus.diff -= value;
      surplus.balance -= amountIn;
      deficit.diff += value;
    }
    return out;
  },
});

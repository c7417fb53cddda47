// rebalancer: on a cron schedule, swaps toward target token weights from the wallet's balances,
// valued at the market (ctx.prices: the swap router's quote, else the API's token price); within
// slippage and a minimum trade size. A token's optional referencePrice is a sanity band: when the
// market is further from it than maxDeviationBps, nothing is traded. No fresh price, no trade.
import {
  amountSchema,
  defineStrategy,
  formatUnits,
  type Intent,
  type PaymentToken,
  paymentTokenSchema,
  type StrategyContext,
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
          /**
           * What one whole token should be worth in ETH (18 decimals), as a sanity band: when the
           * market price is further from it than maxDeviationBps, the run trades nothing. Optional.
           */
          referencePrice: amountSchema(18).optional(),
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
    /** Oldest market price a run trades on (ms). */
    maxPriceAgeMs: z.number().int().min(1_000).default(300_000),
    /** Largest distance (bps of referencePrice) of a market price from a token's referencePrice. */
    maxDeviationBps: z.number().int().min(1).max(1_000_000).default(2_000),
  })
  .refine((p) => new Set(p.tokens.map((t) => t.token.address)).size === p.tokens.length, {
    message: 'a token is listed twice',
    path: ['tokens'],
  })
  .refine((p) => p.tokens.every((t) => t.referencePrice === undefined || t.referencePrice > 0n), {
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

/** Value (wei) of `amount` smallest units at `price` wei per whole token. */
function worth(amount: bigint, price: bigint, decimals: number): bigint {
  return (amount * price) / 10n ** BigInt(decimals);
}

/** Smallest units of a token worth `value`. */
function amountFor(value: bigint, price: bigint, decimals: number): bigint {
  return (value * 10n ** BigInt(decimals)) / price;
}

type Params = z.output<typeof params>;

/**
 * Each token's market price (wei per whole token), or why the run must not trade: a price missing,
 * older than maxPriceAgeMs, or further from the token's referencePrice than maxDeviationBps.
 */
function marketPrices(ctx: StrategyContext<Params>): bigint[] | { why: string; token: string } {
  const p = ctx.params;
  const out: bigint[] = [];
  for (const t of p.tokens) {
    const token = t.token.symbol;
    const known = ctx.prices.get(t.token.address);
    if (known === undefined || known.value.priceIn <= 0n) return { why: 'no market price', token };
    const age = ctx.now - known.learnedAt;
    if (age > p.maxPriceAgeMs)
      return { why: `market price ${Math.round(age / 1000)} s old (max ${p.maxPriceAgeMs / 1000} s)`, token };
    const price = known.value.priceIn;
    const ref = t.referencePrice;
    if (ref !== undefined) {
      const d = price > ref ? price - ref : ref - price;
      if (d * 10_000n > ref * BigInt(p.maxDeviationBps))
        return {
          why: `market price ${formatUnits(price, 18)} ETH (${known.value.source}) is more than ${p.maxDeviationBps} bps from referencePrice ${formatUnits(ref, 18)}`,
          token,
        };
    }
    out.push(price);
  }
  return out;
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
    if (bal === null || ctx.now - bal.learnedAt > p.maxBalanceAgeMs) {
      ctx.log.info({ reason: bal === null ? 'no balances' : 'balances too old' }, 'rebalancer: no trade');
      return [];
    }
    const prices = marketPrices(ctx);
    if (!Array.isArray(prices)) {
      ctx.log.warn({ token: prices.token, reason: prices.why }, 'rebalancer: no trade');
      return [];
    }
    const positions: Position[] = p.tokens.map((t, i) => {
      const balance = bal.value.get(t.token.address.toLowerCase()) ?? 0n;
      const price = prices[i] as bigint;
      return {
        token: t.token,
        price,
        decimals: t.token.decimals,
        balance,
        keep: (t.keep * 10n ** BigInt(t.token.decimals)) / 10n ** 36n,
        value: worth(balance, price, t.token.decimals),
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
          reason: `rebalance ${surplus.token.symbol} -> ${deficit.token.symbol} worth ${formatUnits(value, 18)} ETH at market`,
        }),
      );
      surplus.diff -= value;
      surplus.balance -= amountIn;
      deficit.diff += value;
    }
    return out;
  },
});

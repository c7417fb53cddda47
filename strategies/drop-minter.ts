// drop-minter: mints a configured drop once it is active and our wallet is eligible, within a
// price cap and a quantity cap. An outcome that is unknown (crash, timeout) keeps its quantity
// counted, so a restart never mints twice.
import { amountSchema, defineStrategy, mint, toScore, z } from '../src/strategy.ts';

const params = z.strictObject({
  drop: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,127}$/i, 'must be a drop slug'),
  /** Total tokens to mint. */
  quantity: z.number().int().min(1).max(10_000).default(1),
  /** Most per mint transaction. */
  perTx: z.number().int().min(1).max(10_000).default(1),
  /** Highest price per token (in the drop's payment token, 18 decimals). */
  maxPricePerToken: amountSchema(18),
  /** Mint only when the drop says our wallet is eligible (false: also when unknown). */
  requireEligible: z.boolean().default(true),
  schedule: z.string().default('*/10 * * * * *'),
  maxStatusAgeMs: z.number().int().min(1_000).default(60_000),
});

export default defineStrategy({
  id: 'drop-minter',
  version: '1.0.0',
  description: 'Mints a drop when it is active and the wallet is eligible, within price and quantity caps.',
  params,
  subscriptions: { events: [] },
  schedules: (p) => [p.schedule],
  onTick(ctx) {
    const p = ctx.params;
    const known = ctx.drops.get(p.drop);
    if (known === undefined || ctx.now - known.learnedAt > p.maxStatusAgeMs) return [];
    const d = known.value;
    if (d.stage !== 'active') return [];
    if (d.eligible === false || (p.requireEligible && d.eligible !== true)) return [];
    if (d.endsAt !== null && d.endsAt <= ctx.now) return [];
    if (d.pricePerToken > p.maxPricePerToken) return [];
    const minted = ctx.state.get<number>('minted') ?? 0;
    const pending = ctx.state.get<number>('pending') ?? 0;
    let q = p.quantity - minted - pending;
    if (q > p.perTx) q = p.perTx;
    if (d.maxPerWallet !== null) {
      const room = d.maxPerWallet - Math.max(d.mintedByWallet ?? 0, minted) - pending;
      if (room < q) q = room;
    }
    if (d.remaining !== null && d.remaining < BigInt(Math.max(q, 0))) q = Number(d.remaining);
    if (q <= 0) return [];
    const left = ctx.budget.remaining(d.paymentToken);
    if (left !== null && left < d.pricePerToken * BigInt(q)) return [];
    ctx.state.set('pending', pending + q);
    return [
      mint({
        drop: p.drop,
        quantity: BigInt(q),
        maxPricePerToken: d.pricePerToken,
        paymentToken: d.paymentToken,
        priority: toScore(p.maxPricePerToken - d.pricePerToken) + q,
        reason: `drop ${p.drop} active at ${d.pricePerToken} per token`,
      }),
    ];
  },
  onOrderUpdate(ctx, u) {
    if (u.kind !== 'intent_result' || u.intent.kind !== 'mint') return [];
    if (u.status === 'unknown') return [];
    const q = Number(u.intent.quantity);
    const pending = ctx.state.get<number>('pending') ?? 0;
    ctx.state.set('pending', Math.max(0, pending - q));
    if (u.status === 'done') ctx.state.set('minted', (ctx.state.get<number>('minted') ?? 0) + q);
    return [];
  },
});

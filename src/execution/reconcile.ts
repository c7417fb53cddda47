// The engine's Reconciler port: at start, before any hook runs or anything new is spent, every
// intent the journal left `sent`/`unknown` is settled from what is known for certain:
// - buys, swaps, mints: the execution layer's own record (already reconciled with the chain —
//   receipts, the nonce ledger — before the engine starts);
// - offers and cancels: the order ledger, after the order desk read back every order it was
//   unsure of (posts and cancels whose answer was lost).
import type { JournalRecord, Reconciler } from '../engine/index.ts';
import type { OrderLedger } from '../ledger/index.ts';
import type { Logger } from '../observability/index.ts';
import type { Executor as ChainExecutor } from './types.ts';

export interface ExecutionReconcilerOptions {
  readonly ledger: OrderLedger;
  readonly execution?: Pick<ChainExecutor, 'status'>;
  readonly logger?: Logger;
  /** Counts by outcome, for the status. */
  readonly counts?: Record<string, number>;
}

type Outcome = Awaited<ReturnType<Reconciler['reconcile']>>;

export function createExecutionReconciler(o: ExecutionReconcilerOptions): Reconciler {
  const count = (k: string) => {
    if (o.counts) o.counts[k] = (o.counts[k] ?? 0) + 1;
  };
  async function settle(r: JournalRecord): Promise<Outcome> {
    const intent = r.intent;
    switch (intent.kind) {
      case 'buy_listing':
      case 'swap':
      case 'mint':
      case 'accept_offer': {
        const out = o.execution?.status(r.id);
        if (out === undefined) return { status: 'failed' }; // never reached the execution layer
        if (out.state === 'done')
          return {
            status: 'done',
            result: {
              ...(out.spent !== undefined ? { spent: out.spent } : {}),
              ...(out.txHash !== undefined ? { txHash: out.txHash } : {}),
            },
          };
        return out.state === 'failed' ? { status: 'failed' } : { status: 'unknown' };
      }
      case 'place_offer':
      case 'replace_offer':
      case 'place_listing':
      case 'replace_listing': {
        const order = o.ledger.byIntent(r.id);
        if (order !== undefined && order.state !== 'failed')
          return { status: 'done', result: { orderHash: order.orderHash } };
        if (order === undefined)
          o.logger?.warn(
            { intentId: r.id, target: intent.target },
            'reconcile: no order recorded for an offer intent; counted as not placed',
          );
        return { status: 'failed' };
      }
      case 'cancel_order': {
        const order = o.ledger.get(intent.orderHash);
        if (order === undefined || !o.ledger.counts(order)) return { status: 'done', result: {} };
        // still counted: the cancel did not make it (the order stays in exposure)
        return { status: 'failed' };
      }
    }
  }
  return {
    async reconcile(r) {
      const out = await settle(r);
      count(`intents_${out.status}`);
      return out;
    },
  };
}

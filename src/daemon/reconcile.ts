// The engine's Reconciler port: at start, before any hook runs or anything new is spent, every
// intent the journal left `sent`/`unknown` is settled from what is known for certain:
// - buys, swaps, mints: the execution layer's own record (already reconciled with the chain —
//   receipts, the nonce ledger — before the engine starts);
// - offers: the order the daemon recorded for that intent (the store writes it right after the
//   API accepted it);
// - cancels: the order's status in the store, else the API's view of the order.
import type { JournalRecord, Reconciler } from '../engine/index.ts';
import type { Executor as ChainExecutor } from '../execution/index.ts';
import type { Logger } from '../observability/index.ts';
import type { Store } from '../store/index.ts';

export interface DaemonReconcilerOptions {
  readonly store: Store;
  readonly execution?: Pick<ChainExecutor, 'status'>;
  /** The API's status of one of our orders (`ACTIVE`, `CANCELLED`, `FILLED`, `EXPIRED`…), or undefined when unknown. */
  readonly orderStatus?: (orderHash: string) => Promise<string | undefined>;
  readonly logger?: Logger;
  /** Counts by outcome, for the status. */
  readonly counts?: Record<string, number>;
}

type Outcome = Awaited<ReturnType<Reconciler['reconcile']>>;

export function createDaemonReconciler(o: DaemonReconcilerOptions): Reconciler {
  const count = (k: string) => {
    if (o.counts) o.counts[k] = (o.counts[k] ?? 0) + 1;
  };
  async function settle(r: JournalRecord): Promise<Outcome> {
    const intent = r.intent;
    switch (intent.kind) {
      case 'buy_listing':
      case 'swap':
      case 'mint': {
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
      case 'replace_offer': {
        const order = o.store.orders.list({}).find((x) => x.intentId === r.id);
        if (order !== undefined) return { status: 'done', result: { orderHash: order.hash as never } };
        o.logger?.warn(
          { intentId: r.id, target: intent.target },
          'reconcile: no order recorded for an offer intent; counted as not placed',
        );
        return { status: 'failed' };
      }
      case 'cancel_order': {
        const local = o.store.orders.get(intent.orderHash.toLowerCase());
        if (local !== undefined && local.status !== 'open') return { status: 'done', result: {} };
        const remote = await o.orderStatus?.(intent.orderHash).catch(() => undefined);
        if (remote !== undefined && remote.toUpperCase() !== 'ACTIVE') {
          if (local !== undefined) o.store.orders.setStatus(local.hash, 'cancelled');
          return { status: 'done', result: {} };
        }
        return remote === undefined ? { status: 'unknown' } : { status: 'failed' };
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

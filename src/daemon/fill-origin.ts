// Who made a fill of the store and how: one answer for the console, the alerts and the run report.
import type { OrderLedger } from '../ledger/index.ts';
import type { FillRecord, IntentRepo } from '../store/index.ts';
import { JOURNAL_KIND_PREFIX } from '../store/intents.ts';

/**
 * A fill's strategy (the intent's that made it, else the order's; `unknown`) and kind: one of our
 * orders taken (`listing_sold`, `offer_filled`), else its intent's execution kind (`buy_listing`,
 * `accept_offer`, `mint`…), else its side.
 */
export function fillOrigin(
  f: FillRecord,
  intents: Pick<IntentRepo, 'get'> | undefined,
  ledger: Pick<OrderLedger, 'get'> | undefined,
): { strategy: string; kind: string } {
  const intent = f.intentId !== undefined ? intents?.get(f.intentId) : undefined;
  const order = f.orderHash !== undefined ? ledger?.get(f.orderHash) : undefined;
  const strategy = intent?.strategy ?? order?.strategyId ?? 'unknown';
  const kind =
    order !== undefined
      ? order.side === 'listing'
        ? 'listing_sold'
        : 'offer_filled'
      : intent !== undefined
        ? intent.kind.replace(JOURNAL_KIND_PREFIX, '')
        : f.side;
  return { strategy, kind };
}

// Offers of ours on the marketplace that the ledger does not know (posted, then the process died
// before it recorded them — or another process of the same wallet): adopted into the ledger, so
// they count from now on, and cancelled through the one offer path until they are really gone.
import type { ApiClient } from '../api/index.ts';
import type { PaymentToken } from '../domain/events.ts';
import type { Address } from '../domain/ids.ts';
import type { OrderLedger } from '../ledger/index.ts';
import type { Logger } from '../observability/index.ts';
import type { OrderDesk } from './orders.ts';

export interface OrphanSweepOptions {
  readonly api: Pick<ApiClient, 'offers'>;
  readonly ledger: OrderLedger;
  readonly desk: Pick<OrderDesk, 'cancel'>;
  readonly wallet: string;
  readonly collections: readonly string[];
  /** The offer token (WETH) of our offers. */
  readonly offerToken: PaymentToken;
  readonly protocolAddress: string;
  readonly now: () => number;
  readonly logger?: Logger;
}

interface WireOffer {
  readonly order_hash?: string;
  readonly status?: string;
  readonly protocol_data?: {
    readonly parameters?: {
      readonly offerer?: string;
      readonly endTime?: string | number;
      readonly offer?: readonly { readonly startAmount?: string }[];
      readonly consideration?: readonly {
        readonly itemType?: number;
        readonly token?: string;
        readonly identifierOrCriteria?: string;
        readonly startAmount?: string;
      }[];
    };
  };
}

export interface OrphanReport {
  readonly adopted: number;
  readonly cancelled: number;
  readonly failed: number;
}

export async function sweepOrphans(o: OrphanSweepOptions): Promise<OrphanReport> {
  let adopted = 0;
  let cancelled = 0;
  let failed = 0;
  const wallet = o.wallet.toLowerCase();
  for (const slug of o.collections) {
    const found: string[] = [];
    try {
      for await (const offer of o.api.offers.iterateAll(slug, {}, { maxPages: 20 })) {
        const w = offer as WireOffer;
        const p = w.protocol_data?.parameters;
        if (p?.offerer?.toLowerCase() !== wallet) continue;
        const hash = w.order_hash?.toLowerCase();
        if (hash === undefined || (w.status !== undefined && w.status !== 'ACTIVE')) continue;
        if (o.ledger.get(hash) !== undefined) continue;
        const total = (p.offer ?? []).reduce((s, i) => s + BigInt(i.startAmount ?? '0'), 0n);
        const nft = p.consideration?.[0];
        const quantity =
          nft?.startAmount !== undefined && BigInt(nft.startAmount) > 0n ? BigInt(nft.startAmount) : 1n;
        const item = nft?.itemType === 2 || nft?.itemType === 3;
        o.ledger.post({
          orderHash: hash,
          intentId: null,
          strategyId: null,
          target: null,
          side: item ? 'item_offer' : 'collection_offer',
          collection: slug,
          contract: nft?.token?.toLowerCase() ?? null,
          tokenId: item ? (nft?.identifierOrCriteria ?? null) : null,
          standard: nft?.itemType === 3 ? 'erc1155' : item ? 'erc721' : null,
          trait: null,
          price: total / quantity,
          paymentToken: o.offerToken,
          quantity,
          expiresAt: p.endTime !== undefined ? Number(p.endTime) * 1000 : o.now() + 3_600_000,
          components: p,
          protocolAddress: o.protocolAddress,
        });
        o.ledger.note(hash, { kind: 'opened' });
        adopted++;
        found.push(hash);
      }
    } catch (err) {
      o.logger?.warn({ err, slug }, 'listing our offers on the marketplace failed; orphan sweep incomplete');
    }
    for (const hash of found)
      try {
        await o.desk.cancel(hash, { intentId: `orphan-${hash.slice(2, 14)}` });
        cancelled++;
      } catch (err) {
        failed++;
        o.logger?.warn({ err, orderHash: hash }, 'cancelling an orphan offer failed: it stays counted');
      }
  }
  return { adopted, cancelled, failed };
}

/** The offer token as a payment token. */
export const offerTokenOf = (address: string): PaymentToken => ({
  address: address.toLowerCase() as Address,
  symbol: 'WETH',
  decimals: 18,
});

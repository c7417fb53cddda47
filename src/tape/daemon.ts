/**
 * The daemon's recorder (config `market.record`): the tape recorder fed from the daemon's own
 * adapters — the collections' fees as the paper executor charges them, the gas price from the RPC,
 * NFT traits from the API (at the lowest read priority), freshness from the stream client.
 */
import type { ApiClient } from '../api/index.ts';
import type { ChainRpc } from '../chain/index.ts';
import type { PaymentToken } from '../domain/events.ts';
import type { Logger } from '../observability/index.ts';
import { Priority } from '../ratelimit/types.ts';
import { createTapeRecorder, type TapeRecorder } from './recorder.ts';

export interface DaemonRecorderOptions {
  readonly path: string;
  readonly chain: string;
  readonly collections: readonly string[];
  readonly paymentTokens: readonly PaymentToken[];
  readonly clock: { now(): number };
  readonly api: Pick<ApiClient, 'nfts'>;
  readonly rpc?: Pick<ChainRpc, 'baseFee' | 'maxPriorityFee'>;
  readonly fees: (slug: string) => Promise<readonly { fee: number; recipient: string; required?: boolean }[]>;
  readonly freshness: (slug: string) => { readonly ageMs: number; readonly stale: boolean } | undefined;
  readonly logger: Logger;
}

export function createDaemonRecorder(o: DaemonRecorderOptions): TapeRecorder {
  const rpc = o.rpc;
  const rec = createTapeRecorder({
    path: o.path,
    source: 'daemon',
    chain: o.chain,
    collections: o.collections,
    paymentTokens: o.paymentTokens,
    clock: o.clock,
    fees: o.fees,
    ...(rpc !== undefined
      ? { gasPrice: async () => (await rpc.baseFee()) + (await rpc.maxPriorityFee()) }
      : {}),
    nftTraits: async (nft) => {
      const res = await o.api.nfts.get(o.chain, nft.contract, String(nft.identifier), {
        priority: Priority.analytics,
      });
      return (res.nft.traits ?? []).map((t) => ({ type: String(t.trait_type), value: String(t.value) }));
    },
    freshness: o.freshness,
    onError: (err, what) => o.logger.warn({ err, what }, 'market recording: a read or a write failed'),
  });
  o.logger.info({ path: o.path }, 'recording the market to a tape');
  return rec;
}

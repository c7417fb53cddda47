/**
 * The daemon's recorder (config `market.record`): the tape recorder fed from the daemon's own
 * adapters — the collections' fees as the paper executor charges them, the gas price from the RPC,
 * NFT traits as the daemon learns them (market/nft-traits.ts), freshness from the stream client,
 * the payment tokens' prices from its prices view, the drops' status from its drops view.
 */
import type { ChainRpc } from '../chain/index.ts';
import type { PaymentToken } from '../domain/events.ts';
import { ConfigError } from '../errors/index.ts';
import type { NftTraits } from '../market/nft-traits.ts';
import type { Logger } from '../observability/index.ts';
import { TapeFormatError } from './format.ts';
import {
  createTapeRecorder,
  type DropReading,
  type TapeRecorder,
  type TokenPriceReading,
} from './recorder.ts';

export interface DaemonRecorderOptions {
  readonly path: string;
  readonly chain: string;
  readonly collections: readonly string[];
  readonly paymentTokens: readonly PaymentToken[];
  readonly clock: { now(): number };
  readonly nftTraits: Pick<NftTraits, 'onLearned'>;
  readonly rpc?: Pick<ChainRpc, 'baseFee' | 'maxPriorityFee'>;
  readonly fees: (slug: string) => Promise<readonly { fee: number; recipient: string; required?: boolean }[]>;
  readonly freshness: (slug: string) => { readonly ageMs: number; readonly stale: boolean } | undefined;
  /** The payment tokens' prices as the daemon's prices view knows them (see TapeRecorderOptions). */
  readonly prices?: () => readonly TokenPriceReading[];
  /** The configured drops' status as the daemon's drops view knows it. */
  readonly drops?: () => readonly DropReading[];
  readonly logger: Logger;
  /** The wallet the daemon trades as, when it trades (strategies): named in a new tape's header. */
  readonly wallet?: string;
}

export function createDaemonRecorder(o: DaemonRecorderOptions): TapeRecorder {
  let rec: TapeRecorder;
  try {
    rec = recorderOf(o);
  } catch (e) {
    // a file that is not a tape, or one damaged before its end: the config points at the wrong file
    if (e instanceof TapeFormatError) throw new ConfigError(`cannot record to ${o.path}: ${e.message}`);
    throw e;
  }
  o.logger.info({ path: o.path }, 'recording the market to a tape');
  return rec;
}

function recorderOf(o: DaemonRecorderOptions): TapeRecorder {
  const rpc = o.rpc;
  return createTapeRecorder({
    path: o.path,
    source: 'daemon',
    chain: o.chain,
    collections: o.collections,
    paymentTokens: o.paymentTokens,
    ...(o.wallet !== undefined ? { meta: { wallet: o.wallet.toLowerCase() } } : {}),
    clock: o.clock,
    fees: o.fees,
    ...(rpc !== undefined
      ? { gasPrice: async () => (await rpc.baseFee()) + (await rpc.maxPriorityFee()) }
      : {}),
    nftTraits: o.nftTraits,
    freshness: o.freshness,
    ...(o.prices !== undefined ? { prices: o.prices } : {}),
    ...(o.drops !== undefined ? { drops: o.drops } : {}),
    onError: (err, what) => o.logger.warn({ err, what }, 'market recording: a read failed'),
    onNotice: (message) => o.logger.warn({ path: o.path }, `market recording: ${message}`),
    // one warning when writing starts failing, a note a minute while it fails, one when it works
    // again: a disk full for hours is not a warning a second. Trading goes on all along.
    onWrite: (s) => {
      const since = new Date(s.since).toISOString();
      const counts = { path: o.path, failures: s.failures, held: s.held, dropped: s.dropped };
      if (s.state === 'failing')
        o.logger.warn(
          { err: s.err, ...counts },
          'market recording: cannot write the tape (disk full, or the file too large?); the records are held in memory and written when it works again; trading goes on',
        );
      else if (s.state === 'still failing')
        o.logger.warn(
          { err: s.err, since, ...counts },
          `market recording: the tape still cannot be written, since ${since}; ${s.held} records held, ${s.dropped} lost`,
        );
      else
        o.logger.warn(
          { since, ...counts },
          `market recording: the tape is written again (it failed from ${since}); ${s.dropped === 0 ? 'no record lost' : `${s.dropped} records lost`}`,
        );
    },
  });
}

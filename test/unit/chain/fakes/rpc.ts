import { getAddress, Transaction } from 'ethers';
import type { BlockTag, CallRequest, ChainRpc, TxReceipt } from '../../../../src/chain/index.ts';
import { RejectedError, TransientError } from '../../../../src/errors/index.ts';

/** What the next eth_sendRawTransaction does. */
export type SendBehavior =
  | 'ok'
  /** Times out and the node never saw it. */
  | 'timeout'
  /** Times out but the node did take it (maybe in a mempool). */
  | 'timeout-accepted'
  | Error;

interface Pending {
  readonly tx: Transaction;
  readonly raw: string;
  /** Sender, recovered once (Transaction.from's getter recovers it on every read). */
  readonly from: string;
}

/**
 * An in-memory chain behind the `ChainRpc` port: accounts' nonces, a mempool with same-nonce
 * replacement (+10% rule), blocks mined on demand (or on every send with `automine`), base fee
 * gating, reverts by target address, and scripted send failures.
 */
export class FakeChain implements ChainRpc {
  readonly chainId: number;
  nodeChain: number;
  automine = false;
  block = 1;
  baseFeeValue = 1_000_000_000n;
  priorityValue = 1_000_000_000n;
  readonly latestNonce = new Map<string, number>();
  readonly mempool = new Map<string, Pending>();
  readonly receipts = new Map<string, TxReceipt>();
  readonly revertTo = new Set<string>();
  /** Every raw transaction given to eth_sendRawTransaction, in order. */
  readonly sendLog: string[] = [];
  readonly sendBehaviors: SendBehavior[] = [];
  onSend: ((raw: string) => void) | undefined;
  estimateError: Error | undefined;

  constructor(chainId = 1) {
    this.chainId = chainId;
    this.nodeChain = chainId;
  }

  async nodeChainId() {
    return this.nodeChain;
  }
  async blockNumber() {
    return this.block;
  }
  async baseFee() {
    return this.baseFeeValue;
  }
  async maxPriorityFee() {
    return this.priorityValue;
  }
  async nonceAt(address: string, tag: BlockTag) {
    const from = getAddress(address);
    let n = this.latestNonce.get(from) ?? 0;
    if (tag === 'pending') {
      const mine = new Set([...this.mempool.values()].filter((p) => p.from === from).map((p) => p.tx.nonce));
      while (mine.has(n)) n++;
    }
    return n;
  }
  async balance() {
    return 10n ** 24n;
  }
  async estimateGas(_req: CallRequest) {
    if (this.estimateError) throw this.estimateError;
    return 50_000n;
  }
  async call() {
    return '0x';
  }
  async request(): Promise<unknown> {
    return null;
  }
  destroy() {}

  async sendRawTransaction(raw: string): Promise<string> {
    this.sendLog.push(raw);
    this.onSend?.(raw);
    const behavior = this.sendBehaviors.shift() ?? 'ok';
    if (behavior instanceof Error) throw behavior;
    if (behavior === 'timeout') {
      throw new TransientError('rpc_timeout', 'eth_sendRawTransaction got no answer', {
        maybeProcessed: true,
      });
    }
    const tx = Transaction.from(raw);
    const hash = tx.hash as string;
    const from = tx.from as string;
    if (this.receipts.has(hash)) return hash;
    const latest = this.latestNonce.get(from) ?? 0;
    if (tx.nonce < latest) throw new RejectedError('nonce_too_low', 'nonce too low');
    for (const [h, p] of this.mempool) {
      if (p.from !== from || p.tx.nonce !== tx.nonce) continue;
      if (h === hash) return hash;
      const minFee = ((p.tx.maxFeePerGas ?? 0n) * 110n) / 100n;
      const minTip = ((p.tx.maxPriorityFeePerGas ?? 0n) * 110n) / 100n;
      if ((tx.maxFeePerGas ?? 0n) < minFee || (tx.maxPriorityFeePerGas ?? 0n) < minTip) {
        throw new RejectedError('replacement_underpriced', 'replacement transaction underpriced');
      }
      this.mempool.delete(h);
    }
    this.mempool.set(hash, { tx, raw, from });
    if (this.automine) this.mine();
    if (behavior === 'timeout-accepted') {
      throw new TransientError('rpc_timeout', 'eth_sendRawTransaction got no answer', {
        maybeProcessed: true,
      });
    }
    return hash;
  }

  async receipt(hash: string) {
    return this.receipts.get(hash) ?? null;
  }

  /** Mines one block: every sender's next-nonce transactions that pay the base fee, in nonce order. */
  mine(): string[] {
    this.block++;
    const included: string[] = [];
    for (let progress = true; progress; ) {
      progress = false;
      for (const [hash, p] of this.mempool) {
        const from = p.from;
        if (p.tx.nonce !== (this.latestNonce.get(from) ?? 0)) continue;
        if ((p.tx.maxFeePerGas ?? 0n) < this.baseFeeValue) continue;
        this.mempool.delete(hash);
        this.latestNonce.set(from, p.tx.nonce + 1);
        const to = p.tx.to ?? undefined;
        this.receipts.set(hash, {
          hash,
          blockNumber: this.block,
          blockHash: `0x${this.block.toString(16).padStart(64, '0')}`,
          status: to && this.revertTo.has(to.toLowerCase()) ? 0 : 1,
          from,
          ...(to ? { to } : {}),
          gasUsed: 21_000n,
          effectiveGasPrice: this.baseFeeValue,
          logs: [],
        });
        included.push(hash);
        progress = true;
      }
    }
    return included;
  }

  /** A transaction of this wallet that is not ours takes the next nonce. */
  external(from: string): void {
    const a = getAddress(from);
    this.latestNonce.set(a, (this.latestNonce.get(a) ?? 0) + 1);
    this.block++;
  }
}

/** A fake monotonic clock and a sleep that advances it (and runs a hook, e.g. to mine). */
export function fakeTime(onSleep?: (ms: number) => void) {
  const clock = { t: 0, now: () => clock.t };
  const sleep = async (ms: number) => {
    clock.t += ms;
    onSleep?.(ms);
    await Promise.resolve();
  };
  return { clock, sleep };
}

/**
 * Fakes for the executor's unit tests: a transaction sender that journals into the real store
 * (raw transactions really signed) and settles on command, and an API with canned answers.
 */
import { readFileSync } from 'node:fs';
import { keccak256 } from 'ethers';
import type {
  ReconcileReport,
  SendResult,
  Submitted,
  TxRequest,
  TxSender,
} from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { RejectedError, TransientError } from '../../../src/errors/index.ts';
import type { ExecutionApi } from '../../../src/execution/index.ts';
import { createFastTxSigner } from '../../../src/execution/tx-signer.ts';
import { fromJson, type Store } from '../../../src/store/index.ts';

/** Anvil dev account #2 (test mnemonic): the wallet of the recorded sandbox responses. */
export const KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

export interface RecordedCase {
  readonly name: string;
  readonly kind: string;
  readonly intent: Record<string, unknown> & { nft?: { contract: string; identifier: bigint } };
  readonly response: unknown;
}
export interface Recorded {
  readonly options: {
    chainId: number;
    wallets: string[];
    seaport: string[];
    conduitKeys: string[];
    feeRecipients: string[];
    routers: string[];
    weth: string;
    drops: string[];
  };
  readonly cases: RecordedCase[];
}

export function recorded(): Recorded {
  const text = readFileSync(new URL('../../fixtures/guard/sandbox-responses.json', import.meta.url), 'utf8');
  return fromJson(text) as Recorded;
}

export type Outcome = 'mined' | 'reverted' | 'pending' | 'refused';

/**
 * A sender over the real store: `submit` signs and journals (intent + raw tx, `sent`), `wait`
 * settles by `outcome` (mined, reverted, pending → TransientError tx_pending, refused at submit).
 */
export class FakeSender implements TxSender {
  readonly address: string;
  readonly chainId: number;
  outcome: Outcome = 'mined';
  reconciled = false;
  readonly submits: string[] = [];
  /** The calldata of each submitted transaction, in order. */
  readonly calldata: string[] = [];
  private nonce = 0;
  private block = 100;
  private readonly signer = createFastTxSigner(new Secret(KEY));

  constructor(
    private readonly store: Store,
    chainId: number,
  ) {
    this.address = this.signer.address;
    this.chainId = chainId;
  }

  async reconcile(): Promise<ReconcileReport> {
    this.reconciled = true;
    return {
      chainLatestNonce: this.nonce,
      chainPendingNonce: this.nonce,
      ledgerBefore: undefined,
      ledgerAfter: this.nonce,
      settled: [],
      consumed: [],
      rebroadcast: [],
      pending: [],
    };
  }

  async submit(intentId: string, req: TxRequest): Promise<Submitted> {
    if (!this.reconciled) throw new Error('not reconciled');
    const prior = this.store.transactions.byIntent(intentId)[0];
    if (prior) return { hash: prior.hash, nonce: prior.nonce, state: 'sent' };
    this.submits.push(intentId);
    this.calldata.push(req.data ?? '0x');
    if (this.outcome === 'refused') throw new RejectedError('insufficient_funds', 'insufficient funds');
    const raw = await this.signer.signTransaction({
      chainId: this.chainId,
      nonce: this.nonce,
      to: req.to,
      ...(req.data !== undefined ? { data: req.data } : {}),
      ...(req.value !== undefined ? { value: req.value } : {}),
      gasLimit: req.gasLimit ?? 300_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const hash = keccak256(raw);
    const nonce = this.nonce++;
    this.store.transaction(() => {
      this.store.intents.create({
        id: intentId,
        strategy: 'system',
        kind: 'tx',
        targetKey: `tx:${intentId}`,
        payload: {},
      });
      this.store.transactions.insert({
        hash,
        intentId,
        wallet: this.address.toLowerCase(),
        chainId: this.chainId,
        nonce,
        raw,
        state: 'sent',
        to: req.to,
        value: req.value ?? 0n,
        gasLimit: req.gasLimit ?? 300_000n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
    });
    return { hash, nonce, state: 'sent' };
  }

  async wait(intentId: string): Promise<SendResult> {
    const tx = this.store.transactions.byIntent(intentId)[0];
    if (!tx) throw new RejectedError('tx_not_live', 'no transaction');
    if (tx.state === 'mined' || tx.state === 'failed')
      return this.result(tx.hash, tx.nonce, tx.state === 'mined');
    if (this.outcome === 'pending') {
      throw new TransientError('tx_pending', 'no receipt yet', { maybeProcessed: true });
    }
    const ok = this.outcome !== 'reverted';
    const block = ++this.block;
    this.store.transaction(() => {
      this.store.transactions.markIncluded(tx.hash, ok ? 'mined' : 'failed', {
        blockNumber: block,
        blockHash: `0x${block.toString(16).padStart(64, '0')}`,
        gasUsed: 100_000n,
        effectiveGasPrice: 1_500_000_000n,
      });
      this.store.intents.setState(intentId, ok ? 'done' : 'failed', ok ? undefined : 'reverted');
    });
    return this.result(tx.hash, tx.nonce, ok);
  }

  async send(intentId: string, req: TxRequest): Promise<SendResult> {
    await this.submit(intentId, req);
    return this.wait(intentId);
  }

  nextNonce(): number {
    return this.nonce;
  }

  private result(hash: string, nonce: number, ok: boolean): SendResult {
    const t = this.store.transactions.get(hash);
    return {
      hash,
      nonce,
      status: ok ? 'success' : 'reverted',
      receipt: {
        hash,
        blockNumber: t?.blockNumber ?? 0,
        blockHash: t?.blockHash ?? '',
        status: ok ? 1 : 0,
        from: this.address,
        gasUsed: 100_000n,
        effectiveGasPrice: 1_500_000_000n,
        logs: [],
      },
    };
  }
}

/** An API with canned answers; `fail` makes the next call of a group throw. */
export function fakeApi(answers: { listing?: unknown; offer?: unknown; quote?: unknown; mint?: unknown }) {
  const calls: string[] = [];
  const state: { fail?: Error } = {};
  const answer = (what: string, v: unknown) => {
    calls.push(what);
    if (state.fail) {
      const e = state.fail;
      delete state.fail;
      return Promise.reject(e);
    }
    return Promise.resolve(v as never);
  };
  const api: ExecutionApi = {
    listings: { fulfillmentData: () => answer('listing', answers.listing) },
    offers: { fulfillmentData: () => answer('offer', answers.offer) },
    swap: { quote: () => answer('quote', answers.quote) },
    drops: { mint: () => answer('mint', answers.mint) },
  };
  return { api, calls, state };
}

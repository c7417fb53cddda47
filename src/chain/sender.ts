import { performance } from 'node:perf_hooks';
import { keccak256, Transaction } from 'ethers';
import { FatalError, isBaseError, RejectedError, TransientError } from '../errors/index.ts';
import { type Logger, silentLogger } from '../observability/index.ts';
import type { IntentState, Store, TxRecord } from '../store/index.ts';
import {
  bumpFees,
  chooseFees,
  DEFAULT_REPLACEMENT,
  type FeeCaps,
  type Fees,
  type ReplacementPolicy,
} from './fees.ts';
import { type ChainRpc, type TxReceipt, verifyChain } from './rpc.ts';
import type { Signer } from './signer.ts';

/** What a caller wants sent. Fees and gas limit are optional (chosen within the caps when absent). */
export interface TxRequest {
  readonly to: string;
  readonly data?: string;
  readonly value?: bigint;
  readonly gasLimit?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
}

export interface Submitted {
  readonly hash: string;
  readonly nonce: number;
  /** `sent`: a node accepted it; `unknown`: the broadcast timed out (maybe in a mempool); `mined`/`failed`: already settled. */
  readonly state: 'sent' | 'unknown' | 'mined' | 'failed';
}

/**
 * A transaction signed ahead (see `TxSender.prepare`): nonce assigned, signed, nothing written,
 * nothing broadcast. The wallet's sender is held until `commit`, `release` or the hold timeout.
 */
export interface PreparedTx {
  readonly hash: string;
  readonly nonce: number;
  /** The gas limit the prepared bytes carry (the request's, i.e. the caller's ceiling). */
  readonly gasLimit: bigint;
  /**
   * Write-ahead (fsynced) and broadcast. With `gasLimit` above the prepared one the transaction is
   * signed again with it (same nonce, same fees); otherwise the prepared bytes go out. After the
   * hold timed out, falls back to `submit` (signed afresh). After `release`, refused.
   */
  commit(options?: { readonly gasLimit?: bigint }): Promise<Submitted>;
  /** Nothing is sent: the nonce goes back (nothing was persisted, so no gap) and the sender is free. */
  release(): void;
}

export interface SendResult {
  readonly hash: string;
  readonly nonce: number;
  readonly status: 'success' | 'reverted';
  readonly receipt: TxReceipt;
}

export interface ReconcileReport {
  readonly chainLatestNonce: number;
  readonly chainPendingNonce: number;
  readonly ledgerBefore: number | undefined;
  readonly ledgerAfter: number;
  /** Intents whose transaction was found included (mined or reverted). */
  readonly settled: readonly string[];
  /** Intents whose nonce was consumed by a transaction that is not theirs. */
  readonly consumed: readonly string[];
  /** Intents whose same raw transaction was broadcast again. */
  readonly rebroadcast: readonly string[];
  /** Intents still waiting for a receipt or confirmations. */
  readonly pending: readonly string[];
  /** With `wait: true`: how each pending intent ended. */
  readonly waited?: ReadonlyArray<{ intentId: string; result?: SendResult; error?: string }>;
}

export interface TxSender {
  readonly address: string;
  readonly chainId: number;
  /**
   * Start-up step, required before any new transaction: checks the chain id, resolves every
   * signed/sent/unknown transaction in the store against the chain (receipt, nonce), re-sends the
   * same raw transaction when its nonce is still free, and sets the nonce ledger to the chain.
   */
  reconcile(options?: { readonly wait?: boolean }): Promise<ReconcileReport>;
  /**
   * Signs and broadcasts the transaction of `intentId` (written to the store first), or — if the
   * intent already has one — re-sends that same raw transaction. Returns once broadcast.
   */
  submit(intentId: string, req: TxRequest): Promise<Submitted>;
  /**
   * Signs the transaction of `intentId` ahead of the decision to send it (e.g. while the
   * simulation is in flight): the nonce is assigned in the serialized sender, fees come from the
   * fee cache, the gas limit is `req.gasLimit` (estimated when absent); nothing is persisted or
   * broadcast. The sender stays held (no other transaction of this wallet is signed) until the
   * handle's `commit` or `release`, or `prepareHoldMs`, whichever comes first. An intent that
   * already has a transaction gets a handle whose commit is `submit` (the same raw bytes again).
   * Optional in the interface (other senders may not sign ahead); `createTxSender` has it.
   */
  prepare?(intentId: string, req: TxRequest): Promise<PreparedTx>;
  /** Waits for the intent's transaction to reach the configured confirmations, replacing it if stuck. */
  wait(intentId: string): Promise<SendResult>;
  /** submit + wait. */
  send(intentId: string, req: TxRequest): Promise<SendResult>;
  /** The next nonce the ledger will assign (undefined before reconcile). */
  nextNonce(): number | undefined;
}

export interface TxSenderOptions {
  readonly signer: Signer;
  readonly rpc: ChainRpc;
  readonly store: Store;
  readonly feeCaps: FeeCaps;
  /** Blocks on top of (and including) the receipt's block before a result counts; default 1. */
  readonly confirmations?: number;
  readonly replacement?: Partial<ReplacementPolicy>;
  /** Receipt polling interval; default 1,000 ms. */
  readonly pollIntervalMs?: number;
  /** Re-send the same raw transaction when no receipt arrived this long after the last broadcast; default 12,000 ms. */
  readonly rebroadcastAfterMs?: number;
  /** `wait` gives up (TransientError `tx_pending`, state kept) after this long; default 180,000 ms. */
  readonly receiptTimeoutMs?: number;
  /**
   * Reuse the base fee and priority-fee suggestion this long (ms) instead of asking the node for
   * every transaction (the snipe path saves two round trips); default 0 (always ask).
   */
  readonly feeCacheMs?: number;
  /** Margin added to eth_estimateGas, basis points; default 2,000 (+20%). */
  readonly gasMarginBps?: number;
  /**
   * A prepared transaction (`prepare`) holds the sender at most this long (ms) before it is
   * released on its own, so a lost handle cannot wedge the wallet; default 15,000.
   */
  readonly prepareHoldMs?: number;
  /** Monotonic milliseconds. */
  readonly clock?: { now(): number };
  readonly sleep?: (ms: number) => Promise<void>;
  readonly logger?: Logger;
}

/** What a broadcast needs of a journaled transaction. */
type Journaled = Pick<TxRecord, 'hash' | 'raw' | 'intentId' | 'nonce'>;

const LIVE = new Set(['signed', 'sent', 'unknown']);
const isLive = (t: TxRecord) => LIVE.has(t.state);
const isIncluded = (t: TxRecord) =>
  t.state === 'mined' || (t.state === 'failed' && t.blockNumber !== undefined);

function errorCode(e: unknown): string {
  return isBaseError(e) ? e.code : 'error';
}

/**
 * The serialized transaction sender of one wallet on one chain (see DESIGN "Chain and signing").
 *
 * Write-ahead: the nonce, the raw signed transaction and its hash are committed to the store
 * before `eth_sendRawTransaction`. Every retry re-sends those same bytes. A broadcast timeout is
 * `unknown` (maybe in a mempool), never `failed`. Nonces are assigned one at a time; a transaction
 * refused by the node before it could spread gives its nonce back, so failures leave no gaps.
 */
export function createTxSender(options: TxSenderOptions): TxSender & Required<Pick<TxSender, 'prepare'>> {
  const { signer, rpc, store, feeCaps } = options;
  const address = signer.address;
  const wallet = address.toLowerCase();
  const chainId = rpc.chainId;
  const confirmations = Math.max(1, options.confirmations ?? 1);
  const policy: ReplacementPolicy = { ...DEFAULT_REPLACEMENT, ...(options.replacement ?? {}) };
  const pollMs = options.pollIntervalMs ?? 1_000;
  const rebroadcastMs = options.rebroadcastAfterMs ?? 12_000;
  const receiptTimeoutMs = options.receiptTimeoutMs ?? 180_000;
  const gasMarginBps = BigInt(options.gasMarginBps ?? 2_000);
  const feeCacheMs = options.feeCacheMs ?? 0;
  const prepareHoldMs = options.prepareHoldMs ?? 15_000;
  let feeCache: { at: number; baseFee: bigint; priority: bigint } | undefined;
  const clock = options.clock ?? { now: () => performance.now() };
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const log = (options.logger ?? silentLogger()).child({ component: 'tx-sender', wallet: address, chainId });
  let reconciled = false;

  // One assignment at a time: nonce choice, signing, the write-ahead record and the broadcast.
  let tail: Promise<unknown> = Promise.resolve();
  function serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  }

  function setIntent(intentId: string, state: IntentState, error?: string): void {
    const cur = store.intents.get(intentId);
    if (!cur) return;
    if ((cur.state === 'done' || cur.state === 'failed') && (state === 'sent' || state === 'unknown')) return;
    store.intents.setState(intentId, state, error);
  }

  /** Broadcasts a recorded transaction and records the outcome. Never throws for timeouts. */
  async function broadcast(tx: Journaled): Promise<'sent' | 'unknown' | RejectedError> {
    try {
      await rpc.sendRawTransaction(tx.raw);
      // Not fsynced: the write-ahead record is; after a power loss reconcile finds the transaction again.
      store.transaction(
        () => {
          store.transactions.markSent(tx.hash);
          setIntent(tx.intentId, 'sent');
        },
        { durable: false },
      );
      log.info({ intentId: tx.intentId, hash: tx.hash, nonce: tx.nonce }, 'transaction broadcast');
      return 'sent';
    } catch (e) {
      if (e instanceof TransientError) {
        store.transaction(() => {
          store.transactions.markUnknown(tx.hash, e.code);
          setIntent(tx.intentId, 'unknown', e.code);
        });
        log.warn(
          { intentId: tx.intentId, hash: tx.hash, nonce: tx.nonce, code: e.code },
          'broadcast outcome unknown; the same raw transaction will be re-sent',
        );
        return 'unknown';
      }
      if (e instanceof RejectedError) return e;
      throw e;
    }
  }

  async function chainPendingNonce(): Promise<number> {
    const [latest, pending] = await Promise.all([
      rpc.nonceAt(address, 'latest'),
      rpc.nonceAt(address, 'pending'),
    ]);
    return Math.max(latest, pending);
  }

  async function marketFees(needPriority: boolean): Promise<{ baseFee: bigint; priority: bigint }> {
    const now = clock.now();
    if (feeCache && feeCacheMs > 0 && now - feeCache.at < feeCacheMs) return feeCache;
    const [baseFee, priority] = await Promise.all([
      rpc.baseFee(),
      needPriority || feeCacheMs > 0 ? rpc.maxPriorityFee() : Promise.resolve(0n),
    ]);
    if (feeCacheMs > 0) feeCache = { at: now, baseFee, priority };
    return { baseFee, priority };
  }

  async function decideFees(req: TxRequest): Promise<Fees> {
    const requested = {
      ...(req.maxFeePerGas !== undefined ? { maxFeePerGas: req.maxFeePerGas } : {}),
      ...(req.maxPriorityFeePerGas !== undefined ? { maxPriorityFeePerGas: req.maxPriorityFeePerGas } : {}),
    };
    const market = await marketFees(req.maxPriorityFeePerGas === undefined);
    const suggested = req.maxPriorityFeePerGas ?? market.priority;
    return chooseFees({ baseFee: market.baseFee, suggestedPriority: suggested, requested }, feeCaps);
  }

  async function decideGas(req: TxRequest): Promise<bigint> {
    if (req.gasLimit !== undefined) return req.gasLimit;
    let est: bigint;
    try {
      est = await rpc.estimateGas({
        from: address,
        to: req.to,
        ...(req.data !== undefined ? { data: req.data } : {}),
        ...(req.value !== undefined ? { value: req.value } : {}),
      });
    } catch (e) {
      if (e instanceof RejectedError) {
        throw new RejectedError('estimate_failed', 'the transaction would revert (gas estimation failed)', {
          details: { reason: e.details.reason ?? e.shortMessage },
        });
      }
      throw e;
    }
    return (est * (10_000n + gasMarginBps)) / 10_000n;
  }

  /** True when the intent row was written now (a new intent is `pending`). */
  function ensureIntent(intentId: string, req: TxRequest): boolean {
    return store.intents.create({
      id: intentId,
      strategy: 'system',
      kind: 'tx',
      targetKey: `tx:${intentId}`,
      payload: { to: req.to, value: req.value ?? 0n },
    });
  }

  interface SignedTx {
    readonly raw: string;
    readonly hash: string;
    readonly nonce: number;
    readonly to: string;
    readonly data: string;
    readonly value: bigint;
    readonly gasLimit: bigint;
    readonly fees: Fees;
  }

  async function signTx(
    nonce: number,
    fields: { to: string; data: string; value: bigint; gasLimit: bigint; fees: Fees },
  ): Promise<SignedTx> {
    const raw = await signer.signTransaction({
      chainId,
      nonce,
      to: fields.to,
      data: fields.data,
      value: fields.value,
      gasLimit: fields.gasLimit,
      maxFeePerGas: fields.fees.maxFeePerGas,
      maxPriorityFeePerGas: fields.fees.maxPriorityFeePerGas,
    });
    return { raw, hash: keccak256(raw), nonce, ...fields };
  }

  /** The write-ahead commit (fsynced): intent, raw transaction and nonce, before any broadcast. */
  function record(
    intentId: string,
    signed: SignedTx,
    extra: {
      replaces?: string;
      /** For a first transaction: the request, to record a minimal intent if the caller wrote none. */
      request?: TxRequest;
    },
  ): Journaled {
    const { hash, nonce, fees } = signed;
    store.transaction(() => {
      // a retry of an intent whose earlier transaction the node refused is in flight again
      if (
        extra.request !== undefined &&
        !ensureIntent(intentId, extra.request) &&
        store.intents.get(intentId)?.state === 'failed'
      ) {
        store.intents.setState(intentId, 'pending');
      }
      store.transactions.insert({
        hash,
        intentId,
        wallet,
        chainId,
        nonce,
        raw: signed.raw,
        state: 'signed',
        to: signed.to,
        value: signed.value,
        gasLimit: signed.gasLimit,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        ...(extra.replaces !== undefined ? { replaces: extra.replaces } : {}),
      });
      if (extra.replaces === undefined) {
        const next = store.nonces.get(wallet, chainId) ?? 0;
        if (nonce + 1 > next) store.nonces.set(wallet, chainId, nonce + 1);
      }
    });
    // (not read back: the fsynced insert either committed or threw)
    return { hash, raw: signed.raw, intentId, nonce };
  }

  async function signAndRecord(
    intentId: string,
    nonce: number,
    fields: {
      to: string;
      data: string;
      value: bigint;
      gasLimit: bigint;
      fees: Fees;
      replaces?: string;
      request?: TxRequest;
    },
  ): Promise<Journaled> {
    const { replaces, request, ...tx } = fields;
    const signed = await signTx(nonce, tx);
    return record(intentId, signed, {
      ...(replaces !== undefined ? { replaces } : {}),
      ...(request !== undefined ? { request } : {}),
    });
  }

  function ledgerNonce(): number {
    const nonce = store.nonces.get(wallet, chainId);
    if (nonce === undefined)
      throw new FatalError('nonce_ledger_empty', 'the nonce ledger was not reconciled');
    return nonce;
  }

  /**
   * The first transaction of an intent: sign (or take the prepared bytes while they still fit:
   * same nonce, gas limit at least `needGas`), write ahead, broadcast.
   */
  async function submitNew(
    intentId: string,
    req: TxRequest,
    pre?: { readonly signed: SignedTx; readonly needGas?: bigint },
  ): Promise<Submitted> {
    let fees: Fees;
    let gasLimit: bigint;
    if (pre) {
      fees = pre.signed.fees;
      gasLimit =
        pre.needGas !== undefined && pre.needGas > pre.signed.gasLimit ? pre.needGas : pre.signed.gasLimit;
    } else {
      [fees, gasLimit] = await Promise.all([decideFees(req), decideGas(req)]);
    }
    for (let attempt = 0; ; attempt++) {
      const nonce = ledgerNonce();
      const reuse =
        pre !== undefined && attempt === 0 && pre.signed.nonce === nonce && pre.signed.gasLimit === gasLimit;
      if (pre && attempt === 0 && !reuse) {
        log.debug(
          { intentId, nonce, prepared: pre.signed.gasLimit.toString(), gasLimit: gasLimit.toString() },
          'prepared transaction signed again',
        );
      }
      const signed = reuse
        ? pre.signed
        : await signTx(nonce, {
            to: req.to,
            data: req.data ?? '0x',
            value: req.value ?? 0n,
            gasLimit,
            fees,
          });
      const tx = record(intentId, signed, { request: req });
      const outcome = await broadcast(tx);
      if (outcome === 'sent' || outcome === 'unknown') return { hash: tx.hash, nonce, state: outcome };
      // Refused before it could spread: the nonce goes back to the ledger (no gap).
      const chainNext = outcome.code === 'nonce_too_low' ? await chainPendingNonce() : undefined;
      store.transaction(() => {
        store.transactions.markFailed(tx.hash, outcome.code);
        if (chainNext !== undefined) {
          store.nonces.set(wallet, chainId, Math.max(chainNext, nonce + 1));
        } else if (store.nonces.get(wallet, chainId) === nonce + 1) {
          store.nonces.set(wallet, chainId, nonce);
        }
        if (chainNext === undefined || attempt > 0) setIntent(intentId, 'failed', outcome.code);
      });
      log.warn({ intentId, hash: tx.hash, nonce, code: outcome.code }, 'node refused the transaction');
      if (chainNext !== undefined && attempt === 0) continue; // the ledger was behind the chain: once more
      throw outcome;
    }
  }

  /** The intent's transaction so far: included, live (newest), or none. Throws for a done intent without one. */
  function priorOf(intentId: string): { settled?: TxRecord; live?: TxRecord } {
    const prior = store.transactions.byIntent(intentId);
    const settled = prior.find(isIncluded);
    if (settled) return { settled };
    const live = prior.filter(isLive);
    const newest = live[live.length - 1];
    if (newest) return { live: newest };
    if (store.intents.get(intentId)?.state === 'done') {
      throw new RejectedError('intent_settled', `intent ${intentId} is already done`);
    }
    return {};
  }

  function requireReconciled(): void {
    if (!reconciled) {
      throw new FatalError('not_reconciled', 'reconcile() must finish before the sender sends anything');
    }
  }

  async function submit(intentId: string, req: TxRequest): Promise<Submitted> {
    requireReconciled();
    return serialized(async () => {
      const { settled, live: newest } = priorOf(intentId);
      if (settled)
        return { hash: settled.hash, nonce: settled.nonce, state: settled.state as 'mined' | 'failed' };
      if (newest) {
        // Never a second transaction for one intent: the same raw bytes go out again.
        const outcome = await broadcast(newest);
        return { hash: newest.hash, nonce: newest.nonce, state: outcome === 'unknown' ? 'unknown' : 'sent' };
      }
      return submitNew(intentId, req);
    });
  }

  type Decision =
    | { kind: 'commit'; needGas?: bigint; resolve: (s: Submitted) => void; reject: (e: unknown) => void }
    | { kind: 'release' }
    | { kind: 'timeout' };

  async function prepare(intentId: string, req: TxRequest): Promise<PreparedTx> {
    requireReconciled();
    return new Promise<PreparedTx>((handOut, refuse) => {
      let handed = false;
      void serialized(async () => {
        try {
          const { settled, live } = priorOf(intentId);
          const existing = settled ?? live;
          if (existing) {
            // nothing to sign: commit is submit (returns or re-sends what the journal holds)
            handed = true;
            handOut({
              hash: existing.hash,
              nonce: existing.nonce,
              gasLimit: existing.gasLimit,
              commit: () => submit(intentId, req),
              release: () => {},
            });
            return;
          }
          const [fees, gasLimit] = await Promise.all([decideFees(req), decideGas(req)]);
          const signed = await signTx(ledgerNonce(), {
            to: req.to,
            data: req.data ?? '0x',
            value: req.value ?? 0n,
            gasLimit,
            fees,
          });
          let decide: (d: Decision) => void = () => {};
          const decision = new Promise<Decision>((r) => {
            decide = r;
          });
          let state: 'held' | 'committing' | 'released' | 'expired' = 'held';
          const timer = setTimeout(() => decide({ kind: 'timeout' }), prepareHoldMs);
          timer.unref?.();
          handed = true;
          handOut({
            hash: signed.hash,
            nonce: signed.nonce,
            gasLimit,
            commit(opts = {}) {
              if (state === 'held') {
                state = 'committing';
                clearTimeout(timer);
                return new Promise<Submitted>((resolve, reject) =>
                  decide({
                    kind: 'commit',
                    ...(opts.gasLimit !== undefined ? { needGas: opts.gasLimit } : {}),
                    resolve,
                    reject,
                  }),
                );
              }
              if (state === 'expired') {
                const need =
                  opts.gasLimit !== undefined && opts.gasLimit > gasLimit ? opts.gasLimit : gasLimit;
                return submit(intentId, { ...req, gasLimit: need });
              }
              return Promise.reject(
                new RejectedError(
                  'prepared_released',
                  `the prepared transaction of ${intentId} was released`,
                ),
              );
            },
            release() {
              if (state !== 'held') return;
              state = 'released';
              clearTimeout(timer);
              decide({ kind: 'release' });
            },
          });
          const d = await decision;
          if (d.kind === 'commit') {
            try {
              d.resolve(
                await submitNew(intentId, req, {
                  signed,
                  ...(d.needGas !== undefined ? { needGas: d.needGas } : {}),
                }),
              );
            } catch (e) {
              d.reject(e);
            }
          } else if (d.kind === 'timeout') {
            state = 'expired';
            log.warn(
              { intentId, nonce: signed.nonce, holdMs: prepareHoldMs },
              'prepared transaction neither committed nor released in time: released',
            );
          }
        } catch (e) {
          if (!handed) refuse(e);
          else log.error({ intentId, code: errorCode(e) }, 'prepared transaction: unexpected error');
        }
      });
    });
  }

  async function receiptFor(tx: TxRecord): Promise<TxReceipt> {
    const r = await rpc.receipt(tx.hash);
    if (r) return r;
    return {
      hash: tx.hash,
      blockNumber: tx.blockNumber ?? 0,
      blockHash: tx.blockHash ?? '',
      status: tx.state === 'mined' ? 1 : 0,
      from: address,
      ...(tx.to !== undefined ? { to: tx.to } : {}),
      gasUsed: tx.gasUsed ?? 0n,
      effectiveGasPrice: tx.effectiveGasPrice ?? 0n,
      logs: [],
    };
  }

  function finalize(intentId: string, nonce: number, winner: TxRecord, r: TxReceipt): SendResult {
    const state = r.status === 1 ? 'mined' : 'failed';
    store.transaction(() => {
      store.transactions.markIncluded(winner.hash, state, {
        blockNumber: r.blockNumber,
        blockHash: r.blockHash,
        gasUsed: r.gasUsed,
        effectiveGasPrice: r.effectiveGasPrice,
      });
      for (const other of store.transactions.byNonce(wallet, chainId, nonce)) {
        if (other.hash !== winner.hash && isLive(other)) store.transactions.markReplaced(other.hash);
      }
      setIntent(intentId, r.status === 1 ? 'done' : 'failed', r.status === 1 ? undefined : 'reverted');
    });
    log.info(
      { intentId, hash: winner.hash, nonce, block: r.blockNumber, status: state },
      'transaction included',
    );
    return { hash: winner.hash, nonce, status: r.status === 1 ? 'success' : 'reverted', receipt: r };
  }

  function consumed(intentId: string, live: readonly TxRecord[]): void {
    store.transaction(() => {
      for (const t of live) store.transactions.markReplaced(t.hash, 'nonce consumed by another transaction');
      setIntent(intentId, 'failed', 'nonce_consumed');
    });
    log.error({ intentId, nonce: live[0]?.nonce }, 'nonce consumed by a transaction that is not ours');
  }

  type Probe =
    | { kind: 'included'; tx: TxRecord; receipt: TxReceipt; deep: boolean }
    | { kind: 'consumed' }
    | { kind: 'pending' };

  /**
   * Latest nonce first, receipts second: a receipt that appears in between is still seen. A reorg
   * that drops our transaction between the two reads looks like "nonce consumed by another
   * transaction", so that verdict is only given when a second look agrees.
   */
  async function probe(live: readonly TxRecord[]): Promise<Probe> {
    const first = await probeOnce(live);
    return first.kind === 'consumed' ? probeOnce(live) : first;
  }

  async function probeOnce(live: readonly TxRecord[]): Promise<Probe> {
    const nonce = live[0]?.nonce ?? 0;
    const latest = await rpc.nonceAt(address, 'latest');
    for (const t of [...live].reverse()) {
      const r = await rpc.receipt(t.hash);
      if (r) {
        const head = await rpc.blockNumber();
        return { kind: 'included', tx: t, receipt: r, deep: head - r.blockNumber + 1 >= confirmations };
      }
    }
    return latest > nonce ? { kind: 'consumed' } : { kind: 'pending' };
  }

  async function replace(intentId: string, prev: TxRecord, fees: Fees): Promise<void> {
    await serialized(async () => {
      const decoded = Transaction.from(prev.raw);
      const tx = await signAndRecord(intentId, prev.nonce, {
        to: decoded.to ?? prev.to ?? '',
        data: decoded.data,
        value: decoded.value,
        gasLimit: decoded.gasLimit,
        fees,
        replaces: prev.hash,
      });
      const outcome = await broadcast(tx);
      if (outcome instanceof RejectedError) {
        store.transactions.markFailed(tx.hash, outcome.code);
        log.warn({ intentId, hash: tx.hash, code: outcome.code }, 'replacement refused');
      } else {
        log.info(
          { intentId, replaces: prev.hash, hash: tx.hash, maxFeePerGas: fees.maxFeePerGas.toString() },
          'stuck transaction replaced with higher fees',
        );
      }
    });
  }

  async function wait(intentId: string): Promise<SendResult> {
    const start = clock.now();
    let lastBroadcast = start;
    let lastFeeChange = start;
    let exhaustedLogged = false;
    for (;;) {
      const all = store.transactions.byIntent(intentId);
      const done = all.find(isIncluded);
      if (done) {
        const r = await receiptFor(done);
        return {
          hash: done.hash,
          nonce: done.nonce,
          status: done.state === 'mined' ? 'success' : 'reverted',
          receipt: r,
        };
      }
      const live = all.filter(isLive);
      if (live.length === 0) {
        const last = all[all.length - 1];
        throw new RejectedError('tx_not_live', `intent ${intentId} has no transaction in flight`, {
          details: {
            intentId,
            ...(last ? { hash: last.hash, state: last.state, error: last.error ?? null } : {}),
          },
        });
      }
      const p = await probe(live);
      if (p.kind === 'included' && p.deep) {
        const again = await rpc.receipt(p.tx.hash);
        if (again && again.blockHash === p.receipt.blockHash)
          return finalize(intentId, p.tx.nonce, p.tx, again);
      } else if (p.kind === 'consumed') {
        consumed(intentId, live);
        throw new RejectedError('nonce_consumed', 'another transaction used this nonce', {
          details: { intentId, nonce: live[0]?.nonce ?? null },
        });
      } else if (p.kind === 'pending') {
        const now = clock.now();
        const newest = live[live.length - 1] as TxRecord;
        const bumps = all.filter((t) => t.replaces !== undefined).length;
        if (now - lastFeeChange >= policy.stuckAfterMs && bumps < policy.maxBumps) {
          const fees = bumpFees(newest, policy, feeCaps);
          if (fees) {
            await replace(intentId, newest, fees);
            lastBroadcast = clock.now();
            lastFeeChange = lastBroadcast;
            continue;
          }
          if (!exhaustedLogged) {
            exhaustedLogged = true;
            log.warn(
              { intentId, hash: newest.hash },
              'stuck transaction cannot be bumped within the fee caps',
            );
          }
        }
        if (now - lastBroadcast >= rebroadcastMs) {
          await serialized(() => broadcast(newest));
          lastBroadcast = clock.now();
        }
      }
      if (clock.now() - start >= receiptTimeoutMs) {
        const newest = live[live.length - 1] as TxRecord;
        throw new TransientError(
          'tx_pending',
          `no receipt for intent ${intentId} yet; it stays ${newest.state}`,
          {
            maybeProcessed: true,
            details: { intentId, hash: newest.hash, nonce: newest.nonce },
          },
        );
      }
      await sleep(pollMs);
    }
  }

  async function reconcile(opts: { readonly wait?: boolean } = {}): Promise<ReconcileReport> {
    await verifyChain(rpc);
    return serialized(async () => {
      const ledgerBefore = store.nonces.get(wallet, chainId);
      const latest = await rpc.nonceAt(address, 'latest');
      const pendingNonce = await rpc.nonceAt(address, 'pending');
      const settled: string[] = [];
      const consumedIds: string[] = [];
      const rebroadcast: string[] = [];
      const pending: string[] = [];
      const byIntent = new Map<string, TxRecord[]>();
      for (const t of store.transactions.live(wallet, chainId)) {
        const list = byIntent.get(t.intentId) ?? [];
        list.push(t);
        byIntent.set(t.intentId, list);
      }
      const groups = [...byIntent.entries()].sort((a, b) => (a[1][0]?.nonce ?? 0) - (b[1][0]?.nonce ?? 0));
      for (const [intentId, live] of groups) {
        const p = await probe(live);
        if (p.kind === 'included') {
          if (p.deep) {
            finalize(intentId, p.tx.nonce, p.tx, p.receipt);
            settled.push(intentId);
          } else {
            pending.push(intentId);
          }
          continue;
        }
        if (p.kind === 'consumed') {
          consumed(intentId, live);
          consumedIds.push(intentId);
          continue;
        }
        const newest = [...live].sort((a, b) => (a.maxFeePerGas < b.maxFeePerGas ? -1 : 1))[live.length - 1];
        if (newest) {
          const outcome = await broadcast(newest);
          if (outcome instanceof RejectedError) {
            log.warn({ intentId, hash: newest.hash, code: outcome.code }, 're-send at start refused');
          }
          rebroadcast.push(intentId);
          pending.push(intentId);
        }
      }
      const stillLive = store.transactions.live(wallet, chainId);
      const maxLive = stillLive.reduce((m, t) => Math.max(m, t.nonce + 1), 0);
      const ledgerAfter = Math.max(latest, pendingNonce, maxLive);
      if (ledgerBefore !== ledgerAfter) {
        log.info(
          { ledgerBefore: ledgerBefore ?? null, ledgerAfter, latest, pending: pendingNonce },
          'nonce ledger set',
        );
      }
      if (ledgerBefore !== undefined && ledgerBefore < latest) {
        log.warn(
          { ledgerBefore, latest },
          'the chain has transactions of this wallet the ledger did not assign',
        );
      }
      store.nonces.set(wallet, chainId, ledgerAfter);
      reconciled = true;
      return {
        chainLatestNonce: latest,
        chainPendingNonce: pendingNonce,
        ledgerBefore,
        ledgerAfter,
        settled,
        consumed: consumedIds,
        rebroadcast,
        pending,
      };
    }).then(async (report) => {
      if (!opts.wait) return report;
      const waited: Array<{ intentId: string; result?: SendResult; error?: string }> = [];
      for (const intentId of report.pending) {
        try {
          waited.push({ intentId, result: await wait(intentId) });
        } catch (e) {
          waited.push({ intentId, error: errorCode(e) });
        }
      }
      return { ...report, waited };
    });
  }

  return {
    address,
    chainId,
    reconcile,
    submit,
    prepare,
    wait,
    async send(intentId, req) {
      await submit(intentId, req);
      return wait(intentId);
    },
    nextNonce: () => store.nonces.get(wallet, chainId),
  };
}

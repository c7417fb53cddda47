import { amountFromDb, amountToDb, optionalAmountFromDb } from './amount.ts';
import type { Db } from './open.ts';

export const TX_STATES = ['signed', 'sent', 'unknown', 'mined', 'failed', 'replaced'] as const;
/**
 * - signed:   written before broadcast; may or may not have reached a node.
 * - sent:     a node accepted it.
 * - unknown:  the broadcast timed out or errored ambiguously: maybe in a mempool. Never "failed".
 * - mined:    included with status 1.
 * - failed:   included with status 0 (reverted), or refused by the node before it could spread.
 * - replaced: another transaction with the same nonce was included.
 */
export type TxState = (typeof TX_STATES)[number];
export const LIVE_TX_STATES: readonly TxState[] = Object.freeze(['signed', 'sent', 'unknown']);

export interface TxRecord {
  readonly hash: string;
  readonly intentId: string;
  readonly wallet: string;
  readonly chainId: number;
  readonly nonce: number;
  /** The raw signed transaction: a retry re-sends exactly these bytes. */
  readonly raw: string;
  readonly state: TxState;
  readonly to?: string;
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  /** Hash of the transaction this one replaces (same nonce, higher fees). */
  readonly replaces?: string;
  readonly blockNumber?: number;
  readonly blockHash?: string;
  readonly gasUsed?: bigint;
  readonly effectiveGasPrice?: bigint;
  readonly error?: string;
  readonly createdAt: number;
  readonly sentAt?: number;
  readonly updatedAt: number;
}

export type NewTx = Omit<
  TxRecord,
  | 'createdAt'
  | 'updatedAt'
  | 'sentAt'
  | 'blockNumber'
  | 'blockHash'
  | 'gasUsed'
  | 'effectiveGasPrice'
  | 'error'
>;

export interface TxInclusion {
  readonly blockNumber: number;
  readonly blockHash: string;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
}

export interface TxRepo {
  insert(tx: NewTx): void;
  get(hash: string): TxRecord | undefined;
  /** Every transaction of an intent, oldest first (replacements follow what they replace). */
  byIntent(intentId: string): TxRecord[];
  byNonce(wallet: string, chainId: number, nonce: number): TxRecord[];
  /** signed, sent or unknown transactions, by nonce then age. */
  live(wallet?: string, chainId?: number): TxRecord[];
  /** Highest nonce of any recorded transaction of this wallet on this chain. */
  maxNonce(wallet: string, chainId: number): number | undefined;
  markSent(hash: string): void;
  markUnknown(hash: string, error?: string): void;
  markIncluded(hash: string, state: 'mined' | 'failed', inclusion: TxInclusion): void;
  markFailed(hash: string, error: string): void;
  markReplaced(hash: string, error?: string): void;
}

interface Row {
  hash: string;
  intent_id: string;
  wallet: string;
  chain_id: number;
  nonce: number;
  raw: string;
  state: TxState;
  to_address: string | null;
  value: string;
  gas_limit: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  replaces: string | null;
  block_number: number | null;
  block_hash: string | null;
  gas_used: string | null;
  effective_gas_price: string | null;
  error: string | null;
  created_at: number;
  sent_at: number | null;
  updated_at: number;
}

function fromRow(r: Row): TxRecord {
  const gasUsed = optionalAmountFromDb(r.gas_used, 'gas_used');
  const effectiveGasPrice = optionalAmountFromDb(r.effective_gas_price, 'effective_gas_price');
  return {
    hash: r.hash,
    intentId: r.intent_id,
    wallet: r.wallet,
    chainId: r.chain_id,
    nonce: r.nonce,
    raw: r.raw,
    state: r.state,
    ...(r.to_address === null ? {} : { to: r.to_address }),
    value: amountFromDb(r.value, 'value'),
    gasLimit: amountFromDb(r.gas_limit, 'gas_limit'),
    maxFeePerGas: amountFromDb(r.max_fee_per_gas, 'max_fee_per_gas'),
    maxPriorityFeePerGas: amountFromDb(r.max_priority_fee_per_gas, 'max_priority_fee_per_gas'),
    ...(r.replaces === null ? {} : { replaces: r.replaces }),
    ...(r.block_number === null ? {} : { blockNumber: r.block_number }),
    ...(r.block_hash === null ? {} : { blockHash: r.block_hash }),
    ...(gasUsed === undefined ? {} : { gasUsed }),
    ...(effectiveGasPrice === undefined ? {} : { effectiveGasPrice }),
    ...(r.error === null ? {} : { error: r.error }),
    createdAt: r.created_at,
    ...(r.sent_at === null ? {} : { sentAt: r.sent_at }),
    updatedAt: r.updated_at,
  };
}

export function createTxRepo(db: Db, now: () => number): TxRepo {
  const insertStmt = db.prepare(
    `INSERT INTO transactions (hash, intent_id, wallet, chain_id, nonce, raw, state, to_address, value, gas_limit,
       max_fee_per_gas, max_priority_fee_per_gas, replaces, created_at, updated_at)
     VALUES (@hash, @intentId, @wallet, @chainId, @nonce, @raw, @state, @to, @value, @gasLimit,
       @maxFeePerGas, @maxPriorityFeePerGas, @replaces, @at, @at)`,
  );
  const getStmt = db.prepare<[string], Row>('SELECT * FROM transactions WHERE hash = ?');
  const byIntentStmt = db.prepare<[string], Row>(
    'SELECT * FROM transactions WHERE intent_id = ? ORDER BY created_at, rowid',
  );
  const byNonceStmt = db.prepare<[string, number, number], Row>(
    'SELECT * FROM transactions WHERE wallet = ? AND chain_id = ? AND nonce = ? ORDER BY created_at, rowid',
  );
  const liveAll = db.prepare<[], Row>(
    "SELECT * FROM transactions WHERE state IN ('signed','sent','unknown') ORDER BY nonce, created_at, rowid",
  );
  const liveWallet = db.prepare<[string, number], Row>(
    "SELECT * FROM transactions WHERE wallet = ? AND chain_id = ? AND state IN ('signed','sent','unknown') ORDER BY nonce, created_at, rowid",
  );
  const maxNonceStmt = db.prepare<[string, number], { n: number | null }>(
    'SELECT MAX(nonce) AS n FROM transactions WHERE wallet = ? AND chain_id = ?',
  );
  const setState = db.prepare(
    'UPDATE transactions SET state = ?, error = COALESCE(?, error), updated_at = ? WHERE hash = ?',
  );
  const setSent = db.prepare(
    "UPDATE transactions SET state = 'sent', error = NULL, sent_at = COALESCE(sent_at, ?), updated_at = ? WHERE hash = ?",
  );
  const setIncluded = db.prepare(
    `UPDATE transactions SET state = ?, block_number = ?, block_hash = ?, gas_used = ?, effective_gas_price = ?,
       updated_at = ? WHERE hash = ?`,
  );
  const check = (changes: number, hash: string) => {
    if (changes !== 1) throw new RangeError(`no transaction with hash ${hash}`);
  };
  return {
    insert(tx) {
      insertStmt.run({
        hash: tx.hash,
        intentId: tx.intentId,
        wallet: tx.wallet.toLowerCase(),
        chainId: tx.chainId,
        nonce: tx.nonce,
        raw: tx.raw,
        state: tx.state,
        to: tx.to?.toLowerCase() ?? null,
        value: amountToDb(tx.value),
        gasLimit: amountToDb(tx.gasLimit),
        maxFeePerGas: amountToDb(tx.maxFeePerGas),
        maxPriorityFeePerGas: amountToDb(tx.maxPriorityFeePerGas),
        replaces: tx.replaces ?? null,
        at: now(),
      });
    },
    get(hash) {
      const r = getStmt.get(hash);
      return r ? fromRow(r) : undefined;
    },
    byIntent(intentId) {
      return byIntentStmt.all(intentId).map(fromRow);
    },
    byNonce(wallet, chainId, nonce) {
      return byNonceStmt.all(wallet.toLowerCase(), chainId, nonce).map(fromRow);
    },
    live(wallet, chainId) {
      const rows = wallet === undefined ? liveAll.all() : liveWallet.all(wallet.toLowerCase(), chainId ?? 0);
      return rows.map(fromRow);
    },
    maxNonce(wallet, chainId) {
      return maxNonceStmt.get(wallet.toLowerCase(), chainId)?.n ?? undefined;
    },
    markSent(hash) {
      const t = now();
      check(setSent.run(t, t, hash).changes, hash);
    },
    markUnknown(hash, error) {
      check(setState.run('unknown', error ?? null, now(), hash).changes, hash);
    },
    markIncluded(hash, state, inc) {
      check(
        setIncluded.run(
          state,
          inc.blockNumber,
          inc.blockHash,
          amountToDb(inc.gasUsed),
          amountToDb(inc.effectiveGasPrice),
          now(),
          hash,
        ).changes,
        hash,
      );
    },
    markFailed(hash, error) {
      check(setState.run('failed', error, now(), hash).changes, hash);
    },
    markReplaced(hash, error) {
      check(setState.run('replaced', error ?? null, now(), hash).changes, hash);
    },
  };
}

import type { Db } from './open.ts';

export interface NonceRepo {
  /** Next nonce the ledger would assign for this wallet on this chain, or undefined if never set. */
  get(wallet: string, chainId: number): number | undefined;
  set(wallet: string, chainId: number, nextNonce: number): void;
}

export function createNonceRepo(db: Db, now: () => number): NonceRepo {
  const getStmt = db.prepare<[string, number], { next_nonce: number }>(
    'SELECT next_nonce FROM nonces WHERE wallet = ? AND chain_id = ?',
  );
  const setStmt = db.prepare(
    `INSERT INTO nonces (wallet, chain_id, next_nonce, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (wallet, chain_id) DO UPDATE SET next_nonce = excluded.next_nonce, updated_at = excluded.updated_at`,
  );
  return {
    get(wallet, chainId) {
      return getStmt.get(wallet.toLowerCase(), chainId)?.next_nonce;
    },
    set(wallet, chainId, nextNonce) {
      if (!Number.isSafeInteger(nextNonce) || nextNonce < 0)
        throw new RangeError('nonce must be a non-negative integer');
      setStmt.run(wallet.toLowerCase(), chainId, nextNonce, now());
    },
  };
}

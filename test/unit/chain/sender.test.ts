import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from 'ethers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTxSender, type TxSenderOptions } from '../../../src/chain/index.ts';
import { FatalError, RejectedError, TransientError } from '../../../src/errors/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';
import { FakeChain, fakeTime } from './fakes/rpc.ts';
import { FAKE_ADDRESS, fakeSigner } from './fakes/signer.ts';

const gwei = (n: number) => BigInt(n) * 1_000_000_000n;
const TO = '0x00000000000000000000000000000000000000aa';
const caps = { maxFeePerGas: gwei(100), maxPriorityFeePerGas: gwei(3) };
const wallet = FAKE_ADDRESS.toLowerCase();

let dir: string;
let store: Store;
let chain: FakeChain;
let time: ReturnType<typeof fakeTime>;

function sender(opts: Partial<TxSenderOptions> = {}, s: Store = store): ReturnType<typeof createTxSender> {
  return createTxSender({
    signer: fakeSigner(),
    rpc: chain,
    store: s,
    feeCaps: caps,
    pollIntervalMs: 100,
    rebroadcastAfterMs: 1_000,
    receiptTimeoutMs: 60_000,
    replacement: { stuckAfterMs: 5_000, maxBumps: 3, bumpBps: 1250 },
    clock: time.clock,
    sleep: time.sleep,
    ...opts,
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harpoon-sender-'));
  store = openStore(join(dir, 'state.db'));
  chain = new FakeChain(1);
  time = fakeTime(() => chain.mine());
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tx sender', () => {
  it('refuses to send before reconcile', async () => {
    await expect(sender().submit('i1', { to: TO })).rejects.toMatchObject({ code: 'not_reconciled' });
    expect(chain.sendLog).toHaveLength(0);
  });

  it('refuses a node on another chain with a FatalError', async () => {
    chain.nodeChain = 5;
    const err = await sender()
      .reconcile()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FatalError);
    expect((err as FatalError).code).toBe('chain_mismatch');
  });

  it('writes the intent and the raw transaction before broadcast, then mines and records', async () => {
    const s = sender();
    await s.reconcile();
    const seenAtSend: Array<{
      state: string | undefined;
      raw: string | undefined;
      intent: string | undefined;
    }> = [];
    chain.onSend = (raw) => {
      const hash = Transaction.from(raw).hash as string;
      const row = store.transactions.get(hash);
      seenAtSend.push({ state: row?.state, raw: row?.raw, intent: store.intents.get('buy-1')?.state });
    };
    const res = await s.send('buy-1', { to: TO, value: 5n, data: '0xabcdef' });
    expect(seenAtSend).toEqual([{ state: 'signed', raw: chain.sendLog[0], intent: 'pending' }]);
    expect(res.status).toBe('success');
    expect(res.nonce).toBe(0);
    expect(store.transactions.get(res.hash)).toMatchObject({
      state: 'mined',
      nonce: 0,
      value: 5n,
      gasLimit: 60_000n,
    });
    expect(store.intents.get('buy-1')?.state).toBe('done');
    expect(s.nextNonce()).toBe(1);
  });

  it('assigns nonces one at a time: concurrent sends get distinct, contiguous nonces', async () => {
    chain.automine = true;
    const s = sender();
    await s.reconcile();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => s.send(`i${i}`, { to: TO })));
    expect(results.map((r) => r.nonce).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(chain.latestNonce.get(FAKE_ADDRESS)).toBe(6);
  });

  it('refuses fees above the caps before signing anything', async () => {
    const s = sender();
    await s.reconcile();
    await expect(s.submit('x', { to: TO, maxFeePerGas: gwei(101) })).rejects.toBeInstanceOf(RejectedError);
    await expect(s.submit('y', { to: TO, maxPriorityFeePerGas: gwei(4) })).rejects.toMatchObject({
      code: 'fee_above_cap',
    });
    chain.baseFeeValue = gwei(150);
    await expect(s.submit('z', { to: TO })).rejects.toMatchObject({ code: 'base_fee_above_cap' });
    expect(chain.sendLog).toHaveLength(0);
    expect(store.transactions.live()).toHaveLength(0);
    expect(s.nextNonce()).toBe(0);
  });

  it('a refusal by the node gives the nonce back: no gap', async () => {
    const s = sender();
    await s.reconcile();
    chain.sendBehaviors.push(new RejectedError('insufficient_funds', 'insufficient funds'));
    await expect(s.send('poor', { to: TO, value: 10n ** 30n })).rejects.toMatchObject({
      code: 'insufficient_funds',
    });
    expect(store.intents.get('poor')).toMatchObject({ state: 'failed', error: 'insufficient_funds' });
    expect(s.nextNonce()).toBe(0);
    const ok = await s.send('next', { to: TO });
    expect(ok.nonce).toBe(0);
    // the refused intent may be retried: it is in flight again, then done
    const retried = await s.send('poor', { to: TO, value: 1n });
    expect(retried.nonce).toBe(1);
    expect(store.intents.get('poor')?.state).toBe('done');
  });

  it('a broadcast timeout is unknown, never failed; the same raw is re-sent and mined', async () => {
    const s = sender();
    await s.reconcile();
    chain.sendBehaviors.push('timeout');
    const sub = await s.submit('snipe', { to: TO });
    expect(sub.state).toBe('unknown');
    expect(store.transactions.get(sub.hash)?.state).toBe('unknown');
    expect(store.intents.get('snipe')?.state).toBe('unknown');
    const res = await s.wait('snipe');
    expect(res.hash).toBe(sub.hash);
    expect(new Set(chain.sendLog).size).toBe(1);
    expect(chain.sendLog.length).toBeGreaterThan(1);
    expect(store.intents.get('snipe')?.state).toBe('done');
  });

  it('a timeout whose transaction did reach the node resolves to that same transaction', async () => {
    const s = sender();
    await s.reconcile();
    chain.sendBehaviors.push('timeout-accepted');
    const res = await s.send('snipe', { to: TO });
    expect(res.status).toBe('success');
    expect(store.transactions.byIntent('snipe')).toHaveLength(1);
  });

  it('a retry of the same intent re-sends the same raw transaction, never a new nonce', async () => {
    time = fakeTime();
    const s = sender();
    await s.reconcile();
    const a = await s.submit('once', { to: TO });
    const b = await s.submit('once', { to: TO, value: 99n });
    expect(b.hash).toBe(a.hash);
    expect(chain.sendLog).toEqual([chain.sendLog[0], chain.sendLog[0]]);
    expect(s.nextNonce()).toBe(1);
    chain.mine();
    const c = await s.submit('once', { to: TO });
    await s.wait('once');
    const d = await s.submit('once', { to: TO });
    expect([c.hash, d.hash]).toEqual([a.hash, a.hash]);
    expect(d.state).toBe('mined');
  });

  it('replaces a stuck transaction with bounded bumps, never above the cap', async () => {
    chain.baseFeeValue = gwei(30);
    let sleptAfterMaxBumps = 0;
    let snapshot: ReturnType<Store['transactions']['byIntent']> = [];
    time = fakeTime(() => {
      // nothing pays a 1,000 gwei base fee: stuck until the sender has bumped all it may, and a while longer
      if (store.transactions.byIntent('stuck').length >= 4) sleptAfterMaxBumps++;
      if (sleptAfterMaxBumps === 100) {
        snapshot = store.transactions.byIntent('stuck');
        chain.baseFeeValue = gwei(30);
      }
      chain.mine();
    });
    const s = sender({ replacement: { stuckAfterMs: 5_000, maxBumps: 3, bumpBps: 1250 } });
    await s.reconcile();
    const sub = await s.submit('stuck', { to: TO });
    chain.baseFeeValue = gwei(1_000);
    const res = await s.wait('stuck');
    const txs = snapshot;
    expect(txs).toHaveLength(4);
    expect(new Set(txs.map((t) => t.nonce))).toEqual(new Set([sub.nonce]));
    for (let i = 1; i < txs.length; i++) {
      const prev = txs[i - 1];
      const cur = txs[i];
      expect(cur?.replaces).toBe(prev?.hash);
      expect((cur?.maxFeePerGas ?? 0n) * 1000n).toBe((prev?.maxFeePerGas ?? 0n) * 1125n);
      expect(cur?.maxFeePerGas ?? 0n).toBeLessThanOrEqual(caps.maxFeePerGas);
    }
    expect(res.hash).toBe(txs[3]?.hash);
    const states = store.transactions.byIntent('stuck').map((t) => t.state);
    expect(states).toEqual(['replaced', 'replaced', 'replaced', 'mined']);
  });

  it('stops bumping at the cap and reports the transaction still pending', async () => {
    time = fakeTime();
    const tight = { maxFeePerGas: gwei(40), maxPriorityFeePerGas: gwei(3) };
    chain.baseFeeValue = gwei(15);
    const s = sender({ feeCaps: tight, receiptTimeoutMs: 60_000 });
    await s.reconcile();
    await s.submit('capped', { to: TO });
    chain.baseFeeValue = gwei(1_000);
    const err = await s.wait('capped').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect((err as TransientError).code).toBe('tx_pending');
    const txs = store.transactions.byIntent('capped');
    expect(txs.length).toBeLessThanOrEqual(4);
    for (const t of txs) expect(t.maxFeePerGas).toBeLessThanOrEqual(tight.maxFeePerGas);
    expect(txs.every((t) => t.state !== 'failed' || t.error === 'replacement_underpriced')).toBe(true);
    expect(store.intents.get('capped')?.state).not.toBe('failed');
  });

  it('waits for N confirmations before a result counts', async () => {
    let polls = 0;
    const before: string[] = [];
    time = fakeTime(() => {
      polls++;
      if (polls === 10) {
        before.push(store.intents.get('deep')?.state ?? 'none');
        chain.block += 2;
      }
    });
    const s = sender({ confirmations: 3 });
    await s.reconcile();
    const sub = await s.submit('deep', { to: TO });
    chain.mine();
    const res = await s.wait('deep');
    expect(before).toEqual(['sent']);
    expect(res.hash).toBe(sub.hash);
    expect(res.status).toBe('success');
    expect(polls).toBeGreaterThanOrEqual(10);
  });

  it('a reverted transaction is failed with its receipt', async () => {
    chain.revertTo.add(TO);
    const s = sender();
    await s.reconcile();
    const res = await s.send('rev', { to: TO });
    expect(res.status).toBe('reverted');
    expect(store.transactions.get(res.hash)?.state).toBe('failed');
    expect(store.intents.get('rev')).toMatchObject({ state: 'failed', error: 'reverted' });
  });

  it('when the ledger is behind the chain the node refuses once and the next nonce is used', async () => {
    const s = sender();
    await s.reconcile();
    chain.external(FAKE_ADDRESS);
    const res = await s.send('after-external', { to: TO });
    expect(res.nonce).toBe(1);
    expect(store.transactions.byIntent('after-external').map((t) => [t.nonce, t.state])).toEqual([
      [0, 'failed'],
      [1, 'mined'],
    ]);
  });
});

describe('reconcile after a crash', () => {
  it('a transaction written but never broadcast is sent at restart, same hash, once', async () => {
    const first = sender();
    await first.reconcile();
    chain.sendBehaviors.push(new Error('process killed'));
    await expect(first.submit('crash', { to: TO })).rejects.toThrow('process killed');
    const [row] = store.transactions.byIntent('crash');
    expect(row?.state).toBe('signed');
    expect(chain.mempool.size).toBe(0);

    store.close();
    store = openStore(join(dir, 'state.db'));
    const second = sender({}, store);
    const report = await second.reconcile({ wait: true });
    expect(report.rebroadcast).toEqual(['crash']);
    expect(report.waited?.[0]?.result?.hash).toBe(row?.hash);
    expect(chain.receipts.size).toBe(1);
    expect([...chain.receipts.keys()]).toEqual([row?.hash]);
    expect(store.intents.get('crash')?.state).toBe('done');
    // a retry of the intent after restart does not send anything new
    const again = await second.submit('crash', { to: TO });
    expect(again).toMatchObject({ hash: row?.hash, state: 'mined' });
    expect(second.nextNonce()).toBe(1);
  });

  it('a transaction mined while we were down is recorded without a re-send', async () => {
    time = fakeTime();
    const first = sender();
    await first.reconcile();
    const sub = await first.submit('mined-offline', { to: TO });
    chain.mine();
    const sends = chain.sendLog.length;
    const report = await sender().reconcile();
    expect(report.settled).toEqual(['mined-offline']);
    expect(chain.sendLog.length).toBe(sends);
    expect(store.transactions.get(sub.hash)?.state).toBe('mined');
    expect(report.ledgerAfter).toBe(1);
  });

  it('a nonce taken by another transaction marks the intent failed (replaced)', async () => {
    time = fakeTime();
    const first = sender();
    await first.reconcile();
    chain.sendBehaviors.push(new Error('process killed'));
    await first.submit('lost', { to: TO }).catch(() => undefined);
    chain.external(FAKE_ADDRESS);
    const report = await sender().reconcile();
    expect(report.consumed).toEqual(['lost']);
    expect(store.transactions.byIntent('lost')[0]?.state).toBe('replaced');
    expect(store.intents.get('lost')).toMatchObject({ state: 'failed', error: 'nonce_consumed' });
    expect(report.ledgerAfter).toBe(1);
  });

  it('an unknown transaction is resolved at restart', async () => {
    time = fakeTime();
    const first = sender();
    await first.reconcile();
    chain.sendBehaviors.push('timeout-accepted');
    const sub = await first.submit('unk', { to: TO });
    expect(sub.state).toBe('unknown');
    chain.mine();
    const report = await sender().reconcile();
    expect(report.settled).toEqual(['unk']);
    expect(store.transactions.get(sub.hash)?.state).toBe('mined');
  });

  it('sets the ledger to the chain: behind it moves up, ahead of it (no live tx) it moves down', async () => {
    time = fakeTime();
    store.nonces.set(wallet, 1, 0);
    chain.latestNonce.set(FAKE_ADDRESS, 4);
    expect((await sender().reconcile()).ledgerAfter).toBe(4);
    store.nonces.set(wallet, 1, 9);
    const r = await sender().reconcile();
    expect(r.ledgerBefore).toBe(9);
    expect(r.ledgerAfter).toBe(4);
  });
});

describe('fee cache', () => {
  it('reuses the market fees within feeCacheMs and asks again after', async () => {
    chain.automine = true;
    let asked = 0;
    const baseFee = chain.baseFee.bind(chain);
    chain.baseFee = async () => {
      asked++;
      return baseFee();
    };
    const s = sender({ feeCacheMs: 1_000 });
    await s.reconcile();
    await s.send('a', { to: TO, gasLimit: 21_000n });
    await s.send('b', { to: TO, gasLimit: 21_000n });
    expect(asked).toBe(1);
    time.clock.t += 1_000;
    await s.send('c', { to: TO, gasLimit: 21_000n });
    expect(asked).toBe(2);
  });
});

describe('signing ahead (prepare → commit / release)', () => {
  const req = { to: TO, value: 7n, data: '0xabcdef', gasLimit: 300_000n };

  it('signs without writing or sending anything; commit writes ahead, then sends those same bytes', async () => {
    const s = sender();
    await s.reconcile();
    const p = await s.prepare('buy', req);
    expect(p.nonce).toBe(0);
    expect(p.gasLimit).toBe(300_000n);
    expect(chain.sendLog).toHaveLength(0);
    expect(store.transactions.byIntent('buy')).toEqual([]);
    expect(store.intents.get('buy')).toBeUndefined();
    expect(s.nextNonce()).toBe(0);
    const atSend: Array<string | undefined> = [];
    chain.onSend = (raw) => atSend.push(store.transactions.get(Transaction.from(raw).hash as string)?.state);
    const sub = await p.commit({ gasLimit: 250_000n });
    expect(sub).toMatchObject({ hash: p.hash, nonce: 0, state: 'sent' });
    expect(atSend).toEqual(['signed']);
    expect(chain.sendLog).toHaveLength(1);
    const sent = Transaction.from(chain.sendLog[0] as string);
    expect(sent.hash).toBe(p.hash);
    expect(sent.gasLimit).toBe(300_000n);
    expect(s.nextNonce()).toBe(1);
    expect((await s.wait('buy')).status).toBe('success');
  });

  it('release (simulation failed): nothing persisted or sent, the nonce goes back, no gap', async () => {
    chain.automine = true;
    const s = sender();
    await s.reconcile();
    const p = await s.prepare('refused', req);
    expect(p.nonce).toBe(0);
    p.release();
    p.release(); // idempotent
    expect(chain.sendLog).toHaveLength(0);
    expect(store.transactions.byIntent('refused')).toEqual([]);
    expect(s.nextNonce()).toBe(0);
    const next = await s.send('next', { to: TO });
    expect(next.nonce).toBe(0);
    expect(chain.latestNonce.get(FAKE_ADDRESS)).toBe(1);
    await expect(p.commit()).rejects.toMatchObject({ code: 'prepared_released' });
    expect(chain.sendLog).toHaveLength(1);
  });

  it('holds the wallet: a send queued behind a prepared transaction gets the next nonce after it', async () => {
    chain.automine = true;
    const s = sender();
    await s.reconcile();
    const a = await s.prepare('a', req);
    const b = s.submit('b', { to: TO });
    await new Promise((r) => setTimeout(r, 5));
    expect(chain.sendLog).toHaveLength(0); // b waits for a's decision
    await a.commit();
    expect((await b).nonce).toBe(1);
    const c = await s.prepare('c', req);
    const d = s.submit('d', { to: TO });
    c.release();
    expect((await d).nonce).toBe(2);
    expect(chain.sendLog.map((r) => Transaction.from(r).nonce)).toEqual([0, 1, 2]);
  });

  it('an estimate above the prepared gas limit: signed again with it (same nonce and fees), never both sent', async () => {
    const s = sender();
    await s.reconcile();
    const p = await s.prepare('big', req);
    const sub = await p.commit({ gasLimit: 420_000n });
    expect(sub.nonce).toBe(0);
    expect(sub.hash).not.toBe(p.hash);
    expect(chain.sendLog).toHaveLength(1);
    const sent = Transaction.from(chain.sendLog[0] as string);
    expect(sent.gasLimit).toBe(420_000n);
    expect(sent.nonce).toBe(0);
    expect(sent.hash).toBe(sub.hash);
    expect(store.transactions.byIntent('big').map((t) => t.hash)).toEqual([sub.hash]);
    expect(store.transactions.get(p.hash)).toBeUndefined();
  });

  it('a lost handle is released after prepareHoldMs; a late commit signs afresh', async () => {
    chain.automine = true;
    const s = sender({ prepareHoldMs: 20 });
    await s.reconcile();
    const lost = await s.prepare('lost', req);
    // not wedged: this send goes out once the hold expired, with the nonce the lost one had
    const other = await s.send('other', { to: TO });
    expect(other.nonce).toBe(0);
    expect(store.transactions.byIntent('lost')).toEqual([]);
    const late = await lost.commit();
    expect(late.nonce).toBe(1);
    expect(late.hash).not.toBe(lost.hash);
    expect(chain.sendLog.map((r) => Transaction.from(r).hash)).toEqual([
      store.transactions.byIntent('other')[0]?.hash,
      late.hash,
    ]);
  });

  it('an intent that already has a transaction: commit re-sends those bytes, never a second one', async () => {
    const s = sender();
    await s.reconcile();
    const first = await s.submit('once', { to: TO });
    const p = await s.prepare('once', { ...req, value: 99n });
    expect(p.hash).toBe(first.hash);
    const again = await p.commit();
    expect(again.hash).toBe(first.hash);
    expect(new Set(chain.sendLog).size).toBe(1);
    expect(store.transactions.byIntent('once')).toHaveLength(1);
  });

  it('refuses before reconcile and when the fees are above the caps (nothing held)', async () => {
    const s = sender();
    await expect(s.prepare('x', req)).rejects.toMatchObject({ code: 'not_reconciled' });
    await s.reconcile();
    await expect(s.prepare('y', { ...req, maxFeePerGas: gwei(101) })).rejects.toBeInstanceOf(RejectedError);
    const ok = await s.submit('z', { to: TO });
    expect(ok.nonce).toBe(0);
  });
});

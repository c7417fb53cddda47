import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChainRpc,
  createEthersRpc,
  createTxSender,
  type LocalSigner,
  signerFromPrivateKey,
  type TxSenderOptions,
  verifyChain,
} from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { FatalError, RejectedError, TransientError } from '../../../src/errors/index.ts';
import { type AnvilHandle, startAnvil } from '../../../src/sandbox/chain/anvil.ts';
import { openStore, type Store } from '../../../src/store/index.ts';
import { devKey, rpcCall, startFaultyProxy } from './helpers.ts';

const CHAIN_ID = 31337;
const TO = '0x00000000000000000000000000000000000000bb';
const gwei = (n: number) => BigInt(n) * 1_000_000_000n;
const caps = { maxFeePerGas: gwei(100), maxPriorityFeePerGas: gwei(3) };
const CHILD = resolve(import.meta.dirname, 'crash-child.ts');

let anvil: AnvilHandle;
let rpc: ChainRpc;
let dir: string;
let nextAccount = 1;
const stores: Store[] = [];

/** A fresh dev account per test: nonces of one test never disturb another. */
function account(): { key: string; signer: LocalSigner } {
  const key = devKey(nextAccount++);
  return { key, signer: signerFromPrivateKey(new Secret(key)) };
}

function store(name: string): Store {
  const s = openStore(join(dir, name));
  stores.push(s);
  return s;
}

function sender(signer: LocalSigner, s: Store, opts: Partial<TxSenderOptions> = {}) {
  return createTxSender({
    signer,
    rpc,
    store: s,
    feeCaps: caps,
    pollIntervalMs: 50,
    rebroadcastAfterMs: 200,
    receiptTimeoutMs: 30_000,
    ...opts,
  });
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID, accounts: 20 });
  rpc = createEthersRpc({ url: anvil.rpcUrl, chainId: CHAIN_ID, timeoutMs: 5_000 });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-chain-it-'));
}, 60_000);

afterAll(async () => {
  for (const s of stores) s.close();
  rpc?.destroy();
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('chain RPC on anvil', () => {
  it('checks the chain id: a mismatch is fatal', async () => {
    await expect(verifyChain(rpc)).resolves.toBeUndefined();
    const wrong = createEthersRpc({ url: anvil.rpcUrl, chainId: 1 });
    const err = await verifyChain(wrong).catch((e: unknown) => e);
    wrong.destroy();
    expect(err).toBeInstanceOf(FatalError);
    expect((err as FatalError).code).toBe('chain_mismatch');
  });

  it('an unreachable node is a TransientError, and a hung call times out as one', async () => {
    const down = createEthersRpc({ url: 'http://127.0.0.1:9', chainId: CHAIN_ID, timeoutMs: 2_000 });
    const e1 = await down.blockNumber().catch((e: unknown) => e);
    down.destroy();
    expect(e1).toBeInstanceOf(TransientError);
    const proxy = await startFaultyProxy(anvil.rpcUrl);
    proxy.mode = 'hang';
    const slow = createEthersRpc({ url: proxy.url, chainId: CHAIN_ID, timeoutMs: 2_000, sendTimeoutMs: 300 });
    const e2 = await slow.sendRawTransaction('0x02').catch((e: unknown) => e);
    slow.destroy();
    await proxy.close();
    expect(e2).toBeInstanceOf(TransientError);
    expect((e2 as TransientError).code).toBe('rpc_timeout');
    expect((e2 as TransientError).maybeProcessed).toBe(true);
  });

  it('classifies the node refusals: insufficient funds, nonce too low, already known, underpriced replacement', async () => {
    const { signer } = account();
    const s = sender(signer, store('refusals.db'));
    await s.reconcile();
    const poor = await s
      .send('too-much', { to: TO, value: 10n ** 30n, gasLimit: 21_000n })
      .catch((e: unknown) => e);
    expect(poor).toBeInstanceOf(RejectedError);
    expect((poor as RejectedError).code).toBe('insufficient_funds');
    expect(s.nextNonce()).toBe(0);
    const ok = await s.send('fine', { to: TO, value: 1n });
    expect(ok.nonce).toBe(0);
    const raw = await signer.signTransaction({
      chainId: CHAIN_ID,
      nonce: 0,
      to: TO,
      gasLimit: 21_000n,
      maxFeePerGas: gwei(50),
      maxPriorityFeePerGas: gwei(2),
    });
    expect(await rpc.sendRawTransaction(raw).catch((e: unknown) => (e as RejectedError).code)).toBe(
      'nonce_too_low',
    );
    await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false]);
    try {
      const pending = await signer.signTransaction({
        chainId: CHAIN_ID,
        nonce: 1,
        to: TO,
        gasLimit: 21_000n,
        maxFeePerGas: gwei(50),
        maxPriorityFeePerGas: gwei(2),
      });
      const h1 = await rpc.sendRawTransaction(pending);
      // the node already has it: the same hash, not an error
      expect(await rpc.sendRawTransaction(pending)).toBe(h1);
      const cheaper = await signer.signTransaction({
        chainId: CHAIN_ID,
        nonce: 1,
        to: TO,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: gwei(50),
        maxPriorityFeePerGas: gwei(2),
      });
      expect(await rpc.sendRawTransaction(cheaper).catch((e: unknown) => (e as RejectedError).code)).toBe(
        'replacement_underpriced',
      );
      await rpcCall(anvil.rpcUrl, 'evm_mine');
    } finally {
      await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
    }
  });
});

describe('tx sender on anvil', () => {
  it('sends, records, and after a restart the nonce ledger matches the chain', async () => {
    const { signer } = account();
    const s1 = store('ledger.db');
    const a = sender(signer, s1);
    await a.reconcile();
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) => a.send(`t${i}`, { to: TO, value: BigInt(i + 1) })),
    );
    expect(results.map((r) => r.nonce).sort()).toEqual([0, 1, 2, 3]);
    for (const r of results) {
      expect(r.status).toBe('success');
      expect(r.receipt.from.toLowerCase()).toBe(signer.address.toLowerCase());
    }
    s1.close();
    const s2 = store('ledger.db');
    const b = sender(signer, s2);
    const report = await b.reconcile();
    const chainNonce = await rpc.nonceAt(signer.address, 'latest');
    expect(chainNonce).toBe(4);
    expect(report.ledgerBefore).toBe(4);
    expect(report.ledgerAfter).toBe(chainNonce);
    expect(b.nextNonce()).toBe(chainNonce);
    expect(s2.transactions.byIntent('t2')[0]?.state).toBe('mined');
  });

  it('a send the wallet made elsewhere moves the ledger up at start', async () => {
    const { key, signer } = account();
    const s = store('external.db');
    await sender(signer, s).reconcile();
    const w = new Wallet(key);
    const raw = await w.signTransaction({
      chainId: CHAIN_ID,
      nonce: 0,
      to: TO,
      gasLimit: 21_000n,
      maxFeePerGas: gwei(50),
      maxPriorityFeePerGas: gwei(1),
      type: 2,
    });
    await rpc.sendRawTransaction(raw);
    const report = await sender(signer, s).reconcile();
    expect(report.ledgerBefore).toBe(0);
    expect(report.ledgerAfter).toBe(1);
  });

  it('replaces a stuck transaction with a bounded bump (anvil not mining)', async () => {
    const { signer } = account();
    const s = store('stuck.db');
    const tx = sender(signer, s, { replacement: { stuckAfterMs: 300, maxBumps: 2, bumpBps: 1250 } });
    await tx.reconcile();
    await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false]);
    try {
      await tx.submit('stuck', { to: TO, value: 7n });
      const waiting = tx.wait('stuck');
      const deadline = Date.now() + 20_000;
      while (s.transactions.byIntent('stuck').length < 3 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      // give it time to (wrongly) bump a third time, then mine
      await new Promise((r) => setTimeout(r, 800));
      const txs = s.transactions.byIntent('stuck');
      expect(txs).toHaveLength(3);
      for (let i = 1; i < txs.length; i++) {
        expect(txs[i]?.replaces).toBe(txs[i - 1]?.hash);
        expect((txs[i]?.maxFeePerGas ?? 0n) * 1000n).toBeGreaterThanOrEqual(
          (txs[i - 1]?.maxFeePerGas ?? 0n) * 1125n,
        );
        expect(txs[i]?.maxFeePerGas ?? 0n).toBeLessThanOrEqual(caps.maxFeePerGas);
        expect(txs[i]?.nonce).toBe(txs[0]?.nonce);
      }
      await rpcCall(anvil.rpcUrl, 'evm_mine');
      const res = await waiting;
      expect(res.hash).toBe(txs[2]?.hash);
      expect(await rpc.receipt(txs[0]?.hash as string)).toBeNull();
      expect(s.transactions.byIntent('stuck').map((t) => t.state)).toEqual(['replaced', 'replaced', 'mined']);
      expect(await rpc.nonceAt(signer.address, 'latest')).toBe(1);
    } finally {
      await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
    }
  });

  it('a receipt rolled back by a reorg before N confirmations is not final: the same raw is mined again', async () => {
    const { signer } = account();
    const s = store('reorg.db');
    const tx = sender(signer, s, { confirmations: 3 });
    await tx.reconcile();
    await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false]);
    try {
      const sub = await tx.submit('reorged', { to: TO, value: 9n });
      const waiting = tx.wait('reorged');
      await rpcCall(anvil.rpcUrl, 'evm_mine');
      const first = await rpc.receipt(sub.hash);
      expect(first).not.toBeNull();
      await rpcCall(anvil.rpcUrl, 'anvil_rollback', [1]);
      expect(await rpc.receipt(sub.hash)).toBeNull();
      expect(s.intents.get('reorged')?.state).toBe('sent');
      // the sender re-sends the same bytes; then the chain grows past the confirmation depth
      const deadline = Date.now() + 10_000;
      while ((await rpc.nonceAt(signer.address, 'pending')) === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      for (let i = 0; i < 3; i++) await rpcCall(anvil.rpcUrl, 'evm_mine');
      const res = await waiting;
      expect(res.hash).toBe(sub.hash);
      expect(s.transactions.byIntent('reorged')).toHaveLength(1);
      expect(s.transactions.get(sub.hash)?.blockHash).toBe(res.receipt.blockHash);
      expect(await rpc.nonceAt(signer.address, 'latest')).toBe(1);
    } finally {
      await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
    }
  });

  it('a broadcast timeout is unknown, then reconciled to the same mined transaction', async () => {
    const { signer } = account();
    const proxy = await startFaultyProxy(anvil.rpcUrl);
    const flaky = createEthersRpc({
      url: proxy.url,
      chainId: CHAIN_ID,
      timeoutMs: 5_000,
      sendTimeoutMs: 300,
    });
    try {
      const s = store('timeout.db');
      const a = createTxSender({ signer, rpc: flaky, store: s, feeCaps: caps });
      await a.reconcile();
      proxy.mode = 'forward-then-hang';
      const sub = await a.submit('snipe', { to: TO, value: 3n });
      expect(sub.state).toBe('unknown');
      expect(s.transactions.get(sub.hash)?.state).toBe('unknown');
      expect(s.intents.get('snipe')?.state).toBe('unknown');
      // restart on a healthy connection
      const report = await sender(signer, s).reconcile();
      expect(report.settled).toEqual(['snipe']);
      expect(s.transactions.get(sub.hash)?.state).toBe('mined');
      expect(s.intents.get('snipe')?.state).toBe('done');
      expect(await rpc.nonceAt(signer.address, 'latest')).toBe(1);
    } finally {
      flaky.destroy();
      await proxy.close();
    }
  });

  it('a broadcast the node never saw is unknown, and the same raw transaction is re-sent', async () => {
    const { signer } = account();
    const proxy = await startFaultyProxy(anvil.rpcUrl);
    const flaky = createEthersRpc({
      url: proxy.url,
      chainId: CHAIN_ID,
      timeoutMs: 5_000,
      sendTimeoutMs: 300,
    });
    try {
      const s = store('lost-send.db');
      const a = createTxSender({
        signer,
        rpc: flaky,
        store: s,
        feeCaps: caps,
        pollIntervalMs: 50,
        rebroadcastAfterMs: 100,
      });
      await a.reconcile();
      proxy.mode = 'hang';
      const sub = await a.submit('snipe', { to: TO, value: 3n });
      expect(sub.state).toBe('unknown');
      expect(await rpc.nonceAt(signer.address, 'pending')).toBe(0);
      proxy.mode = 'pass';
      const res = await a.wait('snipe');
      expect(res.hash).toBe(sub.hash);
      expect(new Set(proxy.sends)).toEqual(new Set([s.transactions.get(sub.hash)?.raw]));
      expect(await rpc.nonceAt(signer.address, 'latest')).toBe(1);
    } finally {
      flaky.destroy();
      await proxy.close();
    }
  });
});

function runChild(
  args: string[],
  key: string,
): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      env: { ...process.env, HARPOON_TEST_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolvePromise({ code, signal, out }));
  });
}

describe('crash between the steps of a send (kill -9), then restart', () => {
  for (const point of ['after-write', 'after-broadcast', 'after-submit'] as const) {
    it(`killed ${point}: exactly one transaction mined for the intent, the recorded one`, async () => {
      const { key, signer } = account();
      const dbPath = join(dir, `crash-${point}.db`);
      const before = await rpc.nonceAt(signer.address, 'latest');
      const child = await runChild([anvil.rpcUrl, String(CHAIN_ID), dbPath, 'buy-1', point], key);
      expect(child.signal).toBe('SIGKILL');
      expect(child.out).not.toContain('no crash');

      const s = store(`crash-${point}.db`);
      const recorded = s.transactions.byIntent('buy-1');
      expect(recorded).toHaveLength(1);
      const hash = recorded[0]?.hash as string;
      const a = sender(signer, s);
      const report = await a.reconcile({ wait: true });
      expect([...report.settled, ...report.pending]).toEqual(['buy-1']);
      // the restarted daemon retries the intent: nothing new is signed or sent
      const again = await a.send('buy-1', { to: TO, value: 12_345n });
      expect(again.hash).toBe(hash);
      expect(again.status).toBe('success');
      expect(s.transactions.byIntent('buy-1')).toHaveLength(1);
      expect(s.intents.get('buy-1')?.state).toBe('done');
      expect(await rpc.nonceAt(signer.address, 'latest')).toBe(before + 1);
      expect(a.nextNonce()).toBe(before + 1);
    });
  }
});

/**
 * Crash tests of the snipe path on the real sandbox: a child process buys a listing through the
 * executor and is killed (SIGKILL) after each step; a new executor on the same store reconciles
 * and tries the same buy again (same intent id, and a fresh one as a restarted strategy would).
 * Never a second buy (exactly one Seaport transaction from our wallet for the listing, the NFT
 * ours once), never a lost record (the intent ends done with its transaction hash and one fill,
 * or failed with nothing sent).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Contract, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RejectedError } from '../../../src/errors/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { listingParameters, sign } from '../../../src/sandbox/simulator/orders.ts';
import { roomyLimits } from '../limits.ts';
import { factsOf, wire } from './wiring.ts';

const ETH = 10n ** 18n;
const APES = 'harpoon-apes';
const WALLETS = 5;
const CHILD = resolve(import.meta.dirname, 'crash-child.ts');

let sb: Sandbox;
let dir: string;
let seller: Wallet;
let me: Wallet;
let key: string;

const ctx = () => ({
  fx: sb.fixture,
  weth: sb.weth,
  zone: sb.zone,
  coll(slug: string) {
    const c = sb.catalog.bySlug(slug);
    if (!c) throw new Error(`no collection ${slug}`);
    return c;
  },
});
const apes = () => ctx().coll(APES).contract;
const nft = () =>
  new Contract(
    apes(),
    ['function ownerOf(uint256) view returns (address)', 'function setApprovalForAll(address,bool)'],
    sb.fixture.provider,
  );

async function postListing(tokenId: bigint, price: bigint): Promise<string> {
  const parameters = await listingParameters(ctx(), seller, { slug: APES, tokenId, price, currency: 'ETH' });
  const signature = await sign(ctx(), seller, parameters);
  const res = await fetch(`${sb.apiUrl}/api/v2/orders/${sb.chain}/seaport/listings`, {
    method: 'POST',
    headers: { 'X-API-KEY': sb.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ parameters, signature, protocol_address: sb.seaport }),
  });
  const body = (await res.json()) as { order_hash?: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.order_hash as string;
}

function runChild(args: string[]): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      env: {
        ...process.env,
        HARPOON_TEST_KEY: key,
        HARPOON_EXEC_FACTS: JSON.stringify(factsOf(sb)),
      },
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

/** Our wallet's transactions to Seaport in blocks after `from`, with their status. */
async function seaportTxsSince(from: number): Promise<{ hash: string; status: number }[]> {
  const p = sb.fixture.provider;
  const head = await p.getBlockNumber();
  const out: { hash: string; status: number }[] = [];
  for (let b = from + 1; b <= head; b++) {
    const block = await p.getBlock(b, true);
    for (const tx of block?.prefetchedTransactions ?? []) {
      if (tx.from === me.address && tx.to?.toLowerCase() === sb.seaport.toLowerCase()) {
        const r = await p.getTransactionReceipt(tx.hash);
        out.push({ hash: tx.hash, status: r?.status ?? -1 });
      }
    }
  }
  return out;
}

beforeAll(async () => {
  sb = await createSandbox({
    seed: 31,
    wallets: WALLETS,
    activity: 0,
    limits: roomyLimits(),
  });
  seller = sb.fixture.wallets[0] as Wallet;
  me = sb.fixture.wallets[1] as Wallet;
  key = (sb.wallets[1] as { privateKey: string }).privateKey;
  const r = await (
    await nft().connect(seller).getFunction('setApprovalForAll')(sb.fixture.seaport.conduit, true)
  ).wait();
  expect(r?.status).toBe(1);
  dir = mkdtempSync(join(tmpdir(), 'harpoon-exec-crash-'));
}, 300_000);

afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Killed before anything was written ahead: the restart fails the intent and a new intent buys.
 * `prepared`: the fill was signed ahead (nonce held) while the simulation was in flight, nothing
 * written or sent; `simulated`: the simulation passed, the pre-signed bytes not yet committed.
 */
const BEFORE_SEND = ['intent', 'fulfillment', 'guard', 'prepared', 'simulated'] as const;
/** Killed with the transaction written ahead (maybe broadcast, maybe mined): the restart records it. */
const AFTER_SEND = ['write-ahead', 'broadcast', 'submitted', 'receipt'] as const;

describe('snipe killed (SIGKILL) after each step, then restarted', () => {
  let k = 0;
  for (const point of [...BEFORE_SEND, ...AFTER_SEND]) {
    it(`killed after ${point}: one buy at most, nothing lost`, async () => {
      const tokenId = BigInt(1 + WALLETS * k++); // the seller's tokens
      const price = ETH / 10n;
      const orderHash = await postListing(tokenId, price);
      const startBlock = await sb.fixture.provider.getBlockNumber();
      const dbPath = join(dir, `crash-${point}.db`);
      const intentId = `snipe-${point}`;

      const child = await runChild([
        dbPath,
        intentId,
        orderHash,
        apes(),
        tokenId.toString(),
        price.toString(),
        point,
      ]);
      expect(child.signal, child.out).toBe('SIGKILL');

      // restart: a new executor on the same store
      const w = wire(factsOf(sb), key, dbPath);
      try {
        const report = await w.executor.reconcile();
        const sent = (AFTER_SEND as readonly string[]).includes(point);
        const first = w.executor.status(intentId);
        expect(report.intents.map((o) => o.intentId)).toEqual([intentId]);
        if (sent) {
          // recorded, with the hash of the transaction that bought it
          expect(first).toMatchObject({ state: 'done', spent: price });
          expect(first?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
        } else {
          expect(first).toMatchObject({ state: 'failed', error: 'interrupted' });
          expect(first?.txHash).toBeUndefined();
          // nothing of the (maybe pre-signed) fill was written, and the ledger is the chain's: no gap
          expect(w.store.transactions.byIntent(`${intentId}/fill`)).toEqual([]);
          expect(w.sender.nextNonce()).toBe(
            await sb.fixture.provider.getTransactionCount(me.address, 'pending'),
          );
        }

        const input = {
          orderHash,
          collection: APES,
          nft: { contract: apes(), tokenId, standard: 'erc721' as const },
          maxPrice: price,
          paymentToken: '0x0000000000000000000000000000000000000000',
          feeRecipients: factsOf(sb).feeRecipients,
        };
        // the same intent again: its recorded outcome, never a new execution
        if (sent) {
          expect(await w.executor.buyListing({ intentId, ...input })).toMatchObject({
            state: 'done',
            replayed: true,
            txHash: first?.txHash,
          });
        } else {
          const e = await w.executor.buyListing({ intentId, ...input }).catch((x: unknown) => x);
          expect((e as RejectedError).code).toBe('intent_failed');
        }
        // a fresh intent on the same listing (a restarted strategy sees it again)
        const retry = await w.executor
          .buyListing({ intentId: `${intentId}-again`, ...input })
          .catch((x: unknown) => x);
        if (sent) {
          expect(retry).toBeInstanceOf(RejectedError);
          expect((retry as RejectedError).code).toBe('listing_already_filled');
        } else {
          expect(retry).toMatchObject({ state: 'done' });
        }

        // on chain: exactly one Seaport transaction from us for this listing, and it bought it
        const txs = await seaportTxsSince(startBlock);
        expect(txs).toHaveLength(1);
        expect(txs[0]?.status).toBe(1);
        expect(await nft().getFunction('ownerOf')(tokenId)).toBe(me.address);
        // in the store: one fill for the listing, with that transaction's hash
        const fills = w.store.fills.list().filter((f) => f.orderHash === orderHash.toLowerCase());
        expect(fills).toHaveLength(1);
        expect(fills[0]?.txHash).toBe(txs[0]?.hash);
        const buyer = sent ? intentId : `${intentId}-again`;
        expect(w.executor.status(buyer)).toMatchObject({ state: 'done', txHash: txs[0]?.hash });
        // what it paid, once, and no reservation left behind by the failed one
        const spent = w.store.spend.list().filter((e) => e.kind === 'price');
        expect(spent.filter((e) => e.intentId === buyer).map((e) => e.amount)).toEqual([price]);
        expect(spent.filter((e) => e.intentId !== buyer)).toEqual([]);
        expect(w.store.intents.listByState('pending', 'sent', 'unknown')).toEqual([]);
      } finally {
        await w.close();
      }
    }, 120_000);
  }

  it('not killed: the child buys and records in one run', async () => {
    const tokenId = BigInt(1 + WALLETS * k++);
    const price = ETH / 10n;
    const orderHash = await postListing(tokenId, price);
    const dbPath = join(dir, 'crash-none.db');
    const child = await runChild([
      dbPath,
      'snipe-none',
      orderHash,
      apes(),
      tokenId.toString(),
      price.toString(),
      'none',
    ]);
    expect(child.code, child.out).toBe(0);
    expect(JSON.parse(child.out.trim().split('\n').pop() as string)).toMatchObject({ state: 'done' });
    expect(await nft().getFunction('ownerOf')(tokenId)).toBe(me.address);
  }, 120_000);
});

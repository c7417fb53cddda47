/**
 * The flip loop on the sandbox, live: the sniper buys an underpriced listing, the seller lists it,
 * a simulated trader buys our listing on chain — and the realized profit or loss the daemon books
 * equals, to the wei, what the chain says: the ETH our wallet received in the sale's block, minus
 * what the buy transaction paid (value + gas), minus the gas of the listing's approval.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon, type DaemonOptions } from '../../../src/daemon/index.ts';
import { createHoldings, createOrderLedger, storeLedger } from '../../../src/ledger/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { openStore } from '../../../src/store/index.ts';
import { roomyLimits } from '../limits.ts';

/** keccak256("Transfer(address,address,uint256)") */
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
let dir: string;
let daemon: Daemon | undefined;
let provider: JsonRpcProvider;

beforeAll(async () => {
  sb = await createSandbox({
    seed: 11,
    activity: 3,
    limits: roomyLimits(),
  });
  provider = new JsonRpcProvider(sb.rpcUrl, sb.chainId, { staticNetwork: true });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-selling-'));
}, 240_000);

afterAll(async () => {
  await daemon?.stop().catch(() => undefined);
  provider?.destroy();
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('buy, list, sold: realized PnL to the wei', () => {
  it('a sniped NFT is listed by the seller, bought by a simulated trader; PnL equals the chain', async () => {
    const base = await demoDaemonOptions(sb, { paper: false, dir, wallet: 0 });
    const sniper = base.strategies.find((s) => s.id === 'sniper');
    expect(sniper).toBeDefined();
    const options: DaemonOptions = {
      ...base,
      strategies: [
        sniper as DaemonOptions['strategies'][number],
        // apes: listed, never sold into an offer (an offer must beat the listing by 100 %)
        {
          id: 'seller',
          module: 'seller',
          params: {
            fromStrategies: ['sniper'],
            collections: ['harpoon-apes'],
            markupBps: 500,
            acceptMarginBps: 10_000,
            tickCron: '*/2 * * * * *',
          },
        },
        // punks: listed too, and sold into a trader's offer when it beats the listing
        {
          id: 'seller-punks',
          module: 'seller',
          params: {
            fromStrategies: ['sniper'],
            collections: ['harpoon-punks'],
            markupBps: 500,
            tickCron: '*/2 * * * * *',
          },
        },
      ],
    };
    daemon = createDaemon(options, { logger: silentLogger() });
    const d = daemon;
    await d.start();
    // the sellers name no fees: the daemon read the collections' own before the engine started
    // (1 % marketplace + 2.5 % / 5 % creator, required) and the sellers net their prices of them
    const fees = (slug: string) => d.engine?.market().collection(slug)?.sellerFeeBps;
    expect([fees('harpoon-apes'), fees('harpoon-punks')]).toEqual([350n, 600n]);
    const wallet = (sb.fixture.wallets[0] as Wallet).address.toLowerCase();

    const traders = async (body: Record<string, unknown>) => {
      const res = await fetch(`${sb.apiUrl}/_sandbox/traders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    };
    const until = async (strategy: string, kind: string) => {
      const end = Date.now() + 150_000;
      const seen = () => d.status().fills.recent.some((f) => f.strategy === strategy && f.kind === kind);
      while (Date.now() < end && !seen()) await sleep(1_000);
      expect(seen(), `a ${kind} by ${strategy}: ${JSON.stringify(d.status().fills.recent)}`).toBe(true);
    };
    await traders({ listingTakerRate: 0.5 });
    await until('seller', 'listing_sold');
    await until('seller-punks', 'sell');
    await d.stop();

    // the daemon's books, read back from its store
    const store = openStore(join(dir, 'harpoon.db'));
    try {
      const ledger = createOrderLedger({
        clock: { now: () => Date.now() },
        chain: sb.chain,
        store: storeLedger(store, () => Date.now()),
      });
      const h = createHoldings({
        store,
        ledger,
        chain: sb.chain,
        tokenOf: (a) => ({ address: a as never, symbol: 'ETH', decimals: 18 }),
      });
      const fills = store.fills.list();
      const kinds = new Set<string>();
      for (const sale of h.realized()) {
        const key = (f: { contract: string; tokenId: string }) => `${f.contract.toLowerCase()}/${f.tokenId}`;
        const item = `${sale.nft.contract.toLowerCase()}/${sale.nft.identifier}`;
        const buy = fills.find((f) => f.side === 'buy' && key(f) === item);
        const sell = fills.find((f) => f.side === 'sell' && key(f) === item);
        expect(buy?.txHash, 'the buy transaction').toBeDefined();
        expect(sell?.txHash, 'the sale transaction').toMatch(/^0x[0-9a-f]{64}$/);
        // the buy: what the transaction paid (value) and burnt (gas)
        const buyTx = await provider.getTransaction(buy?.txHash as string);
        const buyReceipt = await provider.getTransactionReceipt(buy?.txHash as string);
        const buyCost = (buyTx?.value ?? 0n) + (buyReceipt?.gasUsed ?? 0n) * (buyReceipt?.gasPrice ?? 0n);
        // the sale: what reached our wallet in its transaction — WETH transfers to us (an accepted
        // offer, a WETH listing) and the change of our ETH balance in its block (a listing paid in
        // ETH; minus the gas when the transaction is ours) — the block must hold that one transaction
        const saleReceipt = await provider.getTransactionReceipt(sell?.txHash as string);
        const block = saleReceipt?.blockNumber as number;
        expect((await provider.getBlock(block))?.transactions).toEqual([sell?.txHash]);
        const ethDelta =
          (await provider.getBalance(wallet, block)) - (await provider.getBalance(wallet, block - 1));
        // WETH to us less WETH from us (an accepted offer's fees are paid out of what it brought)
        let wethIn = 0n;
        for (const l of saleReceipt?.logs ?? []) {
          if (l.address.toLowerCase() !== sb.weth.toLowerCase() || l.topics[0] !== TRANSFER) continue;
          if (BigInt(l.topics[2] as string) === BigInt(wallet)) wethIn += BigInt(l.data);
          if (BigInt(l.topics[1] as string) === BigInt(wallet)) wethIn -= BigInt(l.data);
        }
        // approvals the sale needed (the listing's NFT approval, an accept's fee approvals)
        let approvalGas = 0n;
        for (const t of store.db
          .prepare("SELECT hash FROM transactions WHERE intent_id LIKE ? || '/%' AND hash != ?")
          .all(sell?.intentId ?? '', sell?.txHash ?? '') as { hash: string }[]) {
          const r = await provider.getTransactionReceipt(t.hash);
          approvalGas += (r?.gasUsed ?? 0n) * (r?.gasPrice ?? 0n);
        }
        const expected = wethIn + ethDelta - buyCost - approvalGas;
        kinds.add(saleReceipt?.from.toLowerCase() === wallet ? 'accepted offer' : 'listing taken');
        expect(sale.realized, `sale of ${item}`).toBe(expected);
      }
      expect(kinds).toEqual(new Set(['listing taken', 'accepted offer']));
      process.stdout.write(
        `selling: ${h.realized().length} sale(s) (${[...kinds].join(', ')}), realized ${h
          .realized()
          .map((r) => r.realized)
          .join(', ')} wei, each equal to the chain's\n`,
      );
    } finally {
      store.close();
    }
  }, 300_000);
});

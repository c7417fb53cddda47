/**
 * A bidder that keeps getting filled for longer than its first WETH approval lasts keeps bidding,
 * end to end: a live daemon (one collection bidder on harpoon-apes, 500 bps under the aggregated
 * floor of 0.025: 0.02375 WETH per offer) on the real sandbox (quiet: only the trader of this test
 * acts), with `risk.maxOpenOffersTotal` 0.05 — so the first approval to the conduit is 0.05 WETH,
 * enough for two fills. A trader accepts each of our offers on chain (fulfillment_data, then the
 * transaction from the trader's wallet) until our offers have paid almost three times that first
 * approval. Then:
 * - every fill is recorded (our WETH fell by exactly what our offers paid; the store's
 *   `order_fills` and the daemon's status have them);
 * - after the last fill the bidder has a new offer ACTIVE in the book: it kept bidding;
 * - every WETH `Approval` from our wallet names the conduit, is capped at
 *   `risk.maxOpenOffersTotal` (the need never exceeded it here), and the approval was renewed
 *   (the desk reads the allowance fills spent from the chain);
 * - no offer was refused for its allowance (no failed intent, nothing in the daemon's log).
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, MaxUint256, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { demoDaemonOptions, wrapEth } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon } from '../../../src/daemon/index.ts';
import { parseUnits } from '../../../src/domain/money.ts';
import { createLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { fulfillmentTransaction } from '../../../src/sandbox/simulator/orders.ts';
import { roomyLimits, roomyRates } from '../limits.ts';
import { activeOffers as bookOffers, readStore } from './book.ts';

const APES = 'harpoon-apes';
const eth = (v: string) => parseUnits(v, 18);
/** risk.maxOpenOffersTotal: the desk's minimum approval, so the first approval. */
const CAP = eth('0.05');
/** The bidder's price: 500 bps under the floor (0.025, an external listing in the sandbox's stats). */
const PRICE = eth('0.02375');
const FILLS = 6;
const SELLER = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
let dir: string;
let daemon: Daemon | undefined;

const erc20 = (runner?: Wallet) =>
  new Contract(
    sb.weth,
    [
      'function deposit() payable',
      'function approve(address,uint256) returns (bool)',
      'function balanceOf(address) view returns (uint256)',
      'function allowance(address,address) view returns (uint256)',
      'event Approval(address indexed owner, address indexed spender, uint256 value)',
    ],
    runner ?? sb.fixture.provider,
  );
const apes = (runner?: Wallet) =>
  new Contract(
    sb.catalog.bySlug(APES)?.contract as string,
    ['function ownerOf(uint256) view returns (address)', 'function setApprovalForAll(address,bool)'],
    runner ?? sb.fixture.provider,
  );

async function mined(p: Promise<{ wait(): Promise<unknown> }>) {
  const r = (await (await p).wait()) as { status?: number } | null;
  if (r?.status !== 1) throw new Error('transaction failed');
}

async function http(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers: {
      'X-API-KEY': sb.apiKey,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

/** Our offers ACTIVE in the sandbox's book: hash → what it pays. */
async function activeOffers(wallet: string): Promise<Map<string, bigint>> {
  const book = await bookOffers(sb, wallet, [APES]);
  return new Map([...book].map(([h, o]) => [h, o.amount]));
}

/** Polls until `f` returns something defined. */
async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

function storeFills(): { orders: Map<string, bigint>; fills: number } {
  return readStore(dir, (db) => {
    const orders = new Map<string, bigint>();
    for (const r of db.prepare('SELECT order_hash, amount FROM order_fills').all() as {
      order_hash: string;
      amount: string;
    }[]) {
      const h = r.order_hash.toLowerCase();
      orders.set(h, (orders.get(h) ?? 0n) + BigInt(r.amount));
    }
    return { orders, fills: (db.prepare('SELECT COUNT(*) AS n FROM fills').get() as { n: number }).n };
  });
}

beforeAll(async () => {
  sb = await createSandbox({
    seed: 41,
    activity: 0,
    limits: roomyLimits(1_000_000),
  });
  const w = sb.wallets[1] as { privateKey: string };
  await wrapEth(sb, w.privateKey, eth('1'));
  const conduit = sb.fixture.seaport.conduit;
  const seller = sb.fixture.wallets[SELLER] as Wallet;
  // the seller sells through the conduit and, accepting our offer, pays the fees in WETH through it
  await mined(apes(seller).getFunction('setApprovalForAll')(conduit, true));
  await mined(erc20(seller).getFunction('deposit')({ value: eth('0.1') }));
  await mined(erc20(seller).getFunction('approve')(conduit, MaxUint256));
}, 240_000);

afterAll(async () => {
  await daemon?.stop().catch(() => undefined);
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const weth = () => ({ address: sb.weth.toLowerCase(), symbol: 'WETH', decimals: 18 });

describe('the conduit allowance is renewed from the chain while a bidder keeps getting filled', () => {
  it('fills past the first approval: it keeps bidding; every approval is to the conduit and capped; none refused', async () => {
    dir = mkdtempSync(join(tmpdir(), 'harpoon-allowance-'));
    const me = (sb.wallets[1] as { address: string }).address.toLowerCase();
    const seller = sb.fixture.wallets[SELLER] as Wallet;
    const conduit = sb.fixture.seaport.conduit.toLowerCase();

    // what the seller can sell us
    const forSale: bigint[] = [];
    for (let id = 1n; id <= 60n && forSale.length < FILLS; id++) {
      const owner = (await apes().getFunction('ownerOf')(id)) as string;
      if (owner.toLowerCase() === seller.address.toLowerCase()) forSale.push(id);
    }
    expect(forSale.length).toBeGreaterThanOrEqual(FILLS);

    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      stringify({
        mode: 'live',
        log: { level: 'info' },
        api: { timeoutMs: 5000 },
        collections: [APES],
        strategies: [
          {
            id: 'collection-bidder',
            module: 'collection-bidder',
            params: {
              collection: APES,
              paymentToken: weth(),
              distanceBps: 500,
              minDistanceBps: 100,
              maxPrice: '0.04',
              repriceBps: 50,
              expiryMinutes: 30,
              tickCron: '*/2 * * * * *',
            },
          },
        ],
        risk: {
          maxFeePerGasGwei: '200',
          maxPricePerItem: '0.05',
          maxOpenOffersTotal: '0.05',
          maxSpendPerDay: '1',
          maxPriceVsFloorBps: 15000,
        },
        engine: { hookTimeoutMs: 2000, queueTtlMs: 60000 },
        control: { host: '127.0.0.1', port: 0 },
      }),
    );
    const options = {
      ...(await demoDaemonOptions(sb, { paper: false, dir, wallet: 1, configFile: file })),
      rates: roomyRates(1_000_000),
    };
    const logFile = process.env.HARPOON_TEST_LOG ?? join(dir, 'harpoon.log');
    const logStream = createWriteStream(logFile);
    daemon = createDaemon(options, {
      logger: createLogger({ level: 'info', name: 'allowance', destination: logStream }),
    });
    const wethBefore = (await erc20().getFunction('balanceOf')(me)) as bigint;
    const startBlock = await sb.fixture.provider.getBlockNumber();
    await daemon.start();
    const d = daemon;

    /** The one offer of ours ACTIVE in the book that the daemon also holds open. */
    const standing = (except: ReadonlySet<string>) =>
      until('an open offer of ours, ACTIVE in the book', async () => {
        const book = await activeOffers(me);
        const open = new Set(d.status().orders.open.map((o) => o.orderHash.toLowerCase()));
        for (const [h, amount] of book)
          if (!except.has(h) && open.has(h) && book.size === 1) return { hash: h, amount };
        return undefined;
      });

    const filled = new Set<string>();
    const paid: bigint[] = [];
    const failedAtStart = d.status().intents.failed;
    for (let k = 0; k < FILLS; k++) {
      const offer = await standing(filled);
      const id = forSale[k] as bigint;
      const issued = await http('POST', '/api/v2/offers/fulfillment_data', {
        offer: { hash: offer.hash, chain: sb.chain, protocol_address: sb.seaport },
        fulfiller: { address: seller.address },
        consideration: { asset_contract_address: apes().target as string, token_id: id.toString() },
      });
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      const before = (await erc20().getFunction('balanceOf')(me)) as bigint;
      const tx = await seller.sendTransaction(fulfillmentTransaction(issued.body as never));
      const receipt = await tx.wait();
      expect(receipt?.status).toBe(1);
      expect(((await apes().getFunction('ownerOf')(id)) as string).toLowerCase()).toBe(me);
      // every offer at the bidder's price; it pays its amount (fees come out of it)
      expect(offer.amount).toBe(PRICE);
      expect(before - ((await erc20().getFunction('balanceOf')(me)) as bigint)).toBe(offer.amount);
      filled.add(offer.hash);
      paid.push(offer.amount);
    }
    const totalPaid = paid.reduce((s, v) => s + v, 0n);
    expect(totalPaid).toBeGreaterThan(CAP);

    // (2) it kept bidding: a new offer ACTIVE after the last fill
    const after = await standing(filled);
    expect(filled.has(after.hash)).toBe(false);
    expect(after.amount).toBe(PRICE);

    // (1) every fill is recorded: our WETH fell by exactly what our offers paid; the store has
    // each fill of each filled offer; the daemon's status counts them
    const wethAfter = (await erc20().getFunction('balanceOf')(me)) as bigint;
    expect(wethBefore - wethAfter).toBe(totalPaid);
    const recorded = await until('the fills in the store', async () => {
      const s = storeFills();
      return [...filled].every((h) => s.orders.has(h)) ? s : undefined;
    });
    for (const [i, h] of [...filled].entries()) expect(recorded.orders.get(h)).toBe(paid[i]);
    expect(d.status().fills.total).toBeGreaterThanOrEqual(FILLS);

    // (3) every approval of WETH from our wallet: to the conduit, capped, sent by us; renewed
    const events = await erc20().queryFilter(erc20().filters.Approval?.(me) as never, startBlock, 'latest');
    const approvals: { spender: string; value: bigint; from: string }[] = [];
    for (const e of events) {
      const args = (e as unknown as { args: [string, string, bigint] }).args;
      const t = await sb.fixture.provider.getTransaction(e.transactionHash);
      approvals.push({ spender: args[1].toLowerCase(), value: args[2], from: String(t?.from).toLowerCase() });
    }
    for (const a of approvals) {
      expect(a.spender).toBe(conduit);
      expect(a.from).toBe(me);
      // the need (one offer of 0.02375 at a time) never exceeded the cap here
      expect(a.value).toBeLessThanOrEqual(CAP);
      expect(a.value).toBeGreaterThanOrEqual(PRICE);
    }
    expect(approvals.length).toBeGreaterThanOrEqual(2);
    // exactly when the chain's allowance (spent by the fills) fell short of the next offer: one
    // approval of the cap serves two offers here
    let modelled = 0n;
    let nApprovals = 0;
    for (let k = 0; k <= FILLS; k++) {
      if (modelled < PRICE) {
        modelled = CAP;
        nApprovals++;
      }
      if (k < FILLS) modelled -= PRICE;
    }
    expect(approvals.map((a) => a.value)).toEqual(Array(nApprovals).fill(CAP));
    const allowanceNow = (await erc20().getFunction('allowance')(me, conduit)) as bigint;
    expect(allowanceNow).toBeGreaterThanOrEqual(after.amount);
    expect(allowanceNow).toBeLessThanOrEqual(CAP);

    // (4) nothing refused for its allowance
    const st = d.status();
    expect(st.intents.failed - failedAtStart).toBe(0);
    expect(st.intents.failed).toBe(0);

    // the end: kill switch, until no offer of ours is active, then stop
    await d.kill('test over');
    const stopEnd = Date.now() + 90_000;
    while (d.status().orders.open.length > 0 && Date.now() < stopEnd) await sleep(250);
    await d.stop();
    expect(d.status().orders.liveAtStop ?? []).toEqual([]);
    expect([...(await activeOffers(me)).keys()]).toEqual([]);
    await new Promise<void>((r) => logStream.end(r));
    const log = readFileSync(logFile, 'utf8');
    const refusals = log.split('\n').filter((l) => /insufficient[^"]*allowance/i.test(l));
    expect(refusals, refusals.join('\n')).toEqual([]);
    const raised = log.split('\n').filter((l) => l.includes('raising the conduit allowance')).length;
    // the log was written (each approval is logged), so the absence of refusals means something
    expect(raised).toBe(approvals.length);

    process.stderr.write(
      `allowance: ${paid.length} fills paying ${totalPaid} wei in all (first approval ${approvals[0]?.value ?? 0n} wei, cap ${CAP}); ` +
        `${approvals.length} approvals to the conduit (${approvals.map((a) => a.value).join(', ')}), ${raised} logged; ` +
        `allowance now ${allowanceNow}; store: ${recorded.orders.size} filled offers, ${recorded.fills} fills rows; ` +
        `status fills ${st.fills.total}, intents failed ${st.intents.failed}\n`,
    );
  }, 600_000);
});

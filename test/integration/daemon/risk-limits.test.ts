/**
 * The risk limits hold end to end: the daemon (real strategies from strategies/, live execution)
 * against the real sandbox (HTTP API, stream, anvil with Seaport 1.6) with simulated market
 * activity, each test on its own config whose limits are small enough to be hit within seconds:
 * - budget: the global ETH/WETH budget and a per-strategy budget — spend recorded in the store
 *   plus the worst case of our offers active on the marketplace never exceeds them (sampled all
 *   along); the bidders' intents beyond them are refused (`risk_budget` / `risk_strategy_budget`
 *   in /status);
 * - exposure: `maxOpenOffersTotal` and a per-collection `maxOpenOffersTotal` — the worst case of
 *   our offers active on the marketplace (read from the sandbox's REST API) never exceeds them,
 *   sampled during activity; the offers beyond are refused (`risk_exposure`);
 * - caps: `maxPricePerItem` and `maxSpendPerDay` — with bargains listed on demand (risk-helpers),
 *   the sniper's purchases (transactions on anvil, NFTs ours on chain) never pay above the price
 *   cap and never sum above the daily cap; a bargain above the price cap is refused
 *   (`risk_max_price`), and the bargains listed once the daily cap is reached are not bought;
 * - stale gate: with the stream stalled (`/_sandbox/faults`) and no REST answers either, the
 *   collection's newest information grows older than `risk.staleAfterMs`: the bidder's intents are
 *   refused (`risk_collection_stale`) and nothing is placed; when information flows again, it
 *   places its offer. (A stall alone is not enough: the market view's periodic REST refreshes are
 *   news too and would make the collection fresh again at random moments.)
 * The kill switch has its own test in daemon.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { demoDaemonOptions, wrapEth } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon } from '../../../src/daemon/index.ts';
import { parseUnits } from '../../../src/domain/money.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';
import {
  activeOffers as bookOffers,
  readStore,
  resetFaults as resetSandboxFaults,
  setFaults,
} from './book.ts';
import { type Bargain, postBargain } from './risk-helpers.ts';

const COLLECTIONS = ['harpoon-apes', 'harpoon-punks'] as const;
const eth = (v: string) => parseUnits(v, 18);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
let provider: JsonRpcProvider;
const dirs: string[] = [];
const daemons: Daemon[] = [];

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await sleep(250);
  }
}

function walletOf(i: number): { address: string; privateKey: string } {
  const w = sb.wallets[i] as { address: string; privateKey: string };
  return { address: w.address.toLowerCase(), privateKey: w.privateKey };
}

/** Starts a live daemon on `wallet` with a config of its own (strategies + risk), the store in a fresh folder. */
async function startDaemon(
  wallet: number,
  config: { strategies: unknown[]; risk: Record<string, unknown>; stream?: Record<string, unknown> },
): Promise<{ daemon: Daemon; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'harpoon-risk-it-'));
  dirs.push(dir);
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    stringify({
      mode: 'live',
      log: { level: 'warn' },
      collections: [...COLLECTIONS],
      strategies: config.strategies,
      risk: { maxFeePerGasGwei: '200', ...config.risk },
      engine: { hookTimeoutMs: 2000, queueTtlMs: 60000 },
      control: { host: '127.0.0.1', port: 0 },
      ...(config.stream !== undefined ? { stream: config.stream } : {}),
    }),
  );
  const options = {
    ...(await demoDaemonOptions(sb, { paper: false, dir, wallet, configFile: file })),
    rates: roomyRates(1_000_000),
  };
  const daemon = createDaemon(options, { logger: silentLogger() });
  daemons.push(daemon);
  await daemon.start();
  return { daemon, dir };
}

/** Kill switch (cancels every open offer), wait for it, stop: the next test starts from a clean wallet. */
async function shutdown(daemon: Daemon): Promise<void> {
  await daemon.kill('test over');
  await until('every open offer cancelled', () => daemon.status().orders.open.length === 0, 60_000);
  await daemon.stop();
}

/** Our offers ACTIVE on the marketplace, per collection. */
async function activeOffers(wallet: string) {
  return [...(await bookOffers(sb, wallet, COLLECTIONS))].map(([hash, o]) => ({ hash, ...o }));
}

/** The spend ledger of a running daemon's store (read-only; WAL lets us read beside the writer). */
function ledger(dir: string): { strategy: string; amount: bigint; kind: string }[] {
  return readStore(dir, (db) =>
    (
      db.prepare("SELECT strategy, kind, amount FROM spend WHERE kind LIKE 'ledger:%'").all() as {
        strategy: string;
        kind: string;
        amount: string;
      }[]
    ).map((r) => ({ strategy: r.strategy, kind: r.kind, amount: BigInt(r.amount) })),
  );
}

const sum = (xs: readonly bigint[]) => xs.reduce((s, x) => s + x, 0n);

/** Strategies whose saved state says their budget view holds an offer back now (`budgetShort`). */
function heldBack(dir: string): string[] {
  return readStore(dir, (db) =>
    (
      db.prepare('SELECT strategy_id, state FROM strategy_state').all() as {
        strategy_id: string;
        state: string;
      }[]
    )
      .filter((r) => (JSON.parse(r.state) as { budgetShort?: boolean }).budgetShort === true)
      .map((r) => r.strategy_id),
  );
}
const refusals = (d: Daemon, code: string) => d.status().risk.refusals[code] ?? 0;

const faults = (body: unknown) => setFaults(sb, body);
const resetFaults = () => resetSandboxFaults(sb);

beforeAll(async () => {
  sb = await createSandbox({
    seed: 11,
    activity: 4,
    limits: roomyLimits(1_000_000),
  });
  provider = new JsonRpcProvider(sb.rpcUrl, sb.chainId, { staticNetwork: true });
  // offers are made in WETH
  for (const i of [0, 1, 2]) await wrapEth(sb, walletOf(i).privateKey, eth('1'));
}, 240_000);

afterAll(async () => {
  for (const d of daemons) await d.stop().catch(() => undefined);
  await resetFaults().catch(() => undefined);
  provider?.destroy();
  await sb?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const weth = () => ({ address: sb.weth.toLowerCase(), symbol: 'WETH', decimals: 18 });

function collectionBidder(tickCron = '*/2 * * * * *') {
  return {
    id: 'collection-bidder',
    module: 'collection-bidder',
    params: {
      collection: 'harpoon-apes',
      paymentToken: weth(),
      distanceBps: 500,
      minDistanceBps: 100,
      maxPrice: '0.05',
      repriceBps: 300,
      expiryMinutes: 30,
      tickCron,
    },
  };
}

function traitBidder(maxOffers: number, collection = 'harpoon-punks', id = 'trait-bidder') {
  return {
    id,
    module: 'trait-bidder',
    params: {
      collection,
      paymentToken: weth(),
      traits: 'all',
      distanceBps: 1000,
      minDistanceBps: 300,
      maxPrice: '0.05',
      repriceBps: 500,
      maxOffers,
      expiryMinutes: 30,
      tickCron: '*/2 * * * * *',
    },
  };
}

describe('risk limits on the sandbox, live execution', () => {
  it('budget: spend in the store + worst case of our active offers never exceeds the global and the per-strategy budget; intents beyond are held back or refused', async () => {
    const BUDGET = eth('0.06');
    const TRAIT_BUDGET = eth('0.035');
    const w = walletOf(0);
    const { daemon, dir } = await startDaemon(0, {
      strategies: [
        collectionBidder(),
        traitBidder(8),
        {
          id: 'sniper',
          module: 'sniper',
          params: {
            collections: [...COLLECTIONS],
            basis: 'collection',
            discountBps: 1000,
            maxPrice: '0.03',
            maxPerDay: 100,
          },
        },
      ],
      risk: {
        // only the budgets bind
        maxPricePerItem: '0.05',
        maxOpenOffersTotal: '1',
        maxSpendPerDay: '1',
        budget: '0.06',
        strategies: { 'trait-bidder': { budgets: { WETH: '0.035' } } },
        maxPriceVsFloorBps: 15000,
      },
    });
    let samples = 0;
    let maxSeen = 0n;
    let maxTrait = 0n;
    const held = new Set<string>();
    const end = Date.now() + 45_000;
    while (Date.now() < end) {
      // the ledger first, then the marketplace: a fill seen between the two reads is counted at
      // most once (gone from the book, not yet in the ledger read before)
      const spent = ledger(dir);
      const offers = await activeOffers(w.address);
      const total = sum(spent.map((s) => s.amount)) + sum(offers.map((o) => o.amount));
      // punks offers are the trait bidder's (the collection bidder bids on apes)
      const trait =
        sum(spent.filter((s) => s.strategy === 'trait-bidder').map((s) => s.amount)) +
        sum(offers.filter((o) => o.collection === 'harpoon-punks').map((o) => o.amount));
      expect(
        total,
        `spend ${JSON.stringify(spent.map((s) => `${s.strategy} ${s.kind} ${s.amount}`))} + offers ${offers.map((o) => `${o.collection} ${o.amount}`).join(', ')}`,
      ).toBeLessThanOrEqual(BUDGET);
      expect(trait).toBeLessThanOrEqual(TRAIT_BUDGET);
      if (total > maxSeen) maxSeen = total;
      if (trait > maxTrait) maxTrait = trait;
      for (const id of heldBack(dir)) held.add(id);
      samples++;
      if (
        Date.now() > end - 25_000 &&
        refusals(daemon, 'risk_budget') + refusals(daemon, 'risk_strategy_budget') + held.size > 0 &&
        maxSeen > BUDGET / 2n
      )
        break;
      await sleep(400);
    }
    const s = daemon.status();
    const detail = JSON.stringify({
      samples,
      maxSeen: String(maxSeen),
      maxTrait: String(maxTrait),
      refusals: s.risk.refusals,
      heldBack: [...held],
      spend: s.spend,
      placed: s.orders.placed,
    });
    // it did trade for real, up near the budget…
    expect(s.orders.placed, detail).toBeGreaterThan(0);
    expect(maxSeen, detail).toBeGreaterThan(BUDGET / 2n);
    // …and what went beyond was held back by the bidders (their budget view, in their saved
    // state) or refused by risk (visible in the status)
    expect(
      refusals(daemon, 'risk_budget') + refusals(daemon, 'risk_strategy_budget') + held.size,
      detail,
    ).toBeGreaterThan(0);
    const eb = s.spend.find((x) => x.account === 'eth-like');
    expect(eb?.budget, detail).toBe('0.06');
    await shutdown(daemon);
    // once more from the store after stop
    const spent = sum(ledger(dir).map((r) => r.amount));
    expect(spent).toBeLessThanOrEqual(BUDGET);
  }, 120_000);

  it('exposure: the worst case of our offers active on the marketplace never exceeds maxOpenOffersTotal (nor a collection cap); offers beyond are refused', async () => {
    const CAP = eth('0.07');
    const PUNKS_CAP = eth('0.03');
    const APES_CAP = eth('0.05');
    const w = walletOf(1);
    const { daemon, dir } = await startDaemon(1, {
      strategies: [collectionBidder(), traitBidder(8), traitBidder(8, 'harpoon-apes', 'trait-bidder-apes')],
      risk: {
        maxPricePerItem: '0.05',
        maxOpenOffersTotal: '0.07',
        maxSpendPerDay: '1',
        collections: {
          'harpoon-punks': { maxOpenOffersTotal: '0.03' },
          'harpoon-apes': { maxOpenOffersTotal: '0.05' },
        },
        maxPriceVsFloorBps: 15000,
      },
    });
    let samples = 0;
    let maxSeen = 0n;
    let maxPunks = 0n;
    let maxCount = 0;
    const held = new Set<string>();
    const end = Date.now() + 45_000;
    while (Date.now() < end) {
      const offers = await activeOffers(w.address);
      const total = sum(offers.map((o) => o.amount));
      const punks = sum(offers.filter((o) => o.collection === 'harpoon-punks').map((o) => o.amount));
      const apes = total - punks;
      const detail = offers.map((o) => `${o.collection} ${o.hash.slice(0, 10)} ${o.amount}`).join(', ');
      expect(total, detail).toBeLessThanOrEqual(CAP);
      expect(punks, detail).toBeLessThanOrEqual(PUNKS_CAP);
      expect(apes, detail).toBeLessThanOrEqual(APES_CAP);
      if (total > maxSeen) maxSeen = total;
      if (punks > maxPunks) maxPunks = punks;
      if (offers.length > maxCount) maxCount = offers.length;
      samples++;
      for (const id of heldBack(dir)) held.add(id);
      if (
        Date.now() > end - 25_000 &&
        refusals(daemon, 'risk_exposure') + held.size > 0 &&
        refusals(daemon, 'risk_collection_exposure') > 0
      )
        break;
      await sleep(300);
    }
    const s = daemon.status();
    const detail = JSON.stringify({
      samples,
      maxSeen: String(maxSeen),
      maxPunks: String(maxPunks),
      maxCount,
      refusals: s.risk.refusals,
      placed: s.orders.placed,
    });
    // offers stood on the marketplace (several at once), up near the caps…
    expect(maxCount, detail).toBeGreaterThanOrEqual(2);
    expect(maxSeen, detail).toBeGreaterThan(CAP / 2n);
    // …and those beyond were refused by risk, visible in the status
    expect(
      refusals(daemon, 'risk_exposure') + refusals(daemon, 'risk_collection_exposure'),
      detail,
    ).toBeGreaterThan(0);
    // the collection caps were exercised too: the punks offers went up near theirs, or risk
    // refused offers for a collection's cap (the bidders' budget view knows only the global caps;
    // when the apes bidders hold most of the global exposure, the punks bidder holds back first)
    expect(maxPunks > PUNKS_CAP / 2n || refusals(daemon, 'risk_collection_exposure') > 0, detail).toBe(true);
    const ex = s.spend.find((x) => x.account === 'eth-like');
    expect(ex?.maxExposure).toBe('0.07');
    await shutdown(daemon);
    expect(await activeOffers(w.address)).toEqual([]);
  }, 120_000);

  it('caps: the sniper never pays above maxPricePerItem and stops buying at maxSpendPerDay (purchases checked on chain)', async () => {
    const PRICE_CAP = eth('0.013');
    const DAY_CAP = eth('0.018');
    // each bargain 20 % under the one before: whatever the sniper's reference (the floor, or a
    // bargain it remembered as the floor), the next one is well under it
    const bargain = (i: number) => (eth('0.0095') * 8n ** BigInt(i)) / 10n ** BigInt(i);
    const w = walletOf(2);
    const { daemon, dir } = await startDaemon(2, {
      strategies: [
        {
          id: 'sniper',
          module: 'sniper',
          params: {
            collections: [...COLLECTIONS],
            basis: 'collection',
            discountBps: 1500,
            // above the risk cap on purpose: risk must stop what the strategy would pay
            maxPrice: '0.05',
            maxPerDay: 100,
            // remember reference floors often: a bargain we just bought leaves the floor re-learned
            refreshCron: '*/3 * * * * *',
          },
        },
      ],
      risk: {
        maxPricePerItem: '0.013',
        maxOpenOffersTotal: '0.1',
        maxSpendPerDay: '0.018',
        maxPriceVsFloorBps: 15000,
      },
    });
    const spentToday = () => sum(ledger(dir).map((r) => r.amount));
    const ownerOf = async (b: Bargain) =>
      (
        (await new Contract(
          b.contract,
          ['function ownerOf(uint256) view returns (address)'],
          provider,
        ).getFunction('ownerOf')(b.tokenId)) as string
      ).toLowerCase();
    // an apes bargain above the price cap (about 30 % under its floor): the sniper wants it, risk refuses
    const dear = await postBargain(sb, 'harpoon-apes', eth('0.017'));
    await until(
      'a listing above the price cap refused',
      () => refusals(daemon, 'risk_max_price') > 0,
      20_000,
    );
    // punks bargains under the price cap, one after the other (simulated traders buy some of them
    // first), until two were listed once the cap had no room left for them
    const afterCap: Bargain[] = [];
    const posted: Bargain[] = [];
    for (let i = 0; i < 14 && afterCap.length < 2; i++) {
      const reached = spentToday() + bargain(i) > DAY_CAP;
      const b = await postBargain(sb, 'harpoon-punks', bargain(i));
      if (reached) afterCap.push(b);
      posted.push(b);
      await until(
        'the bargain sold',
        async () => (await ownerOf(b)) !== b.seller,
        reached ? 4_000 : 8_000,
      ).catch(() => undefined);
    }
    await sleep(3_000);
    const s = daemon.status();
    for (const b of posted) (b as { owner?: string }).owner = await ownerOf(b);
    await shutdown(daemon);

    const fills = readStore(
      dir,
      (db) =>
        db
          .prepare(
            "SELECT tx_hash, collection, contract, token_id, price FROM fills WHERE side = 'buy' AND tx_hash IS NOT NULL",
          )
          .all() as {
          tx_hash: string;
          collection: string;
          contract: string;
          token_id: string;
          price: string;
        }[],
    );
    const detail = JSON.stringify({
      refusals: s.risk.refusals,
      spend: s.spend,
      fills,
      afterCap: afterCap.length,
      strategies: s.strategies,
      intents: s.intents,
      skipped: s.skipped,
      posted: posted.map(
        (b) => `${b.tokenId}:${b.seller.slice(0, 8)}->${String((b as { owner?: string }).owner).slice(0, 8)}`,
      ),
    });
    expect(fills.length, detail).toBeGreaterThan(0);
    // on chain: each purchase is a mined transaction from our wallet paying at most the price cap,
    // and the NFT is ours
    let paid = 0n;
    const txs = new Set<string>();
    for (const f of fills) {
      expect(BigInt(f.price), detail).toBeLessThanOrEqual(PRICE_CAP);
      if (txs.has(f.tx_hash)) continue;
      txs.add(f.tx_hash);
      const tx = await provider.getTransaction(f.tx_hash);
      const receipt = await provider.getTransactionReceipt(f.tx_hash);
      expect(tx?.from.toLowerCase()).toBe(w.address);
      expect(receipt?.status).toBe(1);
      expect(tx?.value ?? 0n, detail).toBeLessThanOrEqual(PRICE_CAP);
      paid += tx?.value ?? 0n;
      const owner = (await new Contract(
        f.contract,
        ['function ownerOf(uint256) view returns (address)'],
        provider,
      ).getFunction('ownerOf')(BigInt(f.token_id))) as string;
      expect(owner.toLowerCase()).toBe(w.address);
    }
    // never above the daily cap: on chain, in the fills, in the ledger
    expect(paid, detail).toBeLessThanOrEqual(DAY_CAP);
    expect(sum(fills.map((f) => BigInt(f.price))), detail).toBeLessThanOrEqual(DAY_CAP);
    expect(spentToday(), detail).toBeLessThanOrEqual(DAY_CAP);
    // the listing above the price cap was refused, and is not ours
    expect(s.risk.refusals.risk_max_price ?? 0, detail).toBeGreaterThan(0);
    expect(await ownerOf(dear)).not.toBe(w.address);
    // the cap was reached, and the bargains offered after it were not bought by us
    expect(afterCap.length, detail).toBeGreaterThan(0);
    for (const b of afterCap) expect(await ownerOf(b), detail).not.toBe(w.address);
  }, 150_000);

  it('stale gate: with the stream stalled and no news, intents on the collection are refused (risk_collection_stale) and nothing is placed; trading resumes when fresh', async () => {
    const STALE_MS = 5_000;
    const w = walletOf(0);
    const { daemon } = await startDaemon(0, {
      strategies: [collectionBidder()],
      risk: {
        maxPricePerItem: '0.05',
        // room for the new offer while the cancelled ones still count (their signature windows):
        // the bidder's budget view must not be what holds it back here
        maxOpenOffersTotal: '1',
        maxSpendPerDay: '1',
        maxPriceVsFloorBps: 15000,
        staleAfterMs: STALE_MS,
      },
      // the stream client must not call the stall itself within the test (with the default 30 s
      // heartbeat it may, at a moment that depends on the heartbeat's phase): the market view
      // would mark the collection stale and the bidder would stop asking, so risk's own
      // 5 s threshold would have nothing to refuse
      stream: { heartbeatIntervalMs: 600_000 },
    });
    try {
      // trading while fresh: the bidder's offer stands on the marketplace
      await until(
        'an offer of the bidder on the marketplace',
        async () => (await activeOffers(w.address)).length > 0,
        60_000,
      );
      // clear it (kill switch cancels it), then cut every source of news: the stream stalls
      // (sockets open, silent) and the REST API answers nothing but errors
      await daemon.kill('stale test');
      await until('offer cancelled', () => daemon.status().orders.open.length === 0, 60_000);
      await until(
        'offer gone from the marketplace',
        async () => (await activeOffers(w.address)).length === 0,
        30_000,
      );
      // The bidder bids only on a floor it knows: a floor re-learned (its listing sold, news that
      // came just before the stall) needs a REST answer, which the faults refuse, and the bidder
      // would then rightly ask for nothing. Cut the news while the floor stands; else retry.
      const floorOf = () => {
        const c = daemon.engine?.market().collection('harpoon-apes');
        return { known: c?.floor != null, relearning: c?.floorRelearning ?? false };
      };
      const floorStands = () => {
        const f = floorOf();
        return f.known && !f.relearning;
      };
      for (let attempt = 1; ; attempt++) {
        await until('the bidder knows the floor', floorStands, 30_000);
        await faults({ errorRate: 1, stream: { stallMs: 60_000 } });
        await sleep(1_000);
        if (floorStands()) break;
        if (attempt === 5)
          throw new Error(
            `the floor was re-learned as the news stopped, 5 times: ${JSON.stringify(floorOf())}`,
          );
        await resetFaults();
        await faults({ stream: { drop: true } });
      }
      await sleep(STALE_MS + 1_500);
      const placed = daemon.status().orders.placed;
      const accepted = daemon.status().intents.accepted;
      const staleBefore = refusals(daemon, 'risk_collection_stale');
      await daemon.resume();
      // the bidder ticks every 2 s and wants its offer back: risk refuses it, the collection is stale
      await until(
        'two stale refusals',
        () => refusals(daemon, 'risk_collection_stale') > staleBefore + 1,
        30_000,
      ).catch((e: Error) => {
        // what the daemon saw instead, for whoever reads the failure
        const st = daemon.status();
        const seen = {
          floor: floorOf(),
          refusals: st.risk.refusals,
          intents: st.intents,
          stream: st.stream,
          open: st.orders.open,
        };
        throw new Error(
          `${e.message}: ${JSON.stringify(seen, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`,
        );
      });
      await sleep(2_000);
      const s = daemon.status();
      const detail = JSON.stringify({ refusals: s.risk.refusals, intents: s.intents, stream: s.stream });
      expect(refusals(daemon, 'risk_collection_stale'), detail).toBeGreaterThan(staleBefore + 1);
      expect(s.orders.placed, detail).toBe(placed);
      expect(s.intents.accepted, detail).toBe(accepted);
      expect(s.orders.open, detail).toHaveLength(0);
      // news again: faults off, the stalled sockets dropped (the client reconnects and catches up)
      await resetFaults();
      await faults({ stream: { drop: true } });
      await until('the bidder places its offer again', () => daemon.status().orders.placed > placed, 60_000);
      await until(
        'the new offer is on the marketplace',
        async () => (await activeOffers(w.address)).length > 0,
        30_000,
      );
      expect(daemon.status().risk.killed).toBe(false);
    } finally {
      await resetFaults();
    }
    await shutdown(daemon);
  }, 150_000);
});

import { Contract, Interface, type TransactionReceipt } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketEvent } from '../../../../src/sandbox/events/log.ts';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { NFT_ABI } from '../../../../src/sandbox/market/seaport.ts';
import {
  ACTION_KINDS,
  createSimulator,
  DEFAULT_FLOORS,
  planActions,
  type Simulator,
  type SimulatorStats,
} from '../../../../src/sandbox/simulator/index.ts';
import { seedListings } from '../../../../src/sandbox/simulator/seed.ts';
import { TxSender } from '../../../../src/sandbox/simulator/sender.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';

/**
 * The simulator on a real sandbox: createSandbox with activity 5, run for ~6 s, stopped, then
 * the event log checked against the chain. A second sandbox with activity 0 stays quiet.
 */

// A seed whose first 11 actions try every kind (asserted below, so a change of the dice shows).
const SEED = 1815;
const NEEDED_ACTIONS = 11;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nftIface = new Interface([...NFT_ABI, 'event MetadataUpdate(uint256 tokenId)']);

describe('market simulator (activity 5)', () => {
  let sb: Sandbox;
  let sim: Simulator;
  let atReady: { readonly events: readonly MarketEvent[]; readonly stats: SimulatorStats };
  let traders: Set<string>;
  let log: readonly MarketEvent[];
  const receipts = new Map<string, TransactionReceipt>();
  const receipt = async (hash: string | undefined) => {
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    const h = hash as string;
    let r = receipts.get(h);
    if (!r) {
      r = (await sb.fixture.provider.getTransactionReceipt(h)) ?? undefined;
      expect(r, `receipt of ${h}`).toBeDefined();
      receipts.set(h, r as TransactionReceipt);
    }
    return r as TransactionReceipt;
  };

  beforeAll(async () => {
    sb = await createSandbox({ seed: SEED, activity: 5 });
    sim = sb.simulator as Simulator;
    atReady = { events: [...sb.events.all()], stats: sim.stats() };
    traders = new Set(sim.traders.map((a) => a.toLowerCase()));
    await sleep(6_000);
    const deadline = Date.now() + 15_000;
    while (sim.stats().actions < NEEDED_ACTIONS && Date.now() < deadline) await sleep(200);
    await sim.stop();
    await sb.market.sync();
    log = [...sb.events.all()];
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
  });

  const ofKind = (k: MarketEvent['kind']) => log.filter((e) => e.kind === k);

  it('is wired into the sandbox: traders on wallets 3 and up, wallets 0–2 untouched', () => {
    expect(sb.activity).toEqual({ requested: 5, simulated: true });
    expect(sim.traderWallets).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(sim.traders).toEqual(sb.wallets.slice(3).map((w) => w.address));
    const free = new Set(sb.wallets.slice(0, 3).map((w) => w.address.toLowerCase()));
    for (const e of log) {
      for (const party of [e.maker, e.taker, e.from, e.to, e.seller, e.buyer]) {
        if (party !== undefined) expect(free.has(party.toLowerCase()), `${e.kind} #${e.id}`).toBe(false);
      }
      if (e.maker !== undefined) expect(traders.has(e.maker.toLowerCase()), `maker of #${e.id}`).toBe(true);
    }
  });

  it('a fresh sandbox already has a book: listings and offers in every collection', () => {
    expect(atReady.stats.initial).toEqual({ listings: 30, offers: 21, failed: 0 });
    for (const c of sb.collections) {
      const mine = atReady.events.filter((e) => e.collection === c.slug);
      expect(mine.filter((e) => e.kind === 'listing').length, c.slug).toBe(10);
      expect(mine.filter((e) => e.kind === 'collection_offer').length, c.slug).toBe(3);
      expect(mine.filter((e) => e.kind === 'trait_offer').length, c.slug).toBe(2);
      expect(mine.filter((e) => e.kind === 'item_offer').length, c.slug).toBe(2);
    }
  });

  it('ran the seed’s actions in order: the kinds tried are the planned ones, all of them succeeded', () => {
    const s = sim.stats();
    expect(s.actions).toBeGreaterThanOrEqual(NEEDED_ACTIONS);
    const planned = planActions(SEED, s.actions);
    expect(new Set(planActions(SEED, NEEDED_ACTIONS))).toEqual(new Set(ACTION_KINDS));
    for (const k of ACTION_KINDS) {
      const c = s.byKind[k];
      expect(c.ok + c.failed + c.noTarget, k).toBe(planned.filter((p) => p === k).length);
    }
    expect(s.failed, s.lastError).toBe(0);
    expect(s.ok).toBeGreaterThanOrEqual(NEEDED_ACTIONS - 2);
  });

  it('the log has listings, all kinds of offers, sales, transfers, cancels and metadata updates', () => {
    for (const k of [
      'listing',
      'item_offer',
      'collection_offer',
      'trait_offer',
      'sale',
      'transfer',
      'cancel',
      'metadata_update',
    ] as const) {
      expect(ofKind(k).length, k).toBeGreaterThan(0);
    }
    // beyond the initial book
    expect(ofKind('listing').length).toBeGreaterThan(30);
  });

  it('every sale is a real transaction that moved the NFT from the seller to the buyer', async () => {
    const sales = ofKind('sale');
    for (const s of sales) {
      const r = await receipt(s.txHash);
      expect(r.status).toBe(1);
      const contract = s.nft?.contract.toLowerCase();
      const moved = r.logs
        .filter((l) => l.address.toLowerCase() === contract)
        .map((l) => nftIface.parseLog({ topics: [...l.topics], data: l.data }))
        .some((ev) => {
          if (ev?.name === 'Transfer')
            return (
              ev.args[0] === s.seller && ev.args[1] === s.buyer && String(ev.args[2]) === s.nft?.identifier
            );
          if (ev?.name === 'TransferSingle')
            return (
              ev.args[1] === s.seller && ev.args[2] === s.buyer && String(ev.args[3]) === s.nft?.identifier
            );
          return false;
        });
      expect(moved, `sale #${s.id} ${s.txHash}`).toBe(true);
      expect(log.some((e) => e.kind === 'transfer' && e.txHash === s.txHash)).toBe(true);
      expect(s.price?.amount).toBeGreaterThan(0n);
    }
  });

  it('the transfers in the log are the chain: each ERC721 ends where its last transfer put it', async () => {
    const last = new Map<string, MarketEvent>();
    for (const e of ofKind('transfer')) {
      expect((await receipt(e.txHash)).status).toBe(1);
      if (e.nft?.standard === 'erc721') last.set(`${e.nft.contract}:${e.nft.identifier}`, e);
    }
    expect(last.size).toBeGreaterThan(0);
    for (const e of last.values()) {
      const nft = new Contract(
        e.nft?.contract as string,
        NFT_ABI as unknown as string[],
        sb.fixture.provider,
      );
      expect(await nft.getFunction('ownerOf')(BigInt(e.nft?.identifier as string))).toBe(e.to);
    }
  });

  it('cancels are real: on-chain ones by Seaport transactions, off-chain ones of zone-protected offers', async () => {
    for (const e of ofKind('cancel')) {
      const o = sb.market.getOrder(sb.chain, sb.seaport, e.orderHash as string);
      expect(o.status).toBe('CANCELLED');
      if (e.txHash !== undefined) {
        expect((await receipt(e.txHash)).to).toBe(sb.seaport);
      } else {
        expect((o.protocol_data?.parameters as { zone?: string } | undefined)?.zone).toBe(sb.zone);
      }
    }
  });

  it('mints from the active drop: its supply moves in GET /api/v2/drops/{slug}, the tokens go to traders', async () => {
    const mints = sim.stats().byKind.mint;
    expect(mints.ok).toBeGreaterThan(0);
    for (const slug of sb.drops) {
      const res = await fetch(`${sb.apiUrl}/api/v2/drops/${slug}`, { headers: { 'X-API-KEY': sb.apiKey } });
      const body = (await res.json()) as { total_supply: string; is_minting: boolean };
      expectValidResponse('GET', '/api/v2/drops/{slug}', 200, body);
      const supply = BigInt(body.total_supply);
      if (!body.is_minting) {
        // only active drops are minted from
        expect(supply, slug).toBe(0n);
        continue;
      }
      // 1..2 tokens per successful mint action
      expect(supply, slug).toBeGreaterThanOrEqual(BigInt(mints.ok));
      expect(supply, slug).toBeLessThanOrEqual(BigInt(2 * mints.ok));
      const drop = sb.fixture.drops.find((d) => d.slug === slug);
      for (let id = 1n; id <= supply; id++) {
        const owner = String(await drop?.contract.getFunction('ownerOf')(id)).toLowerCase();
        expect(traders.has(owner), `owner of ${slug} #${id}`).toBe(true);
      }
    }
  });

  it('metadata updates are on chain (EIP-4906) and in the catalog', async () => {
    const latest = new Map<string, MarketEvent>();
    for (const e of ofKind('metadata_update')) {
      const r = await receipt(e.txHash);
      const touched = r.logs
        .map((l) => nftIface.parseLog({ topics: [...l.topics], data: l.data }))
        .some((ev) => ev?.name === 'MetadataUpdate' && String(ev.args[0]) === e.nft?.identifier);
      expect(touched).toBe(true);
      latest.set(`${e.collection}:${e.nft?.identifier}`, e);
    }
    for (const e of latest.values()) {
      const now = sb.catalog.traits(e.collection, BigInt(e.nft?.identifier as string));
      expect(now.map((t) => [t.trait_type, t.value])).toEqual(e.traits?.map((t) => [t.trait_type, t.value]));
    }
  });

  it('lists around the floor: a share of listings 20–40 % under it, the rest at or above it', () => {
    const ratios = ofKind('listing').map((e) => {
      const unit = (e.price?.amount as bigint) / BigInt(e.quantity ?? 1);
      const floor = DEFAULT_FLOORS[e.collection] as bigint;
      return Number((unit * 1_000_000n) / floor) / 1_000_000;
    });
    const under = ratios.filter((r) => r < 1);
    expect(under.length).toBeGreaterThan(0);
    expect(under.length / ratios.length).toBeLessThan(0.3);
    for (const r of under) {
      expect(r).toBeGreaterThanOrEqual(0.6 - 1e-4);
      expect(r).toBeLessThanOrEqual(0.8 + 1e-4);
    }
    expect(Math.max(...ratios)).toBeLessThan(3);
    // offers bid under the floor (trait offers up to 10 % over)
    for (const e of [...ofKind('item_offer'), ...ofKind('collection_offer'), ...ofKind('trait_offer')]) {
      const floor = DEFAULT_FLOORS[e.collection] as bigint;
      expect(e.price?.amount as bigint).toBeLessThanOrEqual((floor * 110n) / 100n);
      expect(e.price?.amount as bigint).toBeGreaterThanOrEqual((floor * 70n) / 100n);
    }
  });

  it('stop() leaves nothing behind: no running action, no pending transaction, a still log', async () => {
    const s = sim.stats();
    expect(s.state).toBe('stopped');
    expect(s.busy).toBe(false);
    for (const a of sim.traders) {
      expect(await sb.fixture.provider.getTransactionCount(a, 'pending')).toBe(
        await sb.fixture.provider.getTransactionCount(a, 'latest'),
      );
    }
    const size = sb.events.size;
    await sleep(1_200);
    await sb.market.sync();
    expect(sb.events.size).toBe(size);
    expect(sim.stats().actions).toBe(s.actions);
    await sim.stop(); // twice is fine
  });

  it('a sender that would revert takes no nonce; the next transaction goes through', async () => {
    const w = sb.wallets[2]!;
    const sender = new TxSender(sb.fixture.wallets[2]!, w.address);
    const before = await sb.fixture.provider.getTransactionCount(w.address, 'latest');
    const apes = sb.collections[0]!.contract;
    const notMine = new Interface(['function transferFrom(address,address,uint256)']).encodeFunctionData(
      'transferFrom',
      [sim.traders[0], w.address, 1n],
    );
    await expect(sender.send({ to: apes, data: notMine })).rejects.toThrow();
    const ok = await sender.send({ to: sb.weth, data: '0xd0e30db0', value: 1n }); // deposit()
    expect(ok.status).toBe(1);
    expect(await sb.fixture.provider.getTransactionCount(w.address, 'latest')).toBe(before + 1);
    expect(sender.pending).toBe(0);
  });
});

describe('quiet sandbox (activity 0)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ seed: SEED, activity: 0 });
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
  });

  it('runs no simulator: no book, no events, no trader transactions', async () => {
    expect(sb.simulator).toBeUndefined();
    expect(sb.activity).toEqual({ requested: 0, simulated: true });
    await sleep(1_000);
    await sb.market.sync();
    expect(sb.events.size).toBe(0);
    expect(sb.market.stats().orders).toBe(0);
    expect(await sb.fixture.provider.getTransactionCount(sb.wallets[3]!.address, 'latest')).toBe(0);
  });

  it('seedListings posts a one-off book from the trader wallets, nothing more', async () => {
    const listings = await seedListings(sb, { perCollection: 2, seed: 4 });
    expect(listings).toHaveLength(6);
    const traders = new Set(sb.wallets.slice(3).map((w) => w.address));
    for (const l of listings) {
      expect(traders.has(l.maker)).toBe(true);
      expect(sb.market.getOrder(sb.chain, sb.seaport, l.orderHash).status).toBe('ACTIVE');
    }
    const size = sb.events.size;
    await sleep(800);
    await sb.market.sync();
    expect(sb.events.all().filter((e) => e.kind !== 'listing')).toEqual([]);
    expect(sb.events.size).toBe(size);
  });

  it('counts and logs failing actions without stopping; a reverted purchase takes no nonce', async () => {
    const warnings: Record<string, unknown>[] = [];
    const onlyBuys = Object.fromEntries(ACTION_KINDS.map((k) => [k, k === 'buy' ? 1 : 0]));
    const sim = createSimulator({
      market: sb.market,
      fixture: sb.fixture,
      catalog: sb.catalog,
      events: sb.events,
      seed: 3,
      activity: 20,
      weights: onlyBuys,
      initialBook: false,
      logger: { warn: (d) => warnings.push(d) },
    });
    const nonces = () =>
      Promise.all(sim.traders.map((a) => sb.fixture.provider.getTransactionCount(a, 'pending')));
    // fulfillment data aimed at the conduit instead of Seaport: every purchase would revert
    sb.market.setTamper('target');
    try {
      await sim.start();
      const before = await nonces();
      const deadline = Date.now() + 10_000;
      while (sim.stats().failed < 4 && Date.now() < deadline) await sleep(100);
      await sim.stop();
      const s = sim.stats();
      expect(s.failed).toBeGreaterThanOrEqual(4);
      expect(s.byKind.buy.failed).toBe(s.failed);
      expect(s.lastError).toMatch(/^buy: /);
      expect(warnings.length).toBeGreaterThanOrEqual(3);
      expect(warnings[0]).toMatchObject({ action: 'buy', failures: 1 });
      expect(await nonces()).toEqual(before);
      await sb.market.sync();
      expect(sb.events.all().filter((e) => e.kind === 'sale')).toEqual([]);
    } finally {
      sb.market.setTamper('none');
      await sim.stop();
    }
  });
});

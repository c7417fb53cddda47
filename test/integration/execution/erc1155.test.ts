/**
 * ERC-1155 in the daemon's order path, on the real sandbox (HTTP API, anvil, Seaport 1.6), with
 * the collection `harpoon-items` (erc1155, 5 ids; every fixture wallet holds units of each):
 *
 * 1. a trader's 4-unit listing, 3 units bought through the live executor (standard from the API's
 *    contract endpoint): our balance rises by 3, the listing keeps 1;
 * 2. an item offer of 3 units placed through the order desk: ACTIVE on the marketplace with 3
 *    units, recorded in the ledger as erc1155 × 3;
 * 3. a trader fills 2 of the 3 units on chain; the sale comes back through the events API and the
 *    real REST normalizer into the ledger: partly filled (2), exposure of the 1 left, WETH and
 *    ERC-1155 balances moved by exactly 2 units; then the rest is cancelled until gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, MaxUint256, type Wallet, ZeroAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createApiClient } from '../../../src/api/client.ts';
import type { ExecutionContext } from '../../../src/engine/index.ts';
import { createLiveExecutor, type OrderDesk } from '../../../src/execution/index.ts';
import { createHoldings, type OrderLedger } from '../../../src/ledger/index.ts';
import { Priority } from '../../../src/ratelimit/types.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import {
  fulfillmentTransaction,
  listingParameters,
  offerParameters,
  sign,
} from '../../../src/sandbox/simulator/orders.ts';
import type { SeaportReader } from '../../../src/seaport/index.ts';
import { buyListing } from '../../../src/strategy.ts';
import { normalizeRestEvent } from '../../../src/stream/normalize.ts';
import { roomyLimits } from '../limits.ts';
import { deskOn, factsOf, type Wired, wire } from './wiring.ts';

const HOUR = 3_600_000;
const ETH = 10n ** 18n;
const ITEMS = 'harpoon-items';
const WALLETS = 5;
/** Per unit; a multiple of 100 so the 1 % fee splits into whole units of every fraction. */
const UNIT = ETH / 100n;

let sb: Sandbox;
let dir: string;
let w: Wired;
let me: Wallet;
let trader: Wallet;
let api: ReturnType<typeof createApiClient>;
let ledger: OrderLedger;
let desk: OrderDesk;
let reader: SeaportReader;
let n = 0;
const nextId = (what: string) => `${what}-${++n}`;

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
const items = () => ctx().coll(ITEMS).contract;
const erc1155 = (runner?: Wallet) =>
  new Contract(
    items(),
    [
      'function balanceOf(address,uint256) view returns (uint256)',
      'function setApprovalForAll(address,bool)',
    ],
    runner ?? sb.fixture.provider,
  );
const erc20 = (token: string, runner?: Wallet) =>
  new Contract(
    token,
    [
      'function deposit() payable',
      'function approve(address,uint256) returns (bool)',
      'function balanceOf(address) view returns (uint256)',
    ],
    runner ?? sb.fixture.provider,
  );
const units = async (who: string, id: bigint) =>
  (await erc1155().getFunction('balanceOf')(who, id)) as bigint;
const wethOf = async (who: string) => (await erc20(sb.weth).getFunction('balanceOf')(who)) as bigint;

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
/** Polls until `f` returns something defined (the sandbox's watcher follows the chain). */
async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
interface WireOrder {
  status?: string;
  remaining_quantity?: number;
  price?: { value?: string; current?: { value?: string } };
  protocol_data?: {
    parameters?: {
      offer?: { itemType: number; token: string; identifierOrCriteria: string; startAmount: string }[];
      consideration?: {
        itemType: number;
        token: string;
        identifierOrCriteria: string;
        startAmount: string;
        recipient: string;
      }[];
    };
  };
}
const orderOf = async (hash: string) => (await api.orders.get(sb.chain, sb.seaport, hash)).order as WireOrder;

/** The standard of an NFT contract, as the daemon learns it: the API's contract endpoint. */
async function standardOf(contract: string): Promise<'erc721' | 'erc1155'> {
  const c = (await api.contracts.get(sb.chain, contract)) as { contract_standard?: string };
  const s = String(c.contract_standard ?? '').toLowerCase();
  if (s !== 'erc721' && s !== 'erc1155') throw new Error(`unknown standard '${s}' of ${contract}`);
  return s;
}

const collFees = () =>
  ctx()
    .coll(ITEMS)
    .fees.map((f) => ({ fee: f.fee, recipient: f.recipient, required: f.required }));

beforeAll(async () => {
  sb = await createSandbox({
    seed: 33,
    wallets: WALLETS,
    activity: 0,
    limits: roomyLimits(),
  });
  const ws = sb.fixture.wallets;
  me = ws[1] as Wallet;
  trader = ws[3] as Wallet; // the fixture's traders start at index 3
  const conduit = sb.fixture.seaport.conduit;
  // the trader sells units through the conduit and, accepting our offer, pays the fee in WETH
  await mined(erc1155(trader).getFunction('setApprovalForAll')(conduit, true));
  await mined(erc20(sb.weth, trader).getFunction('deposit')({ value: ETH }));
  await mined(erc20(sb.weth, trader).getFunction('approve')(conduit, MaxUint256));
  await mined(erc20(sb.weth, me).getFunction('deposit')({ value: ETH }));

  dir = mkdtempSync(join(tmpdir(), 'harpoon-erc1155-it-'));
  const key = (sb.wallets[1] as { privateKey: string }).privateKey;
  w = wire(factsOf(sb), key, join(dir, 'store.db'));
  expect((await w.executor.reconcile()).intents).toEqual([]);

  api = w.api;
  ({ desk, ledger, reader } = deskOn(sb, w, key, {
    collection: async () => ({ fees: collFees(), contract: items() }),
    standardOf,
  }));
}, 300_000);

afterAll(async () => {
  await w?.close();
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const execCtx = (intentId: string): ExecutionContext => ({
  intentId,
  orders: ledger,
  strategyId: 'items',
  now: Date.now(),
  market: undefined as never, // the live executor does not read the snapshot
  priority: Priority.snipe,
  coalesceKey: `items:${intentId}`,
});

const weth = () => ({ address: sb.weth.toLowerCase() as never, symbol: 'WETH', decimals: 18 });
const nftRef = (id: bigint) => ({
  chain: sb.chain as never,
  contract: items() as never,
  identifier: id.toString() as never,
});

describe('ERC-1155 through the daemon’s order path', () => {
  it('the API names harpoon-items erc1155', async () => {
    expect(await standardOf(items())).toBe('erc1155');
  });

  it('buy: 3 units of a trader’s 4-unit listing through the live executor; our balance rises by 3', async () => {
    const id = 2n;
    const listed = 4n;
    const bought = 3n;
    const parameters = await listingParameters(ctx(), trader, {
      slug: ITEMS,
      tokenId: id,
      price: listed * UNIT,
      amount: listed,
      currency: 'ETH',
    });
    const signature = await sign(ctx(), trader, parameters);
    const posted = await http('POST', `/api/v2/orders/${sb.chain}/seaport/listings`, {
      parameters,
      signature,
      protocol_address: sb.seaport,
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const orderHash = posted.body['order_hash'] as string;
    const mine = await units(me.address, id);
    const theirs = await units(trader.address, id);
    const eth = await sb.fixture.provider.getBalance(me.address);

    const live = createLiveExecutor({
      desk,
      execution: w.executor,
      collection: async () => ({ fees: collFees(), contract: items() }),
      standardOf,
      dropContract: () => undefined,
    });
    const intentId = nextId('buy');
    const res = await live.execute(
      buyListing({
        orderHash: orderHash as never,
        collection: ITEMS,
        nft: nftRef(id),
        maxPrice: bought * UNIT,
        paymentToken: { address: ZeroAddress as never, symbol: 'ETH', decimals: 18 },
        quantity: bought,
      }),
      execCtx(intentId),
    );
    expect(res.spent).toBe(bought * UNIT);
    expect(res.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await units(me.address, id)).toBe(mine + bought);
    expect(await units(trader.address, id)).toBe(theirs - bought);
    const ethAfter = await sb.fixture.provider.getBalance(me.address);
    expect(eth - ethAfter).toBeGreaterThanOrEqual(bought * UNIT); // plus gas
    expect(eth - ethAfter).toBeLessThan(bought * UNIT + ETH / 100n);
    expect(w.store.intents.get(intentId)?.state).toBe('done');
    // the listing keeps the unit we left
    const left = await until('the listing’s remaining quantity', async () => {
      const o = await orderOf(orderHash);
      return o.remaining_quantity === Number(listed - bought) ? o : undefined;
    });
    expect(left.status).toBe('ACTIVE');
  });

  describe('an item offer of 3 units: placed, 2 filled by a trader, the rest cancelled', () => {
    const id = 4n;
    const qty = 3n;
    let hash: string;
    let wethBefore: bigint;
    let unitsBefore: bigint;

    it('desk.place: ACTIVE on the marketplace with 3 units; the ledger has erc1155 × 3', async () => {
      wethBefore = await wethOf(me.address);
      unitsBefore = await units(me.address, id);
      hash = await desk.place({
        intentId: nextId('offer'),
        strategyId: 'items',
        target: `offer:item:${ITEMS}:${id}`,
        offer: { type: 'item', collection: ITEMS, nft: nftRef(id) },
        price: UNIT,
        paymentToken: weth(),
        quantity: qty,
        expiresAt: Date.now() + HOUR,
      });
      const o = await orderOf(hash);
      expect(o.status).toBe('ACTIVE');
      expect(o.remaining_quantity).toBe(3);
      const p = o.protocol_data?.parameters;
      expect(p?.offer?.[0]).toMatchObject({ itemType: 1, startAmount: (qty * UNIT).toString() });
      expect(p?.consideration?.[0]).toMatchObject({
        itemType: 3, // ERC1155
        identifierOrCriteria: id.toString(),
        startAmount: qty.toString(),
      });
      expect(p?.consideration?.[0]?.token.toLowerCase()).toBe(items().toLowerCase());
      expect(p?.consideration?.[0]?.recipient.toLowerCase()).toBe(me.address.toLowerCase());
      expect(ledger.get(hash)).toMatchObject({
        state: 'open',
        side: 'item_offer',
        standard: 'erc1155',
        quantity: 3n,
        filled: 0n,
        price: UNIT,
        tokenId: id.toString(),
        contract: items().toLowerCase(),
      });
      expect(ledger.exposureOf(ledger.get(hash) as never)).toBe(qty * UNIT);
      // placing moved nothing yet
      expect(await wethOf(me.address)).toBe(wethBefore);
    });

    it('a trader fills 2 units on chain; the sale comes back through the events API into the ledger', async () => {
      const issued = await http('POST', '/api/v2/offers/fulfillment_data', {
        offer: { hash, chain: sb.chain, protocol_address: sb.seaport },
        fulfiller: { address: trader.address },
        consideration: { asset_contract_address: items(), token_id: id.toString() },
        units_to_fill: 2,
      });
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      const tx = await trader.sendTransaction(fulfillmentTransaction(issued.body as never));
      const receipt = await tx.wait();
      expect(receipt?.status).toBe(1);

      // on chain: exactly 2 units for 2 × the unit price (the offer pays its amount; fees come out of it)
      expect(await units(me.address, id)).toBe(unitsBefore + 2n);
      expect(wethBefore - (await wethOf(me.address))).toBe(2n * UNIT);

      // the daemon learns it the way its stream client polls: GET /api/v2/events/collection/{slug}
      const record = await until('the sale event', async () => {
        const page = await api.events.byCollection(ITEMS, { event_type: 'sale' });
        return page.asset_events.find(
          (r) => String((r as { order_hash?: string }).order_hash ?? '').toLowerCase() === hash,
        );
      });
      const sale = normalizeRestEvent(record, { receivedAt: Date.now(), source: 'poll', collection: ITEMS });
      expect(sale).toMatchObject({
        kind: 'sale',
        orderHash: hash,
        quantity: 2n,
        price: 2n * UNIT,
        txHash: receipt?.hash.toLowerCase(),
      });
      if (sale === null) throw new Error('no sale');
      ledger.apply(sale);
      const o = ledger.get(hash);
      expect(o).toMatchObject({ state: 'partly_filled', filled: 2n, quantity: 3n });
      expect(ledger.counts(o as never)).toBe(true);
      expect(ledger.exposureOf(o as never)).toBe(UNIT);
      // the same sale again, and the marketplace's aggregate (1 remaining): charged once
      ledger.apply(sale);
      const remote = await until('the remaining quantity', async () => {
        const r = await orderOf(hash);
        return r.remaining_quantity === 1 ? r : undefined;
      });
      expect(remote.status).toBe('ACTIVE');
      ledger.note(hash, { kind: 'marketplace_status', status: 'ACTIVE', remaining: 1n });
      expect(ledger.get(hash)).toMatchObject({ state: 'partly_filled', filled: 2n });
      expect(ledger.exposureOf(ledger.get(hash) as never)).toBe(UNIT);
      // the store has the order as the ledger does
      expect(w.store.orders.get(hash)).toMatchObject({ side: 'item_offer' });
    });

    it('desk.cancel of the rest: a fill signature is out, so a window, then on chain until gone', async () => {
      const c1 = await desk.cancel(hash, { intentId: nextId('cancel') });
      expect(c1.state).toBe('window'); // the trader got a fulfillment signature
      expect(ledger.get(hash)?.state).toBe('cancelling');
      expect(ledger.exposureOf(ledger.get(hash) as never)).toBe(UNIT); // still counted: 1 unit
      expect((await orderOf(hash)).status).toBe('CANCELLED');
      const c2 = await desk.cancel(hash, { intentId: nextId('cancel'), requireGone: true });
      expect(c2.state).toBe('gone');
      expect((await reader.getOrderStatus(hash)).isCancelled).toBe(true);
      const o = ledger.get(hash);
      expect(o).toMatchObject({ state: 'cancelled', filled: 2n });
      expect(ledger.counts(o as never)).toBe(false);
      expect(ledger.exposureOf(o as never)).toBe(0n);
      expect((await orderOf(hash)).status).toBe('CANCELLED');
      expect(w.store.orders.get(hash)?.status).toBe('cancelled');
      // nothing more moved
      expect(await units(me.address, id)).toBe(unitsBefore + 2n);
      expect(wethBefore - (await wethOf(me.address))).toBe(2n * UNIT);
    });
  });

  it('a listing of 3 units (desk.list): a trader buys 2 on chain; the ledger, the sell fill (2 units, fees) and the holdings follow', async () => {
    const id = 2n; // we bought 3 units of it above
    const held = await units(me.address, id);
    expect(held).toBeGreaterThanOrEqual(3n);
    const eth = {
      address: '0x0000000000000000000000000000000000000000' as never,
      symbol: 'ETH',
      decimals: 18,
    };
    const hash = await desk.list({
      intentId: nextId('list'),
      strategyId: 'seller',
      target: `list:${sb.chain}/${items().toLowerCase()}/${id}`,
      collection: ITEMS,
      nft: nftRef(id),
      price: UNIT,
      paymentToken: eth,
      quantity: 3n,
      expiresAt: Date.now() + 3_600_000,
    });
    expect(ledger.get(hash)).toMatchObject({
      side: 'listing',
      state: 'open',
      quantity: 3n,
      standard: 'erc1155',
    });
    expect((await orderOf(hash)).status).toBe('ACTIVE');
    const issued = await http('POST', '/api/v2/listings/fulfillment_data', {
      listing: { hash, chain: sb.chain, protocol_address: sb.seaport },
      fulfiller: { address: trader.address },
      units_to_fill: 2,
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const ethBefore = await sb.fixture.provider.getBalance(me.address);
    const tx = await trader.sendTransaction(fulfillmentTransaction(issued.body as never));
    const receipt = await tx.wait();
    expect(receipt?.status).toBe(1);
    expect(await units(me.address, id)).toBe(held - 2n);
    const received = (await sb.fixture.provider.getBalance(me.address)) - ethBefore;
    // the sale reaches the ledger as the stream client would poll it
    const record = await until('the sale event', async () => {
      const page = await api.events.byCollection(ITEMS, { event_type: 'sale' });
      return page.asset_events.find(
        (r) => String((r as { order_hash?: string }).order_hash ?? '').toLowerCase() === hash,
      );
    });
    const sale = normalizeRestEvent(record, { receivedAt: Date.now(), source: 'poll', collection: ITEMS });
    if (sale === null) throw new Error('no sale');
    ledger.apply(sale);
    expect(ledger.get(hash)).toMatchObject({ state: 'partly_filled', filled: 2n });
    const fill = w.store.fills.list().find((f) => f.orderHash === hash);
    expect(fill).toMatchObject({ side: 'sell', quantity: 2n, price: 2n * UNIT });
    // what we received is the price less the collection's fees (to the wei)
    expect((fill?.price ?? 0n) - (fill?.fees ?? 0n)).toBe(received);
    const h = createHoldings({ store: w.store, ledger, chain: sb.chain, tokenOf: () => eth });
    expect(h.realized().find((r) => r.txHash === receipt?.hash.toLowerCase())).toMatchObject({
      quantity: 2n,
      proceeds: 2n * UNIT,
      fees: 2n * UNIT - received,
    });
  });

  it('accepting a trader’s offer for 2 units of an ERC-1155 we hold: guard, settlement, 2 units go, proceeds after fees come; the sell fill has 2 units', async () => {
    let id = 0n;
    for (let i = 1n; i <= 12n && id === 0n; i++) if ((await units(me.address, i)) >= 2n) id = i;
    expect(id, 'an id we hold 2 units of').toBeGreaterThan(0n);
    const qty = 2n;
    const price = qty * UNIT;
    const parameters = await offerParameters(ctx(), trader, {
      slug: ITEMS,
      price,
      tokenId: id,
      quantity: qty,
    });
    const signature = await sign(ctx(), trader, parameters);
    const posted = await http('POST', `/api/v2/orders/${sb.chain}/seaport/offers`, {
      parameters,
      signature,
      protocol_address: sb.seaport,
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const fee = collFees().reduce((a, f) => a + (price * BigInt(Math.round(f.fee * 100))) / 10_000n, 0n);
    const unitsBefore = await units(me.address, id);
    const wethBefore = await wethOf(me.address);
    const intentId = nextId('accept-1155');
    const out = await w.executor.acceptOffer({
      intentId,
      orderHash: posted.body['order_hash'] as string,
      collection: ITEMS,
      nft: { contract: items(), tokenId: id, standard: 'erc1155' },
      offerPrice: price,
      minProceeds: price - fee,
      paymentToken: sb.weth,
      quantity: qty,
      feeRecipients: collFees().map((f) => f.recipient),
    });
    expect(out).toMatchObject({ state: 'done', proceeds: price - fee });
    expect(await units(me.address, id)).toBe(unitsBefore - qty);
    expect(await wethOf(me.address)).toBe(wethBefore + price - fee);
    expect(w.store.fills.list().find((f) => f.intentId === intentId)).toMatchObject({
      side: 'sell',
      quantity: qty,
      price,
      fees: fee,
    });
  });
});

/**
 * The executor against the real sandbox (HTTP API, anvil, Seaport 1.6, Uniswap v2 venue, drops):
 * a snipe that moves the NFT to us, an accepted offer (NFT and fee approvals to the conduit sent
 * by the executor itself), swaps and a mint settled on chain, the drop's 409/422 as clear
 * rejections, and tampered fulfillments refused before anything is signed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, MaxUint256, type Wallet, ZeroAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardRejectedError } from '../../../src/chain/guard/index.ts';
import { RejectedError } from '../../../src/errors/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { listingParameters, offerParameters, sign } from '../../../src/sandbox/simulator/orders.ts';
import { roomyLimits } from '../limits.ts';
import { deskOn, factsOf, type Wired, wire } from './wiring.ts';

const ETH = 10n ** 18n;
const APES = 'harpoon-apes';
const WALLETS = 5;

let sb: Sandbox;
let dir: string;
let w: Wired;
let seller: Wallet;
let me: Wallet;
let offerer: Wallet;
let n = 0;
const nextId = (what: string) => `${what}-${++n}`;

/** ERC721 ids are minted round-robin: id → wallets[(id − 1) % WALLETS]. */
const ownedBy = (walletIndex: number, skip = 0) => BigInt(walletIndex + 1 + WALLETS * skip);

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
async function mined(p: Promise<{ wait(): Promise<unknown> }>) {
  const r = (await (await p).wait()) as { status?: number } | null;
  if (r?.status !== 1) throw new Error('transaction failed');
}
async function http(method: string, path: string, body?: unknown, key: string | null = sb.apiKey) {
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers: {
      ...(key !== null ? { 'X-API-KEY': key } : {}),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}
async function postListing(tokenId: bigint, price: bigint): Promise<string> {
  const parameters = await listingParameters(ctx(), seller, { slug: APES, tokenId, price, currency: 'ETH' });
  const signature = await sign(ctx(), seller, parameters);
  const r = await http('POST', `/api/v2/orders/${sb.chain}/seaport/listings`, {
    parameters,
    signature,
    protocol_address: sb.seaport,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body['order_hash'] as string;
}
const fees = () =>
  ctx()
    .coll(APES)
    .fees.map((f) => f.recipient);
const netOf = (price: bigint) =>
  ctx()
    .coll(APES)
    .fees.filter((f) => f.required)
    .reduce((left, f) => left - (price * BigInt(Math.round(f.fee * 100))) / 10000n, price);
const chainNonce = () => sb.fixture.provider.getTransactionCount(me.address, 'latest');

async function rejection(p: Promise<unknown>): Promise<RejectedError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RejectedError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  sb = await createSandbox({
    seed: 21,
    wallets: WALLETS,
    activity: 0,
    limits: roomyLimits(),
  });
  const ws = sb.fixture.wallets;
  seller = ws[0] as Wallet;
  me = ws[1] as Wallet;
  offerer = ws[2] as Wallet;
  const conduit = sb.fixture.seaport.conduit;
  await mined(nft().connect(seller).getFunction('setApprovalForAll')(conduit, true));
  await mined(erc20(sb.weth, offerer).getFunction('deposit')({ value: 5n * ETH }));
  await mined(erc20(sb.weth, offerer).getFunction('approve')(conduit, MaxUint256));
  dir = mkdtempSync(join(tmpdir(), 'harpoon-exec-it-'));
  w = wire(factsOf(sb), (sb.wallets[1] as { privateKey: string }).privateKey, join(dir, 'store.db'));
  const report = await w.executor.reconcile();
  expect(report.intents).toEqual([]);
}, 300_000);

afterAll(async () => {
  await w?.close();
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('buy a listing (the snipe path)', () => {
  it('fulfillment data → guard → simulate → sign → send → confirm → record: the NFT is ours', async () => {
    const id = ownedBy(0);
    const price = ETH / 2n;
    const orderHash = await postListing(id, price);
    const intentId = nextId('snipe');
    const before = await chainNonce();
    const out = await w.executor.buyListing({
      intentId,
      orderHash,
      collection: APES,
      nft: { contract: apes(), tokenId: id, standard: 'erc721' },
      maxPrice: price,
      paymentToken: ZeroAddress,
      feeRecipients: fees(),
    });
    expect(out).toMatchObject({ intentId, kind: 'buy_listing', state: 'done', spent: price });
    expect(out.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await nft().getFunction('ownerOf')(id)).toBe(me.address);
    expect(await chainNonce()).toBe(before + 1);
    const fills = w.store.fills.list().filter((f) => f.intentId === intentId);
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({
      side: 'buy',
      orderHash: orderHash.toLowerCase(),
      tokenId: id.toString(),
      price,
      txHash: out.txHash,
    });
    const spend = w.store.spend.list().filter((s) => s.intentId === intentId);
    expect(spend.map((s) => s.kind).sort()).toEqual(['gas', 'price']);
    expect(w.store.intents.get(intentId)?.state).toBe('done');

    // the same intent again: the recorded outcome, nothing sent
    const again = await w.executor.buyListing({
      intentId,
      orderHash,
      collection: APES,
      nft: { contract: apes(), tokenId: id },
      maxPrice: price,
      paymentToken: ZeroAddress,
    });
    expect(again).toMatchObject({ state: 'done', txHash: out.txHash, replayed: true });
    // another intent on the same listing: refused, nothing sent
    const e = await rejection(
      w.executor.buyListing({
        intentId: nextId('snipe'),
        orderHash,
        collection: APES,
        nft: { contract: apes(), tokenId: id },
        maxPrice: price,
        paymentToken: ZeroAddress,
      }),
    );
    expect(e.code).toBe('listing_already_filled');
    expect(await chainNonce()).toBe(before + 1);
  });

  it('a price above our cap is refused by the guard; nothing signed, the intent failed', async () => {
    const id = ownedBy(0, 1);
    const orderHash = await postListing(id, ETH);
    const intentId = nextId('snipe');
    const before = await chainNonce();
    const e = await rejection(
      w.executor.buyListing({
        intentId,
        orderHash,
        collection: APES,
        nft: { contract: apes(), tokenId: id },
        maxPrice: ETH - 1n,
        paymentToken: ZeroAddress,
        feeRecipients: fees(),
      }),
    );
    expect(e).toBeInstanceOf(GuardRejectedError);
    expect(await chainNonce()).toBe(before);
    expect(w.store.transactions.byIntent(`${intentId}/fill`)).toEqual([]);
    expect(w.executor.status(intentId)).toMatchObject({ state: 'failed', error: e.code });
    expect(w.store.spend.list().filter((s) => s.intentId === intentId)).toEqual([]);
  });

  it('tampered fulfillments (sandbox faults) are refused before signing: nonce unchanged, no tx row; then the clean one buys', async () => {
    const id = ownedBy(0, 2);
    const price = ETH / 5n;
    const orderHash = await postListing(id, price);
    const input = {
      orderHash,
      collection: APES,
      nft: { contract: apes(), tokenId: id, standard: 'erc721' as const },
      maxPrice: price,
      paymentToken: ZeroAddress,
      feeRecipients: fees(),
    };
    const before = await chainNonce();
    const ledger = w.sender.nextNonce();
    const modes: [string, string][] = [
      ['recipient', 'guard_recipient_mismatch'],
      ['value', 'guard_value_above_cap'],
      ['target', 'guard_target_not_allowed'],
      ['extra_item', 'guard_unknown_consideration_recipient'],
    ];
    try {
      for (const [mode, code] of modes) {
        expect((await http('POST', '/_sandbox/faults', { tamper: mode }, null)).status).toBe(200);
        const intentId = nextId(`tampered-${mode}`);
        const e = await rejection(w.executor.buyListing({ intentId, ...input }));
        expect(e.code, `${mode}: ${e.message}`).toBe(code);
        expect(w.store.transactions.byIntent(`${intentId}/fill`)).toEqual([]);
        expect(w.store.intents.get(intentId)).toMatchObject({ state: 'failed', error: code });
      }
    } finally {
      await http('POST', '/_sandbox/reset-faults', undefined, null);
    }
    expect(await chainNonce()).toBe(before);
    expect(w.sender.nextNonce()).toBe(ledger);
    expect(await nft().getFunction('ownerOf')(id)).toBe(seller.address);
    // refused intents do not block the listing: the clean answer buys it
    const out = await w.executor.buyListing({ intentId: nextId('snipe'), ...input });
    expect(out.state).toBe('done');
    expect(await nft().getFunction('ownerOf')(id)).toBe(me.address);
  });
});

/** The offerer's signed WETH item offer on NFT #id, posted to the sandbox; its order hash. */
async function postOffer(id: bigint, price: bigint): Promise<string> {
  const parameters = await offerParameters(ctx(), offerer, { slug: APES, price, tokenId: id });
  const signature = await sign(ctx(), offerer, parameters);
  const posted = await http('POST', `/api/v2/orders/${sb.chain}/seaport/offers`, {
    parameters,
    signature,
    protocol_address: sb.seaport,
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
  return posted.body['order_hash'] as string;
}

describe('accept an offer on an NFT we own', () => {
  it('NFT and fee approvals to the conduit, then the fill: the NFT goes, the proceeds come', async () => {
    const id = ownedBy(1);
    const price = ETH;
    const orderHash = await postOffer(id, price);
    expect(await nft().getFunction('ownerOf')(id)).toBe(me.address);
    const wethBefore = (await erc20(sb.weth).getFunction('balanceOf')(me.address)) as bigint;
    const intentId = nextId('accept');
    const out = await w.executor.acceptOffer({
      intentId,
      orderHash,
      collection: APES,
      nft: { contract: apes(), tokenId: id, standard: 'erc721' },
      offerPrice: price,
      minProceeds: netOf(price),
      paymentToken: sb.weth,
      feeRecipients: fees(),
    });
    expect(out).toMatchObject({ state: 'done', proceeds: netOf(price) });
    expect(await nft().getFunction('ownerOf')(id)).toBe(offerer.address);
    expect((await erc20(sb.weth).getFunction('balanceOf')(me.address)) as bigint).toBe(
      wethBefore + netOf(price),
    );
    // the approvals went through the sender as sub-intents of this intent
    expect(w.store.transactions.byIntent(`${intentId}/approve-nft`)).toHaveLength(1);
    const kinds = w.store.spend
      .list()
      .filter((s) => s.intentId === intentId)
      .map((s) => s.kind)
      .sort();
    expect(kinds).toContain('gas:approve-nft');
    expect(kinds).toContain('gas');
    const fill = w.store.fills.list().find((f) => f.intentId === intentId);
    expect(fill).toMatchObject({ side: 'sell', price, fees: price - netOf(price) });
  });

  it('tampered fulfillment data for accepting an offer is refused before signing: nonce unchanged, the NFT stays ours', async () => {
    const id = ownedBy(1, 1);
    const price = ETH / 2n;
    const input = {
      orderHash: await postOffer(id, price),
      collection: APES,
      nft: { contract: apes(), tokenId: id, standard: 'erc721' as const },
      offerPrice: price,
      minProceeds: netOf(price),
      paymentToken: sb.weth,
      feeRecipients: fees(),
    };
    expect(await nft().getFunction('ownerOf')(id)).toBe(me.address);
    const before = await chainNonce();
    const modes: [string, string][] = [
      ['recipient', 'guard_recipient_mismatch'],
      ['target', 'guard_target_not_allowed'],
      ['extra_item', 'guard_unknown_consideration_recipient'],
    ];
    try {
      for (const [mode, code] of modes) {
        expect((await http('POST', '/_sandbox/faults', { tamper: mode }, null)).status).toBe(200);
        const intentId = nextId(`tampered-accept-${mode}`);
        const e = await rejection(w.executor.acceptOffer({ intentId, ...input }));
        expect(e.code, `${mode}: ${e.message}`).toBe(code);
        expect(w.store.intents.get(intentId)).toMatchObject({ state: 'failed', error: code });
      }
    } finally {
      await http('POST', '/_sandbox/reset-faults', undefined, null);
    }
    expect(await chainNonce()).toBe(before);
    expect(await nft().getFunction('ownerOf')(id)).toBe(me.address);
    // the clean answer sells it
    const out = await w.executor.acceptOffer({ intentId: nextId('accept'), ...input });
    expect(out.state).toBe('done');
    expect(await nft().getFunction('ownerOf')(id)).toBe(offerer.address);
  });
});

describe('swap and mint settle on chain', () => {
  const usdc = () => sb.fixture.uniswap?.tokens.find((t) => t.symbol === 'USDC')?.address as string;
  const amountOut = async (amountIn: bigint, path: string[]) => {
    const router = new Contract(
      sb.fixture.uniswap?.router as string,
      ['function getAmountsOut(uint256,address[]) view returns (uint256[])'],
      sb.fixture.provider,
    );
    const amounts = (await router.getFunction('getAmountsOut')(amountIn, path)) as bigint[];
    return amounts[amounts.length - 1] as bigint;
  };

  it('ETH → USDC (one router call), then USDC → ETH (approval mined first, then the swap)', async () => {
    const amountIn = ETH / 10n;
    const expected = await amountOut(amountIn, [sb.weth, usdc()]);
    const out = await w.executor.swap({
      intentId: nextId('swap'),
      fromToken: ZeroAddress,
      toToken: usdc(),
      amountIn,
      slippageBps: 100,
      expectedAmountOut: expected,
    });
    expect(out).toMatchObject({ state: 'done', spent: amountIn });
    const usdcBal = (await erc20(usdc()).getFunction('balanceOf')(me.address)) as bigint;
    expect(usdcBal).toBeGreaterThanOrEqual((expected * 99n) / 100n);

    const back = usdcBal / 2n;
    const ethBefore = await sb.fixture.provider.getBalance(me.address);
    const intentId = nextId('swap');
    const out2 = await w.executor.swap({
      intentId,
      fromToken: usdc(),
      toToken: ZeroAddress,
      amountIn: back,
      slippageBps: 100,
      expectedAmountOut: await amountOut(back, [usdc(), sb.weth]),
    });
    expect(out2.state).toBe('done');
    expect(w.store.transactions.byIntent(`${intentId}/approve`)).toHaveLength(1);
    expect(await sb.fixture.provider.getBalance(me.address)).toBeGreaterThan(ethBefore);
  });

  it('a swap with no floor of our own is refused before any request', async () => {
    const e = await rejection(
      w.executor.swap({
        intentId: nextId('swap'),
        fromToken: ZeroAddress,
        toToken: usdc(),
        amountIn: ETH,
        slippageBps: 100,
      }),
    );
    expect(e.code).toBe('swap_no_floor');
  });

  it('a drop mint: the token is ours and recorded', async () => {
    const d = sb.fixture.drops.find((x) => x.slug === 'harpoon-genesis');
    if (!d) throw new Error('no drop');
    const maxValue = d.stages.reduce((m, s) => (s.priceWei > m ? s.priceWei : m), 0n);
    const c = new Contract(
      d.address,
      [
        'function balanceOf(address) view returns (uint256)',
        'function ownerOf(uint256) view returns (address)',
      ],
      sb.fixture.provider,
    );
    const before = (await c.getFunction('balanceOf')(me.address)) as bigint;
    const out = await w.executor.mint({
      intentId: nextId('mint'),
      slug: d.slug,
      drop: d.address,
      quantity: 1,
      maxValue,
    });
    expect(out.state).toBe('done');
    expect((await c.getFunction('balanceOf')(me.address)) as bigint).toBe(before + 1n);
    expect(out.minted).toHaveLength(1);
    expect(await c.getFunction('ownerOf')(BigInt(out.minted?.[0] as string))).toBe(me.address);
  });

  it('409 (drop not active) and 422 (mint limit) become clear rejections; nothing sent', async () => {
    const paused = sb.fixture.drops.find((x) => x.slug === 'harpoon-paused');
    const genesis = sb.fixture.drops.find((x) => x.slug === 'harpoon-genesis');
    if (!paused || !genesis) throw new Error('no drop');
    const before = await chainNonce();
    const id409 = nextId('mint');
    const e409 = await rejection(
      w.executor.mint({
        intentId: id409,
        slug: paused.slug,
        drop: paused.address,
        quantity: 1,
        maxValue: ETH,
      }),
    );
    expect(e409.code).toBe('mint_not_active');
    expect(e409.message).toMatch(/not currently active.*paused/);
    expect(w.executor.status(id409)).toMatchObject({ state: 'failed', error: 'mint_not_active' });
    const id422 = nextId('mint');
    const e422 = await rejection(
      w.executor.mint({
        intentId: id422,
        slug: genesis.slug,
        drop: genesis.address,
        quantity: 6,
        maxValue: ETH,
      }),
    );
    expect(e422.code).toBe('mint_precondition_failed');
    expect(e422.message).toMatch(/Mint limit exceeded/);
    expect(w.executor.status(id422)?.state).toBe('failed');
    expect(await chainNonce()).toBe(before);
  });
});

/** The order desk of our wallet (wallets[1]) on the apes collection, wired as the daemon wires it. */
function myDesk(extra: { counterBumpAt?: number; onChainBatchMs?: number } = {}) {
  const key = (sb.wallets[1] as { privateKey: string }).privateKey;
  const fees = ctx()
    .coll(APES)
    .fees.map((f) => ({ fee: f.fee, recipient: f.recipient, required: f.required }));
  return deskOn(sb, w, key, { collection: async () => ({ fees, contract: apes() }), ...extra });
}

describe('our own offers: placed, cancelled off-chain, cancelled on chain when a fill signature is out', () => {
  it('an item offer posted and cancelled off-chain; a collection offer whose fill signature was issued cancelled on chain', async () => {
    {
      const { desk, ledger, reader } = myDesk();
      const api = w.api;
      await mined(erc20(sb.weth, me).getFunction('deposit')({ value: 3n * ETH }));
      const weth = { address: sb.weth.toLowerCase() as never, symbol: 'WETH', decimals: 18 };

      // an item offer on the seller's NFT: the WETH approval goes out first, then the post
      const itemHash = await desk.place({
        intentId: nextId('offer'),
        strategyId: 'bidder',
        target: 'offer:item',
        offer: {
          type: 'item',
          collection: APES,
          nft: {
            chain: sb.chain as never,
            contract: apes() as never,
            identifier: String(ownedBy(0, 3)) as never,
          },
        },
        price: ETH / 2n,
        paymentToken: weth,
        quantity: 1n,
        expiresAt: Date.now() + 3_600_000,
      });
      const item = { orderHash: itemHash };
      expect(w.store.orders.get(item.orderHash)).toMatchObject({ status: 'open', side: 'item_offer' });
      expect(await reader.allowance(sb.weth, me.address, sb.fixture.seaport.conduit)).toBeGreaterThanOrEqual(
        ETH / 2n,
      );
      const c1 = await desk.cancel(item.orderHash, { intentId: nextId('cancel') });
      expect(c1.state).toBe('gone'); // no fulfillment signature was issued: assured at once
      const after = await api.orders.get(sb.chain, sb.seaport, item.orderHash);
      expect((after.order as { status?: string }).status).toBe('CANCELLED');
      expect(w.store.orders.get(item.orderHash)?.status).toBe('cancelled');

      // a collection offer; a trader asks for its fulfillment data (a fill signature is out)
      const coll = {
        orderHash: await desk.place({
          intentId: nextId('offer'),
          strategyId: 'bidder',
          target: 'offer:collection',
          offer: { type: 'collection', collection: APES },
          price: ETH / 4n,
          paymentToken: weth,
          quantity: 1n,
          expiresAt: Date.now() + 3_600_000,
        }),
      };
      expect(w.store.orders.get(coll.orderHash)).toMatchObject({ status: 'open', side: 'collection_offer' });
      const issued = await http('POST', '/api/v2/offers/fulfillment_data', {
        offer: { hash: coll.orderHash, chain: sb.chain, protocol_address: sb.seaport },
        fulfiller: { address: offerer.address },
        consideration: { asset_contract_address: apes(), token_id: ownedBy(2, 3).toString() },
        units_to_fill: 1,
      });
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      // accepted off-chain, but the issued signature stays usable: still counted
      const c2 = await desk.cancel(coll.orderHash, { intentId: nextId('cancel') });
      expect(c2.state).toBe('window');
      expect(ledger.get(coll.orderHash)?.state).toBe('cancelling');
      expect(ledger.counts(ledger.get(coll.orderHash) as never)).toBe(true);
      // the caller needs it gone: cancelled on chain
      const c3 = await desk.cancel(coll.orderHash, { intentId: nextId('cancel'), requireGone: true });
      expect(c3.state).toBe('gone');
      expect((await reader.getOrderStatus(coll.orderHash)).isCancelled).toBe(true);
      expect(w.store.orders.get(coll.orderHash)?.status).toBe('cancelled');
    }
  });

  // Last in the file: the counter bump voids every order of this wallet on the old counter.
  it('cancels refused for many at once: one incrementCounter() voids them and our other offers; new offers use the new counter', async () => {
    // both refusals land in one batch even on a loaded machine
    const { desk, ledger, reader } = myDesk({ counterBumpAt: 2, onChainBatchMs: 1000 });
    const weth = { address: sb.weth.toLowerCase() as never, symbol: 'WETH', decimals: 18 };
    const offer = (i: number) =>
      desk.place({
        intentId: nextId('offer'),
        strategyId: 'bidder',
        target: `offer:collection:${i}`,
        offer: { type: 'collection', collection: APES },
        price: ETH / 100n + BigInt(i),
        paymentToken: weth,
        quantity: 1n,
        expiresAt: Date.now() + 3_600_000,
      });
    const counterBefore = await reader.getCounter(me.address);
    const hashes = [await offer(1), await offer(2), await offer(3)];
    const statusOf = async (h: string) =>
      String(((await w.api.orders.get(sb.chain, sb.seaport, h)).order as { status?: string }).status);
    for (const h of hashes) expect(await statusOf(h)).toBe('ACTIVE');
    const faults = await http('POST', '/_sandbox/faults', { cancel: { refuseRate: 1, refuseStatus: 400 } });
    expect(faults.status).toBe(200);
    try {
      const txsBefore = await chainNonce();
      const res = await Promise.all(
        hashes.slice(0, 2).map((h) => desk.cancel(h, { intentId: nextId('cancel') })),
      );
      expect(res).toEqual([{ state: 'gone' }, { state: 'gone' }]);
      expect((await chainNonce()) - txsBefore).toBe(1); // one transaction
      // Seaport 1.6 moves the counter by a block-derived amount: it changed
      expect(await reader.getCounter(me.address)).not.toBe(counterBefore);
      // all three are void on chain — the third was never asked for — and the ledger knows it
      for (const h of hashes) {
        expect(await statusOf(h)).toBe('CANCELLED');
        expect(ledger.get(h)?.state).toBe('cancelled');
      }
    } finally {
      await http('POST', '/_sandbox/faults', { cancel: { refuseRate: 0 } });
    }
    // a new offer is signed with the new counter and stands
    const fresh = await offer(4);
    expect(await statusOf(fresh)).toBe('ACTIVE');
    expect(ledger.counts(ledger.get(fresh) as never)).toBe(true);
  });
});

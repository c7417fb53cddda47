import { writeFileSync } from 'node:fs';
import { Contract, MaxUint256, type Wallet, ZeroAddress, ZeroHash } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CalldataGuard,
  createCalldataGuard,
  fulfillmentProposal,
  type GuardedTx,
  GuardRejectedError,
  type Intent,
  type SwapIntent,
} from '../../../../src/chain/guard/index.ts';
import { SANDBOX_FEE_RECIPIENT, type Sandbox } from '../../../../src/sandbox/index.ts';
import type { WireParameters } from '../../../../src/sandbox/market/seaport.ts';
import { listingParameters, offerParameters, sign } from '../../../../src/sandbox/simulator/orders.ts';
import {
  expectedReasons,
  mutationsOf,
  prng,
  type RecordedCase,
  type RecordedOptions,
  toJson,
} from '../../../fixtures/guard/mutations.ts';
import { call, startSandbox } from './helpers.ts';

/**
 * The calldata guard against the real sandbox: fulfillment data for listings (basic and advanced
 * orders), an item offer and a criteria offer, swap quotes (with and without an approval step) and
 * a drop mint, all fetched over HTTP, pass the guard and simulate on anvil, and settle when sent.
 * Then the tampered-payload suite: every mutation of those real responses, and every tampering
 * fault of the sandbox, is refused before anything is simulated or signed.
 *
 * HARPOON_RECORD_GUARD_FIXTURES=1 writes the responses to test/fixtures/guard/sandbox-responses.json
 * (replayed and fuzzed offline by test/unit/chain/guard/recorded.test.ts).
 */

const APES = 'harpoon-apes';
const ETH = 10n ** 18n;
const FIXTURE = new URL('../../../fixtures/guard/sandbox-responses.json', import.meta.url);

let sb: Sandbox;
let me: Wallet;
let seller: Wallet;
let offerer: Wallet;
let guard: CalldataGuard;
let opts: RecordedOptions;
let simulations = 0;
const recorded: RecordedCase[] = [];

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
const nft = (slug = APES) =>
  new Contract(
    ctx().coll(slug).contract,
    ['function ownerOf(uint256) view returns (address)', 'function setApprovalForAll(address,bool)'],
    sb.fixture.provider,
  );
const erc20 = (token: string, w?: Wallet) =>
  new Contract(
    token,
    [
      'function deposit() payable',
      'function approve(address,uint256) returns (bool)',
      'function balanceOf(address) view returns (uint256)',
    ],
    w ?? sb.fixture.provider,
  );
async function mined(p: Promise<{ wait(): Promise<unknown> }>) {
  const r = (await (await p).wait()) as { status?: number } | null;
  if (r?.status !== 1) throw new Error('transaction failed');
}
/**
 * Sent with a 30 % gas margin, as the daemon's sender does: an estimate made in one block may fall
 * short in the next (the first Uniswap swap of a block also writes the cumulative prices).
 */
const send = async (w: Wallet, t: GuardedTx) => {
  const tx = { to: t.to, data: t.data, value: t.value };
  const gasLimit = ((await w.estimateGas(tx)) * 13n) / 10n;
  return mined(w.sendTransaction({ ...tx, gasLimit }));
};
const collectionFees = (slug = APES) =>
  ctx()
    .coll(slug)
    .fees.map((f) => f.recipient);

beforeAll(async () => {
  sb = await startSandbox();
  const w = sb.fixture.wallets;
  seller = w[0] as Wallet;
  me = w[1] as Wallet;
  offerer = w[2] as Wallet;
  const conduit = sb.fixture.seaport.conduit;
  for (const x of [seller, me]) await mined(nft().connect(x).getFunction('setApprovalForAll')(conduit, true));
  for (const x of [me, offerer]) {
    await mined(erc20(sb.weth, x).getFunction('deposit')({ value: 5n * ETH }));
    await mined(erc20(sb.weth, x).getFunction('approve')(conduit, MaxUint256));
  }
  opts = {
    chainId: sb.chainId,
    wallets: [me.address],
    seaport: [sb.seaport],
    conduitKeys: [ZeroHash, sb.conduitKey],
    feeRecipients: [SANDBOX_FEE_RECIPIENT],
    routers: [sb.fixture.uniswap!.router],
    weth: sb.weth,
    drops: sb.fixture.drops.map((d) => d.address),
  };
  guard = createCalldataGuard({
    ...opts,
    call: async ({ from, to, data, value }) => {
      simulations++;
      return sb.fixture.provider.call({ from, to, data, value });
    },
  });
}, 300_000);

afterAll(async () => {
  if (process.env['HARPOON_RECORD_GUARD_FIXTURES'] === '1' && recorded.length > 0) {
    writeFileSync(FIXTURE, `${toJson({ options: opts, cases: recorded })}\n`);
  }
  await sb?.close();
});

async function postListing(tokenId: bigint, price: bigint, currency: 'ETH' | 'WETH'): Promise<string> {
  const parameters = await listingParameters(ctx(), seller, { slug: APES, tokenId, price, currency });
  const signature = await sign(ctx(), seller, parameters);
  const r = await call(sb, 'POST', `/api/v2/orders/${sb.chain}/seaport/listings`, {
    parameters,
    signature,
    protocol_address: sb.seaport,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body['order_hash'] as string;
}

async function postItemOffer(tokenId: bigint, price: bigint): Promise<string> {
  const parameters = await offerParameters(ctx(), offerer, { slug: APES, price, tokenId });
  const signature = await sign(ctx(), offerer, parameters);
  const r = await call(sb, 'POST', `/api/v2/orders/${sb.chain}/seaport/offers`, {
    parameters,
    signature,
    protocol_address: sb.seaport,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body['order_hash'] as string;
}

const listingFulfillment = async (hash: string) => {
  const r = await call(sb, 'POST', '/api/v2/listings/fulfillment_data', {
    listing: { hash, chain: sb.chain, protocol_address: sb.seaport },
    fulfiller: { address: me.address },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
const offerFulfillment = async (hash: string, tokenId: bigint) => {
  const r = await call(sb, 'POST', '/api/v2/offers/fulfillment_data', {
    offer: { hash, chain: sb.chain, protocol_address: sb.seaport },
    fulfiller: { address: me.address },
    consideration: { asset_contract_address: ctx().coll(APES).contract, token_id: tokenId.toString() },
    units_to_fill: 1,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

const buyIntent = (
  tokenId: bigint,
  price: bigint,
  orderHash: string,
  paymentToken = ZeroAddress,
): Intent => ({
  kind: 'buy_listing',
  chainId: sb.chainId,
  nft: { contract: ctx().coll(APES).contract, identifier: tokenId, standard: 'erc721' },
  orderHash,
  maxPrice: price,
  paymentToken,
  recipient: me.address,
  feeRecipients: collectionFees(),
});
/** What the offer nets after the collection's required fees (as the SDK computes them). */
const netOf = (price: bigint) =>
  ctx()
    .coll(APES)
    .fees.filter((f) => f.required)
    .reduce((left, f) => left - (price * BigInt(Math.round(f.fee * 100))) / 10000n, price);
const offerIntent = (tokenId: bigint, price: bigint, orderHash: string): Intent => ({
  kind: 'accept_offer',
  chainId: sb.chainId,
  nft: { contract: ctx().coll(APES).contract, identifier: tokenId, standard: 'erc721' },
  orderHash,
  minProceeds: netOf(price),
  paymentToken: sb.weth,
  recipient: me.address,
  feeRecipients: collectionFees(),
});

describe('real responses pass the guard, simulate and settle', () => {
  it('a listing paid in ETH (basic order)', async () => {
    const price = ETH / 2n;
    const hash = await postListing(1n, price, 'ETH');
    const response = await listingFulfillment(hash);
    const intent = buyIntent(1n, price, hash);
    const t = await guard.guardFulfillment(response, intent);
    expect(t.function).toMatch(/^fulfillBasicOrder_efficient_6GL6yc\(/);
    expect(t).toMatchObject({ step: 'fulfill_listing', simulated: true, value: price });
    expect(t.facts).toMatchObject({ paid: price.toString(), orderHash: hash.toLowerCase() });
    recorded.push({ name: 'listing paid in ETH (basic order)', kind: 'fulfillment', intent, response });
    await send(me, t);
    expect(await nft().getFunction('ownerOf')(1n)).toBe(me.address);
  });

  it('a listing paid in WETH (advanced order, conduit)', async () => {
    const price = ETH / 4n;
    const hash = await postListing(6n, price, 'WETH');
    const response = await listingFulfillment(hash);
    const intent = buyIntent(6n, price, hash, sb.weth);
    const t = await guard.guardFulfillment(response, intent);
    expect(t.function).toMatch(/^fulfillAdvancedOrder\(/);
    expect(t).toMatchObject({ step: 'fulfill_listing', simulated: true, value: 0n });
    recorded.push({ name: 'listing paid in WETH (advanced order)', kind: 'fulfillment', intent, response });
    await send(me, t);
    expect(await nft().getFunction('ownerOf')(6n)).toBe(me.address);
  });

  it('an item offer on our NFT (zone-signed advanced order)', async () => {
    const price = ETH;
    const hash = await postItemOffer(2n, price);
    const response = await offerFulfillment(hash, 2n);
    const intent = offerIntent(2n, price, hash);
    const t = await guard.guardFulfillment(response, intent);
    expect(t).toMatchObject({ step: 'fulfill_offer', simulated: true, value: 0n });
    expect(t.facts['proceeds']).toBe(netOf(price).toString());
    recorded.push({ name: 'item offer', kind: 'fulfillment', intent, response });
    const before = (await erc20(sb.weth).getFunction('balanceOf')(me.address)) as bigint;
    await send(me, t);
    expect(await nft().getFunction('ownerOf')(2n)).toBe(offerer.address);
    expect((await erc20(sb.weth).getFunction('balanceOf')(me.address)) as bigint).toBe(before + netOf(price));
  });

  it('a collection (criteria) offer, built and posted over HTTP', async () => {
    const built = await call(sb, 'POST', '/api/v2/offers/build', {
      offerer: offerer.address,
      quantity: 1,
      criteria: { collection: { slug: APES } },
      protocol_address: sb.seaport,
      offer_protection_enabled: true,
    });
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    const b = built.body as {
      partialParameters: { consideration: Record<string, unknown>[]; zone: string };
      criteria: unknown;
    };
    const { recipient: _r, ...nftItem } = b.partialParameters.consideration[0] as {
      recipient: string;
    } & WireParameters['offer'][number];
    const price = ETH / 2n;
    const parameters = await offerParameters(ctx(), offerer, {
      slug: APES,
      price,
      nftItem,
      zone: b.partialParameters.zone,
    });
    const signature = await sign(ctx(), offerer, parameters);
    const posted = await call(sb, 'POST', '/api/v2/offers', {
      protocol_data: { parameters, signature },
      criteria: b.criteria,
      protocol_address: sb.seaport,
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const hash = posted.body['order_hash'] as string;
    const response = await offerFulfillment(hash, 7n);
    const intent = offerIntent(7n, price, hash);
    const t = await guard.guardFulfillment(response, intent);
    expect(t).toMatchObject({ step: 'fulfill_offer', simulated: true });
    recorded.push({ name: 'collection offer', kind: 'fulfillment', intent, response });
    await send(me, t);
    expect(await nft().getFunction('ownerOf')(7n)).toBe(offerer.address);
  });

  const usdc = () => sb.fixture.uniswap!.tokens.find((t) => t.symbol === 'USDC')!.address;
  const quote = async (from: string, to: string, quantity: bigint) => {
    const q = new URLSearchParams({
      from_chain: sb.chain,
      from_address: from,
      to_chain: sb.chain,
      to_address: to,
      quantity: quantity.toString(),
      address: me.address,
    });
    const r = await call(sb, 'GET', `/api/v2/swap/quote?${q}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  /** Our own minimum: the router's price, less 5 %. */
  const minOut = async (amountIn: bigint, path: string[]) => {
    const router = new Contract(
      sb.fixture.uniswap!.router,
      ['function getAmountsOut(uint256,address[]) view returns (uint256[])'],
      sb.fixture.provider,
    );
    const amounts = (await router.getFunction('getAmountsOut')(amountIn, path)) as bigint[];
    return ((amounts[amounts.length - 1] as bigint) * 95n) / 100n;
  };

  it('a swap quote ETH → USDC (one router call)', async () => {
    const amountIn = ETH / 10n;
    const response = await quote(ZeroAddress, usdc(), amountIn);
    const intent: SwapIntent = {
      kind: 'swap',
      chainId: sb.chainId,
      fromToken: ZeroAddress,
      toToken: usdc(),
      amountIn,
      minAmountOut: await minOut(amountIn, [sb.weth, usdc()]),
      recipient: me.address,
    };
    const [t, ...rest] = await guard.guardSwapQuote(response, intent);
    expect(rest).toEqual([]);
    expect(t).toMatchObject({ step: 'swap', simulated: true, value: amountIn });
    expect(BigInt(t!.facts['simulatedAmountOut'] as string)).toBeGreaterThanOrEqual(intent.minAmountOut);
    recorded.push({ name: 'swap ETH → USDC', kind: 'swap', intent, response });
    await send(me, t!);
    expect((await erc20(usdc()).getFunction('balanceOf')(me.address)) as bigint).toBeGreaterThanOrEqual(
      intent.minAmountOut,
    );
  });

  it('a swap quote USDC → ETH (exact approval, then the swap, simulated once the approval is mined)', async () => {
    const amountIn = ((await erc20(usdc()).getFunction('balanceOf')(me.address)) as bigint) / 2n;
    const response = await quote(usdc(), ZeroAddress, amountIn);
    const intent: SwapIntent = {
      kind: 'swap',
      chainId: sb.chainId,
      fromToken: usdc(),
      toToken: ZeroAddress,
      amountIn,
      minAmountOut: await minOut(amountIn, [usdc(), sb.weth]),
      recipient: me.address,
    };
    const [approve, swap] = await guard.guardSwapQuote(response, intent);
    expect(approve).toMatchObject({ step: 'approve', simulated: true });
    expect(swap).toMatchObject({ step: 'swap', simulated: false });
    recorded.push({ name: 'swap USDC → ETH with approval', kind: 'swap', intent, response });
    await send(me, approve!);
    const simulated = await guard.simulate(swap!, intent);
    expect(simulated.simulated).toBe(true);
    const before = await sb.fixture.provider.getBalance(me.address);
    await send(me, simulated);
    expect(await sb.fixture.provider.getBalance(me.address)).toBeGreaterThan(before);
  });

  it('a drop mint', async () => {
    const slug = 'harpoon-genesis';
    const d = sb.fixture.drops.find((x) => x.slug === slug)!;
    const r = await call(sb, 'POST', `/api/v2/drops/${slug}/mint`, { minter: me.address, quantity: 1 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const maxValue = d.stages.reduce((m, s) => (s.priceWei > m ? s.priceWei : m), 0n);
    const intent: Intent = {
      kind: 'mint',
      chainId: sb.chainId,
      drop: d.address,
      quantity: 1n,
      maxValue,
      recipient: me.address,
    };
    const t = await guard.guardMint(r.body, intent);
    expect(t).toMatchObject({ step: 'mint', simulated: true });
    recorded.push({ name: 'drop mint', kind: 'mint', intent, response: r.body });
    const c = new Contract(
      d.address,
      ['function balanceOf(address) view returns (uint256)'],
      sb.fixture.provider,
    );
    const before = (await c.getFunction('balanceOf')(me.address)) as bigint;
    await send(me, t);
    expect((await c.getFunction('balanceOf')(me.address)) as bigint).toBe(before + 1n);
  });
});

async function refusal(p: Promise<unknown>): Promise<GuardRejectedError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GuardRejectedError) return e;
    throw e;
  }
  throw new Error('the guard let a tampered payload through');
}

function guardOf(c: RecordedCase, response: unknown) {
  if (c.kind === 'fulfillment') return guard.guardFulfillment(response, c.intent);
  if (c.kind === 'swap') return guard.guardSwapQuote(response, c.intent as SwapIntent);
  return guard.guardMint(response, c.intent);
}

describe('tampered-payload suite', () => {
  it('every mutation of every real response is refused with its reason, before any simulation', async () => {
    expect(recorded.map((c) => c.name)).toHaveLength(7);
    const rnd = prng(20261121);
    let count = 0;
    const startSims = simulations;
    const byReason: Record<string, number> = {};
    for (const c of recorded) {
      for (const m of mutationsOf(c, rnd, opts)) {
        const e = await refusal(guardOf(c, m.response));
        expect(expectedReasons(m), `${c.name}: ${m.name} → ${e.reason} (${e.shortMessage})`).toContain(
          e.reason,
        );
        byReason[e.reason] = (byReason[e.reason] ?? 0) + 1;
        count++;
      }
    }
    expect(simulations).toBe(startSims);
    expect(count).toBeGreaterThan(80);
    for (const r of [
      'recipient_mismatch',
      'value_above_cap',
      'target_not_allowed',
      'function_not_allowed',
      'nft_mismatch',
      'unknown_consideration_recipient',
      'dangerous_call',
      'trailing_bytes',
      'chain_mismatch',
      'order_hash_mismatch',
    ]) {
      expect(byReason[r], r).toBeGreaterThan(0);
    }
    // counted per reason by the guard itself
    const counts = guard.rejections();
    for (const [r, n] of Object.entries(byReason))
      expect(counts[r as keyof typeof counts]).toBeGreaterThanOrEqual(n);
  });

  const TAMPER: [string, string][] = [
    ['recipient', 'recipient_mismatch'],
    ['value', 'value_above_cap'],
    ['target', 'target_not_allowed'],
    ['extra_item', 'unknown_consideration_recipient'],
  ];

  it('the sandbox tampering faults on a listing: every mode refused, the clean response passes', async () => {
    const price = ETH / 5n;
    const hash = await postListing(11n, price, 'ETH');
    const intent = buyIntent(11n, price, hash);
    const startSims = simulations;
    try {
      for (const [mode, reason] of TAMPER) {
        expect((await call(sb, 'POST', '/_sandbox/faults', { tamper: mode }, null)).status).toBe(200);
        const e = await refusal(guard.guardFulfillment(await listingFulfillment(hash), intent));
        expect(e.reason, `${mode}: ${e.shortMessage}`).toBe(reason);
      }
    } finally {
      await call(sb, 'POST', '/_sandbox/reset-faults', undefined, null);
    }
    expect(simulations).toBe(startSims);
    const t = await guard.guardFulfillment(await listingFulfillment(hash), intent);
    await send(me, t);
    expect(await nft().getFunction('ownerOf')(11n)).toBe(me.address);
  });

  it('the sandbox tampering faults on an offer: every mode refused, the clean response passes', async () => {
    const price = ETH / 3n;
    const hash = await postItemOffer(12n, price);
    const intent = offerIntent(12n, price, hash);
    const startSims = simulations;
    try {
      for (const [mode, reason] of TAMPER) {
        expect((await call(sb, 'POST', '/_sandbox/faults', { tamper: mode }, null)).status).toBe(200);
        const e = await refusal(guard.guardFulfillment(await offerFulfillment(hash, 12n), intent));
        expect(e.reason, `${mode}: ${e.shortMessage}`).toBe(reason);
      }
    } finally {
      await call(sb, 'POST', '/_sandbox/reset-faults', undefined, null);
    }
    expect(simulations).toBe(startSims);
    const t = await guard.guardFulfillment(await offerFulfillment(hash, 12n), intent);
    expect(t.simulated).toBe(true);
  });

  it('a stale fulfillment (the listing already sold) is refused by the simulation', async () => {
    const price = ETH / 5n;
    const hash = await postListing(16n, price, 'ETH');
    const response = await listingFulfillment(hash);
    const intent = buyIntent(16n, price, hash);
    const t = guard.check(fulfillmentProposal(response), intent)[0]!;
    // someone else buys it first
    const other = sb.fixture.wallets[3] as Wallet;
    await mined(other.sendTransaction({ to: t.to, data: t.data, value: t.value }));
    const e = await refusal(guard.guardFulfillment(response, intent));
    expect(e.reason).toBe('simulation_reverted');
  });
});

import { Contract, Interface, type TransactionReceipt, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SwapToken } from '../../../../src/sandbox/chain/uniswap.ts';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { type Answer, call, obj, startSandbox } from './helpers.ts';

/**
 * `GET /api/v2/swap/quote` against a whole sandbox: every parameter checked, and the returned
 * transactions, signed and sent by funded wallets, really swap on the chain's Uniswap v2 venue —
 * the recipient receives at least `amountOutMin` (from the calldata) and about the quoted amount.
 */

let sb: Sandbox;
let usdc: SwapToken;
let hrp: SwapToken;
let router: Interface;
const ETH = 10n ** 18n;
const NATIVE = '0x0000000000000000000000000000000000000000';
const T = '/api/v2/swap/quote';

interface Tx {
  chain: string;
  to: string;
  data: string;
  value: string;
  value_hex: string;
  gas_limit: string;
}
interface Quote {
  quote: {
    total_price_usd: number;
    total_cost_usd: number;
    slippage_tolerance: number;
    price_impact: { usd: string; percent: string };
    costs: { type: string; usd: string }[];
    route_errors: { type: string }[];
    [k: string]: unknown;
  };
  transactions: Tx[];
}

function qs(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return q.toString();
}

async function quote(params: Record<string, string | undefined>): Promise<Answer> {
  return call(sb, 'GET', `${T}?${qs({ from_chain: 'ethereum', to_chain: 'ethereum', ...params })}`);
}

async function okQuote(params: Record<string, string | undefined>): Promise<Quote> {
  const r = await quote(params);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expectValidResponse('GET', T, 200, r.body);
  return r.body as Quote;
}

function expect400(r: Answer, reason: RegExp) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expectValidResponse('GET', T, 400, r.body);
  expect((obj(r)['errors'] as string[]).join(' | ')).toMatch(reason);
}

async function send(w: Wallet, tx: Tx): Promise<TransactionReceipt> {
  expect(tx.chain).toBe('ethereum');
  expect(BigInt(tx.value_hex)).toBe(BigInt(tx.value));
  // as the API says: the gas limit includes a safety buffer, use it as-is
  expect(BigInt(tx.gas_limit)).toBeGreaterThan(21_000n);
  const sent = await w.sendTransaction({
    to: tx.to,
    data: tx.data,
    value: BigInt(tx.value),
    gasLimit: BigInt(tx.gas_limit),
  });
  const r = await sent.wait();
  if (r?.status !== 1) throw new Error('transaction failed');
  return r;
}

const erc20 = (t: SwapToken | string) =>
  new Contract(
    typeof t === 'string' ? t : t.address,
    [
      'function balanceOf(address) view returns (uint256)',
      'function allowance(address,address) view returns (uint256)',
    ],
    sb.fixture.provider,
  );
const balance = (t: SwapToken | string, who: string) =>
  erc20(t).getFunction('balanceOf')(who) as Promise<bigint>;

async function amountsOut(amount: bigint, path: string[]): Promise<bigint[]> {
  const uni = sb.fixture.uniswap!;
  const c = new Contract(uni.router, uni.routerAbi as never[], sb.fixture.provider);
  return (await c.getFunction('getAmountsOut')(amount, path)) as bigint[];
}

beforeAll(async () => {
  sb = await startSandbox(21);
  const uni = sb.fixture.uniswap!;
  usdc = uni.tokens.find((t) => t.symbol === 'USDC')!;
  hrp = uni.tokens.find((t) => t.symbol === 'HRP')!;
  router = new Interface(uni.routerAbi as never[]);
}, 300_000);

afterAll(async () => {
  await sb?.close();
});

describe('swap quote parameters', () => {
  const base = () => ({
    from_address: NATIVE,
    to_address: usdc.address,
    quantity: String(ETH),
    address: sb.wallets[0]!.address,
  });

  it('400 for each missing required parameter', async () => {
    for (const k of ['from_chain', 'from_address', 'to_chain', 'to_address', 'quantity', 'address']) {
      const r = await call(
        sb,
        'GET',
        `${T}?${qs({ from_chain: 'ethereum', to_chain: 'ethereum', ...base(), [k]: undefined })}`,
      );
      expect400(r, new RegExp(`${k}: required`));
    }
  });

  it('400 for slippage outside 0.0–0.5, bad amounts, addresses, chains and tokens', async () => {
    expect400(await quote({ ...base(), slippage: '0.6' }), /slippage/);
    expect400(await quote({ ...base(), slippage: '-0.1' }), /slippage/);
    expect400(await quote({ ...base(), slippage: 'lots' }), /slippage/);
    expect400(await quote({ ...base(), quantity: '0' }), /quantity/);
    expect400(await quote({ ...base(), quantity: '1e18' }), /quantity/);
    expect400(await quote({ ...base(), address: '0xnope' }), /address/);
    expect400(await quote({ ...base(), recipient: '0x12' }), /recipient/);
    expect400(await quote({ ...base(), to_address: Wallet.createRandom().address }), /no swappable token/);
    expect400(await quote({ ...base(), to_address: NATIVE }), /same token/);
    expect400(await quote({ ...base(), from_chain: 'base' }), /only on ethereum/);
    expect400(await quote({ ...base(), to_chain: 'narnia' }), /unknown chain/);
  });

  it('slippage defaults to 0.01 and the recipient to the sender', async () => {
    const q = await okQuote(base());
    expect(q.quote['slippage_tolerance']).toBe(0.01);
    const swap = router.parseTransaction({ data: q.transactions[0]!.data })!;
    expect(swap.name).toBe('swapExactETHForTokens');
    expect(swap.args[2]).toBe(sb.wallets[0]!.address);
    const [, out] = await amountsOut(ETH, [sb.weth, usdc.address]);
    expect(swap.args[0]).toBe((out! * 99n) / 100n);
    const q5 = await okQuote({ ...base(), slippage: '0.05' });
    expect(q5.quote['slippage_tolerance']).toBe(0.05);
    expect(router.parseTransaction({ data: q5.transactions[0]!.data })!.args[0]).toBe((out! * 95n) / 100n);
  });
});

describe('swaps that settle on chain', () => {
  it('ETH → USDC to another recipient: the recipient gets ≥ amountOutMin, about the quoted USD value', async () => {
    const sender = sb.fixture.wallets[0] as Wallet;
    const recipient = Wallet.createRandom().address;
    const q = await okQuote({
      from_address: NATIVE,
      to_address: usdc.address,
      quantity: String(2n * ETH),
      address: sender.address,
      recipient,
      slippage: '0.02',
    });
    expect(q.transactions).toHaveLength(1); // native input: no approval
    const tx = q.transactions[0]!;
    expect(tx.to).toBe(sb.fixture.uniswap!.router.toLowerCase());
    expect(tx.value).toBe(String(2n * ETH));
    const swap = router.parseTransaction({ data: tx.data, value: BigInt(tx.value) })!;
    expect(swap.name).toBe('swapExactETHForTokens');
    const [minOut, path, to, deadline] = swap.args as unknown as [bigint, string[], string, bigint];
    expect(path).toEqual([sb.weth, usdc.address]);
    expect(to).toBe(recipient);
    const now = (await sb.fixture.provider.getBlock('latest'))!.timestamp;
    expect(Number(deadline)).toBeGreaterThan(now);
    expect(q.quote).toMatchObject({
      total_cost_usd: 6000,
      swap_provider: 'UNISWAP_V2',
      marketplace_fee_bps: 0,
      route_errors: [],
    });
    expect(Number(q.quote['price_impact']['percent'])).toBeLessThan(0);

    await send(sender, tx);
    const got = await balance(usdc, recipient);
    expect(got).toBeGreaterThanOrEqual(minOut);
    // USDC is one dollar: the quoted value in USD is the amount received
    const quoted = q.quote['total_price_usd'] as number;
    expect(Math.abs(Number(got) / 1e6 - quoted)).toBeLessThan(0.01);
    expect(minOut).toBe((got * 98n) / 100n);
  });

  it('USDC → ETH: the approval comes first while the allowance is short, then the swap pays the recipient', async () => {
    // wallet 1 buys some USDC first (through a quote, as a client would)
    const w = sb.fixture.wallets[1] as Wallet;
    const buy = await okQuote({
      from_address: NATIVE,
      to_address: usdc.address,
      quantity: String(ETH),
      address: w.address,
    });
    await send(w, buy.transactions[0]!);
    const held = await balance(usdc, w.address);
    expect(held).toBeGreaterThan(0n);

    const amount = held / 2n;
    const recipient = Wallet.createRandom().address;
    // ETH's USD price now (the pools moved with the swaps above), as the quote sees it
    const ethUsd = Number(
      obj(await call(sb, 'GET', `/api/v2/chain/ethereum/payment_token/${NATIVE}`))['usd_price'] as string,
    );
    expect(ethUsd).toBeGreaterThan(2900);
    const q = await okQuote({
      from_address: usdc.address,
      to_address: '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE',
      quantity: String(amount),
      address: w.address,
      recipient,
    });
    expect(q.transactions).toHaveLength(2);
    const [approve, swapTx] = q.transactions as [Tx, Tx];
    const erc20If = new Interface(['function approve(address,uint256)']);
    const a = erc20If.parseTransaction({ data: approve.data })!;
    expect(approve.to).toBe(usdc.address.toLowerCase());
    expect(a.name).toBe('approve');
    expect(a.args[0]).toBe(sb.fixture.uniswap!.router);
    expect(a.args[1]).toBe(amount);
    const swap = router.parseTransaction({ data: swapTx.data })!;
    expect(swap.name).toBe('swapExactTokensForETH');
    expect(swap.args[0]).toBe(amount);
    const minOut = swap.args[1] as bigint;

    await send(w, approve);
    // with the allowance in place, a quote for at most that amount needs no approval
    const again = await okQuote({
      from_address: usdc.address,
      to_address: NATIVE,
      quantity: String(amount),
      address: w.address,
    });
    expect(again.transactions).toHaveLength(1);
    expect(router.parseTransaction({ data: again.transactions[0]!.data })!.name).toBe(
      'swapExactTokensForETH',
    );
    await send(w, swapTx);
    const got = await sb.fixture.provider.getBalance(recipient);
    expect(got).toBeGreaterThanOrEqual(minOut);
    expect(await balance(usdc, w.address)).toBe(held - amount);
    const quotedEth = (q.quote['total_price_usd'] as number) / ethUsd;
    expect(Math.abs(Number(got) / 1e18 - quotedEth) / quotedEth).toBeLessThan(0.01);

    // the allowance is used up: the next quote asks for an approval again
    const after = await okQuote({
      from_address: usdc.address,
      to_address: NATIVE,
      quantity: '1000',
      address: w.address,
    });
    expect(after.transactions).toHaveLength(2);
  });

  it('USDC → HRP goes through WETH and settles', async () => {
    const w = sb.fixture.wallets[1] as Wallet;
    const amount = (await balance(usdc, w.address)) / 2n;
    const q = await okQuote({
      from_address: usdc.address,
      to_address: hrp.address,
      quantity: String(amount),
      address: w.address,
    });
    const last = q.transactions.at(-1)!;
    const swap = router.parseTransaction({ data: last.data })!;
    expect(swap.name).toBe('swapExactTokensForTokens');
    expect(swap.args[2]).toEqual([usdc.address, sb.weth, hrp.address]);
    const expected = (await amountsOut(amount, [usdc.address, sb.weth, hrp.address])).at(-1)!;
    expect(swap.args[1]).toBe((expected * 99n) / 100n);
    for (const tx of q.transactions) await send(w, tx);
    expect(await balance(hrp, w.address)).toBe(expected);
    expect(q.quote['costs'].map((c: { type: string }) => c.type)).toEqual(['GAS', 'SWAP']);
  });

  it('ETH → WETH wraps, WETH → ETH unwraps (with a transfer to another recipient)', async () => {
    const w = sb.fixture.wallets[2] as Wallet;
    const wrap = await okQuote({
      from_address: NATIVE,
      to_address: sb.weth,
      quantity: String(ETH),
      address: w.address,
    });
    expect(wrap.transactions).toHaveLength(1);
    await send(w, wrap.transactions[0]!);
    expect(await balance(sb.weth, w.address)).toBe(ETH);
    const recipient = Wallet.createRandom().address;
    const unwrap = await okQuote({
      from_address: sb.weth,
      to_address: NATIVE,
      quantity: String(ETH / 2n),
      address: w.address,
      recipient,
    });
    expect(unwrap.transactions).toHaveLength(2);
    for (const tx of unwrap.transactions) await send(w, tx);
    expect(await sb.fixture.provider.getBalance(recipient)).toBe(ETH / 2n);
    expect(await balance(sb.weth, w.address)).toBe(ETH / 2n);
  });

  it('a sender without the funds still gets a quote, flagged INSUFFICIENT_FUNDS; dust gets no route', async () => {
    const poor = Wallet.createRandom().address;
    const q = await okQuote({
      from_address: usdc.address,
      to_address: NATIVE,
      quantity: '1000000',
      address: poor,
    });
    expect(q.quote['route_errors']).toEqual([{ type: 'INSUFFICIENT_FUNDS' }]);
    const rich = await okQuote({
      from_address: NATIVE,
      to_address: usdc.address,
      quantity: String(ETH / 1000n),
      address: sb.wallets[3]!.address,
    });
    expect(rich.quote['route_errors']).toEqual([]);
    expect400(
      await quote({ from_address: NATIVE, to_address: usdc.address, quantity: '1000', address: poor }),
      /No route/,
    );
  });
});

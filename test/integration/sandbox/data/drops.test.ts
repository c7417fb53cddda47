import { type Contract, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DropDeployment } from '../../../../src/sandbox/chain/drops.ts';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { addressLeaf } from '../../../../src/sandbox/merkle.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { wait } from '../market/helpers.ts';
import { type Answer, at, call, obj, rows, startSandbox } from './helpers.ts';

/**
 * Drops against a whole sandbox: the list and the detail (stages, limits, allowlist), and the
 * mint endpoint — automatic stage selection, transactions that really mint to the minter when
 * someone else sends them, and every error status with each of its causes.
 */

let sb: Sandbox;
const M = '/api/v2/drops/{slug}/mint';
const GENESIS = 'harpoon-genesis';

const wallet = (i: number) => sb.fixture.wallets[i] as Wallet;
const drop = (slug: string) => sb.fixture.drops.find((d) => d.slug === slug) as DropDeployment;
/** The drop contract as its owner (the fixture's admin). */
const asOwner = (slug: string) => drop(slug).contract as Contract;

interface MintTx {
  to: string;
  data: string;
  value: string;
  chain: string;
}

const mint = (slug: string, body: unknown) => call(sb, 'POST', `/api/v2/drops/${slug}/mint`, body);

function expectMintError(a: Answer, status: number, reason: RegExp) {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expectValidResponse('POST', M, status, a.body);
  expect((obj(a)['errors'] as string[]).join(' | ')).toMatch(reason);
}

async function sendMint(sender: Wallet, tx: MintTx) {
  expect(tx.chain).toBe('ethereum');
  expect(tx.value).toMatch(/^0x[0-9a-f]+$/);
  const r = await (
    await sender.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value) })
  ).wait();
  if (r?.status !== 1) throw new Error('mint reverted');
  return r;
}

async function ownerOfToken(slug: string, id: bigint): Promise<string> {
  return String(await asOwner(slug).getFunction('ownerOf')(id));
}

/** Runs `f` with stage `index` of a drop replaced, then puts the stage (with its minted count) back. */
async function withStage(
  slug: string,
  index: number,
  patch: Record<string, bigint | number>,
  f: () => Promise<void>,
) {
  const c = asOwner(slug);
  const s = (await c.getFunction('stage')(BigInt(index))) as unknown as [
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
    string,
  ];
  const struct = () => ({
    start: s[0],
    end: s[1],
    price: s[2],
    perWalletLimit: s[3],
    supply: s[4],
    minted: s[5],
    allowlistRoot: s[6],
  });
  await wait(c.getFunction('setStage')(BigInt(index), { ...struct(), ...patch }));
  try {
    await f();
  } finally {
    const now = (await c.getFunction('stage')(BigInt(index))) as unknown as bigint[];
    await wait(c.getFunction('setStage')(BigInt(index), { ...struct(), minted: now[5] }));
  }
}

beforeAll(async () => {
  sb = await startSandbox(31);
}, 300_000);

afterAll(async () => {
  await sb?.close();
});

describe('GET /api/v2/drops and /api/v2/drops/{slug}', () => {
  it('lists every drop with its state: minting with its active stage, or its next stage', async () => {
    const r = await call(sb, 'GET', '/api/v2/drops');
    expect(r.status).toBe(200);
    expectValidResponse('GET', '/api/v2/drops', 200, r.body);
    const drops = rows(r.body, 'drops');
    expect(drops.map((d) => [d['collection_slug'], d['is_minting']])).toEqual([
      [GENESIS, true],
      ['harpoon-future', false],
      ['harpoon-paused', false],
      ['harpoon-ended', false],
    ]);
    expect(drops[0]!['active_stage']).toMatchObject({
      label: 'Allowlist',
      stage_type: 'allowlist',
      price: '5000000000000000',
    });
    expect(drops[1]!['next_stage']).toMatchObject({
      label: 'Public',
      stage_type: 'public_sale',
      max_per_wallet: '3',
    });
    expect(drops[0]!['contract_address']).toBe(drop(GENESIS).address.toLowerCase());

    const upcoming = await call(sb, 'GET', '/api/v2/drops?type=upcoming');
    expectValidResponse('GET', '/api/v2/drops', 200, upcoming.body);
    expect(rows(upcoming.body, 'drops').map((d) => d['collection_slug'])).toEqual(['harpoon-future']);

    const page1 = await call(sb, 'GET', '/api/v2/drops?limit=3');
    expect((obj(page1)['drops'] as unknown[]).length).toBe(3);
    const page2 = await call(sb, 'GET', `/api/v2/drops?limit=3&cursor=${obj(page1)['next']}`);
    expectValidResponse('GET', '/api/v2/drops', 200, page2.body);
    expect(rows(page2.body, 'drops').map((d) => d['collection_slug'])).toEqual(['harpoon-ended']);
    expect(obj(page2)['next']).toBeUndefined();
    expect(obj(await call(sb, 'GET', '/api/v2/drops?chains=base'))['drops']).toEqual([]);

    for (const bad of ['type=soon', 'limit=0', 'limit=101', 'chains=narnia', 'cursor=xyz']) {
      const e = await call(sb, 'GET', `/api/v2/drops?${bad}`);
      expect(e.status, bad).toBe(400);
      expectValidResponse('GET', '/api/v2/drops', 400, e.body);
    }
  });

  it('details: every stage with price, times, limits and the allowlist size; supply from the chain', async () => {
    const r = await call(sb, 'GET', `/api/v2/drops/${GENESIS}`);
    expect(r.status).toBe(200);
    expectValidResponse('GET', '/api/v2/drops/{slug}', 200, r.body);
    const d = drop(GENESIS);
    const body = obj(r);
    expect(body).toMatchObject({
      collection_slug: GENESIS,
      collection_name: 'Harpoon Genesis',
      max_supply: '500',
    });
    expect(body['stages']).toEqual(
      d.stages.map((s) => ({
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        stage_type: s.kind === 'allowlist' ? 'allowlist' : 'public_sale',
        label: s.name,
        price: s.priceWei.toString(),
        price_currency_address: '0x0000000000000000000000000000000000000000',
        start_time: new Date(s.start * 1000).toISOString(),
        end_time: new Date(s.end * 1000).toISOString(),
        max_per_wallet: String(s.perWalletLimit),
        ...(s.kind === 'allowlist' ? { allowlist_wallet_count: 3 } : {}),
      })),
    );
    for (const slug of ['harpoon-future', 'harpoon-ended', 'harpoon-paused']) {
      const x = await call(sb, 'GET', `/api/v2/drops/${slug}`);
      expectValidResponse('GET', '/api/v2/drops/{slug}', 200, x.body);
      expect(obj(x)['is_minting']).toBe(false);
    }
    const missing = await call(sb, 'GET', '/api/v2/drops/nope');
    expect(missing.status).toBe(404);
    expectValidResponse('GET', '/api/v2/drops/{slug}', 404, missing.body);
  });
});

describe('POST /api/v2/drops/{slug}/mint', () => {
  it('public stage for a wallet off the allowlist: someone else pays, the minter receives', async () => {
    const minter = Wallet.createRandom().address; // on no allowlist
    const sender = wallet(4);
    const r = await mint(GENESIS, { minter, quantity: 3 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expectValidResponse('POST', M, 200, r.body);
    const tx = r.body as MintTx;
    const d = drop(GENESIS);
    expect(tx.to).toBe(d.address.toLowerCase());
    expect(BigInt(tx.value)).toBe(3n * d.stages[1]!.priceWei); // the public stage's price
    const call_ = d.contract.interface.parseTransaction({ data: tx.data })!;
    expect(call_.signature).toBe('mint(uint256,address,uint256,bytes32[])');
    expect(call_.args[0]).toBe(1n);
    expect(call_.args[1]).toBe(minter);

    const before = await sb.fixture.provider.getBalance(sender.address);
    const receipt = await sendMint(sender, tx);
    const after = await sb.fixture.provider.getBalance(sender.address);
    expect(before - after).toBe(BigInt(tx.value) + receipt.gasUsed * receipt.gasPrice);
    for (const id of [1n, 2n, 3n]) expect(await ownerOfToken(GENESIS, id)).toBe(minter);
    const detail = await call(sb, 'GET', `/api/v2/drops/${GENESIS}`);
    expect(obj(detail)['total_supply']).toBe('3');
    // the drop's NFTs are NFTs of the API too, owned by the minter
    const nft = await call(sb, 'GET', `/api/v2/chain/ethereum/contract/${d.address}/nfts/2`);
    expect(at(nft.body, 'nft.owners')).toEqual([
      { address: minter.toLowerCase(), quantity: 1, quantity_string: '1' },
    ]);
    const recent = await call(sb, 'GET', '/api/v2/drops?type=recently_minted');
    expect(rows(recent.body, 'drops').map((x) => x['collection_slug'])).toEqual([GENESIS]);
  });

  it('the first eligible stage: an allowlisted minter gets the cheaper allowlist stage with its proof', async () => {
    const minter = wallet(0).address; // the first 3 wallets are on the allowlist
    const r = await mint(GENESIS, { minter, quantity: 2 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tx = r.body as MintTx;
    const d = drop(GENESIS);
    const parsed = d.contract.interface.parseTransaction({ data: tx.data })!;
    expect(parsed.args[0]).toBe(0n);
    expect((parsed.args[3] as string[]).length).toBeGreaterThan(0);
    expect(BigInt(tx.value)).toBe(2n * d.stages[0]!.priceWei);
    await sendMint(wallet(1), tx);
    expect(await ownerOfToken(GENESIS, 4n)).toBe(minter);
    expect(await ownerOfToken(GENESIS, 5n)).toBe(minter);
    // its allowlist allowance is used up: the next mint falls through to the public stage
    const next = await mint(GENESIS, { minter, quantity: 1 });
    expect(d.contract.interface.parseTransaction({ data: (next.body as MintTx).data })!.args[0]).toBe(1n);
    expect(BigInt((next.body as MintTx).value)).toBe(d.stages[1]!.priceWei);
  });

  it('400: missing field, bad address, bad quantity', async () => {
    const ok = wallet(2).address;
    expectMintError(await mint(GENESIS, { quantity: 1 }), 400, /minter: required/);
    expectMintError(await mint(GENESIS, { minter: ok }), 400, /quantity: required/);
    expectMintError(await mint(GENESIS, undefined), 400, /JSON object/);
    expectMintError(await mint(GENESIS, { minter: '0x1234', quantity: 1 }), 400, /minter/);
    expectMintError(await mint(GENESIS, { minter: 'vitalik.eth', quantity: 1 }), 400, /minter/);
    for (const quantity of [0, -2, 101, 1.5, 'two']) {
      expectMintError(await mint(GENESIS, { minter: ok, quantity }), 400, /quantity/);
    }
    const raw = await call(sb, 'POST', `/api/v2/drops/${GENESIS}/mint`, '{"minter":');
    expect(raw.status).toBe(400);
    expectValidResponse('POST', M, 400, raw.body);
  });

  it('404: no drop for the slug', async () => {
    expectMintError(
      await mint('harpoon-apes', { minter: wallet(0).address, quantity: 1 }),
      404,
      /harpoon-apes/,
    );
    expectMintError(await mint('nope', { minter: wallet(0).address, quantity: 1 }), 404, /nope/);
  });

  it('409: not started, ended, paused', async () => {
    const body = { minter: wallet(0).address, quantity: 1 };
    expectMintError(await mint('harpoon-future', body), 409, /not currently active: not started/);
    expectMintError(await mint('harpoon-ended', body), 409, /not currently active: ended/);
    expectMintError(await mint('harpoon-paused', body), 409, /not currently active: paused/);
    // pausing an active drop on chain is seen at once
    const c = asOwner(GENESIS);
    await wait(c.getFunction('setPaused')(true));
    try {
      expectMintError(await mint(GENESIS, body), 409, /paused/);
    } finally {
      await wait(c.getFunction('setPaused')(false));
    }
    expect((await mint(GENESIS, body)).status).toBe(200);
  });

  it('422: mint limit exceeded', async () => {
    // wallet 2 is allowlisted: 2 on the allowlist stage, 5 on the public one — 6 fits neither
    const r = await mint(GENESIS, { minter: wallet(2).address, quantity: 6 });
    expectMintError(
      r,
      422,
      /Mint limit exceeded on stage 'Allowlist'.*\| Mint limit exceeded on stage 'Public'/,
    );
    // and the contract agrees
    const d = drop(GENESIS);
    const proof = d.allowlistTree!.proof(addressLeaf(wallet(2).address))!;
    await expect(
      d.contract
        .connect(wallet(2))
        .getFunction('mint(uint256,address,uint256,bytes32[])')
        .staticCall(0n, wallet(2).address, 6n, proof, { value: 6n * d.stages[0]!.priceWei }),
    ).rejects.toThrow(/WalletLimitExceeded/);
  });

  it('422: not on the allowlist (only the allowlist stage is open)', async () => {
    const stranger = Wallet.createRandom().address;
    const now = (await sb.fixture.provider.getBlock('latest'))!.timestamp;
    await withStage(GENESIS, 1, { end: BigInt(now - 1) }, async () => {
      expectMintError(
        await mint(GENESIS, { minter: stranger, quantity: 1 }),
        422,
        /not on the allowlist of stage 'Allowlist'/,
      );
      // an allowlisted wallet still mints
      expect((await mint(GENESIS, { minter: wallet(1).address, quantity: 1 })).status).toBe(200);
    });
    expect((await mint(GENESIS, { minter: stranger, quantity: 1 })).status).toBe(200);
  });

  it('422: supply exhausted', async () => {
    const stranger = Wallet.createRandom().address;
    const c = asOwner(GENESIS);
    const minted = ((await c.getFunction('stage')(1n)) as unknown as bigint[])[5]!;
    await withStage(GENESIS, 1, { supply: minted + 1n }, async () => {
      expectMintError(
        await mint(GENESIS, { minter: stranger, quantity: 2 }),
        422,
        /Supply exhausted on stage 'Public': 1 left, 2 requested/,
      );
      const one = await mint(GENESIS, { minter: stranger, quantity: 1 });
      expect(one.status).toBe(200);
      await sendMint(wallet(3), one.body as MintTx);
      expectMintError(await mint(GENESIS, { minter: stranger, quantity: 1 }), 422, /Supply exhausted/);
    });
    // restored: the public stage mints again, and the API's supply is the chain's
    expect((await mint(GENESIS, { minter: stranger, quantity: 1 })).status).toBe(200);
    const detail = obj(await call(sb, 'GET', `/api/v2/drops/${GENESIS}`));
    expect(detail['total_supply']).toBe(String(await c.getFunction('totalSupply')()));
  });
});

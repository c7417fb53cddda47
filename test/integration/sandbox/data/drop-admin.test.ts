import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { type Answer, call, obj, rows, startSandbox } from './helpers.ts';

/**
 * The drop owner's admin calls under `/_sandbox/drops/...`: pause, resume and moving a stage's
 * window change the drop contract on chain, and the API follows — the detail's `is_minting`,
 * `active_stage` and `next_stage`, the list's order, and the mint endpoint's 409 / 200.
 */

let sb: Sandbox;
const D = '/api/v2/drops/{slug}';
const M = '/api/v2/drops/{slug}/mint';

beforeAll(async () => {
  sb = await startSandbox(11);
}, 120_000);
afterAll(async () => {
  await sb?.close();
});

const admin = (path: string, body?: unknown) => call(sb, 'POST', `/_sandbox/drops${path}`, body, null);
const minter = () => sb.wallets[1]?.address as string;

async function detail(slug: string): Promise<Record<string, unknown>> {
  const a = await call(sb, 'GET', `/api/v2/drops/${slug}`);
  expect(a.status).toBe(200);
  expectValidResponse('GET', D, 200, a.body);
  return obj(a);
}

async function mint(slug: string): Promise<Answer> {
  const a = await call(sb, 'POST', `/api/v2/drops/${slug}/mint`, { minter: minter(), quantity: 1 });
  expectValidResponse('POST', M, a.status, a.body);
  return a;
}

function expectNotActive(a: Answer, why: RegExp) {
  expect(a.status, JSON.stringify(a.body)).toBe(409);
  expect((obj(a)['errors'] as string[]).join(' ')).toMatch(why);
}

async function onChainPaused(slug: string): Promise<boolean> {
  const d = sb.fixture.drops.find((x) => x.slug === slug);
  if (!d) throw new Error(`no drop ${slug}`);
  return (await d.contract.getFunction('paused')()) as boolean;
}

describe('drop pause / resume (admin)', () => {
  it('pausing an active drop: paused on chain, not minting, mint 409; resuming: minting again, mint 200', async () => {
    const slug = 'harpoon-genesis';
    expect((await detail(slug))['is_minting']).toBe(true);
    expect((await mint(slug)).status).toBe(200);

    const p = await admin(`/${slug}/pause`);
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(obj(p)).toMatchObject({
      slug,
      status: 'paused',
      paused: true,
      txHash: expect.stringMatching(/^0x/),
    });
    expect(await onChainPaused(slug)).toBe(true);
    const paused = await detail(slug);
    expect(paused['is_minting']).toBe(false);
    expect(paused['active_stage']).toBeUndefined();
    expectNotActive(await mint(slug), /paused/);
    // the featured list puts minting drops first: the paused one is no longer among them
    const list = await call(sb, 'GET', '/api/v2/drops?type=featured');
    expectValidResponse('GET', '/api/v2/drops', 200, list.body);
    const minting = rows(list.body, 'drops').filter((d) => d['is_minting'] === true);
    expect(minting.map((d) => d['collection_slug'])).not.toContain(slug);

    const r = await admin(`/${slug}/resume`);
    expect(r.status).toBe(200);
    expect(obj(r)).toMatchObject({ slug, status: 'active', paused: false });
    expect(await onChainPaused(slug)).toBe(false);
    const again = await detail(slug);
    expect(again['is_minting']).toBe(true);
    expect(again['active_stage']).toBeDefined();
    expect((await mint(slug)).status).toBe(200);
  });

  it('resuming the drop paused at start makes it mint; pausing it again stops it', async () => {
    const slug = 'harpoon-paused';
    expectNotActive(await mint(slug), /paused/);
    expect(obj(await admin(`/${slug}/resume`))['status']).toBe('active');
    const m = await mint(slug);
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    const tx = obj(m) as { to: string; data: string; value: string };
    const sender = sb.fixture.wallets[2];
    if (!sender) throw new Error('no wallet');
    const receipt = await (await sender.sendTransaction({ ...tx, value: BigInt(tx.value) })).wait();
    expect(receipt?.status).toBe(1);
    expect((await detail(slug))['total_supply']).toBe('1');
    expect(obj(await admin(`/${slug}/pause`))['status']).toBe('paused');
    expectNotActive(await mint(slug), /paused/);
  });

  it('pause is idempotent (pausing twice stays paused)', async () => {
    const slug = 'harpoon-ended';
    expect(obj(await admin(`/${slug}/pause`))['paused']).toBe(true);
    expect(obj(await admin(`/${slug}/pause`))['paused']).toBe(true);
    expect(await onChainPaused(slug)).toBe(true);
    // paused wins over ended
    expectNotActive(await mint(slug), /paused/);
    await admin(`/${slug}/resume`);
    expectNotActive(await mint(slug), /ended/);
  });
});

describe('moving stage windows (admin)', () => {
  it('not started -> active -> ended, each visible in the detail and in the mint answer', async () => {
    const slug = 'harpoon-future';
    expectNotActive(await mint(slug), /not started/);
    const before = await detail(slug);
    expect(before['next_stage']).toBeDefined();

    const open = await admin(`/${slug}/stages/0`, { startOffsetSec: -60 });
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect(obj(open)['status']).toBe('active');
    const active = await detail(slug);
    expect(active['is_minting']).toBe(true);
    expect((active['active_stage'] as Record<string, unknown>)['label']).toBe('Public');
    expect((await mint(slug)).status).toBe(200);

    const stages = obj(open)['stages'] as { start: number; end: number }[];
    const close = await admin(`/${slug}/stages/0`, { end: (stages[0]?.start ?? 0) + 1 });
    expect(close.status, JSON.stringify(close.body)).toBe(200);
    expect(obj(close)['status']).toBe('ended');
    const ended = await detail(slug);
    expect(ended['is_minting']).toBe(false);
    expect(ended['next_stage']).toBeUndefined();
    expectNotActive(await mint(slug), /ended/);

    const later = await admin(`/${slug}/stages/0`, { startOffsetSec: 3600, endOffsetSec: 7200 });
    expect(obj(later)['status']).toBe('not_started');
    const upcoming = await call(sb, 'GET', '/api/v2/drops?type=upcoming');
    expect(rows(upcoming.body, 'drops').map((d) => d['collection_slug'])).toContain(slug);
  });

  it('a moved window keeps the stage minted count (supply is not reset)', async () => {
    const slug = 'harpoon-genesis';
    const d = sb.fixture.drops.find((x) => x.slug === slug);
    if (!d) throw new Error('no drop');
    const before = (await d.contract.getFunction('stage')(1n)) as unknown as bigint[];
    const r = await admin(`/${slug}/stages/1`, { endOffsetSec: 40 * 86_400 });
    expect(r.status).toBe(200);
    const after = (await d.contract.getFunction('stage')(1n)) as unknown as bigint[];
    expect(after[5]).toBe(before[5]);
    expect(after[1]).not.toBe(before[1]);
  });

  it('errors: unknown drop 404, unknown stage 404, bad bodies 400, API key routes do not reach it', async () => {
    expect((await admin('/nope/pause')).status).toBe(404);
    expect((await admin('/nope/resume')).status).toBe(404);
    expect((await admin('/harpoon-future/stages/9', { startOffsetSec: 0 })).status).toBe(404);
    for (const body of [
      undefined,
      {},
      { start: 'soon' },
      { start: 10, startOffsetSec: 5 },
      { start: 100, end: 50 },
      { when: 1 },
    ]) {
      const a = await admin('/harpoon-future/stages/0', body);
      expect(a.status, JSON.stringify(body)).toBe(400);
      expect(obj(a)).toEqual({ errors: [expect.any(String)] });
    }
    expect((await admin('/harpoon-future/stages/x', { start: 1 })).status).toBe(400);
    // not under /api: an API path with the same shape does not exist
    expect((await call(sb, 'POST', '/api/v2/drops/harpoon-future/pause')).status).toBe(404);
  });
});

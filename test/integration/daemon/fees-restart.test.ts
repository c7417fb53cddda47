/**
 * A creator moves their fee to a new address while a daemon runs; fills of listings signed on
 * either side of the change (real sandbox, anvil, Seaport; the calldata guard runs over the API's
 * real fulfillment data through the daemon's own agent tool simulate_intent, which executes
 * nothing):
 * - the running daemon, which read the fees before the change, checks a fill of a listing signed
 *   after it (paying the new address): the guard meets an address it does not know, the collection
 *   is read again, and the fill passes;
 * - restarted, it checks a fill of a listing signed before the change (paying the old address):
 *   its store kept every recipient it read, and the fill passes;
 * - a daemon with a store of its own that never read the old fees refuses that fill as paying an
 *   unknown address — what the store's memory changes, and nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseEther, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon } from '../../../src/daemon/index.ts';
import { ZERO_ADDRESS } from '../../../src/domain/ids.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { openStore } from '../../../src/store/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';
import { listOnBook, ownedTokenId, setCreatorFees } from '../sandbox/data/helpers.ts';

const TOKEN = 'fees-restart-control-token-0123456789';
const SLUG = 'harpoon-apes';
/** The creator's new fee recipient. */
const NEW = '0x00000000000000000000000000000000000c0ffe';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
const dirs: string[] = [];
const running: Daemon[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  // nobody buys the listing the daemons look at: neither the simulated traders nor the takers
  sb = await createSandbox({ seed: 21, activity: 1, weights: { buy: 0 }, limits: roomyLimits() });
  const takers = await fetch(`${sb.apiUrl}/_sandbox/traders`, {
    method: 'POST',
    headers: { 'X-API-KEY': sb.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ enabled: false }),
  });
  expect(takers.status).toBe(200);
}, 240_000);

afterAll(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const d of running.splice(0)) await d.stop().catch(() => undefined);
  await sb?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A live daemon of wallet 0 trading nothing (no strategy), its store in `dir`. */
async function start(dir: string): Promise<Daemon> {
  const base = await demoDaemonOptions(sb, { paper: false, dir, env: { HARPOON_CONTROL_TOKEN: TOKEN } });
  const d = createDaemon(
    { ...base, rates: roomyRates(), collections: [SLUG], strategies: [] },
    { logger: silentLogger() },
  );
  running.push(d);
  await d.start();
  // risk measures a buy against the floor: the view's first read of it
  const end = Date.now() + 60_000;
  while (d.engine?.market().collection(SLUG)?.floor == null) {
    if (Date.now() > end) throw new Error('the daemon learned no floor in a minute');
    await new Promise((r) => setTimeout(r, 200));
  }
  return d;
}

async function stop(d: Daemon): Promise<void> {
  await d.stop();
  running.splice(running.indexOf(d), 1);
}

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'harpoon-fees-restart-'));
  dirs.push(dir);
  return dir;
}

/** Calls one of the daemon's agent tools over its /mcp: the JSON it answers. */
async function tool(
  d: Daemon,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const client = new Client({ name: 'harpoon-it', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  clients.push(client);
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return JSON.parse((r.content[0] as { text: string }).text) as Record<string, unknown>;
}

interface Simulation {
  verdict: string;
  stages: { stage: string; result: string; code?: string; message?: string }[];
}
const simulateBuy = async (d: Daemon, buy: Record<string, unknown>) =>
  (await tool(d, 'simulate_intent', { intent: buy })) as unknown as Simulation;

/** The collection's fee recipients as the API tells them now (lower case, the marketplace's first). */
async function recipientsNow(): Promise<string[]> {
  const res = await fetch(`${sb.apiUrl}/api/v2/collections/${SLUG}`, { headers: { 'x-api-key': sb.apiKey } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { fees: { recipient: string }[] };
  return body.fees.map((f) => f.recipient.toLowerCase());
}

describe('fills of orders signed on either side of a fee change', () => {
  it('after the change the running daemon reads the fees again for a new recipient; restarted, its store still knows the old one; a daemon that never read the old fees refuses that fill', async () => {
    const before = await recipientsNow();
    expect(before.length).toBe(2); // the marketplace and the creator
    const creator = before[1] as string;

    // a daemon reads the collection's fees at its start (and not again for a quarter of an hour)
    const dir = newDir();
    const first = await start(dir);
    const readAt = Date.now();
    const market = await tool(first, 'get_market', { collection: SLUG });
    const floor = BigInt((market['floor'] as { priceWei: string }).priceWei);
    const storePath = join(dir, 'harpoon.db');
    let store = openStore(storePath);
    try {
      expect(store.feeRecipients.of(SLUG)).toEqual(before);
    } finally {
      store.close();
    }

    // wallet 1 lists an ape with the fees of now (the creator's 2.5 %); then the creator moves
    // their fee to a new address, and wallet 1 lists another ape, paying that one
    const seller = sb.fixture.wallets[1] as Wallet;
    const apes = sb.collections.find((x) => x.slug === SLUG)?.contract as string;
    const tokenId = await ownedTokenId(sb, SLUG, seller.address);
    const laterId = await ownedTokenId(sb, SLUG, seller.address, tokenId);
    expect(tokenId).toBeGreaterThan(0n);
    expect(laterId).toBeGreaterThan(tokenId);
    // within risk (0.06 per item, 150 % of the floor)
    let price = (floor * 13n) / 10n;
    if (price > parseEther('0.059')) price = parseEther('0.059');
    const orderHash = await listOnBook(sb, seller, SLUG, tokenId, price);
    const set = await setCreatorFees(sb, SLUG, [{ address: NEW, basis_points: 400 }]);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(await recipientsNow()).toEqual([before[0], NEW]);
    const laterHash = await listOnBook(sb, seller, SLUG, laterId, price);
    const buyOf = (hash: string, id: bigint) => ({
      kind: 'buy_listing',
      order_hash: hash,
      collection: SLUG,
      nft: { contract: apes, identifier: id.toString() },
      max_price: price.toString(),
      payment_token: ZERO_ADDRESS,
    });
    const buy = buyOf(orderHash, tokenId);

    // the running daemon, which read the fees before the change, checks a buy of the later listing:
    // the guard meets an address it does not know, the collection is read again (a read at least
    // 10 s old: the cache's least age for reading again), and the new creator's fee passes
    await sleep(Math.max(0, readAt + 11_000 - Date.now()));
    const moved = await simulateBuy(first, buyOf(laterHash, laterId));
    expect(moved, JSON.stringify(moved)).toMatchObject({
      verdict: 'would_proceed',
      stages: [{ result: 'pass' }, { result: 'pass' }, { stage: 'calldata_guard', result: 'pass' }],
    });
    // a fill that passed once the fees were read again is no refusal in the daemon's status
    expect(first.status().guardRejections).toEqual({});
    await stop(first);
    // that read is what taught it the new recipient
    store = openStore(storePath);
    try {
      expect(store.feeRecipients.of(SLUG)).toEqual([...before, NEW]);
    } finally {
      store.close();
    }

    // restarted on the same store: it reads the new fees, and still knows the old creator's address
    const again = await start(dir);
    const ok = await simulateBuy(again, buy);
    expect(ok, JSON.stringify(ok)).toMatchObject({
      verdict: 'would_proceed',
      stages: [
        { stage: 'intent_guard', result: 'pass' },
        { stage: 'risk', result: 'pass' },
        { stage: 'calldata_guard', result: 'pass' },
      ],
    });
    await stop(again);

    // a daemon whose store never saw the old fees: the same fill pays an address it does not know
    const fresh = await start(newDir());
    const refused = await simulateBuy(fresh, buy);
    expect(refused, JSON.stringify(refused)).toMatchObject({
      verdict: 'refused',
      stages: [
        { stage: 'intent_guard', result: 'pass' },
        { stage: 'risk', result: 'pass' },
        { stage: 'calldata_guard', result: 'refused', code: 'guard_unknown_consideration_recipient' },
      ],
    });
    expect(refused.stages[2]?.message).toContain(creator);
    // the refusal that stands is counted once
    expect(fresh.status().guardRejections).toEqual({ unknown_consideration_recipient: 1 });
    await stop(fresh);
  }, 300_000);
});

/**
 * A creator changes a collection's fees while the daemon runs (real sandbox, anvil, Seaport): the
 * daemon follows. First with fees read a quarter of an hour ago: its next offer, signed with the
 * old fees, is refused by the marketplace, the daemon reads the collection again at once and the
 * offer after carries the new fee and stands. Then, restarted with `market.feesMaxAgeMs` of ten
 * seconds, a second change reaches the strategies' snapshot (`sellerFeeBps`) with no order refused.
 * The tape the daemons record keeps each set of fees from the time it was read; each change is an
 * alert (the webhook's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, JsonRpcProvider, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDaemonOptions } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon, type DaemonOptions } from '../../../src/daemon/index.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { openStore } from '../../../src/store/index.ts';
import { openTape } from '../../../src/tape/reader.ts';
import { roomyLimits } from '../limits.ts';
import { setCreatorFees } from '../sandbox/data/helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SLUG = 'harpoon-apes';
/** The creator's new fee recipient. */
const NEW = '0x00000000000000000000000000000000000c0ffe';

let sb: Sandbox;
let dir: string;
let daemon: Daemon | undefined;
/** The alerts the daemon sent to its webhook. */
const alerts: { kind: string; severity: string; title: string }[] = [];
let receiver: Server | undefined;
let hook = '';

beforeAll(async () => {
  sb = await createSandbox({ seed: 13, activity: 2, limits: roomyLimits() });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-fees-change-'));
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      alerts.push(JSON.parse(body) as (typeof alerts)[number]);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver?.listen(0, '127.0.0.1', () => r()));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  // the bidder offers WETH: the wallet wraps some ETH first (the demo's rebalancer does it there)
  const provider = new JsonRpcProvider(sb.rpcUrl, sb.chainId, { staticNetwork: true });
  try {
    const owner = (sb.fixture.wallets[0] as Wallet).connect(provider);
    const weth = new Contract(sb.weth, ['function deposit() payable'], owner);
    await (
      await (weth.deposit as (o: { value: bigint }) => Promise<{ wait(): Promise<unknown> }>)({
        value: 10n ** 18n,
      })
    ).wait();
  } finally {
    provider.destroy();
  }
}, 240_000);

afterAll(async () => {
  await daemon?.stop().catch(() => undefined);
  receiver?.close();
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The owner sets the collection's creator fee: `bps` to the new recipient. */
async function setCreatorFee(bps: number): Promise<void> {
  const res = await setCreatorFees(sb, SLUG, [{ address: NEW, basis_points: bps }]);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function until(what: string, ok: () => boolean, ms = 90_000, more = () => ''): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end && !ok()) await sleep(500);
  expect(ok(), `${what} ${more()}`).toBe(true);
}

/** What an order of ours pays the new recipient (0 when nothing), from the components it was signed with. */
function paidToNew(components: unknown): bigint {
  const c = (components ?? {}) as { consideration?: { recipient: string; startAmount: unknown }[] };
  let sum = 0n;
  for (const i of c.consideration ?? [])
    if (i.recipient.toLowerCase() === NEW) sum += BigInt(String(i.startAmount));
  return sum;
}

async function options(feesMaxAgeMs?: number): Promise<DaemonOptions> {
  const base = await demoDaemonOptions(sb, { paper: false, dir, env: { HARPOON_ALERT_WEBHOOK_URL: hook } });
  const bidder = base.strategies.find((s) => s.id === 'collection-bidder');
  expect(bidder).toBeDefined();
  return {
    ...base,
    collections: [SLUG],
    strategies: [bidder as DaemonOptions['strategies'][number]],
    market: {
      ...base.market,
      record: join(dir, 'market.tape'),
      ...(feesMaxAgeMs !== undefined ? { feesMaxAgeMs } : {}),
    },
  };
}

describe('a collection whose fees change while the daemon runs', () => {
  it('a refused order makes the daemon read the fees again; an old read is renewed; each change is on the tape and an alert', async () => {
    const first = await options();
    // the default: read again a quarter of an hour on, so only a refusal reads sooner here
    expect(first.market.feesMaxAgeMs).toBe(900_000);
    daemon = createDaemon(first, { logger: silentLogger() });
    let d = daemon;
    await d.start();
    const feeBps = () => d.engine?.market().collection(SLUG)?.sellerFeeBps;
    expect(feeBps()).toBe(350n); // 1 % marketplace + 2.5 % creator
    // our orders as the daemon's ledger holds them (with the components each was signed with)
    const orders = () => (d.engine?.orders.list() ?? []).filter((o) => o.collection === SLUG);
    const states = () => JSON.stringify(orders().map((o) => [o.state, o.reason]));
    await until(
      'our first collection offer stands',
      () => orders().some((o) => o.state === 'open'),
      90_000,
      states,
    );

    await setCreatorFee(400);
    const changedAt = Date.now();
    // every offer of ours is cancelled and the bidder offers again: signed with the fees it read
    // at start, refused; the collection is read again and the next one carries the new fee
    await d.kill('fees changed (test)');
    await d.resume();
    await until(
      'an offer with the new fee stands',
      () =>
        orders().some((o) => o.createdAt >= changedAt && o.state === 'open' && paidToNew(o.components) > 0n),
      120_000,
      states,
    );
    const after = orders().filter((o) => o.createdAt >= changedAt);
    const refused = after.filter((o) => o.state === 'failed');
    expect(refused.length, states()).toBeGreaterThan(0);
    expect(refused.every((o) => paidToNew(o.components) === 0n)).toBe(true);
    const standing = after.find((o) => o.state === 'open' && paidToNew(o.components) > 0n);
    // 4 % of the offer's price to the new recipient
    expect(paidToNew(standing?.components)).toBe(((standing?.price ?? 0n) * 400n) / 10_000n);
    expect(feeBps()).toBe(500n);
    const feeAlerts = () => alerts.filter((a) => a.kind === 'fees');
    await until(
      'the change is an alert',
      () => feeAlerts().length === 1,
      30_000,
      () => JSON.stringify(alerts),
    );
    expect(feeAlerts()[0]).toMatchObject({
      severity: 'warn',
      title: 'Fees of harpoon-apes changed: 3.5 % → 5 %',
    });
    await d.stop();

    // restarted, reading fees again every ten seconds: a change reaches the strategies unasked
    daemon = createDaemon(await options(10_000), { logger: silentLogger() });
    d = daemon;
    await d.start();
    expect(feeBps()).toBe(500n);
    const failedBefore = orders().filter((o) => o.state === 'failed').length;
    await setCreatorFee(300);
    await until('the strategies see the new fees', () => feeBps() === 400n, 60_000);
    await until(
      'the second change is an alert',
      () => feeAlerts().length === 2,
      30_000,
      () => JSON.stringify(alerts),
    );
    // a fall is news, not a warning; the restart's first read was no change
    expect(feeAlerts()[1]).toMatchObject({
      severity: 'info',
      title: 'Fees of harpoon-apes changed: 5 % → 4 %',
    });
    await d.stop();
    expect(orders().filter((o) => o.state === 'failed').length).toBe(failedBefore);

    // the tape (continued by the second daemon) holds each set of fees from when it was read
    const creator = [...openTape(join(dir, 'market.tape')).records()]
      .filter((r) => r.k === 'fees' && r.slug === SLUG)
      .map((r) => (r as { fees: readonly { fee: number; recipient: string }[] }).fees)
      .map((fees) => fees.find((f) => f.recipient.toLowerCase() !== fees[0]?.recipient.toLowerCase())?.fee);
    // the first daemon: 2.5 then 4; the second writes what it reads at start (4), then 3
    expect(creator).toEqual([2.5, 4, 4, 3]);

    // every fee recipient read is kept in the daemon's store (the calldata guard lets a fill pay
    // one after a restart too: an order signed before the change pays the old creator)
    const recipients = [
      ...new Set(
        [...openTape(join(dir, 'market.tape')).records()]
          .filter((r) => r.k === 'fees' && r.slug === SLUG)
          .flatMap((r) => (r as { fees: readonly { recipient: string }[] }).fees)
          .map((f) => f.recipient.toLowerCase()),
      ),
    ];
    expect(recipients).toContain(NEW);
    expect(recipients.length).toBe(3); // the marketplace, the creator of the start, the new one
    const store = openStore(first.storePath);
    try {
      expect(store.feeRecipients.of(SLUG)).toEqual(recipients);
    } finally {
      store.close();
    }
  }, 400_000);
});

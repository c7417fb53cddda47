import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/index.ts';
import { createTransport, type HttpTransport } from '../../../src/api/transport.ts';
import type { MarketEvent } from '../../../src/domain/events.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { silentLogger } from '../../../src/observability/index.ts';
import { createScheduler } from '../../../src/ratelimit/index.ts';
import type { MarketEvent as LogEvent, MarketEventInput } from '../../../src/sandbox/events/log.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { REST_KINDS } from '../../../src/sandbox/server/render-events.ts';
import { renderStreamEvent } from '../../../src/sandbox/stream/render.ts';
import {
  createStreamClient,
  type FreshnessChange,
  loadWsFactory,
  normalizeStreamMessage,
  type StreamClient,
  type StreamClientOptions,
} from '../../../src/stream/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';

/**
 * The stream client against the real sandbox (HTTP API, Phoenix stream, anvil, the market
 * simulator): forced disconnects and silent stalls during steady activity, duplicated, reordered
 * and malformed frames, staleness, and the polling fallback. Delivered events are compared with
 * the sandbox's own event log.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sb: Sandbox;
let api: ReturnType<typeof createApiClient>;
let transport: HttpTransport;
let slugs: string[];
const clients: StreamClient[] = [];

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function client(extra: Partial<StreamClientOptions> = {}): { c: StreamClient; got: MarketEvent[] } {
  const c = createStreamClient({
    streamUrl: sb.streamUrl,
    apiKey: new Secret(sb.apiKey, 'api key'),
    collections: slugs,
    api,
    logger: silentLogger(),
    heartbeatIntervalMs: 250,
    backoff: { initialMs: 20, maxMs: 200 },
    backfillOverlapMs: 5_000,
    ...extra,
  });
  clients.push(c);
  const got: MarketEvent[] = [];
  c.subscribe((e) => got.push(e));
  return { c, got };
}

/** POST /_sandbox/faults (the admin surface answers loopback clients only). */
function faults(body: unknown): Promise<Response> {
  return fetch(`${sb.apiUrl}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

type FaultAnswer = { streamActions?: { dropped?: number; stalled?: number } };

/** Drops every stream socket, in process or through the admin route; returns how many. */
async function drop(viaHttp: boolean): Promise<number> {
  if (!viaHttp) return sb.stream.faults.dropAll();
  const r = await faults({ stream: { drop: true } });
  return ((await r.json()) as FaultAnswer).streamActions?.dropped ?? 0;
}

/** Silences every stream socket for `ms`; returns how many. */
async function stall(viaHttp: boolean, ms: number): Promise<number> {
  if (!viaHttp) return sb.stream.faults.stall(ms);
  const r = await faults({ stream: { stallMs: ms } });
  return ((await r.json()) as FaultAnswer).streamActions?.stalled ?? 0;
}

const allJoined = (c: StreamClient) => {
  const s = c.status();
  return s.state === 'connected' && s.channels.every((ch) => ch.joined && !ch.backfilling);
};

/** The id the client must give a log record: its stream rendering, normalized. */
function expectedId(e: LogEvent): string {
  return normalizeStreamMessage(JSON.parse(JSON.stringify(renderStreamEvent(e, { sentAtMs: 0 }))), {
    receivedAt: 0,
    source: 'stream',
  }).id;
}

const ZERO = '0x0000000000000000000000000000000000000000';
let synthetic = 0;
/** A listing of a fresh token with the given order hash. */
function listingInput(orderHash: string): MarketEventInput {
  const n = ++synthetic;
  return {
    chain: sb.chain,
    collection: slugs[0] as string,
    kind: 'listing',
    nft: {
      contract: sb.collections[0]?.contract as string,
      identifier: String(200_000 + n),
      standard: 'erc721',
    },
    orderHash,
    maker: sb.wallets[1]?.address as string,
    price: { amount: 10n ** 17n, token: { address: ZERO, symbol: 'ETH', decimals: 18 } },
    quantity: 1,
  };
}

/** A synthetic event of a rotating kind in a rotating collection, appended to the sandbox log. */
function syntheticInput(): MarketEventInput {
  const n = ++synthetic;
  const collection = slugs[n % slugs.length] as string;
  const contract = sb.collections[n % slugs.length]?.contract as string;
  const nft = { contract, identifier: String(100_000 + n), standard: 'erc721' as const };
  const hash = `0x${(0xfeed0000 + n).toString(16).padStart(64, '0')}`;
  const price = {
    amount: 10n ** 17n * BigInt(1 + (n % 9)),
    token: { address: ZERO, symbol: 'ETH', decimals: 18 },
  };
  const maker = sb.wallets[1]?.address as string;
  const taker = sb.wallets[2]?.address as string;
  const common = { chain: sb.chain, collection };
  switch (n % 6) {
    case 0:
    case 1:
      return { ...common, kind: 'listing', nft, orderHash: hash, maker, price, quantity: 1 };
    case 2:
      return {
        ...common,
        kind: 'item_offer',
        nft,
        orderHash: hash,
        maker,
        price: { ...price, token: { address: sb.weth, symbol: 'WETH', decimals: 18 } },
      };
    case 3:
      return {
        ...common,
        kind: 'sale',
        nft,
        orderHash: hash,
        maker,
        taker,
        seller: maker,
        buyer: taker,
        price,
        quantity: 1,
        txHash: hash,
      };
    case 4:
      return { ...common, kind: 'transfer', nft, from: maker, to: taker, quantity: 1, txHash: hash };
    default:
      return { ...common, kind: 'cancel', nft, orderHash: hash, maker, price };
  }
}

beforeAll(async () => {
  sb = await createSandbox({ seed: 31, activity: 4, limits: roomyLimits(1_000_000) });
  slugs = sb.collections.map((c) => c.slug);
  const scheduler = createScheduler({ rates: roomyRates(1_000_000) });
  transport = createTransport({
    baseUrl: sb.apiUrl,
    scheduler,
    credentials: { apiKey: new Secret(sb.apiKey, 'api key') },
  });
  api = createApiClient(transport);
}, 180_000);

afterAll(async () => {
  for (const c of clients.splice(0)) await c.stop();
  await transport?.close();
  await sb?.close();
});

describe('stream client on the sandbox', () => {
  it('100 forced disconnects and silent stalls during steady activity: no event lost, none twice', async () => {
    const { c, got } = client();
    c.start();
    await until(() => allJoined(c), 10_000, 'first join');
    const startMs = Date.now();
    const firstLogId = sb.events.size + 1;
    const appender = setInterval(() => {
      for (let i = 0; i < 3; i++) sb.events.append(syntheticInput());
    }, 50);
    let drops = 0;
    let stalls = 0;
    // duplicated, reordered and malformed frames all along, through the admin surface
    const set = await faults({
      stream: { duplicateRate: 0.1, reorderWindow: 4, malformedRate: 0.05 },
    });
    expect(set.status, await set.clone().text()).toBe(200);
    try {
      for (let i = 0; i < 100; i++) {
        const viaHttp = i % 10 < 2;
        // odd i: a silent stall — the socket stays open and answers nothing, not even heartbeats
        const hit = i % 2 === 0 ? await drop(viaHttp) : await stall(viaHttp, 700);
        if (i % 2 === 0) drops += hit > 0 ? 1 : 0;
        else stalls += hit > 0 ? 1 : 0;
        await sleep(20);
        await until(() => allJoined(c) && c.status().counters.reconnects > i, 20_000, `recovery ${i}`);
        await sleep(40 + (i % 5) * 30);
      }
    } finally {
      clearInterval(appender);
      await fetch(`${sb.apiUrl}/_sandbox/reset-faults`, { method: 'POST' });
    }
    await sb.simulator?.stop();
    await sleep(300);
    await until(() => allJoined(c), 10_000, 'settled');
    // one last gap after activity stopped, so a backfill covers the very end as well
    sb.stream.faults.dropAll();
    await until(() => allJoined(c) && c.status().counters.reconnects > 100, 10_000, 'final backfill');
    await sleep(300);

    expect(drops).toBe(50);
    expect(stalls).toBe(50);
    const st = c.status();
    expect(st.counters.reconnects).toBeGreaterThanOrEqual(101);
    expect(st.counters.heartbeatTimeouts).toBeGreaterThanOrEqual(50);
    expect(st.counters.backfills).toBeGreaterThanOrEqual(101 * slugs.length);
    expect(st.counters.malformedTotal).toBeGreaterThan(0);
    expect(sb.stream.stats().duplicatesInjected).toBeGreaterThan(0);

    const ids = got.map((e) => e.id);
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1);
    expect(twice, 'delivered twice').toEqual([]);

    const log = sb.events.all();
    const logIds = new Set(log.map(expectedId));
    const invented = ids.filter((id) => !logIds.has(id));
    expect(invented, 'delivered but not in the sandbox log').toEqual([]);

    // every event the REST API can recover, recorded after the first join, was delivered
    const during = log.filter((e) => e.id >= firstLogId && e.timestampMs >= startMs);
    const recoverable = during.filter((e) => REST_KINDS.includes(e.kind));
    expect(recoverable.length).toBeGreaterThan(1000);
    const missing = recoverable.filter((e) => !counts.has(expectedId(e)));
    expect(
      missing.map((e) => `${e.id}:${e.kind}`),
      'lost',
    ).toEqual([]);
    // many arrived only through backfill
    expect(got.filter((e) => e.source === 'backfill').length).toBeGreaterThan(0);
    expect(st.counters.backfilled).toBe(got.filter((e) => e.source === 'backfill').length);
    // stream-only kinds (cancels here) cannot be backfilled: those in a gap are lost, but none twice
    const streamOnly = during.filter((e) => !REST_KINDS.includes(e.kind));
    const streamOnlyDelivered = streamOnly.filter((e) => counts.has(expectedId(e))).length;
    expect(streamOnlyDelivered).toBeGreaterThan(0);
    process.stderr.write(
      `stream: ${recoverable.length} recoverable events all delivered once; ${streamOnlyDelivered}/${streamOnly.length} stream-only; ` +
        `${st.counters.backfilled} by backfill, ${st.counters.duplicates} duplicates dropped, ${st.counters.reconnects} reconnects\n`,
    );
    await c.stop();
  }, 300_000);

  it('duplicated and out-of-order frames are delivered once; malformed frames are survived and counted', async () => {
    const { c, got } = client({ heartbeatIntervalMs: 5_000 });
    c.start();
    await until(() => allJoined(c), 10_000, 'join');
    sb.stream.faults.configure({ duplicateRate: 0.3, reorderWindow: 6, malformedRate: 0.2, seed: 5 });
    const appended: LogEvent[] = [];
    try {
      for (let i = 0; i < 300; i++) {
        appended.push(sb.events.append(syntheticInput()));
        if (i % 20 === 0) await sleep(5);
      }
      await sleep(600); // the reorder fault holds events up to 250 ms
    } finally {
      sb.stream.faults.reset();
    }
    const want = new Set(appended.map(expectedId));
    await until(() => [...want].every((id) => got.some((e) => e.id === id)), 10_000, 'all events');
    const mine = got.filter((e) => want.has(e.id));
    expect(mine).toHaveLength(300);
    expect(new Set(mine.map((e) => e.id)).size).toBe(300);
    const stats = sb.stream.stats();
    expect(stats.duplicatesInjected).toBeGreaterThan(0);
    expect(stats.malformedInjected).toBeGreaterThan(0);
    const st = c.status();
    expect(st.counters.duplicates).toBeGreaterThanOrEqual(stats.duplicatesInjected > 0 ? 1 : 0);
    expect(st.counters.malformedTotal).toBeGreaterThan(0);
    expect(Object.keys(st.counters.malformed).length).toBeGreaterThan(0);
    // out of order arrived: the delivery order differs from the log order somewhere
    const order = mine.map((e) => appended.findIndex((a) => expectedId(a) === e.id));
    expect(order.some((v, i) => i > 0 && v < (order[i - 1] as number))).toBe(true);
    expect(st.state).toBe('connected');
    await c.stop();
  }, 60_000);

  it('a silent socket makes its collections stale within 2× the heartbeat interval, then fresh again', async () => {
    const hb = 600;
    const { c } = client({ heartbeatIntervalMs: hb, collections: [slugs[0] as string] });
    const changes: (FreshnessChange & { at: number })[] = [];
    c.onFreshness((f) => changes.push({ ...f, at: Date.now() }));
    c.start();
    await until(() => allJoined(c), 10_000, 'join');
    await sleep(hb * 2.5); // a few answered heartbeats: fresh
    expect(changes).toEqual([]);
    expect(c.freshness(slugs[0] as string)?.stale).toBe(false);
    const stalledAt = Date.now();
    sb.stream.faults.stall(hb * 6);
    await until(() => changes.some((f) => f.stale), hb * 6, 'stale');
    const stale = changes.find((f) => f.stale) as FreshnessChange & { at: number };
    // the client's own measure: the newest information was at most 2 heartbeats old when reported
    expect(stale.ageMs).toBeLessThanOrEqual(2 * hb);
    expect(stale.at).toBeGreaterThanOrEqual(stalledAt);
    // the watchdog reconnected: fresh again
    await until(() => changes.some((f) => !f.stale), 10_000, 'fresh');
    expect(c.status().counters.heartbeatTimeouts).toBeGreaterThanOrEqual(1);
    await c.stop();
  }, 60_000);

  it('polls the events endpoint while the stream URL is dead, and returns to the stream when it is back', async () => {
    // a port with nothing listening
    const dead = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    const ws = await loadWsFactory();
    let alive = false;
    const { c, got } = client({
      streamUrl: `ws://127.0.0.1:${dead}/socket`,
      pollAfterFailures: 3,
      pollIntervalMs: 300,
      backoff: { initialMs: 50, maxMs: 400 },
      createSocket: (url) => ws(alive ? url.replace(`ws://127.0.0.1:${dead}/socket`, sb.streamUrl) : url),
    });
    c.start();
    await until(() => c.status().polling, 10_000, 'polling');
    expect(c.status().state).toBe('polling');
    const listing = sb.events.append(listingInput(`0x${'c1'.repeat(32)}`));
    await until(() => got.some((e) => e.id === expectedId(listing)), 10_000, 'polled event');
    expect(got.find((e) => e.id === expectedId(listing))?.source).toBe('poll');
    expect(c.status().counters.polls).toBeGreaterThan(0);
    alive = true;
    await until(() => c.status().state === 'connected' && !c.status().polling, 10_000, 'stream back');
    const live = sb.events.append(listingInput(`0x${'c2'.repeat(32)}`));
    await until(() => got.some((e) => e.id === expectedId(live)), 10_000, 'live event');
    expect(got.find((e) => e.id === expectedId(live))?.source).toBe('stream');
    await c.stop();
  }, 60_000);
});

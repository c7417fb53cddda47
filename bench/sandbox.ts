/**
 * Sandbox benchmark: what the daemon's tests and demo stand on.
 *
 *   npm run bench -- sandbox            # 2 000 fulfillment requests, 20 000 events to 10 clients
 *   npm run bench -- sandbox --quick    # smoke run (or BENCH_QUICK=1)
 *
 * - readyMs: createSandbox() to ready (HTTP API, anvil with every contract deployed, stream), with
 *   a warm compile cache (a first start warms it when needed and is not measured).
 * - fulfillmentP50Ms / fulfillmentP99Ms: POST /api/v2/listings/fulfillment_data over loopback with
 *   a keep-alive connection, one request at a time, against real listings of the book (each answer
 *   is real Seaport calldata with its checks against the chain).
 * - fanoutEventsPerS: market events per second delivered to each of 10 stream clients
 *   (`collection:*`, vsn 2), from the first append to the last frame at the last client.
 * - swapQuoteP50Ms: GET /api/v2/swap/quote (ETH -> USDC on the Uniswap v2 venue; each answer reads
 *   the pair's reserves from the chain and builds the router call), one request at a time.
 * - traitFloorsP50Ms: GET /api/v2/traits/{slug}/floors of a 10 000-item collection with 8 000
 *   listings (the sandbox's off-chain collection: items and other marketplaces' listings in its
 *   data), computed over every item and listing at each request, one request at a time.
 *
 * Prints progress lines, then one JSON object as the last line.
 */
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { createSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { seedListings } from '../src/sandbox/simulator/seed.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const quick = values.quick === true || process.env['BENCH_QUICK'] === '1';
const FULFILLMENTS = quick ? 200 : 2_000;
const FANOUT_EVENTS = quick ? 2_000 : 20_000;
const CLIENTS = 10;
const SWAP_QUOTES = quick ? 50 : 500;
const TRAIT_FLOORS = quick ? 10 : 100;
const BENCH_ITEMS = 10_000;
const BENCH_LISTINGS = 8_000;
const NATIVE = '0x0000000000000000000000000000000000000000';
const UNLIMITED = { capacity: 1_000_000, windowMs: 1_000 };

const log = (msg: string) => process.stderr.write(`${msg}\n`);

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

async function start(): Promise<{ sandbox: Sandbox; ms: number }> {
  const t0 = performance.now();
  const sandbox = await createSandbox({
    activity: 0,
    limits: { read: UNLIMITED, write: UNLIMITED, fulfillment: UNLIMITED },
    onProgress: log,
    offchainCollection: { items: BENCH_ITEMS, listings: BENCH_LISTINGS },
  });
  return { sandbox, ms: performance.now() - t0 };
}

async function benchFulfillment(sandbox: Sandbox) {
  const listings = await seedListings(sandbox, { perCollection: 10 });
  log(`fulfillment: ${listings.length} listings in the book; ${FULFILLMENTS} requests`);
  const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
  const url = new URL('/api/v2/listings/fulfillment_data', sandbox.apiUrl);
  const fulfiller = sandbox.wallets[0]!.address;
  const latencies: number[] = [];
  try {
    for (let i = 0; i < FULFILLMENTS; i++) {
      const l = listings[i % listings.length]!;
      const body = JSON.stringify({
        listing: { hash: l.orderHash, chain: sandbox.chain, protocol_address: sandbox.seaport },
        fulfiller: { address: fulfiller },
      });
      const t = performance.now();
      const res = await request(url, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
        body,
      });
      const text = await res.body.text();
      latencies.push(performance.now() - t);
      if (res.statusCode !== 200)
        throw new Error(`fulfillment_data answered ${res.statusCode}: ${text.slice(0, 300)}`);
    }
  } finally {
    await dispatcher.close();
  }
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** p50/p99 of `n` sequential GETs of `path` over one keep-alive connection; `check` sees each body. */
async function timedGets(sandbox: Sandbox, path: string, n: number, check: (body: unknown) => void) {
  const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
  const url = new URL(path, sandbox.apiUrl);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const res = await request(url, { method: 'GET', dispatcher, headers: { 'x-api-key': sandbox.apiKey } });
      const text = await res.body.text();
      latencies.push(performance.now() - t);
      if (res.statusCode !== 200)
        throw new Error(`GET ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
      if (i === 0) check(JSON.parse(text));
    }
  } finally {
    await dispatcher.close();
  }
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function benchSwapQuote(sandbox: Sandbox) {
  const usdc = sandbox.tokens.find((t) => t.symbol === 'USDC');
  if (!usdc) throw new Error('the sandbox has no USDC on its swap venue');
  const q = new URLSearchParams({
    from_chain: sandbox.chain,
    from_address: NATIVE,
    to_chain: sandbox.chain,
    to_address: usdc.address,
    quantity: String(10n ** 17n),
    address: sandbox.wallets[0]!.address,
  });
  log(`swap quote: ${SWAP_QUOTES} requests (ETH -> USDC)`);
  return timedGets(sandbox, `/api/v2/swap/quote?${q.toString()}`, SWAP_QUOTES, (body) => {
    const tx = (body as { transactions?: unknown[] }).transactions;
    if (!Array.isArray(tx) || tx.length === 0) throw new Error('swap quote without transactions');
  });
}

async function benchTraitFloors(sandbox: Sandbox) {
  const slug = sandbox.offchain?.slug;
  if (!slug) throw new Error('no off-chain collection');
  await timedGets(sandbox, `/api/v2/collections/${slug}`, 1, (body) => {
    const n = (body as { total_supply?: number }).total_supply;
    if (n !== BENCH_ITEMS) throw new Error(`${slug} has ${n} items, not ${BENCH_ITEMS}`);
  });
  let floors = 0;
  log(`trait floors: ${TRAIT_FLOORS} requests over ${BENCH_ITEMS} items and ${BENCH_LISTINGS} listings`);
  const r = await timedGets(sandbox, `/api/v2/traits/${slug}/floors`, TRAIT_FLOORS, (body) => {
    floors = ((body as { floors?: unknown[] }).floors ?? []).length;
    if (floors === 0) throw new Error('no trait floors');
  });
  return { ...r, floors };
}

async function benchFanout(sandbox: Sandbox) {
  const clients: WebSocket[] = [];
  const received = new Array<number>(CLIENTS).fill(0);
  let lastAt = 0;
  let done!: () => void;
  const allDone = new Promise<void>((r) => {
    done = r;
  });
  for (let i = 0; i < CLIENTS; i++) {
    const ws = new WebSocket(`${sandbox.streamUrl}/websocket?token=${sandbox.apiKey}&vsn=2.0.0`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const joined = new Promise<void>((resolve) => {
      ws.on('message', (raw) => {
        const frame = JSON.parse(String(raw)) as [unknown, unknown, string, string, unknown];
        if (frame[3] === 'phx_reply') return resolve();
        if (frame[2] !== 'collection:*') return;
        received[i] = (received[i] ?? 0) + 1;
        if (received[i] === FANOUT_EVENTS) {
          lastAt = performance.now();
          if (received.every((n) => n >= FANOUT_EVENTS)) done();
        }
      });
    });
    ws.send(JSON.stringify(['1', '1', 'collection:*', 'phx_join', {}]));
    await joined;
    clients.push(ws);
  }
  const c = sandbox.catalog.collections()[0]!;
  const t0 = performance.now();
  for (let n = 0; n < FANOUT_EVENTS; n++) {
    sandbox.events.append({
      kind: 'listing',
      chain: sandbox.chain,
      collection: c.slug,
      nft: { contract: c.contract, identifier: String((n % c.supply) + 1), standard: c.standard },
      orderHash: `0x${n.toString(16).padStart(64, '0')}`,
      protocolAddress: sandbox.seaport,
      maker: sandbox.wallets[1]!.address,
      price: { amount: 10n ** 16n, token: { address: `0x${'00'.repeat(20)}`, symbol: 'ETH', decimals: 18 } },
      quantity: 1,
    });
    // Yield now and then so sockets drain as they would under a live market.
    if (n % 500 === 499) await new Promise((r) => setImmediate(r));
  }
  await Promise.race([allDone, new Promise((r) => setTimeout(r, 60_000))]);
  for (const ws of clients) ws.terminate();
  const seconds = ((lastAt || performance.now()) - t0) / 1000;
  return {
    clients: CLIENTS,
    events: FANOUT_EVENTS,
    delivered: received.reduce((a, b) => a + b, 0),
    seconds,
    eventsPerS: FANOUT_EVENTS / seconds,
  };
}

async function main() {
  // Warm the compile cache (and the OS page cache) with a first start that is not measured.
  const warm = await start();
  await warm.sandbox.close();
  const { sandbox, ms: readyMs } = await start();
  log(`ready in ${Math.round(readyMs)} ms at ${sandbox.apiUrl}`);
  try {
    const f = await benchFulfillment(sandbox);
    log(`fulfillment_data: p50 ${round(f.p50)} ms, p99 ${round(f.p99)} ms over ${f.requests} requests`);
    const sq = await benchSwapQuote(sandbox);
    log(`swap quote: p50 ${round(sq.p50)} ms, p99 ${round(sq.p99)} ms over ${sq.requests} requests`);
    const tf = await benchTraitFloors(sandbox);
    log(
      `trait floors: p50 ${round(tf.p50)} ms, p99 ${round(tf.p99)} ms over ${tf.requests} requests (${tf.floors} floors)`,
    );
    const fan = await benchFanout(sandbox);
    log(`fan-out: ${fan.events} events to ${fan.clients} clients in ${round(fan.seconds)} s`);
    process.stdout.write(
      `${JSON.stringify({
        benchmark: 'sandbox',
        mode: quick ? 'quick' : 'full',
        readyMs: Math.round(readyMs),
        fulfillmentP50Ms: round(f.p50),
        fulfillmentP99Ms: round(f.p99),
        fanoutEventsPerS: Math.round(fan.eventsPerS),
        swapQuoteP50Ms: round(sq.p50),
        traitFloorsP50Ms: round(tf.p50),
        fulfillment: { requests: f.requests },
        swapQuote: { requests: sq.requests, p99Ms: round(sq.p99) },
        traitFloors: {
          requests: tf.requests,
          p99Ms: round(tf.p99),
          items: BENCH_ITEMS,
          listings: BENCH_LISTINGS,
          floors: tf.floors,
        },
        fanout: {
          clients: fan.clients,
          events: fan.events,
          delivered: fan.delivered,
          seconds: round(fan.seconds),
        },
      })}\n`,
    );
  } finally {
    await sandbox.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench sandbox failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

/**
 * Stream ingest benchmark: what the daemon's eyes cost.
 *
 *   npm run bench -- ingest            # 600 000 frames; RSS with 100 collections joined
 *   npm run bench -- ingest --quick    # smoke run (or BENCH_QUICK=1)
 *
 * - framesPerS: Phoenix text frames per second through the client's own socket path (the
 *   `onmessage` handler a real `ws` socket calls): JSON parse, frame checks, normalization to the
 *   domain `MarketEvent`, dedup against the channel's watermark window, dispatch to 5
 *   subscribers. Frames are realistic sandbox renderings (listings, offers, sales, transfers,
 *   cancels, with item metadata), 3 % of them duplicates, pre-rendered in batches outside the
 *   timed section. One core, no network.
 * - rssMb: resident memory of a process whose only job is a real stream client (real `ws`
 *   socket) joined to 100 collections of a local sandbox stream server (in the parent process),
 *   after it received 20 000 events across them.
 *
 * - jsonParsePerS: the same frames through `JSON.parse` alone, for reference (the floor of any
 *   client; measured in the same run, so machine load shows in both numbers).
 *
 * Prints progress lines on stderr, then one JSON object as the last line.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Secret } from '../src/domain/secret.ts';
import { Catalog, COLLECTION_SPECS } from '../src/sandbox/catalog/catalog.ts';
import { EventLog, type MarketEventInput } from '../src/sandbox/events/log.ts';
import { renderStreamEvent } from '../src/sandbox/stream/render.ts';
import { attachStreamServer } from '../src/sandbox/stream/server.ts';
import { createStreamClient, type SocketLike, type StreamApi } from '../src/stream/index.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'rss-child': { type: 'string' },
  },
  allowPositionals: true,
});
const quick = values.quick === true || process.env['BENCH_QUICK'] === '1';
const log = (msg: string) => process.stderr.write(`${msg}\n`);

const COLLECTIONS = 100;
const SUBSCRIBERS = 5;
const TOTAL_FRAMES = quick ? 60_000 : 600_000;
const BATCH = 20_000;
const RSS_EVENTS = quick ? 5_000 : 20_000;
const KEY = 'bench-stream-key';

setFlagsFromString('--expose-gc');
/** Full collection between batches, so frame generation's garbage is not billed to ingestion. */
const gc = runInNewContext('gc') as () => void;

const emptyApi: StreamApi = {
  events: {
    list: async () => ({ asset_events: [] }),
    byCollection: async () => ({ asset_events: [] }),
  } as unknown as StreamApi['events'],
};

const slugOf = (i: number) => `bench-collection-${i}`;
const contractOf = (i: number) => `0x${(0xabc0000 + i).toString(16).padStart(40, '0')}`;
const hex64 = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const ZERO = '0x0000000000000000000000000000000000000000';
const MAKER = '0x1111111111111111111111111111111111111111';
const TAKER = '0x2222222222222222222222222222222222222222';

function catalog(): Catalog {
  const specs = COLLECTION_SPECS.slice(0, 1);
  const base = specs[0];
  if (!base) throw new Error('no collection spec');
  return new Catalog(
    7,
    Array.from({ length: 3 }, (_, i) => ({
      ...base,
      slug: slugOf(i),
      name: `Bench ${i}`,
      contract: contractOf(i),
      owner: MAKER,
      fees: [],
    })),
  );
}

/** A realistic mix: mostly listings and offers, some sales, transfers and cancels. */
function inputOf(n: number, collections: number): MarketEventInput {
  const c = n % collections;
  const common = { chain: 'ethereum', collection: slugOf(c) } as const;
  const nft = { contract: contractOf(c), identifier: String(n % 10_000), standard: 'erc721' as const };
  const r = n % 20;
  const price = {
    amount: 10n ** 18n + BigInt(n) * 1000n,
    token: { address: ZERO, symbol: 'ETH', decimals: 18 },
  };
  const wethPrice = {
    amount: 9n * 10n ** 17n + BigInt(n),
    token: { address: WETH, symbol: 'WETH', decimals: 18 },
  };
  if (r < 9)
    return {
      ...common,
      kind: 'listing',
      nft,
      orderHash: hex64(n + 1),
      maker: MAKER,
      price,
      quantity: 1,
      startDate: 1_700_000_000,
      expirationDate: 1_800_000_000,
    };
  if (r < 14)
    return {
      ...common,
      kind: 'item_offer',
      nft,
      orderHash: hex64(n + 1),
      maker: MAKER,
      price: wethPrice,
      startDate: 1_700_000_000,
      expirationDate: 1_800_000_000,
    };
  if (r < 16)
    return {
      ...common,
      kind: 'collection_offer',
      orderHash: hex64(n + 1),
      maker: MAKER,
      price: wethPrice,
      quantity: 5,
      startDate: 1_700_000_000,
      expirationDate: 1_800_000_000,
      criteria: { contract: contractOf(c) },
    };
  if (r < 17)
    return {
      ...common,
      kind: 'sale',
      nft,
      orderHash: hex64(n + 1),
      maker: MAKER,
      taker: TAKER,
      seller: MAKER,
      buyer: TAKER,
      price,
      quantity: 1,
      txHash: hex64(n + 7),
    };
  if (r < 18)
    return { ...common, kind: 'transfer', nft, from: MAKER, to: TAKER, quantity: 1, txHash: hex64(n + 9) };
  return {
    ...common,
    kind: 'cancel',
    nft,
    orderHash: hex64(n + 1),
    maker: MAKER,
    price,
    txHash: hex64(n + 11),
  };
}

class BenchSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { readonly data: unknown }) => void) | null = null;
  onclose: ((event: { readonly code: number; readonly reason: unknown }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
  }
}

async function throughput(): Promise<{
  framesPerS: number;
  jsonParsePerS: number;
  delivered: number;
  duplicates: number;
}> {
  const cat = catalog();
  let socket: BenchSocket | undefined;
  const client = createStreamClient({
    streamUrl: 'ws://bench.invalid/socket',
    apiKey: new Secret(KEY),
    collections: '*',
    api: emptyApi,
    createSocket: () => {
      socket = new BenchSocket();
      return socket;
    },
    heartbeatIntervalMs: 3_600_000,
  });
  let sink = 0;
  for (let i = 0; i < SUBSCRIBERS; i++)
    client.subscribe((e) => {
      sink += e.occurredAt & 1;
    });
  client.start();
  await new Promise((r) => setImmediate(r));
  const s = socket as BenchSocket;
  s.readyState = 1;
  s.onopen?.({});
  const join = JSON.parse(s.sent[0] as string) as unknown[];
  s.onmessage?.({
    data: JSON.stringify([join[0], join[1], join[2], 'phx_reply', { status: 'ok', response: {} }]),
  });

  let n = 0;
  let timedMs = 0;
  let parseMs = 0;
  let fed = 0;
  const batch: string[] = new Array(BATCH);
  const t0 = Date.now();
  while (fed < TOTAL_FRAMES) {
    const eventLog = new EventLog(); // per batch: the log's records are not kept across batches
    for (let i = 0; i < BATCH; i++) {
      const dup = i % 33 === 32 && i > 0;
      if (dup) {
        batch[i] = batch[i - 1] as string;
        continue;
      }
      const e = eventLog.append(inputOf(n++, 3));
      const msg = renderStreamEvent(e, { sentAtMs: t0 + n, catalog: cat });
      batch[i] = `[null,null,"collection:*","${msg.event_type}",${JSON.stringify(msg)}]`;
    }
    const onmessage = s.onmessage as (event: { readonly data: unknown }) => void;
    gc();
    const start = process.hrtime.bigint();
    for (let i = 0; i < BATCH; i++) onmessage({ data: batch[i] });
    timedMs += Number(process.hrtime.bigint() - start) / 1e6;
    // reference on the same frames: JSON.parse alone (the floor of any client)
    gc();
    const p0 = process.hrtime.bigint();
    let keep = 0;
    for (let i = 0; i < BATCH; i++) keep += (JSON.parse(batch[i] as string) as unknown[]).length;
    parseMs += Number(process.hrtime.bigint() - p0) / 1e6;
    if (keep !== BATCH * 5) throw new Error('unexpected frame shape');
    fed += BATCH;
  }
  const st = client.status();
  await client.stop();
  if (st.counters.malformedTotal > 0)
    throw new Error(`malformed frames in the bench: ${JSON.stringify(st.counters.malformed)}`);
  log(
    `ingest: ${fed} frames in ${timedMs.toFixed(0)} ms; delivered ${st.counters.events}, duplicates ${st.counters.duplicates} (sink ${sink})`,
  );
  return {
    framesPerS: Math.round(fed / (timedMs / 1000)),
    jsonParsePerS: Math.round(fed / (parseMs / 1000)),
    delivered: st.counters.events,
    duplicates: st.counters.duplicates,
  };
}

/** Child: a real client (real ws) joined to 100 collections; reports its RSS once events arrived. */
async function rssChild(streamUrl: string): Promise<void> {
  const slugs = Array.from({ length: COLLECTIONS }, (_, i) => slugOf(i));
  const client = createStreamClient({
    streamUrl,
    apiKey: new Secret(KEY),
    collections: slugs,
    api: emptyApi,
    heartbeatIntervalMs: 30_000,
  });
  const got = new Array<number>(SUBSCRIBERS).fill(0);
  for (let i = 0; i < SUBSCRIBERS; i++)
    client.subscribe(() => {
      got[i] = (got[i] ?? 0) + 1;
    });
  client.start();
  const send = (m: unknown) => process.send?.(m);
  const timer = setInterval(() => {
    const st = client.status();
    if (st.channels.every((c) => c.joined) && !st.counters.events) send({ joined: true });
    if (st.counters.events >= RSS_EVENTS) {
      clearInterval(timer);
      gc();
      const rss = process.memoryUsage().rss;
      send({
        done: true,
        rssMb: rss / 1024 / 1024,
        events: st.counters.events,
        joined: st.channels.filter((c) => c.joined).length,
      });
      void client.stop().then(() => process.exit(0));
    }
  }, 50);
}

async function rss(): Promise<{ rssMb: number; joined: number }> {
  const http = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  const eventLog = new EventLog();
  const stream = attachStreamServer(http, {
    events: eventLog,
    authenticate: (t) => t === KEY,
    catalog: catalog(),
  });
  const args = ['--rss-child', `ws://127.0.0.1:${port}/socket`, ...(quick ? ['--quick'] : [])];
  const child = fork(fileURLToPath(import.meta.url), args, {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    return await new Promise((resolve, reject) => {
      let sent = false;
      child.on('message', (m: Record<string, unknown>) => {
        if (m['joined'] === true && !sent) {
          sent = true;
          for (let n = 0; n < RSS_EVENTS; n++) eventLog.append(inputOf(n, COLLECTIONS));
        }
        if (m['done'] === true) {
          log(
            `rss: ${(m['rssMb'] as number).toFixed(1)} MB with ${String(m['joined'])} collections joined, ${String(m['events'])} events`,
          );
          resolve({ rssMb: m['rssMb'] as number, joined: m['joined'] as number });
        }
      });
      child.on('exit', (code) => reject(new Error(`rss child exited (${code}) before reporting`)));
      setTimeout(() => reject(new Error('rss child timed out')), 120_000).unref();
    });
  } finally {
    child.kill();
    await stream.close();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  }
}

if (values['rss-child'] !== undefined) {
  await rssChild(values['rss-child']);
} else {
  const t = await throughput();
  const r = await rss();
  process.stdout.write(
    `${JSON.stringify({
      framesPerS: t.framesPerS,
      jsonParsePerS: t.jsonParsePerS,
      rssMb: Math.round(r.rssMb * 10) / 10,
      subscribers: SUBSCRIBERS,
      collections: r.joined,
      frames: TOTAL_FRAMES,
      duplicatesDropped: t.duplicates,
      quick,
    })}\n`,
  );
}

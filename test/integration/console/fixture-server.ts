/**
 * A small HTTP server that speaks the console's HTTP contract (src/daemon/control.ts and console.ts) with data
 * the test chooses: the dashboard's own assets, /api/snapshot, /api/fills paging, /events (pushed
 * by the test) and the POST switches (recorded). It lets the page's own behaviour — token handling,
 * attacker text, paging through thousands of rows — be tested without a marketplace; everything the
 * daemon does is tested against the real daemon.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type {
  AlertRow,
  DecisionRow,
  FillRow,
  MarketRow,
  OrderRow,
  Sample,
} from '../../../src/daemon/console.ts';
import type { DaemonStatus } from '../../../src/daemon/status.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const ASSETS: Record<string, [string, string]> = {
  'app.js': ['src/daemon/console/assets/app.js', 'text/javascript'],
  'app.css': ['src/daemon/console/assets/app.css', 'text/css'],
  'uplot.min.js': ['node_modules/uplot/dist/uPlot.iife.min.js', 'text/javascript'],
  'uplot.min.css': ['node_modules/uplot/dist/uPlot.min.css', 'text/css'],
};

/** What the server serves, in the console's own types (src/daemon/console.ts): the compiler keeps them in step. */
export interface FixtureData {
  status: DaemonStatus;
  series: Sample[];
  /** Newest first. */
  fills: FillRow[];
  orders: OrderRow[];
  market: MarketRow[];
  decisions: DecisionRow[];
  alerts: AlertRow[];
}

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

export function fillRow(i: number, collection: string, at: number): FillRow {
  return {
    id: String(i),
    at,
    strategy: i % 2 ? 'sniper' : 'seller',
    kind: i % 2 ? 'buy_listing' : 'place_listing',
    side: i % 2 ? 'buy' : 'sell',
    collection,
    tokenId: String(i % 97),
    quantity: '1',
    price: `0.0${(i % 90) + 10}`,
    fees: '0.001',
    gas: '0.00021',
    symbol: 'ETH',
    txHash: `0x${hex(i, 64)}`,
    realized: i % 2 ? null : `${i % 4 === 0 ? '-' : ''}0.002`,
  };
}

export function orderRow(i: number, collection: string, now: number): OrderRow {
  return {
    orderHash: `0x${hex(i + 1, 64)}`,
    strategy: i % 3 === 0 ? 'seller' : 'collection-bidder',
    side: i % 3 === 0 ? 'listing' : 'offer',
    target: i % 3 === 0 ? `${collection} #${i}` : collection,
    collection,
    tokenId: i % 3 === 0 ? String(i) : null,
    price: `0.0${(i % 50) + 20}`,
    quantity: '1',
    symbol: 'WETH',
    state: 'open',
    createdAt: now - i * 1000,
    expiresAt: now + 1_800_000,
    bestCompeting: '0.045',
    rank: (i % 4) + 1,
  };
}

export function statusDoc(now: number, collections: readonly string[]): DaemonStatus {
  return {
    state: 'running',
    mode: 'paper',
    wallet: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
    chain: { name: 'sandbox', chainId: 31337 },
    startedAt: now - 60_000,
    uptimeMs: 60_000,
    readyMs: 400,
    events: { total: 10, byKind: {} },
    strategies: [
      ...['sniper', 'collection-bidder', 'seller'].map((id) => ({
        id,
        module: id,
        version: '1',
        state: 'idle',
        hooksRun: 3,
        intents: 1,
        errors: 0,
        lastError: null,
      })),
      {
        id: 'rebalancer',
        module: 'rebalancer',
        version: '1',
        state: 'disabled',
        hooksRun: 5,
        intents: 0,
        errors: 5,
        lastError: 'hook timed out after 2000 ms',
      },
    ],
    intents: {
      emitted: 3,
      accepted: 3,
      done: 2,
      failed: 0,
      unknown: 0,
      rejected: 1,
      queued: 0,
      inFlight: 0,
      unresolved: 0,
    },
    skipped: { total: 0, byReason: {} },
    orders: { placed: 1, open: [] },
    fills: { total: 0, recent: [] },
    spend: [
      {
        account: 'eth-like',
        symbol: 'ETH+WETH',
        spentToday: '0.1',
        spentTotal: '0.1',
        exposure: '0.05',
        maxSpendPerDay: '2',
        maxExposure: '0.3',
        budget: '3',
      },
    ],
    risk: { killed: false, paused: false, openOffers: 1, refusals: {} },
    rateBudget: [
      { group: 'read', available: 500, limit: 600, windowMs: 3_600_000, queued: 0, served: 100, http429: 0 },
    ],
    stream: {
      state: 'open',
      stale: false,
      channels: collections.map((key) => ({ key, joined: true, ageMs: 1200, stale: false })),
      events: 10,
      reconnects: 0,
    },
    guardRejections: {},
    reconcile: {},
  };
}

export function sample(at: number, collections: readonly string[]): Sample {
  return {
    at,
    pnl: [{ symbol: 'ETH', realized: '0.002', unrealized: '-0.001' }],
    spend: [],
    rate: [{ group: 'read', available: 500, limit: 600 }],
    streamAgeMs: 1200,
    floors: collections.map((collection) => ({ collection, floor: '0.05', bestOffer: '0.04' })),
    traitFloors: collections.map((collection) => ({
      collection,
      trait: 'eyes: laser',
      floor: '0.07',
      symbol: 'WETH',
    })),
    balances: [
      { symbol: 'ETH', amount: '4.5' },
      { symbol: 'WETH', amount: '1.25' },
    ],
  };
}

export interface FixtureServer {
  readonly url: string;
  readonly token: string;
  readonly data: FixtureData;
  /** POSTs received: path and JSON body. */
  readonly posts: { path: string; body: unknown; origin: string | undefined }[];
  /** Sends an event to every open /events stream. */
  push(event: string, data: unknown): void;
  /** Ends every open /events stream (the page must reconnect). */
  dropStreams(): void;
  /** How many /events streams were opened so far. */
  readonly streamsOpened: number;
  close(): Promise<void>;
}

export async function startFixtureServer(
  data: FixtureData,
  token = 'fixture-token-0123456789',
): Promise<FixtureServer> {
  const streams = new Set<ServerResponse>();
  const posts: FixtureServer['posts'] = [];
  let opened = 0;
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const authorized = (req: IncomingMessage) => req.headers.authorization === `Bearer ${token}`;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(readFileSync(resolve(REPO, 'src/daemon/console/assets/index.html')));
      return;
    }
    const asset = path.startsWith('/assets/') ? ASSETS[path.slice('/assets/'.length)] : undefined;
    if (req.method === 'GET' && asset) {
      res.writeHead(200, { 'content-type': asset[1] });
      res.end(readFileSync(resolve(REPO, asset[0])));
      return;
    }
    if (!authorized(req)) return json(res, 401, { ok: false, error: 'control token required' });
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        posts.push({ path, body: body ? JSON.parse(body) : null, origin: req.headers.origin });
        json(res, 200, { ok: true, result: null });
      });
      return;
    }
    if (path === '/api/snapshot')
      return json(res, 200, {
        status: data.status,
        series: data.series,
        fills: { total: data.fills.length, rows: data.fills.slice(0, 200) },
        orders: data.orders,
        market: data.market,
        decisions: data.decisions,
        alerts: data.alerts,
      });
    if (path === '/api/fills') {
      const before = url.searchParams.get('before');
      const limit = Math.min(500, Number(url.searchParams.get('limit') ?? 200));
      const from = before === null ? 0 : data.fills.findIndex((f) => f.id === before) + 1;
      return json(res, 200, { total: data.fills.length, rows: data.fills.slice(from, from + limit) });
    }
    if (path === '/events') {
      opened++;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(': hello\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    json(res, 404, { ok: false, error: 'no such path' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    data,
    posts,
    push(event, body) {
      for (const s of streams) s.write(`event: ${event}\ndata: ${JSON.stringify(body)}\n\n`);
    },
    dropStreams() {
      for (const s of streams) s.destroy();
      streams.clear();
    },
    get streamsOpened() {
      return opened;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of streams) s.destroy();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/**
 * The console's HTTP contract served by the daemon's own control server (src/daemon/control.ts)
 * with a console (src/daemon/console.ts) whose data the test chooses: /api/snapshot, /api/fills
 * paging, /events (pushed by the test) and the switches (recorded, not carried out). It lets the
 * page's own behaviour — token handling, attacker text, paging through thousands of rows — be
 * tested without a marketplace; everything the daemon does is tested against the real daemon.
 */
import type { ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import type {
  AlertRow,
  Console,
  DecisionRow,
  FillRow,
  MarketRow,
  OrderRow,
  Sample,
} from '../../../src/daemon/console.ts';
import {
  CONTROL_SWITCHES,
  type ControlAction,
  type ControlSwitch,
  startControlServer,
} from '../../../src/daemon/control.ts';
import type { DaemonStatus } from '../../../src/daemon/status.ts';

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
  /** Switches that reached their action (the control server let them through): path and JSON body. */
  readonly posts: { path: string; body: unknown }[];
  /** Sends an event to every open /events stream. */
  push(event: string, data: unknown): void;
  /** Ends every open /events stream (the page must reconnect). */
  dropStreams(): void;
  /** How many /events streams were opened so far. */
  readonly streamsOpened: number;
  close(): Promise<void>;
}

/**
 * The daemon's own control server (token, origin and JSON checks, the dashboard's files) with a
 * console whose data the test holds.
 */
export async function startFixtureServer(
  data: FixtureData,
  token = 'fixture-token-0123456789',
): Promise<FixtureServer> {
  const streams = new Set<ServerResponse>();
  const posts: FixtureServer['posts'] = [];
  let opened = 0;
  const fake: Console = {
    start: () => undefined,
    stop: () => undefined,
    snapshot: () => ({
      status: data.status,
      series: data.series,
      pnlHistory: [],
      fills: { total: data.fills.length, rows: data.fills.slice(0, 200) },
      orders: data.orders,
      market: data.market,
      decisions: data.decisions,
      alerts: data.alerts,
    }),
    fills({ limit, beforeId }) {
      const from = beforeId === undefined ? 0 : data.fills.findIndex((f) => f.id === String(beforeId)) + 1;
      return { total: data.fills.length, rows: data.fills.slice(from, from + limit) };
    },
    events(req, res) {
      opened++;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(': hello\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
    },
    outcome: () => undefined,
    alert: () => undefined,
    orderChanged: () => undefined,
    get clients() {
      return streams.size;
    },
  };
  // the daemon's switches, each recorded instead of carried out
  const actions = {} as Record<ControlSwitch, ControlAction>;
  for (const pattern of CONTROL_SWITCHES)
    actions[pattern] = (body, params) => {
      const path = `/${pattern.replace(/:(\w+)/g, (_m, name: string) => params[name] ?? '')}`;
      posts.push({ path, body });
      return { ok: true };
    };
  const server = await startControlServer({
    host: '127.0.0.1',
    port: 0,
    token,
    status: () => data.status,
    health: () => ({ state: 'ok', reasons: [] }),
    metrics: new Registry(),
    actions,
    console: fake,
  });
  return {
    url: server.url,
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
    close: async () => {
      for (const s of streams) s.destroy();
      await server.close();
    },
  };
}

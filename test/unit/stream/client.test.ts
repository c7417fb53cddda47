import { afterEach, describe, expect, it } from 'vitest';
import type { MarketEvent } from '../../../src/domain/events.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { RateLimitedError } from '../../../src/errors/index.ts';
import {
  createStreamClient,
  type FreshnessChange,
  type GapInfo,
  type StreamClient,
  type StreamClientOptions,
} from '../../../src/stream/index.ts';
import { FakeClock, flush } from '../ratelimit/fake-clock.ts';
import { sampleInput } from '../sandbox/stream/samples.ts';
import { FakeMarket, SocketFactoryFake } from './fakes.ts';

const KEY = 'super-secret-key';
const HB = 1000;

interface LogLine {
  level: string;
  obj: Record<string, unknown>;
  msg: string;
}

function recordingLogger(lines: LogLine[]) {
  const at =
    (level: string) =>
    (obj: unknown, msg?: string): void => {
      lines.push({ level, obj: obj as Record<string, unknown>, msg: msg ?? '' });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as never;
}

/** A listing of token `id` with its own order hash. */
function listing(id: number, collection = 'harpoon-apes') {
  return {
    ...sampleInput('listing', collection),
    nft: {
      contract: '0xabcdef0000000000000000000000000000000001',
      identifier: String(id),
      standard: 'erc721' as const,
    },
    orderHash: `0x${id.toString(16).padStart(64, '0')}`,
  };
}

const clients: StreamClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.stop();
});

function setup(extra: Partial<StreamClientOptions> = {}) {
  const clock = new FakeClock();
  const sockets = new SocketFactoryFake();
  const market = new FakeMarket(() => clock.wallNow());
  const lines: LogLine[] = [];
  let r = 0;
  const randoms = [0.5, 0, 1, 0.25];
  const client = createStreamClient({
    streamUrl: 'ws://stream.test/socket',
    apiKey: new Secret(KEY, 'api key'),
    collections: ['harpoon-apes', 'harpoon-punks'],
    api: market.api,
    clock,
    timers: clock,
    random: () => randoms[r++ % randoms.length] as number,
    createSocket: sockets.create,
    logger: recordingLogger(lines),
    heartbeatIntervalMs: HB,
    backoff: { initialMs: 100, maxMs: 1600, factor: 2, jitter: 0.5 },
    pollAfterFailures: 3,
    pollIntervalMs: 500,
    backfillOverlapMs: 2000,
    ...extra,
  });
  clients.push(client);
  const got: MarketEvent[] = [];
  client.subscribe((e) => got.push(e));
  return { clock, sockets, market, lines, client, got };
}

async function connected(s: ReturnType<typeof setup>) {
  s.client.start();
  await flush();
  s.sockets.last.open();
  s.sockets.last.ackJoins();
  await flush();
}

describe('stream client: connection and channels', () => {
  it('connects with the key and vsn 2, joins each collection with the event_types filter, never logs the key', async () => {
    const s = setup({ eventTypes: ['item_listed', 'item_sold'] });
    await connected(s);
    const sock = s.sockets.last;
    expect(sock.url).toBe(`ws://stream.test/socket/websocket?token=${KEY}&vsn=2.0.0`);
    const joins = sock.sentOf('phx_join');
    expect(joins.map((j) => j[2])).toEqual(['collection:harpoon-apes', 'collection:harpoon-punks']);
    for (const j of joins) {
      expect(j[0]).toBe(j[1]);
      expect(j[4]).toEqual({ event_types: ['item_listed', 'item_sold'] });
    }
    expect(s.client.status()).toMatchObject({ state: 'connected', polling: false });
    expect(s.client.status().channels.every((c) => c.joined)).toBe(true);
    sock.drop();
    await s.clock.advance(5000);
    expect(JSON.stringify(s.lines)).not.toContain(KEY);
    expect(JSON.stringify(s.client.status())).not.toContain(KEY);
  });

  it('collection:* is one channel', async () => {
    const s = setup({ collections: '*' });
    await connected(s);
    expect(s.sockets.last.sentOf('phx_join').map((j) => j[2])).toEqual(['collection:*']);
    expect(s.sockets.last.sentOf('phx_join')[0]?.[4]).toEqual({});
    const e = s.market.append(listing(1, 'harpoon-punks'));
    s.sockets.last.push(s.market.frame(e, 'collection:*'));
    expect(s.got.map((g) => g.collection)).toEqual(['harpoon-punks']);
  });

  it('delivers each event to every subscriber, drops duplicates, ignores frames of an earlier join', async () => {
    const s = setup();
    const second: MarketEvent[] = [];
    const off = s.client.subscribe((e) => second.push(e));
    s.client.subscribe(() => {
      throw new Error('a broken subscriber');
    });
    await connected(s);
    const a = s.market.append(listing(1));
    const b = s.market.append(listing(2));
    s.sockets.last.push(s.market.frame(a));
    s.sockets.last.push(s.market.frame(a));
    s.sockets.last.push(s.market.frame(b));
    s.sockets.last.push([
      '999',
      null,
      'collection:harpoon-apes',
      'item_listed',
      (s.market.frame(s.market.append(listing(3))) as unknown[])[4],
    ]);
    expect(s.got.map((e) => e.kind === 'listing' && e.nft.identifier)).toEqual(['1', '2']);
    expect(second).toHaveLength(2);
    off();
    s.sockets.last.push(s.market.frame(s.market.append(listing(4))));
    expect(second).toHaveLength(2);
    expect(s.got).toHaveLength(3);
    const c = s.client.status().counters;
    expect(c).toMatchObject({ frames: 7, events: 3, duplicates: 1, handlerErrors: 3 });
    expect(s.lines.filter((l) => l.obj['event'] === 'stream_handler_error')).toHaveLength(1);
  });

  it('a malformed frame is counted per kind, logged once per kind, and the client goes on', async () => {
    const s = setup();
    await connected(s);
    const sock = s.sockets.last;
    const good = s.market.frame(s.market.append(listing(1))) as [
      null,
      null,
      string,
      string,
      { payload: Record<string, unknown> },
    ];
    const msg = good[4];
    sock.push('{not json');
    sock.push('{not json either');
    sock.push([null, null, good[2], good[3], { ...msg, payload: { ...msg.payload, base_price: 'abc' } }]);
    sock.push([null, null, good[2], good[3], { ...msg, payload: { ...msg.payload, item: 'abc' } }]);
    sock.push(['only', 'four', 'elements', 'here']);
    sock.push(good);
    expect(s.got).toHaveLength(1);
    const c = s.client.status().counters;
    expect(c.malformed).toEqual({ invalid_json: 2, bad_price: 1, missing_item: 1, bad_frame: 1 });
    expect(c.malformedTotal).toBe(5);
    const warned = s.lines.filter((l) => l.obj['event'] === 'stream_malformed').map((l) => l.obj['kind']);
    expect(warned.sort()).toEqual(['bad_frame', 'bad_price', 'invalid_json', 'missing_item']);
  });
});

describe('stream client: heartbeat, watchdog, reconnect, backfill', () => {
  it('sends a heartbeat each interval; an unanswered one closes the socket at the next tick and reconnects', async () => {
    const s = setup();
    await connected(s);
    const first = s.sockets.last;
    await s.clock.advance(HB);
    expect(first.sentOf('heartbeat')).toHaveLength(1);
    first.ackHeartbeat();
    await s.clock.advance(HB);
    expect(first.sentOf('heartbeat')).toHaveLength(2);
    expect(first.terminated).toBe(false);
    // no reply to the second heartbeat: the next tick declares the socket dead
    await s.clock.advance(HB);
    expect(first.terminated).toBe(true);
    expect(first.sentOf('heartbeat')).toHaveLength(2);
    expect(s.client.status().counters.heartbeatTimeouts).toBe(1);
    expect(s.client.status().state).toBe('reconnecting');
    // backoff attempt 0 with random 0.5: 100 × (0.5 + 0.5 × 0.5) = 75 ms
    await s.clock.advance(74);
    expect(s.sockets.sockets).toHaveLength(1);
    await s.clock.advance(1);
    expect(s.sockets.sockets).toHaveLength(2);
    s.sockets.last.open();
    expect(s.sockets.last.sentOf('phx_join')).toHaveLength(2);
    expect(s.client.status().counters.reconnects).toBe(1);
  });

  it('reconnect delays grow exponentially with jitter and cap', async () => {
    const s = setup({ pollAfterFailures: 100 });
    s.client.start();
    await flush();
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = s.sockets.sockets.length;
      s.sockets.last.drop();
      let waited = 0;
      while (s.sockets.sockets.length === before) {
        await s.clock.advance(1);
        waited++;
      }
      delays.push(waited);
    }
    // randoms cycle 0.5, 0, 1, 0.25; delay = d/2 + d/2 × r with d = 100, 200, 400, 800, 1600, 1600
    expect(delays).toEqual([75, 100, 400, 500, 1200, 800]);
  });

  it('after a gap, rejoin then backfill from the watermark: missed events once, seen ones not again', async () => {
    const s = setup({ heartbeatIntervalMs: 60_000 });
    await connected(s);
    await s.clock.advance(5000);
    const sock = s.sockets.last;
    const seen = [s.market.append(listing(1)), s.market.append(listing(2))];
    for (const e of seen) sock.push(s.market.frame(e));
    await s.clock.advance(300);
    sock.drop();
    // events while disconnected: two listings and a sale, in both collections
    const missed = [
      s.market.append(listing(3)),
      s.market.append(listing(4, 'harpoon-punks')),
      s.market.append(sampleInput('sale')),
    ];
    await s.clock.advance(100);
    const next = s.sockets.last;
    expect(next).not.toBe(sock);
    next.open();
    // an event arriving live after the rejoin, and also in the backfill
    next.ackJoins();
    const live = s.market.append(listing(5));
    next.push(next === s.sockets.last ? s.market.frame(live) : []);
    await flush();
    await flush();
    const ids = s.got.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(6);
    expect(s.got.filter((e) => e.source === 'backfill')).toHaveLength(3);
    const apesCall = s.market.calls.find((c) => c.slug === 'harpoon-apes');
    // watermark is the newest event seen (listing 2), minus the 2 s overlap
    expect(apesCall?.after).toBe(Math.floor(seen[1]!.timestampMs / 1000) - 2);
    const c = s.client.status().counters;
    expect(c.backfills).toBe(2);
    expect(c.backfilled).toBe(3);
    expect(c.duplicates).toBe(2); // listings 1 and 2 again from REST (inside the overlap)
    expect(missed.every((m) => ids.some((id) => id.includes(m.orderHash ?? m.txHash!.toLowerCase())))).toBe(
      true,
    );
  });

  it('reports each closed gap, saying stream-only kinds may be missing', async () => {
    const s = setup({ heartbeatIntervalMs: 60_000, collections: ['harpoon-apes'] });
    const gaps: GapInfo[] = [];
    s.client.onGap((g) => gaps.push(g));
    await connected(s);
    expect(gaps).toEqual([]);
    s.sockets.last.drop();
    s.market.append(listing(1));
    await s.clock.advance(100);
    s.sockets.last.open();
    s.sockets.last.ackJoins();
    await flush();
    expect(gaps).toMatchObject([{ key: 'harpoon-apes', delivered: 1, streamOnlyMayBeMissing: true }]);
    const only = setup({
      eventTypes: ['item_listed'],
      collections: ['harpoon-apes'],
      heartbeatIntervalMs: 60_000,
    });
    const g2: GapInfo[] = [];
    only.client.onGap((g) => g2.push(g));
    await connected(only);
    only.sockets.last.drop();
    await only.clock.advance(100);
    only.sockets.last.open();
    only.sockets.last.ackJoins();
    await flush();
    expect(g2).toMatchObject([{ streamOnlyMayBeMissing: false }]);
  });

  it('backfill pages through next and delivers oldest first; a failed backfill is retried', async () => {
    const s = setup({ backfillPageLimit: 2, collections: ['harpoon-apes'] });
    await connected(s);
    s.sockets.last.push(s.market.frame(s.market.append(listing(1))));
    s.sockets.last.drop();
    for (let i = 2; i <= 6; i++) s.market.append(listing(i));
    s.market.fail = new RateLimitedError('read', 250);
    await s.clock.advance(100);
    s.sockets.last.open();
    s.sockets.last.ackJoins();
    await flush();
    expect(s.client.status().counters.backfillErrors).toBe(1);
    s.market.fail = undefined;
    await s.clock.advance(250);
    await flush();
    const ids = s.got.map((e) => (e.kind === 'listing' ? e.nft.identifier : e.kind));
    expect(ids).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(s.market.calls.filter((c) => c.next !== undefined).length).toBeGreaterThanOrEqual(2);
  });

  it('a socket that never opens times out and counts as a failed connect; an unanswered join is retried', async () => {
    const s = setup({ connectTimeoutMs: 500, joinTimeoutMs: 300 });
    s.client.start();
    await flush();
    const first = s.sockets.last;
    await s.clock.advance(500);
    expect(first.terminated).toBe(true);
    expect(s.client.status().consecutiveFailures).toBe(1);
    await s.clock.advance(100);
    const second = s.sockets.last;
    expect(second).not.toBe(first);
    second.open();
    expect(second.sentOf('phx_join')).toHaveLength(2);
    // no join reply within 300 ms: each channel is joined again (after its backoff)
    await s.clock.advance(300 + 100);
    expect(second.sentOf('phx_join')).toHaveLength(4);
    second.ackJoins();
    expect(s.client.status().channels.every((c) => c.joined)).toBe(true);
    // a reply to the abandoned first join is ignored (its ref is not the current one)
    expect(s.client.status().consecutiveFailures).toBe(0);
  });

  it('a server that accepts and drops at once counts as failing: backoff grows and polling starts', async () => {
    const s = setup();
    s.client.start();
    await flush();
    for (let i = 0; i < 3; i++) {
      const sock = s.sockets.last;
      sock.open();
      sock.drop(1011);
      await s.clock.advance(400);
    }
    expect(s.client.status().consecutiveFailures).toBe(3);
    expect(s.client.status().polling).toBe(true);
  });

  it('server phx_error on a channel: rejoin that channel and backfill it', async () => {
    const s = setup();
    await connected(s);
    const sock = s.sockets.last;
    const join = sock.sentOf('phx_join')[0] as unknown[];
    sock.push([join[0], null, 'collection:harpoon-apes', 'phx_error', {}]);
    expect(s.client.status().channels[0]?.joined).toBe(false);
    await s.clock.advance(200);
    const joins = sock.sentOf('phx_join');
    expect(joins).toHaveLength(3);
    sock.ackJoins();
    await flush();
    expect(s.market.calls.map((c) => c.slug)).toEqual(['harpoon-apes']);
  });
});

describe('stream client: freshness and polling', () => {
  it('a silent socket makes its collections stale within 2× the heartbeat interval, then fresh again', async () => {
    const s = setup({ staleAfterMs: 1500 });
    const changes: (FreshnessChange & { at: number })[] = [];
    s.client.onFreshness((c) => changes.push({ ...c, at: s.clock.now() }));
    await connected(s);
    const t0 = s.clock.now();
    // quiet market, live socket: heartbeat replies keep it fresh
    for (let i = 0; i < 4; i++) {
      await s.clock.advance(HB);
      s.sockets.last.ackHeartbeat();
    }
    expect(changes).toEqual([]);
    expect(s.client.freshness('harpoon-apes')).toMatchObject({ stale: false });
    // stall: no more replies
    const stallAt = s.clock.now();
    await s.clock.advance(2 * HB);
    const stale = changes.filter((c) => c.stale);
    expect(stale.map((c) => c.key).sort()).toEqual(['harpoon-apes', 'harpoon-punks']);
    for (const c of stale) expect(c.at - stallAt).toBeLessThanOrEqual(2 * HB);
    expect(s.client.status().stale).toBe(true);
    // the watchdog reconnected; the rejoin makes it fresh again
    await s.clock.advance(200);
    s.sockets.last.open();
    s.sockets.last.ackJoins();
    await flush();
    expect(
      changes
        .filter((c) => !c.stale)
        .map((c) => c.key)
        .sort(),
    ).toEqual(['harpoon-apes', 'harpoon-punks']);
    expect(s.client.status().stale).toBe(false);
    expect(t0).toBeLessThan(stallAt);
  });

  it('polls the events endpoint after N failed connects, says so, and stops when the stream is back', async () => {
    const s = setup();
    s.sockets.refuse = true;
    s.client.start();
    await flush();
    await s.clock.advance(400);
    expect(s.client.status().consecutiveFailures).toBe(3);
    expect(s.client.status()).toMatchObject({ state: 'polling', polling: true });
    expect(s.lines.some((l) => l.obj['event'] === 'stream_polling' && l.level === 'warn')).toBe(true);
    s.market.append(listing(7));
    await s.clock.advance(600);
    expect(s.got.map((e) => e.source)).toContain('poll');
    expect(s.client.status().counters.polls).toBeGreaterThan(0);
    // polls keep freshness within the threshold
    expect(s.client.freshness('harpoon-apes')?.stale).toBe(false);
    s.sockets.refuse = false;
    await s.clock.advance(2000);
    // recorded after the last poll and before the join: the join's backfill brings it
    s.market.append(listing(8));
    s.sockets.last.open();
    s.sockets.last.ackJoins();
    await flush();
    expect(s.client.status()).toMatchObject({ state: 'connected', polling: false });
    const calls = s.market.calls.length;
    await s.clock.advance(3000);
    expect(s.market.calls.length).toBe(calls);
    const listings = s.got.filter((e) => e.kind === 'listing');
    expect(listings.map((e) => [e.kind === 'listing' && e.nft.identifier, e.source])).toEqual([
      ['7', 'poll'],
      ['8', 'backfill'],
    ]);
  });
});

describe('stream client: watermarks', () => {
  it('exports watermarks; a new client imports them, backfills once joined and repeats nothing', async () => {
    const s = setup({ collections: ['harpoon-apes'] });
    await connected(s);
    for (let i = 1; i <= 3; i++) s.sockets.last.push(s.market.frame(s.market.append(listing(i))));
    const marks = s.client.getWatermarks();
    expect(Object.keys(marks)).toEqual(['harpoon-apes']);
    expect(marks['harpoon-apes']?.ids).toHaveLength(3);
    await s.client.stop();
    // while down
    s.market.append(listing(4));
    const restarted = createStreamClient({
      streamUrl: 'ws://stream.test/socket',
      apiKey: new Secret(KEY),
      collections: ['harpoon-apes'],
      api: s.market.api,
      clock: s.clock,
      timers: s.clock,
      createSocket: s.sockets.create,
      heartbeatIntervalMs: HB,
      initialWatermarks: JSON.parse(JSON.stringify(marks)),
    });
    clients.push(restarted);
    const got: MarketEvent[] = [];
    restarted.subscribe((e) => got.push(e));
    restarted.start();
    await flush();
    s.sockets.last.open();
    s.sockets.last.ackJoins();
    await flush();
    expect(got.map((e) => (e.kind === 'listing' ? e.nft.identifier : ''))).toEqual(['4']);
    expect(restarted.status().counters.duplicates).toBe(3);
  });
});

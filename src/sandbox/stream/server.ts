import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { Catalog } from '../catalog/catalog.ts';
import type { EventLog, MarketEvent, PriceInfo } from '../events/log.ts';
import { type MalformedKind, StreamFaults } from './faults.ts';
import {
  collectionTopic,
  decodeFrame,
  encodeBroadcast,
  encodeFrame,
  HEARTBEAT,
  PHOENIX_TOPIC,
  PHX_CLOSE,
  PHX_JOIN,
  PHX_LEAVE,
  type PhxFrame,
  parseEventTypesFilter,
  parseTopic,
  parseVsn,
  type Ref,
  replyFrame,
  type Vsn,
  WILDCARD_TOPIC,
} from './protocol.ts';
import {
  breakMessage,
  type ItemUrl,
  type PaymentTokenQuote,
  renderStreamEvent,
  STREAM_EVENT_TYPES,
  type StreamEventType,
  type StreamMessage,
  type StreamRenderContext,
} from './render.ts';

/**
 * The sandbox's real-time stream: a Phoenix Channels server on an existing HTTP server, at
 * `/socket/websocket?token=<api key>&vsn=2.0.0` like `wss://stream-api.opensea.io/socket`.
 *
 * - Auth: the `token` query parameter is checked with `authenticate` before the WebSocket
 *   handshake; a missing, unknown or expired key gets HTTP 401 `{"errors":["Invalid API key"]}`.
 * - Serializer from `vsn`: `2.x` → array frames, absent or `1.x` → object frames, else HTTP 400.
 * - Topics `collection:<slug>` (any slug; unknown ones deliver nothing) and `collection:*`.
 *   A join reply is `{"status":"ok","response":{}}`; an invalid topic gets
 *   `{"status":"error","response":{"reason":"unmatched topic"}}`. A join payload
 *   `{"event_types":[...]}` restricts that channel to those types (an empty list = no filter); a
 *   rejoin replaces the channel and its filter. `phx_leave` is answered ok, followed by
 *   `phx_close` for the channel, and delivery stops. Heartbeats on topic `phoenix` are answered
 *   ok. Other events on a joined topic get an error reply; frames carrying the join_ref of an
 *   earlier join of the topic are ignored; malformed client frames are counted and ignored.
 * - Events: every record appended to the event log becomes `[null, null, <topic>, <event_type>,
 *   {event_type, payload, sent_at, version}]` on each matching channel of each socket. Events of
 *   collection `x` go to channels `collection:x` (topic `collection:x`) and `collection:*` (topic
 *   `collection:*`, which is what Phoenix clients route by); a socket joined to both receives the
 *   event once per channel, as a Phoenix server does.
 * - Fan-out: an event is rendered and serialized once, then wrapped once per (serializer, topic)
 *   into a Buffer that every socket reuses.
 * - Idle: a socket that sends nothing for `idleTimeoutMs` (Phoenix: 60 s) is closed.
 * - Faults: `faults` (see faults.ts).
 */

export interface StreamServerOptions {
  readonly events: EventLog;
  /** The REST server's key check: true when `token` is a valid, unexpired API key. */
  readonly authenticate: (token: string) => boolean | Promise<boolean>;
  /** Chain name used when an event carries none. Default `ethereum`. */
  readonly chain?: string;
  /**
   * `item.permalink` of an NFT. Default `https://opensea.io/assets/<chain>/<contract>/<id>`.
   * URL callbacks get (lowercase contract, token id, collection slug).
   */
  readonly itemUrl?: ItemUrl<string>;
  /** `item.metadata.metadata_url` (e.g. the sandbox's `<base>/metadata/<slug>/<id>`). Default null. */
  readonly metadataUrl?: ItemUrl<string | null>;
  /** `item.metadata.image_url` (e.g. `<base>/metadata/<slug>/<id>/image.svg`). Default null. */
  readonly imageUrl?: ItemUrl<string | null>;
  /** Payment token names and prices. Default ETH/WETH = 1 ETH = 3000 USD. */
  readonly quote?: (token: PriceInfo['token']) => PaymentTokenQuote;
  readonly catalog?: Catalog;
  /** Epoch ms; stamps `sent_at` and times stalls. Default `Date.now`. */
  readonly clock?: () => number;
  /** Close a socket that sent nothing for this long. Default 60 000 (Phoenix); 0 = never. */
  readonly idleTimeoutMs?: number;
  /** Upgrade path. Default `/socket/websocket`. */
  readonly path?: string;
  /** Answer upgrades on other paths with 404 (default true); false leaves them to other listeners. */
  readonly rejectOtherUpgrades?: boolean;
  /** Seed of the fault PRNG. Default 1. */
  readonly seed?: number;
  /** Longest time the reorder fault holds an event. Default 250 ms. */
  readonly reorderHoldMs?: number;
  /** A socket whose unsent backlog exceeds this is dropped as too slow. Default 64 MiB. */
  readonly maxBufferedBytes?: number;
}

export interface StreamStats {
  /** Sockets open now. */
  readonly connections: number;
  readonly connectionsTotal: number;
  /** Upgrades refused: bad key, bad vsn, wrong path. */
  readonly refused: number;
  readonly joins: number;
  readonly joinErrors: number;
  readonly leaves: number;
  readonly heartbeats: number;
  /** Every frame written to a socket (replies, events, injected frames). */
  readonly framesSent: number;
  /** Log events that had at least one subscribed channel (rendered once each). */
  readonly eventsPublished: number;
  /** Event frames delivered, per type, counting each channel of each socket. */
  readonly eventsDelivered: Readonly<Record<StreamEventType, number>>;
  readonly duplicatesInjected: number;
  readonly malformedInjected: number;
  /** Client frames that could not be decoded (ignored). */
  readonly malformedReceived: number;
  /** Sockets terminated by `faults.dropAll()`. */
  readonly drops: number;
  /** Socket-stalls started by `faults.stall()`. */
  readonly stalls: number;
  /** Frames discarded because their socket was stalled. */
  readonly framesSuppressed: number;
  readonly idleClosed: number;
  readonly slowClosed: number;
}

export interface StreamServer {
  readonly path: string;
  readonly faults: StreamFaults;
  /** Sockets open now. */
  readonly connectionCount: number;
  stats(): StreamStats;
  /** Closes every socket (1001), detaches from the HTTP server and the event log. */
  close(): Promise<void>;
}

interface Channel {
  readonly conn: Connection;
  readonly topic: string;
  readonly joinRef: Ref;
  readonly filter: ReadonlySet<string> | null;
}

interface Connection {
  readonly ws: WebSocket;
  readonly vsn: Vsn;
  readonly channels: Map<string, Channel>;
  /** Epoch ms until which nothing is sent; 0 = not stalled. */
  stalledUntil: number;
  idle: NodeJS.Timeout | undefined;
}

/** The broadcast frames of one event, built lazily once per (serializer, topic kind). */
class FrameSet {
  readonly #json: string;
  readonly #event: string;
  readonly #directTopic: string;
  readonly #cache: (Buffer | undefined)[] = [undefined, undefined, undefined, undefined];

  constructor(json: string, event: string, directTopic: string) {
    this.#json = json;
    this.#event = event;
    this.#directTopic = directTopic;
  }

  get(vsn: Vsn, wildcard: boolean): Buffer {
    const i = (vsn === 2 ? 1 : 0) + (wildcard ? 2 : 0);
    let b = this.#cache[i];
    if (b === undefined) {
      const topic = wildcard ? WILDCARD_TOPIC : this.#directTopic;
      b = Buffer.from(encodeBroadcast(vsn, topic, this.#event, this.#json));
      this.#cache[i] = b;
    }
    return b;
  }
}

const DEFAULT_PATH = '/socket/websocket';
const TEXT = { binary: false } as const;

function zeroCounts(): Record<StreamEventType, number> {
  const out = {} as Record<StreamEventType, number>;
  for (const t of STREAM_EVENT_TYPES) out[t] = 0;
  return out;
}

function refuseUpgrade(socket: Duplex, status: number, reasons: readonly string[]): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ errors: reasons });
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

class PhoenixStreamServer implements StreamServer {
  readonly path: string;
  readonly faults: StreamFaults;
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #authenticate: (token: string) => boolean | Promise<boolean>;
  readonly #clock: () => number;
  readonly #idleMs: number;
  readonly #rejectOther: boolean;
  readonly #holdMs: number;
  readonly #maxBuffered: number;
  readonly #ctx: Omit<StreamRenderContext, 'sentAtMs'>;
  readonly #conns = new Set<Connection>();
  /** topic → channels joined to it, across sockets. */
  readonly #index = new Map<string, Set<Channel>>();
  readonly #unsubscribe: () => void;
  readonly #held: MarketEvent[] = [];
  #holdTimer: NodeJS.Timeout | undefined;
  #closed = false;

  #connectionsTotal = 0;
  #refused = 0;
  #joins = 0;
  #joinErrors = 0;
  #leaves = 0;
  #heartbeats = 0;
  #framesSent = 0;
  #eventsPublished = 0;
  readonly #delivered = zeroCounts();
  #duplicates = 0;
  #malformedInjected = 0;
  #malformedReceived = 0;
  #drops = 0;
  #stalls = 0;
  #suppressed = 0;
  #idleClosed = 0;
  #slowClosed = 0;

  constructor(http: Server, o: StreamServerOptions) {
    this.#http = http;
    this.path = o.path ?? DEFAULT_PATH;
    this.#authenticate = o.authenticate;
    this.#clock = o.clock ?? Date.now;
    this.#idleMs = o.idleTimeoutMs ?? 60_000;
    this.#rejectOther = o.rejectOtherUpgrades ?? true;
    this.#holdMs = o.reorderHoldMs ?? 250;
    this.#maxBuffered = o.maxBufferedBytes ?? 64 * 1024 * 1024;
    this.#ctx = {
      chain: o.chain ?? 'ethereum',
      ...(o.itemUrl ? { itemUrl: o.itemUrl } : {}),
      ...(o.metadataUrl ? { metadataUrl: o.metadataUrl } : {}),
      ...(o.imageUrl ? { imageUrl: o.imageUrl } : {}),
      ...(o.quote ? { quote: o.quote } : {}),
      ...(o.catalog ? { catalog: o.catalog } : {}),
    };
    this.#wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: 64 * 1024,
    });
    this.faults = new StreamFaults(
      {
        dropAll: () => this.#dropAll(),
        stall: (ms) => this.#stall(ms),
        faultsChanged: () => this.#faultsChanged(),
      },
      o.seed ?? 1,
    );
    http.on('upgrade', this.#onUpgrade);
    this.#unsubscribe = o.events.subscribe(this.#onLogEvent);
  }

  get connectionCount(): number {
    return this.#conns.size;
  }

  stats(): StreamStats {
    return {
      connections: this.#conns.size,
      connectionsTotal: this.#connectionsTotal,
      refused: this.#refused,
      joins: this.#joins,
      joinErrors: this.#joinErrors,
      leaves: this.#leaves,
      heartbeats: this.#heartbeats,
      framesSent: this.#framesSent,
      eventsPublished: this.#eventsPublished,
      eventsDelivered: { ...this.#delivered },
      duplicatesInjected: this.#duplicates,
      malformedInjected: this.#malformedInjected,
      malformedReceived: this.#malformedReceived,
      drops: this.#drops,
      stalls: this.#stalls,
      framesSuppressed: this.#suppressed,
      idleClosed: this.#idleClosed,
      slowClosed: this.#slowClosed,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    this.#http.off('upgrade', this.#onUpgrade);
    if (this.#holdTimer) clearTimeout(this.#holdTimer);
    this.#holdTimer = undefined;
    this.#held.length = 0;
    const closing = [...this.#conns].map(
      (conn) =>
        new Promise<void>((resolve) => {
          if (conn.ws.readyState === WebSocket.CLOSED) {
            resolve();
            return;
          }
          const timer = setTimeout(() => {
            conn.ws.terminate();
            resolve();
          }, 1000);
          conn.ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          conn.ws.close(1001, 'server shutting down');
        }),
    );
    await Promise.all(closing);
    for (const conn of [...this.#conns]) this.#remove(conn);
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  // ── upgrade and connection ─────────────────────────────────────────

  readonly #onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      url = new URL('http://localhost/');
    }
    const pathname = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (pathname !== this.path) {
      if (this.#rejectOther) {
        this.#refused++;
        refuseUpgrade(socket, 404, ['Not found']);
      }
      return;
    }
    const onError = (): void => {
      socket.destroy();
    };
    socket.on('error', onError);
    const vsnParam = url.searchParams.get('vsn');
    const vsn = parseVsn(vsnParam);
    if (vsn === null) {
      this.#refused++;
      refuseUpgrade(socket, 400, [`Unsupported vsn "${vsnParam}": use 1.0.0 or 2.0.0`]);
      return;
    }
    const token = url.searchParams.get('token') ?? '';
    const admit = (ok: boolean): void => {
      socket.off('error', onError);
      if (socket.destroyed) return;
      if (this.#closed) {
        this.#refused++;
        refuseUpgrade(socket, 503, ['Stream server is shutting down']);
        return;
      }
      if (!ok) {
        this.#refused++;
        refuseUpgrade(socket, 401, ['Invalid API key']);
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws, vsn));
    };
    if (token === '') {
      admit(false);
      return;
    }
    let verdict: boolean | Promise<boolean>;
    try {
      verdict = this.#authenticate(token);
    } catch {
      verdict = false;
    }
    if (typeof verdict === 'boolean') {
      admit(verdict);
      return;
    }
    verdict.then(
      (ok) => admit(ok === true),
      () => admit(false),
    );
  };

  #onConnection(ws: WebSocket, vsn: Vsn): void {
    if (this.#closed) {
      ws.terminate();
      return;
    }
    const conn: Connection = { ws, vsn, channels: new Map(), stalledUntil: 0, idle: undefined };
    this.#conns.add(conn);
    this.#connectionsTotal++;
    if (this.#idleMs > 0) {
      conn.idle = setTimeout(() => {
        this.#idleClosed++;
        ws.close(1000, 'idle timeout');
      }, this.#idleMs);
      conn.idle.unref();
    }
    ws.on('message', (data, isBinary) => this.#onMessage(conn, data, isBinary));
    ws.on('close', () => this.#remove(conn));
    ws.on('error', () => {
      // 'close' follows and cleans up
    });
  }

  #remove(conn: Connection): void {
    if (conn.idle) clearTimeout(conn.idle);
    conn.idle = undefined;
    for (const ch of conn.channels.values()) this.#unindex(ch);
    conn.channels.clear();
    this.#conns.delete(conn);
  }

  #indexChannel(ch: Channel): void {
    let set = this.#index.get(ch.topic);
    if (!set) {
      set = new Set();
      this.#index.set(ch.topic, set);
    }
    set.add(ch);
  }

  #unindex(ch: Channel): void {
    const set = this.#index.get(ch.topic);
    if (!set) return;
    set.delete(ch);
    if (set.size === 0) this.#index.delete(ch.topic);
  }

  // ── client frames ──────────────────────────────────────────────────

  #onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    conn.idle?.refresh();
    if (isBinary) {
      this.#malformedReceived++;
      return;
    }
    const decoded = decodeFrame(conn.vsn, rawText(data));
    if (!decoded.ok) {
      this.#malformedReceived++;
      return;
    }
    const f = decoded.frame;
    if (f.topic === PHOENIX_TOPIC) {
      if (f.event === HEARTBEAT) {
        this.#heartbeats++;
        this.#reply(conn, f, 'ok');
      } else {
        this.#reply(conn, f, 'error', { reason: 'unmatched topic' });
      }
      return;
    }
    if (f.event === PHX_JOIN) {
      this.#join(conn, f);
      return;
    }
    const ch = conn.channels.get(f.topic);
    // Like Phoenix, a frame for an earlier instance of a joined channel (its join_ref differs) is
    // ignored without a reply: the client raced a rejoin.
    if (ch && ch.joinRef !== null && f.joinRef !== null && f.joinRef !== ch.joinRef) return;
    if (f.event === PHX_LEAVE) {
      this.#leave(conn, f, ch);
      return;
    }
    // The stream is receive-only: a joined channel handles nothing but join and leave.
    if (ch) this.#reply(conn, f, 'error', { reason: 'unsupported event' });
    else this.#reply(conn, f, 'error', { reason: 'unmatched topic' });
  }

  #join(conn: Connection, f: PhxFrame): void {
    const topic = parseTopic(f.topic);
    if (topic === null || topic.kind === 'phoenix') {
      this.#joinErrors++;
      this.#reply(conn, f, 'error', { reason: 'unmatched topic' });
      return;
    }
    const filter = parseEventTypesFilter(f.payload);
    if (!filter.ok) {
      this.#joinErrors++;
      this.#reply(conn, f, 'error', { reason: 'event_types must be a list of event type names' });
      return;
    }
    // A second join of the same topic replaces the channel (and its filter), as Phoenix does.
    const previous = conn.channels.get(f.topic);
    if (previous) this.#unindex(previous);
    const ch: Channel = { conn, topic: f.topic, joinRef: f.joinRef ?? f.ref, filter: filter.filter };
    conn.channels.set(f.topic, ch);
    this.#indexChannel(ch);
    this.#joins++;
    this.#reply(conn, f, 'ok');
  }

  /** Leave is answered ok even for a topic not joined (as Phoenix does); a joined one then closes. */
  #leave(conn: Connection, f: PhxFrame, ch: Channel | undefined): void {
    this.#reply(conn, f, 'ok');
    if (!ch) return;
    this.#leaves++;
    conn.channels.delete(f.topic);
    this.#unindex(ch);
    this.#sendFrame(conn, {
      joinRef: ch.joinRef,
      ref: ch.joinRef,
      topic: ch.topic,
      event: PHX_CLOSE,
      payload: {},
    });
  }

  #reply(
    conn: Connection,
    f: PhxFrame,
    status: 'ok' | 'error',
    response: Readonly<Record<string, unknown>> = {},
  ): void {
    this.#sendFrame(conn, replyFrame(f, status, response));
  }

  #sendFrame(conn: Connection, frame: PhxFrame): void {
    this.#send(conn, encodeFrame(conn.vsn, frame));
  }

  #send(conn: Connection, data: string | Buffer): boolean {
    const ws = conn.ws;
    if (ws.readyState !== WebSocket.OPEN) return false;
    if (conn.stalledUntil !== 0) {
      if (this.#clock() < conn.stalledUntil) {
        this.#suppressed++;
        return false;
      }
      conn.stalledUntil = 0;
    }
    if (ws.bufferedAmount > this.#maxBuffered) {
      this.#slowClosed++;
      ws.terminate();
      this.#remove(conn);
      return false;
    }
    ws.send(data, TEXT);
    this.#framesSent++;
    return true;
  }

  // ── events ─────────────────────────────────────────────────────────

  readonly #onLogEvent = (e: MarketEvent): void => {
    if (this.#closed) return;
    const window = this.faults.reorderWindow;
    if (window > 1) {
      this.#held.push(e);
      if (this.#held.length >= window) this.#releaseHeld();
      else if (!this.#holdTimer) this.#holdTimer = setTimeout(() => this.#releaseHeld(), this.#holdMs);
      return;
    }
    this.#publish(e);
  };

  #releaseHeld(): void {
    if (this.#holdTimer) clearTimeout(this.#holdTimer);
    this.#holdTimer = undefined;
    if (this.#held.length === 0) return;
    const batch = this.faults.shuffle(this.#held.splice(0));
    for (const e of batch) this.#publish(e);
  }

  #faultsChanged(): void {
    const window = this.faults.reorderWindow;
    if (this.#held.length > 0 && (window <= 1 || this.#held.length >= window)) this.#releaseHeld();
  }

  #publish(e: MarketEvent): void {
    const topic = collectionTopic(e.collection);
    const direct = this.#index.get(topic);
    const wild = this.#index.get(WILDCARD_TOPIC);
    if (direct === undefined && wild === undefined) return;
    let message: StreamMessage;
    let json: string;
    try {
      message = renderStreamEvent(e, { ...this.#ctx, sentAtMs: this.#clock() });
      json = JSON.stringify(message);
    } catch {
      return; // a record the renderer cannot handle is never worth a crash of the stream
    }
    this.#eventsPublished++;
    const type = message.event_type;
    const malformed = this.faults.rollMalformed();
    if (malformed !== null) {
      const bad = this.#malformedFrames(malformed, message, topic);
      if (direct) this.#deliver(direct, bad, false, type, false);
      if (wild) this.#deliver(wild, bad, true, type, false);
      this.#malformedInjected++;
    }
    const frames = new FrameSet(json, type, topic);
    if (direct) this.#deliver(direct, frames, false, type, true);
    if (wild) this.#deliver(wild, frames, true, type, true);
    if (this.faults.rollDuplicate()) {
      this.#duplicates++;
      if (direct) this.#deliver(direct, frames, false, type, true);
      if (wild) this.#deliver(wild, frames, true, type, true);
    }
  }

  #malformedFrames(kind: MalformedKind, message: StreamMessage, topic: string): FrameSet {
    const brokenJson = JSON.stringify(breakMessage(message));
    if (kind === 'broken_payload') return new FrameSet(brokenJson, message.event_type, topic);
    // Invalid JSON: a frame cut off in the middle.
    const truncated = brokenJson.slice(0, Math.max(1, Math.floor(brokenJson.length / 2)));
    return new FrameSet(truncated, message.event_type, topic);
  }

  #deliver(
    channels: ReadonlySet<Channel>,
    frames: FrameSet,
    wildcard: boolean,
    type: StreamEventType,
    count: boolean,
  ): void {
    for (const ch of channels) {
      if (ch.filter !== null && !ch.filter.has(type)) continue;
      if (this.#send(ch.conn, frames.get(ch.conn.vsn, wildcard)) && count) this.#delivered[type]++;
    }
  }

  // ── faults ─────────────────────────────────────────────────────────

  #dropAll(): number {
    const conns = [...this.#conns];
    for (const conn of conns) {
      conn.ws.terminate();
      this.#remove(conn);
    }
    this.#drops += conns.length;
    return conns.length;
  }

  #stall(ms: number): number {
    const until = this.#clock() + ms;
    for (const conn of this.#conns) conn.stalledUntil = until;
    this.#stalls += this.#conns.size;
    return this.#conns.size;
  }
}

/**
 * Attaches the stream server to `httpServer`'s `upgrade` event (path `/socket/websocket`) and to
 * the event log. The HTTP server's own requests are untouched.
 */
export function attachStreamServer(httpServer: Server, options: StreamServerOptions): StreamServer {
  return new PhoenixStreamServer(httpServer, options);
}

/**
 * The stream client: Phoenix v2 over a WebSocket, normalized events, zero lost and none twice.
 *
 *   const stream = createStreamClient({ streamUrl, apiKey, collections: ['doodles-official'], api, logger });
 *   const off = stream.subscribe((e) => market.apply(e));
 *   stream.onFreshness(({ key, stale }) => …);
 *   stream.start();
 *   …
 *   store.saveWatermarks(stream.getWatermarks());
 *   await stream.stop();
 *
 * Lifecycle: connect `<streamUrl>/websocket?token=…&vsn=2.0.0`, join every channel (with the
 * `event_types` filter), heartbeat every `heartbeatIntervalMs`; a heartbeat still unanswered at the
 * next tick means the socket is dead (a silent stall): it is terminated and reconnected. Reconnects
 * back off exponentially with jitter; every channel is rejoined, and a channel that had a gap
 * (reconnect, stall, server `phx_error`/`phx_close`, or a watermark from a previous run) is
 * backfilled from its watermark through `GET /api/v2/events*` once joined. Each event is delivered
 * once: the per-channel `SeenWindow` drops what was already delivered by its stable id.
 * After `pollAfterFailures` failed connects in a row, the client polls the events endpoint per
 * channel instead (status `polling`, logged) and keeps trying the stream; when it is back, the
 * polls stop.
 *
 * Freshness: a channel's newest information is the later of its last event, the last heartbeat
 * reply while it was joined (the socket is provably alive and in order), and the start of its last
 * successful backfill or poll. Older than `staleAfterMs` → stale (notified, logged).
 */

import type { MarketEvent } from '../domain/events.ts';
import { RateLimitedError } from '../errors/index.ts';
import { silentLogger } from '../observability/index.ts';
import { type Clock, systemClock, systemTimers, type TimerHandle, type Timers } from '../ratelimit/clock.ts';
import { type Backoff, createBackoff } from './backoff.ts';
import {
  MalformedEvent,
  type MalformedKind,
  type NormalizeContext,
  normalizeRestEvent,
  normalizeStreamMessage,
  REST_TYPES_OF_STREAM_TYPE,
  STREAM_EVENT_TYPES,
  type StreamEventType,
} from './normalize.ts';
import {
  heartbeatFrame,
  joinFrame,
  PHOENIX_TOPIC,
  PHX_CLOSE,
  PHX_ERROR,
  PHX_REPLY,
  socketUrl,
  topicOf,
  WILDCARD,
} from './phoenix.ts';
import type {
  ChannelStatus,
  EventHandler,
  FreshnessHandler,
  GapHandler,
  GapInfo,
  SocketFactory,
  SocketLike,
  StreamClient,
  StreamClientOptions,
  StreamCounters,
  StreamLogger,
  StreamState,
  StreamStatus,
} from './types.ts';
import { SeenWindow, type Watermark } from './watermark.ts';

interface Channel {
  readonly key: string;
  readonly topic: string;
  readonly window: SeenWindow;
  joinRef: string | null;
  joined: boolean;
  joinTimer: TimerHandle | undefined;
  rejoinTimer: TimerHandle | undefined;
  rejoinAttempt: number;
  /** A gap happened: backfill once joined. */
  needsBackfill: boolean;
  backfilling: boolean;
  /** Another backfill was asked for while one ran ('backfill' wins over 'poll'). */
  backfillAgain: 'backfill' | 'poll' | null;
  backfillTimer: TimerHandle | undefined;
  backfillAttempt: number;
  pollTimer: TimerHandle | undefined;
  /** Monotonic ms of the newest information. */
  freshAt: number;
  stale: boolean;
}

interface MutableCounters {
  frames: number;
  events: number;
  duplicates: number;
  late: number;
  malformed: Partial<Record<MalformedKind, number>>;
  malformedTotal: number;
  reconnects: number;
  heartbeatTimeouts: number;
  backfills: number;
  backfilled: number;
  backfillErrors: number;
  polls: number;
  polled: number;
  handlerErrors: number;
}

const OPEN = 1;

/** The default socket factory: a `ws` WebSocket (loaded lazily, so a fake factory never needs it). */
export async function loadWsFactory(): Promise<SocketFactory> {
  const mod = await import('ws');
  const Ws = mod.WebSocket;
  return (url: string) => new Ws(url, { perMessageDeflate: false }) as unknown as SocketLike;
}

export function createStreamClient(options: StreamClientOptions): StreamClient {
  return new PhoenixStreamClient(options);
}

class PhoenixStreamClient implements StreamClient {
  readonly #o: StreamClientOptions;
  readonly #log: StreamLogger;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #backoff: Backoff;
  readonly #heartbeatMs: number;
  readonly #connectTimeoutMs: number;
  readonly #joinTimeoutMs: number;
  readonly #pollAfter: number;
  readonly #pollMs: number;
  readonly #staleMs: number;
  readonly #checkMs: number;
  readonly #overlapSec: number;
  readonly #pageLimit: number;
  readonly #maxPages: number;
  readonly #eventTypes: readonly StreamEventType[] | undefined;
  readonly #restTypes: readonly string[] | undefined;
  readonly #backfillable: boolean;
  /** The configured types include some the events endpoint does not serve (cancels, metadata, validity). */
  readonly #streamOnly: boolean;
  readonly #channels = new Map<string, Channel>();
  readonly #byTopic = new Map<string, Channel>();
  #handlers: EventHandler[] = [];
  #freshHandlers: FreshnessHandler[] = [];
  #gapHandlers: GapHandler[] = [];
  #factory: SocketFactory | undefined;

  #state: StreamState = 'idle';
  #socket: SocketLike | undefined;
  #everOpened = false;
  #opened = false;
  /** The current socket answered a join or a heartbeat. */
  #healthy = false;
  #failures = 0;
  #attempt = 0;
  #ref = 0;
  #pendingHeartbeat: string | null = null;
  #heartbeatTimer: TimerHandle | undefined;
  #connectTimer: TimerHandle | undefined;
  #reconnectTimer: TimerHandle | undefined;
  #checkTimer: TimerHandle | undefined;
  #polling = false;
  readonly #loggedMalformed = new Set<MalformedKind>();
  #loggedHandlerError = false;
  readonly #c: MutableCounters = {
    frames: 0,
    events: 0,
    duplicates: 0,
    late: 0,
    malformed: {},
    malformedTotal: 0,
    reconnects: 0,
    heartbeatTimeouts: 0,
    backfills: 0,
    backfilled: 0,
    backfillErrors: 0,
    polls: 0,
    polled: 0,
    handlerErrors: 0,
  };
  // reused normalize context of live frames (no per-frame allocation)
  readonly #liveCtx: { receivedAt: number; source: 'stream'; collection: string | undefined } = {
    receivedAt: 0,
    source: 'stream',
    collection: undefined,
  };

  constructor(o: StreamClientOptions) {
    this.#o = o;
    this.#log = o.logger ?? silentLogger();
    this.#clock = o.clock ?? systemClock;
    this.#timers = o.timers ?? systemTimers;
    this.#backoff = createBackoff(o.backoff, o.random ?? Math.random);
    this.#heartbeatMs = positive(o.heartbeatIntervalMs, 30_000);
    this.#connectTimeoutMs = positive(o.connectTimeoutMs, 10_000);
    this.#joinTimeoutMs = positive(o.joinTimeoutMs, 10_000);
    this.#pollAfter = Math.max(1, Math.floor(o.pollAfterFailures ?? 3));
    this.#pollMs = positive(o.pollIntervalMs, 30_000);
    this.#staleMs = positive(o.staleAfterMs, Math.round(this.#heartbeatMs * 1.5));
    this.#checkMs = Math.max(10, positive(o.freshnessCheckMs, Math.round(this.#staleMs / 6)));
    this.#overlapSec = Math.ceil(Math.max(0, o.backfillOverlapMs ?? 30_000) / 1000);
    this.#pageLimit = Math.min(200, Math.max(1, Math.floor(o.backfillPageLimit ?? 200)));
    this.#maxPages = Math.max(1, Math.floor(o.maxBackfillPages ?? 100));
    if (o.createSocket) this.#factory = o.createSocket;

    const types = o.eventTypes;
    if (types !== undefined) {
      for (const t of types)
        if (!(STREAM_EVENT_TYPES as readonly string[]).includes(t))
          throw new TypeError(`eventTypes: unknown stream event type "${t}"`);
    }
    this.#eventTypes = types && types.length > 0 ? [...types] : undefined;
    this.#streamOnly = (this.#eventTypes ?? STREAM_EVENT_TYPES).some(
      (t) => REST_TYPES_OF_STREAM_TYPE[t].length === 0,
    );
    if (this.#eventTypes) {
      const rest = new Set<string>();
      for (const t of this.#eventTypes) for (const r of REST_TYPES_OF_STREAM_TYPE[t]) rest.add(r);
      this.#restTypes = [...rest];
      this.#backfillable = rest.size > 0;
    } else {
      this.#restTypes = undefined;
      this.#backfillable = true;
    }

    const keys = o.collections === '*' ? [WILDCARD] : [...new Set(o.collections)];
    if (keys.length === 0) throw new TypeError('collections: give at least one slug, or "*"');
    const windowSec = Math.ceil(positive(o.dedupWindowMs, 600_000) / 1000);
    const maxIds = positive(o.maxRememberedIds, 20_000);
    const wall = this.#clock.wallNow();
    const mono = this.#clock.now();
    for (const key of keys) {
      if (key !== WILDCARD && !/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(key))
        throw new TypeError(`collections: "${key}" is not a collection slug`);
      const initial = o.initialWatermarks?.[key];
      const ch: Channel = {
        key,
        topic: topicOf(key),
        window: new SeenWindow({
          windowSec: Math.max(windowSec, this.#overlapSec + 1),
          maxIds,
          ...(initial !== undefined ? { initial } : { baselineMs: wall }),
        }),
        joinRef: null,
        joined: false,
        joinTimer: undefined,
        rejoinTimer: undefined,
        rejoinAttempt: 0,
        needsBackfill: initial !== undefined,
        backfilling: false,
        backfillAgain: null,
        backfillTimer: undefined,
        backfillAttempt: 0,
        pollTimer: undefined,
        freshAt: mono,
        stale: false,
      };
      this.#channels.set(key, ch);
      this.#byTopic.set(ch.topic, ch);
    }
  }

  // ── public ────────────────────────────────────────────────────────

  start(): void {
    if (this.#state !== 'idle') return;
    this.#state = 'connecting';
    const mono = this.#clock.now();
    for (const ch of this.#channels.values()) ch.freshAt = mono;
    this.#scheduleCheck();
    void this.#connect();
  }

  async stop(): Promise<void> {
    if (this.#state === 'stopped') return;
    this.#state = 'stopped';
    this.#clear(this.#reconnectTimer);
    this.#clear(this.#checkTimer);
    this.#stopHeartbeat();
    this.#clear(this.#connectTimer);
    for (const ch of this.#channels.values()) {
      this.#clear(ch.joinTimer);
      this.#clear(ch.rejoinTimer);
      this.#clear(ch.backfillTimer);
      this.#clear(ch.pollTimer);
      ch.joined = false;
    }
    const s = this.#socket;
    this.#socket = undefined;
    if (s) {
      detach(s);
      try {
        s.close(1000, 'client stopped');
      } catch {
        // already closed
      }
    }
    this.#log.info({ event: 'stream_stopped' }, 'stream client stopped');
  }

  subscribe(handler: EventHandler): () => void {
    this.#handlers = [...this.#handlers, handler];
    return () => {
      this.#handlers = this.#handlers.filter((h) => h !== handler);
    };
  }

  onFreshness(handler: FreshnessHandler): () => void {
    this.#freshHandlers = [...this.#freshHandlers, handler];
    return () => {
      this.#freshHandlers = this.#freshHandlers.filter((h) => h !== handler);
    };
  }

  onGap(handler: GapHandler): () => void {
    this.#gapHandlers = [...this.#gapHandlers, handler];
    return () => {
      this.#gapHandlers = this.#gapHandlers.filter((h) => h !== handler);
    };
  }

  status(): StreamStatus {
    const now = this.#clock.now();
    const channels: ChannelStatus[] = [];
    let stale = false;
    for (const ch of this.#channels.values()) {
      const ageMs = Math.max(0, now - ch.freshAt);
      const isStale = ageMs > this.#staleMs;
      if (isStale) stale = true;
      channels.push({
        key: ch.key,
        topic: ch.topic,
        joined: ch.joined,
        ageMs,
        stale: isStale,
        backfilling: ch.backfilling,
        newestEventMs: ch.window.newestMs,
      });
    }
    const c = this.#c;
    const counters: StreamCounters = { ...c, malformed: { ...c.malformed } };
    return {
      state: this.#state,
      polling: this.#polling,
      consecutiveFailures: this.#failures,
      channels,
      stale,
      counters,
    };
  }

  freshness(collection: string): { ageMs: number; stale: boolean } | undefined {
    const ch = this.#channels.get(collection) ?? this.#channels.get(WILDCARD);
    if (!ch) return undefined;
    const ageMs = Math.max(0, this.#clock.now() - ch.freshAt);
    return { ageMs, stale: ageMs > this.#staleMs };
  }

  getWatermarks(): Record<string, Watermark> {
    const out: Record<string, Watermark> = {};
    for (const ch of this.#channels.values()) out[ch.key] = ch.window.export(this.#overlapSec);
    return out;
  }

  // ── connection ────────────────────────────────────────────────────

  async #connect(): Promise<void> {
    if (this.#isStopped()) return;
    if (!this.#factory) {
      try {
        this.#factory = await loadWsFactory();
      } catch (err) {
        this.#log.error({ event: 'stream_ws_missing', err }, 'stream: the ws package could not be loaded');
        return;
      }
      if (this.#isStopped()) return;
    }
    const key = typeof this.#o.apiKey === 'function' ? this.#o.apiKey() : this.#o.apiKey;
    const { url, safe } = socketUrl(this.#o.streamUrl, key.reveal());
    this.#opened = false;
    this.#pendingHeartbeat = null;
    let socket: SocketLike;
    try {
      socket = this.#factory(url);
    } catch (err) {
      this.#log.warn(
        { event: 'stream_connect_failed', url: safe, err: errText(err) },
        'stream connect failed',
      );
      this.#onSocketGone(undefined);
      return;
    }
    this.#socket = socket;
    this.#log.debug({ event: 'stream_connecting', url: safe }, 'stream connecting');
    this.#connectTimer = this.#timers.setTimeout(() => {
      this.#connectTimer = undefined;
      if (this.#socket !== socket || this.#opened) return;
      this.#log.warn({ event: 'stream_connect_timeout', url: safe }, 'stream connect timed out');
      this.#drop(socket);
    }, this.#connectTimeoutMs);
    socket.onopen = () => {
      if (this.#socket !== socket) return;
      this.#onOpen();
    };
    socket.onmessage = (ev) => {
      if (this.#socket !== socket) return;
      const d = ev.data;
      this.#onText(typeof d === 'string' ? d : String(d));
    };
    socket.onerror = () => {
      // the close event follows and carries the outcome
    };
    socket.onclose = (ev) => {
      if (this.#socket !== socket) return;
      this.#log.debug({ event: 'stream_closed', code: ev.code }, 'stream socket closed');
      this.#onSocketGone(socket);
    };
  }

  #onOpen(): void {
    this.#clear(this.#connectTimer);
    this.#connectTimer = undefined;
    this.#opened = true;
    if (this.#everOpened) this.#c.reconnects++;
    this.#everOpened = true;
    this.#state = 'connected';
    this.#log.info(
      { event: 'stream_connected', channels: this.#channels.size, reconnects: this.#c.reconnects },
      'stream connected',
    );
    this.#startHeartbeat();
    for (const ch of this.#channels.values()) this.#join(ch);
  }

  /** Terminates a socket we consider dead; the reconnect follows. */
  #drop(socket: SocketLike): void {
    if (this.#socket !== socket) return;
    detach(socket);
    try {
      if (socket.terminate) socket.terminate();
      else socket.close(1000, 'heartbeat timeout');
    } catch {
      // already gone
    }
    this.#onSocketGone(socket);
  }

  #onSocketGone(socket: SocketLike | undefined): void {
    if (socket !== undefined && this.#socket !== socket) return;
    if (socket) detach(socket);
    this.#socket = undefined;
    this.#clear(this.#connectTimer);
    this.#connectTimer = undefined;
    this.#stopHeartbeat();
    for (const ch of this.#channels.values()) {
      this.#clear(ch.joinTimer);
      this.#clear(ch.rejoinTimer);
      ch.joinTimer = undefined;
      ch.rejoinTimer = undefined;
      // any gap once started (even before a first join): what happened meanwhile is fetched
      ch.needsBackfill = true;
      ch.joined = false;
      ch.joinRef = null;
    }
    if (this.#isStopped()) return;
    // a socket that opened but never answered a join or a heartbeat counts as a failed connect
    // (a server that accepts and drops at once must not be hammered, and leads to polling too)
    if (!this.#healthy) {
      this.#failures++;
    } else {
      this.#attempt = 0;
    }
    this.#opened = false;
    this.#healthy = false;
    if (this.#failures >= this.#pollAfter && !this.#polling) this.#startPolling();
    this.#state = this.#polling ? 'polling' : 'reconnecting';
    const delay = this.#backoff.delay(this.#attempt++);
    this.#log.info(
      { event: 'stream_reconnect_scheduled', delayMs: delay, failures: this.#failures },
      'stream reconnect scheduled',
    );
    this.#reconnectTimer = this.#timers.setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#isStopped()) return;
      if (!this.#polling) this.#state = 'connecting';
      void this.#connect();
    }, delay);
  }

  #send(text: string): boolean {
    const s = this.#socket;
    if (!s || s.readyState !== OPEN) return false;
    try {
      s.send(text);
      return true;
    } catch {
      return false;
    }
  }

  #nextRef(): string {
    this.#ref++;
    return String(this.#ref);
  }

  // ── heartbeat / watchdog ──────────────────────────────────────────

  #startHeartbeat(): void {
    this.#stopHeartbeat();
    this.#pendingHeartbeat = null;
    this.#heartbeatTimer = this.#timers.setTimeout(() => this.#tick(), this.#heartbeatMs);
  }

  #stopHeartbeat(): void {
    this.#clear(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
    this.#pendingHeartbeat = null;
  }

  #tick(): void {
    this.#heartbeatTimer = undefined;
    const socket = this.#socket;
    if (!socket || this.#isStopped()) return;
    if (this.#pendingHeartbeat !== null) {
      this.#c.heartbeatTimeouts++;
      this.#log.warn(
        { event: 'stream_heartbeat_timeout', intervalMs: this.#heartbeatMs },
        'stream heartbeat unanswered: the socket is silent, reconnecting',
      );
      this.#drop(socket);
      return;
    }
    const ref = this.#nextRef();
    this.#pendingHeartbeat = ref;
    this.#send(heartbeatFrame(ref));
    this.#heartbeatTimer = this.#timers.setTimeout(() => this.#tick(), this.#heartbeatMs);
  }

  // ── channels ──────────────────────────────────────────────────────

  #join(ch: Channel): void {
    this.#clear(ch.joinTimer);
    this.#clear(ch.rejoinTimer);
    ch.rejoinTimer = undefined;
    const ref = this.#nextRef();
    ch.joinRef = ref;
    ch.joined = false;
    if (!this.#send(joinFrame(ref, ch.topic, this.#eventTypes))) return;
    ch.joinTimer = this.#timers.setTimeout(() => {
      ch.joinTimer = undefined;
      if (ch.joinRef !== ref || ch.joined) return;
      this.#log.warn({ event: 'stream_join_timeout', topic: ch.topic }, 'stream join timed out');
      this.#scheduleRejoin(ch);
    }, this.#joinTimeoutMs);
  }

  #scheduleRejoin(ch: Channel): void {
    if (this.#isStopped() || !this.#socket) return;
    this.#clear(ch.rejoinTimer);
    ch.needsBackfill = true;
    ch.joined = false;
    ch.joinRef = null;
    const delay = this.#backoff.delay(ch.rejoinAttempt++);
    ch.rejoinTimer = this.#timers.setTimeout(() => {
      ch.rejoinTimer = undefined;
      if (this.#socket && this.#opened) this.#join(ch);
    }, delay);
  }

  #onJoinReply(ch: Channel, payload: unknown): void {
    this.#clear(ch.joinTimer);
    ch.joinTimer = undefined;
    const status = isObj(payload) ? payload['status'] : undefined;
    if (status !== 'ok') {
      this.#log.warn(
        { event: 'stream_join_refused', topic: ch.topic, status: String(status) },
        'stream join refused',
      );
      this.#scheduleRejoin(ch);
      return;
    }
    ch.joined = true;
    ch.rejoinAttempt = 0;
    this.#setHealthy();
    this.#markFresh(ch, this.#clock.now());
    this.#log.debug({ event: 'stream_joined', topic: ch.topic }, 'stream channel joined');
    if (this.#polling && this.#allJoined()) this.#stopPolling();
    if (ch.needsBackfill) void this.#backfill(ch, 'backfill');
  }

  #setHealthy(): void {
    if (this.#healthy) return;
    this.#healthy = true;
    this.#failures = 0;
  }

  #allJoined(): boolean {
    for (const ch of this.#channels.values()) if (!ch.joined) return false;
    return true;
  }

  // ── frames (hot path) ─────────────────────────────────────────────

  #onText(text: string): void {
    this.#c.frames++;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      this.#malformed('invalid_json', 'frame is not JSON');
      return;
    }
    if (!Array.isArray(frame) || frame.length !== 5) {
      this.#malformed('bad_frame', 'frame is not [join_ref, ref, topic, event, payload]');
      return;
    }
    const topic = frame[2];
    const event = frame[3];
    if (typeof topic !== 'string' || typeof event !== 'string') {
      this.#malformed('bad_frame', 'frame topic or event is not a string');
      return;
    }
    if (event === PHX_REPLY) {
      this.#onReply(frame[0], frame[1], topic, frame[4]);
      return;
    }
    const ch = this.#byTopic.get(topic);
    if (ch === undefined) return;
    const joinRef = frame[0];
    if (joinRef !== null && joinRef !== ch.joinRef) return; // a frame of an earlier join
    if (event === PHX_ERROR || event === PHX_CLOSE) {
      if (joinRef === null && event === PHX_CLOSE && ch.joinRef === null) return;
      this.#log.warn(
        { event: 'stream_channel_lost', topic, reason: event },
        'stream channel lost, rejoining',
      );
      this.#scheduleRejoin(ch);
      return;
    }
    const now = this.#clock.wallNow();
    const ctx = this.#liveCtx;
    ctx.receivedAt = now;
    ctx.collection = ch.key !== WILDCARD ? ch.key : undefined;
    let e: MarketEvent;
    try {
      e = normalizeStreamMessage(frame[4], ctx);
    } catch (err) {
      if (err instanceof MalformedEvent) this.#malformed(err.kind, err.message);
      else this.#malformed('bad_message', errText(err));
      return;
    }
    ch.freshAt = this.#clock.now();
    if (ch.stale) this.#markFresh(ch, ch.freshAt);
    this.#ingest(ch, e);
  }

  #onReply(joinRef: unknown, ref: unknown, topic: string, payload: unknown): void {
    if (topic === PHOENIX_TOPIC) {
      if (ref !== null && ref === this.#pendingHeartbeat) {
        this.#pendingHeartbeat = null;
        this.#setHealthy();
        const now = this.#clock.now();
        for (const ch of this.#channels.values()) if (ch.joined) this.#markFresh(ch, now);
      }
      return;
    }
    const ch = this.#byTopic.get(topic);
    if (ch === undefined || ch.joinRef === null || ref !== ch.joinRef || joinRef !== ch.joinRef) return;
    if (ch.joined) return;
    this.#onJoinReply(ch, payload);
  }

  /** Dedup, watermark, dispatch. Returns true when delivered. */
  #ingest(ch: Channel, e: MarketEvent): boolean {
    const r = ch.window.add(e.id, e.occurredAt);
    if (r === 'duplicate') {
      this.#c.duplicates++;
      return false;
    }
    if (r === 'late') this.#c.late++;
    this.#c.events++;
    const hs = this.#handlers;
    for (let i = 0; i < hs.length; i++) {
      try {
        (hs[i] as EventHandler)(e);
      } catch (err) {
        this.#c.handlerErrors++;
        if (!this.#loggedHandlerError) {
          this.#loggedHandlerError = true;
          this.#log.error(
            { event: 'stream_handler_error', err: errText(err) },
            'a stream subscriber threw (counted; logged once)',
          );
        }
      }
    }
    return true;
  }

  #malformed(kind: MalformedKind, detail: string): void {
    this.#c.malformedTotal++;
    this.#c.malformed[kind] = (this.#c.malformed[kind] ?? 0) + 1;
    if (!this.#loggedMalformed.has(kind)) {
      this.#loggedMalformed.add(kind);
      this.#log.warn(
        { event: 'stream_malformed', kind, detail: detail.slice(0, 200) },
        'malformed stream frame dropped (counted; logged once per kind)',
      );
    }
  }

  // ── backfill / poll ───────────────────────────────────────────────

  async #backfill(ch: Channel, source: 'backfill' | 'poll'): Promise<void> {
    if (!this.#backfillable) {
      ch.needsBackfill = false;
      return;
    }
    if (ch.backfilling) {
      if (ch.backfillAgain !== 'backfill') ch.backfillAgain = source;
      return;
    }
    ch.backfilling = true;
    // a poll does not close the gap: events between the last poll and the next join still need
    // the join's backfill
    if (source === 'backfill') ch.needsBackfill = false;
    const startedAt = this.#clock.now();
    const after = ch.window.resumeSec(this.#overlapSec);
    try {
      const records: unknown[] = [];
      let next: string | undefined;
      let pages = 0;
      for (;;) {
        const query = {
          after,
          limit: this.#pageLimit,
          ...(this.#restTypes ? { event_type: this.#restTypes as never } : {}),
          ...(next !== undefined ? { next } : {}),
        };
        const page =
          ch.key === WILDCARD
            ? await this.#o.api.events.list(query)
            : await this.#o.api.events.byCollection(ch.key, query);
        if (this.#isStopped()) return;
        pages++;
        for (const r of page.asset_events) records.push(r);
        next = typeof page.next === 'string' && page.next.length > 0 ? page.next : undefined;
        if (next === undefined) break;
        if (pages >= this.#maxPages) {
          this.#log.warn(
            { event: 'stream_backfill_truncated', topic: ch.topic, pages, records: records.length },
            'stream backfill stopped at maxBackfillPages: older events of the gap may be missing',
          );
          break;
        }
      }
      // pages are newest first: deliver oldest first
      const ctx: NormalizeContext = {
        receivedAt: this.#clock.wallNow(),
        source,
        ...(ch.key !== WILDCARD ? { collection: ch.key } : {}),
      };
      let delivered = 0;
      for (let i = records.length - 1; i >= 0; i--) {
        let e: MarketEvent | null;
        try {
          e = normalizeRestEvent(records[i], ctx);
        } catch (err) {
          if (err instanceof MalformedEvent) this.#malformed(err.kind, `REST event: ${err.message}`);
          else this.#malformed('bad_message', errText(err));
          continue;
        }
        if (e === null) continue;
        if (ch.key !== WILDCARD && e.collection !== ch.key) continue;
        if (this.#ingest(ch, e)) delivered++;
      }
      if (source === 'poll') {
        this.#c.polls++;
        this.#c.polled += delivered;
      } else {
        this.#c.backfills++;
        this.#c.backfilled += delivered;
      }
      ch.backfillAttempt = 0;
      this.#markFresh(ch, startedAt);
      if (source === 'backfill')
        this.#notifyGap({ key: ch.key, fromSec: after, delivered, streamOnlyMayBeMissing: this.#streamOnly });
      this.#log.info(
        { event: `stream_${source}`, topic: ch.topic, after, records: records.length, delivered },
        source === 'poll' ? 'stream unreachable: polled events' : 'stream gap backfilled',
      );
    } catch (err) {
      if (this.#isStopped()) return;
      this.#c.backfillErrors++;
      ch.needsBackfill = true;
      const wait =
        err instanceof RateLimitedError
          ? Math.max(err.retryAfterMs, 100)
          : this.#backoff.delay(ch.backfillAttempt++);
      this.#log.warn(
        { event: 'stream_backfill_failed', topic: ch.topic, source, retryInMs: wait, err: errText(err) },
        'stream backfill failed; retrying',
      );
      if (source === 'backfill') {
        this.#clear(ch.backfillTimer);
        ch.backfillTimer = this.#timers.setTimeout(() => {
          ch.backfillTimer = undefined;
          if (ch.joined && ch.needsBackfill) void this.#backfill(ch, 'backfill');
        }, wait);
      }
    } finally {
      ch.backfilling = false;
    }
    const again = ch.backfillAgain;
    if (again !== null && !this.#isStopped()) {
      ch.backfillAgain = null;
      void this.#backfill(ch, again);
    }
  }

  #startPolling(): void {
    this.#polling = true;
    this.#log.warn(
      { event: 'stream_polling', failures: this.#failures, pollIntervalMs: this.#pollMs },
      'stream unreachable: polling the events endpoint until it is back',
    );
    for (const ch of this.#channels.values()) this.#pollLoop(ch, 0);
  }

  #pollLoop(ch: Channel, delay: number): void {
    this.#clear(ch.pollTimer);
    ch.pollTimer = this.#timers.setTimeout(async () => {
      ch.pollTimer = undefined;
      if (!this.#polling || this.#isStopped()) return;
      if (!ch.joined) await this.#backfill(ch, 'poll');
      if (this.#polling && !this.#isStopped()) this.#pollLoop(ch, this.#pollMs);
    }, delay);
  }

  #stopPolling(): void {
    this.#polling = false;
    for (const ch of this.#channels.values()) {
      this.#clear(ch.pollTimer);
      ch.pollTimer = undefined;
    }
    this.#log.info({ event: 'stream_polling_stopped' }, 'stream is back: polling stopped');
  }

  // ── freshness ─────────────────────────────────────────────────────

  #markFresh(ch: Channel, at: number): void {
    if (at > ch.freshAt) ch.freshAt = at;
    if (ch.stale && this.#clock.now() - ch.freshAt <= this.#staleMs) {
      ch.stale = false;
      this.#notifyFreshness(ch);
    }
  }

  #scheduleCheck(): void {
    this.#checkTimer = this.#timers.setTimeout(() => {
      this.#checkTimer = undefined;
      if (this.#isStopped()) return;
      this.#checkFreshness();
      this.#scheduleCheck();
    }, this.#checkMs);
  }

  #checkFreshness(): void {
    const now = this.#clock.now();
    for (const ch of this.#channels.values()) {
      const stale = now - ch.freshAt > this.#staleMs;
      if (stale !== ch.stale) {
        ch.stale = stale;
        this.#notifyFreshness(ch);
      }
    }
  }

  #notifyGap(gap: GapInfo): void {
    for (const h of this.#gapHandlers) {
      try {
        h(gap);
      } catch (err) {
        this.#c.handlerErrors++;
        this.#log.error({ event: 'stream_gap_handler_error', err: errText(err) }, 'gap handler threw');
      }
    }
  }

  #notifyFreshness(ch: Channel): void {
    const ageMs = Math.max(0, this.#clock.now() - ch.freshAt);
    if (ch.stale)
      this.#log.warn(
        { event: 'stream_stale', key: ch.key, ageMs, staleAfterMs: this.#staleMs },
        'stream channel is stale',
      );
    else this.#log.info({ event: 'stream_fresh', key: ch.key, ageMs }, 'stream channel is fresh again');
    const change = { key: ch.key, stale: ch.stale, ageMs };
    for (const h of this.#freshHandlers) {
      try {
        h(change);
      } catch (err) {
        this.#c.handlerErrors++;
        this.#log.error(
          { event: 'stream_freshness_handler_error', err: errText(err) },
          'freshness handler threw',
        );
      }
    }
  }

  #isStopped(): boolean {
    return this.#state === 'stopped';
  }

  #clear(h: TimerHandle | undefined): void {
    if (h !== undefined) this.#timers.clearTimeout(h);
  }
}

function detach(s: SocketLike): void {
  s.onopen = null;
  s.onmessage = null;
  s.onclose = null;
  s.onerror = () => {};
}

function positive(v: number | undefined, dflt: number): number {
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : dflt;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 300);
  return String(err).slice(0, 300);
}

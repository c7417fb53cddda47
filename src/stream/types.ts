/** Public types of the stream client. */
import type { EventsApi } from '../api/endpoints/events.ts';
import type { MarketEvent } from '../domain/events.ts';
import type { Secret } from '../domain/secret.ts';
import type { Logger } from '../observability/index.ts';
import type { Clock, Timers } from '../ratelimit/clock.ts';
import type { MalformedKind, StreamEventType } from './normalize.ts';
import type { Watermark } from './watermark.ts';

/** The part of a WebSocket the client uses (`ws` and the WHATWG WebSocket both fit). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /** `ws` only: drop the connection without a close handshake (used on a silent socket). */
  terminate?(): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  onclose: ((event: { readonly code: number; readonly reason: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** Opens a socket to `url` (which carries the API key: never log it). */
export type SocketFactory = (url: string) => SocketLike;

export type StreamLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

/** What the client needs of the typed API client (`createApiClient(...)` fits). */
export interface StreamApi {
  readonly events: Pick<EventsApi, 'list' | 'byCollection'>;
}

export interface BackoffOptions {
  /** First delay. Default 500 ms. */
  readonly initialMs?: number;
  /** Cap. Default 30 000 ms. */
  readonly maxMs?: number;
  /** Growth per attempt. Default 2. */
  readonly factor?: number;
  /** Share of each delay that is random, 0..1. Default 0.5 (delay in [d/2, d]). */
  readonly jitter?: number;
}

export interface StreamClientOptions {
  /** Stream base, e.g. `wss://stream-api.opensea.io/socket`; the client appends `/websocket?token=…&vsn=2.0.0`. */
  readonly streamUrl: string;
  /** The API key, or a provider of the current one (an instant key renewed while running). */
  readonly apiKey: Secret | (() => Secret);
  /** Collection slugs to join (`collection:<slug>` each), or `'*'` for `collection:*`. */
  readonly collections: readonly string[] | '*';
  /** Server-side filter sent in each join payload; default every type (no filter). */
  readonly eventTypes?: readonly StreamEventType[];
  /** Typed API client: backfill and polling through `GET /api/v2/events*` (the `read` group). */
  readonly api: StreamApi;
  readonly logger?: StreamLogger;
  /** Monotonic `now()` for intervals and ages, `wallNow()` for `receivedAt` and watermarks. */
  readonly clock?: Clock;
  readonly timers?: Timers;
  /** Random source in [0, 1) for backoff jitter. Default Math.random. */
  readonly random?: () => number;
  /** Default: a `ws` WebSocket. */
  readonly createSocket?: SocketFactory;
  /** Heartbeat period; a heartbeat unanswered by the next tick closes the socket. Default 30 000. */
  readonly heartbeatIntervalMs?: number;
  /** Socket open timeout. Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Join reply timeout (then the channel is rejoined). Default 10 000. */
  readonly joinTimeoutMs?: number;
  /** Reconnect and rejoin backoff. */
  readonly backoff?: BackoffOptions;
  /** Consecutive failed connects before polling starts. Default 3. */
  readonly pollAfterFailures?: number;
  /** Poll period per channel while the stream is unreachable. Default 30 000. */
  readonly pollIntervalMs?: number;
  /** A channel whose newest information is older than this is stale. Default 1.5 × heartbeat. */
  readonly staleAfterMs?: number;
  /** How often staleness is checked. Default staleAfterMs / 6 (at least 10 ms). */
  readonly freshnessCheckMs?: number;
  /** A backfill starts this far before the newest event seen (late or reordered events). Default 30 000. */
  readonly backfillOverlapMs?: number;
  /** How long delivered ids are remembered behind the newest event. Default 600 000. */
  readonly dedupWindowMs?: number;
  /** Most ids remembered per channel. Default 20 000. */
  readonly maxRememberedIds?: number;
  /** Page size of backfill requests (≤ 200). Default 200. */
  readonly backfillPageLimit?: number;
  /** Most pages of one backfill. Default 100. */
  readonly maxBackfillPages?: number;
  /** Watermarks from a previous run (see `getWatermarks()`); a channel with one backfills once joined. */
  readonly initialWatermarks?: Readonly<Record<string, Watermark>>;
}

export type StreamState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'polling' | 'stopped';

export interface ChannelStatus {
  /** Collection slug, or `*`. */
  readonly key: string;
  readonly topic: string;
  readonly joined: boolean;
  /** Milliseconds since the newest information about this channel (event, heartbeat reply while joined, backfill, poll). */
  readonly ageMs: number;
  readonly stale: boolean;
  readonly backfilling: boolean;
  /** Newest event time seen (epoch ms, the marketplace's clock). */
  readonly newestEventMs: number;
}

export interface StreamCounters {
  /** Text frames received. */
  readonly frames: number;
  /** Events delivered to subscribers (stream + backfill + poll). */
  readonly events: number;
  /** Events dropped as already delivered. */
  readonly duplicates: number;
  /** Events older than the dedup memory (delivered, cannot be checked). */
  readonly late: number;
  /** Malformed frames or records, per kind. */
  readonly malformed: Readonly<Partial<Record<MalformedKind, number>>>;
  readonly malformedTotal: number;
  /** Socket (re)connects after the first. */
  readonly reconnects: number;
  readonly heartbeatTimeouts: number;
  /** Backfills completed, and the new events they delivered. */
  readonly backfills: number;
  readonly backfilled: number;
  readonly backfillErrors: number;
  /** Polls completed while the stream was unreachable, and the new events they delivered. */
  readonly polls: number;
  readonly polled: number;
  /** Subscriber exceptions (caught). */
  readonly handlerErrors: number;
}

export interface StreamStatus {
  readonly state: StreamState;
  /** True while the stream is unreachable and the events endpoint is polled instead. */
  readonly polling: boolean;
  /** Failed connects in a row. */
  readonly consecutiveFailures: number;
  readonly channels: readonly ChannelStatus[];
  /** True when any channel is stale. */
  readonly stale: boolean;
  readonly counters: StreamCounters;
}

export interface FreshnessChange {
  /** Collection slug, or `*`. */
  readonly key: string;
  readonly stale: boolean;
  readonly ageMs: number;
}

/** A gap (reconnect, stall, rejoin, restart) that a backfill has closed. */
export interface GapInfo {
  /** Collection slug, or `*`. */
  readonly key: string;
  /** The backfill asked for events from this epoch second on. */
  readonly fromSec: number;
  /** New events the backfill delivered. */
  readonly delivered: number;
  /**
   * True when the followed event types include some the events endpoint does not serve (cancels,
   * metadata updates, order invalidation/revalidation): those of the gap may be missing, so a
   * consumer that keeps orders should re-check them (e.g. the market view's REST refresh).
   */
  readonly streamOnlyMayBeMissing: boolean;
}

export type EventHandler = (event: MarketEvent) => void;
export type GapHandler = (gap: GapInfo) => void;
export type FreshnessHandler = (change: FreshnessChange) => void;

export interface StreamClient {
  /** Connects (idempotent). */
  start(): void;
  /** Closes the socket and stops every timer and poll. */
  stop(): Promise<void>;
  /** Every delivered event, once, in arrival order. Returns an unsubscribe function. */
  subscribe(handler: EventHandler): () => void;
  /** Stale / fresh transitions per channel. Returns an unsubscribe function. */
  onFreshness(handler: FreshnessHandler): () => void;
  /** Called after each backfill that closed a gap. Returns an unsubscribe function. */
  onGap(handler: GapHandler): () => void;
  status(): StreamStatus;
  /** Freshness of one collection (its own channel, else `*`); undefined when not followed. */
  freshness(collection: string): { readonly ageMs: number; readonly stale: boolean } | undefined;
  /** Watermarks to persist, per channel key (slug or `*`). */
  getWatermarks(): Record<string, Watermark>;
}

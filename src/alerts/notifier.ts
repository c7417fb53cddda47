// One notifier, many sinks. notify() queues and returns at once: it never throws and never waits
// for the network, so trading never waits for an alert. Per sink: a queue (the lowest severity,
// oldest first, gives way when it is full), a per-minute limit, retries with exponential backoff
// and jitter on network errors, timeouts, 5xx and 429 (Retry-After or the service's JSON
// `retry_after` honoured). A failing sink is counted and logged; the others do not wait for it.
import { type Logger, silentLogger } from '../observability/logger.ts';
import { type Clock, systemClock, systemTimers, type Timers, unrefTimer } from '../ratelimit/clock.ts';
import { parseRetryAfter } from '../ratelimit/headers.ts';
import { clip } from './format.ts';
import { ALERT_KINDS, type AlertEvent, type AlertKind, type AlertSink, severityRank } from './types.ts';

/** The part of a fetch Response the notifier reads. */
export interface AlertFetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** `fetch` as the notifier calls it (the global one fits). */
export type AlertFetch = (
  url: string,
  init: {
    readonly method: 'POST';
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
    readonly signal: AbortSignal;
  },
) => Promise<AlertFetchResponse>;

export interface RetryOptions {
  /** Tries per alert and sink, the first included; default 5. */
  readonly attempts?: number;
  /** Backoff before try n+1 is min(maxMs, baseMs·2ⁿ⁻¹), half of it random (jitter); default 1000. */
  readonly baseMs?: number;
  /** Default 60 000. */
  readonly maxMs?: number;
}

export interface NotifierOptions {
  readonly sinks: readonly AlertSink[];
  /** `now()` monotonic ms for windows and waits, `wallNow()` for Retry-After dates; default the system's. */
  readonly clock?: Clock & Timers;
  /** Default the global fetch. */
  readonly fetch?: AlertFetch;
  readonly logger?: Logger;
  /** Jitter source in [0, 1); default Math.random. */
  readonly random?: () => number;
  /** The kinds that are sent; the others are counted as filtered. Default all. */
  readonly events?: readonly AlertKind[];
  /** Requests per sink per minute at most; default 20. */
  readonly maxPerMinute?: number;
  /** An alert whose key was notified less than this long ago is not sent again (ms); default 600 000, 0 = no dedup. */
  readonly dedupWindowMs?: number;
  readonly retry?: RetryOptions;
  /** Alerts waiting per sink at most; default 100. */
  readonly queueMax?: number;
  /** Per request (ms); default 10 000. */
  readonly timeoutMs?: number;
}

export interface SinkStatus {
  readonly sent: number;
  readonly failed: number;
  readonly dropped: number;
  readonly rateLimited: number;
  readonly retries: number;
  readonly queued: number;
  /** The last failure, without any secret: `HTTP 500`, `network error: …`, `no answer within 10000 ms`. */
  readonly lastError: string | null;
  /** Epoch ms of lastError. */
  readonly lastErrorAt: number | null;
  readonly lastSentAt: number | null;
}

export interface NotifierStatus {
  /** Deliveries (one alert to one sink). */
  readonly sent: number;
  /** Deliveries given up: an error that is not worth retrying, or every try failed. */
  readonly failed: number;
  /** Deliveries dropped: a full queue, or still waiting when the notifier closed. */
  readonly dropped: number;
  /** Alerts not sent because one with the same key was, within the dedup window. */
  readonly deduped: number;
  /** Times a sink held alerts back: its per-minute limit, or the service's 429. */
  readonly rateLimited: number;
  /** Alerts of a kind the configuration does not send. */
  readonly filtered: number;
  readonly queued: number;
  readonly bySink: Readonly<Record<string, SinkStatus>>;
}

export interface Notifier {
  /** Queues `e` for every sink and returns at once; never throws. */
  notify(e: AlertEvent): void;
  status(): NotifierStatus;
  /** Stops taking alerts, delivers what is queued for up to `timeoutMs`, then drops the rest. */
  close(timeoutMs: number): Promise<void>;
}

export const NOTIFIER_DEFAULTS = Object.freeze({
  maxPerMinute: 20,
  dedupWindowMs: 600_000,
  attempts: 5,
  baseMs: 1_000,
  maxMs: 60_000,
  queueMax: 100,
  timeoutMs: 10_000,
});

/** The shortest wait after a 429, even with `Retry-After: 0`. */
const MIN_429_WAIT_MS = 250;
/** A service asking for a longer wait than this: the alert is given up (the sink still waits). */
const MAX_RETRY_AFTER_MS = 15 * 60_000;
const MINUTE = 60_000;

interface Queued {
  readonly e: AlertEvent;
  readonly seq: number;
  readonly rank: number;
}

interface Counters {
  sent: number;
  failed: number;
  dropped: number;
  rateLimited: number;
  retries: number;
  lastError: string | null;
  lastErrorAt: number | null;
  lastSentAt: number | null;
}

interface Lane {
  readonly sink: AlertSink;
  readonly queue: Queued[];
  running: boolean;
  /** Monotonic times of this sink's requests within the last minute. */
  sends: number[];
  /** A 429 (or 503 with Retry-After) pauses the whole sink until then (monotonic ms). */
  pausedUntil: number;
  readonly c: Counters;
}

type Outcome =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly retryable: boolean;
      readonly error: string;
      readonly retryAfterMs?: number;
      readonly aborted?: boolean;
    };

function positive(v: number | undefined, fallback: number): number {
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : fallback;
}

/** A short description of a failed response: Telegram's `description`, Discord's `message`, else the body. */
function describeFailure(status: number, body: unknown, text: string): string {
  const o = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const said =
    typeof o.description === 'string' ? o.description : typeof o.message === 'string' ? o.message : text;
  const detail = clip(said.replace(/\s+/g, ' ').trim(), 200);
  return `HTTP ${status}${detail ? `: ${detail}` : ''}`;
}

function networkText(err: unknown): string {
  const e = err as { message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const cause = e?.cause;
  const why =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : typeof e?.message === 'string'
          ? e.message
          : String(err);
  return `network error: ${clip(why, 200)}`;
}

export function createNotifier(options: NotifierOptions): Notifier {
  const clock = options.clock ?? { ...systemClock, ...systemTimers };
  const doFetch: AlertFetch = options.fetch ?? ((url, init) => fetch(url, init));
  const log = options.logger ?? silentLogger();
  const random = options.random ?? Math.random;
  const events = new Set<AlertKind>(options.events ?? ALERT_KINDS);
  const maxPerMinute = Math.floor(positive(options.maxPerMinute, NOTIFIER_DEFAULTS.maxPerMinute));
  const dedupWindowMs =
    options.dedupWindowMs === 0 ? 0 : positive(options.dedupWindowMs, NOTIFIER_DEFAULTS.dedupWindowMs);
  const attempts = Math.floor(positive(options.retry?.attempts, NOTIFIER_DEFAULTS.attempts));
  const baseMs = positive(options.retry?.baseMs, NOTIFIER_DEFAULTS.baseMs);
  const maxMs = positive(options.retry?.maxMs, NOTIFIER_DEFAULTS.maxMs);
  const queueMax = Math.floor(positive(options.queueMax, NOTIFIER_DEFAULTS.queueMax));
  const timeoutMs = positive(options.timeoutMs, NOTIFIER_DEFAULTS.timeoutMs);

  const lanes: Lane[] = [];
  for (const sink of options.sinks) {
    if (lanes.some((l) => l.sink.name === sink.name))
      throw new TypeError(`two alert sinks are named ${sink.name}: give each its own name`);
    lanes.push({
      sink,
      queue: [],
      running: false,
      sends: [],
      pausedUntil: 0,
      c: {
        sent: 0,
        failed: 0,
        dropped: 0,
        rateLimited: 0,
        retries: 0,
        lastError: null,
        lastErrorAt: null,
        lastSentAt: null,
      },
    });
  }

  /** Every sink's secrets out of a text (one sink's service may echo what it should not know). */
  const scrub = (text: string): string => lanes.reduce((t, l) => l.sink.scrub(t), text);
  /** Key -> monotonic time it was let through, oldest first; only keys within the window. */
  const seen = new Map<string, number>();
  let deduped = 0;
  let filtered = 0;
  let seq = 0;
  let closed = false;
  let aborted = false;
  const abort = new AbortController();
  const sleepers = new Set<{ handle: unknown; resolve: () => void }>();
  let idleWaiters: (() => void)[] = [];

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (aborted) return resolve();
      const entry = { handle: undefined as unknown, resolve };
      entry.handle = clock.setTimeout(() => {
        sleepers.delete(entry);
        resolve();
      }, ms);
      unrefTimer(entry.handle);
      sleepers.add(entry);
    });
  }

  function wakeAll(): void {
    for (const s of sleepers) {
      clock.clearTimeout(s.handle);
      s.resolve();
    }
    sleepers.clear();
  }

  function idle(): Promise<void> {
    if (lanes.every((l) => !l.running)) return Promise.resolve();
    return new Promise((resolve) => idleWaiters.push(resolve));
  }

  function enqueue(lane: Lane, e: AlertEvent): void {
    const item: Queued = { e, seq: seq++, rank: severityRank(e.severity) };
    if (lane.queue.length >= queueMax) {
      // The lowest severity gives way first, the oldest of it first; an alert never displaces a more severe one.
      let victim = 0;
      lane.queue.forEach((q, i) => {
        const v = lane.queue[victim] as Queued;
        if (q.rank < v.rank || (q.rank === v.rank && q.seq < v.seq)) victim = i;
      });
      const v = lane.queue[victim] as Queued;
      lane.c.dropped++;
      if (item.rank < v.rank) {
        log.warn({ sink: lane.sink.name, kind: e.kind, key: e.key }, 'alert queue full: alert dropped');
        return;
      }
      lane.queue.splice(victim, 1);
      log.warn(
        { sink: lane.sink.name, kind: v.e.kind, key: v.e.key },
        'alert queue full: older alert dropped',
      );
    }
    lane.queue.push(item);
    if (!lane.running) {
      lane.running = true;
      void run(lane);
    }
  }

  /** The next alert: the most severe, the oldest of it. */
  function take(lane: Lane): Queued {
    let best = 0;
    lane.queue.forEach((q, i) => {
      const b = lane.queue[best] as Queued;
      if (q.rank > b.rank || (q.rank === b.rank && q.seq < b.seq)) best = i;
    });
    return lane.queue.splice(best, 1)[0] as Queued;
  }

  /** How long the sink must wait before its next request (its 429 pause, its per-minute limit). */
  function gate(lane: Lane): { waitMs: number; why: 'pause' | 'limit' | null } {
    const now = clock.now();
    lane.sends = lane.sends.filter((t) => t > now - MINUTE);
    if (lane.pausedUntil > now) return { waitMs: lane.pausedUntil - now, why: 'pause' };
    if (lane.sends.length >= maxPerMinute) {
      const oldest = lane.sends[lane.sends.length - maxPerMinute] as number;
      return { waitMs: oldest + MINUTE - now, why: 'limit' };
    }
    return { waitMs: 0, why: null };
  }

  async function run(lane: Lane): Promise<void> {
    try {
      while (lane.queue.length > 0 && !aborted) {
        const g = gate(lane);
        if (g.waitMs > 0) {
          if (g.why === 'limit') lane.c.rateLimited++;
          await sleep(g.waitMs);
          continue;
        }
        await deliver(lane, take(lane).e);
      }
    } catch (err) {
      log.error({ sink: lane.sink.name, error: scrub(String(err)) }, 'alert sink worker failed');
    } finally {
      lane.running = false;
      if (lanes.every((l) => !l.running)) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  async function deliver(lane: Lane, e: AlertEvent): Promise<void> {
    const name = lane.sink.name;
    for (let attempt = 1; ; attempt++) {
      lane.sends.push(clock.now());
      const r = await attempt1(lane, e);
      if (r.ok) {
        lane.c.sent++;
        lane.c.lastSentAt = clock.wallNow();
        log.debug({ sink: name, kind: e.kind, key: e.key, attempt }, 'alert sent');
        return;
      }
      if (r.aborted) {
        lane.c.dropped++;
        return;
      }
      lane.c.lastError = r.error;
      lane.c.lastErrorAt = clock.wallNow();
      let waitMs = r.retryAfterMs;
      if (waitMs !== undefined) {
        waitMs = Math.max(MIN_429_WAIT_MS, waitMs);
        lane.pausedUntil = clock.now() + waitMs;
        lane.c.rateLimited++;
      }
      const giveUp =
        !r.retryable ||
        attempt >= attempts ||
        aborted ||
        (waitMs !== undefined && waitMs > MAX_RETRY_AFTER_MS);
      if (giveUp) {
        lane.c.failed++;
        log.warn(
          { sink: name, kind: e.kind, key: e.key, attempts: attempt, error: r.error },
          'alert not delivered',
        );
        return;
      }
      lane.c.retries++;
      const n = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
      const delay = waitMs ?? n / 2 + (random() * n) / 2;
      log.debug(
        { sink: name, kind: e.kind, attempt, error: r.error, retryInMs: Math.round(delay) },
        'alert retry',
      );
      await sleep(delay);
      if (aborted) {
        lane.c.dropped++;
        return;
      }
      for (let g = gate(lane); g.waitMs > 0 && !aborted; g = gate(lane)) await sleep(g.waitMs);
    }
  }

  /** One request; every text in the outcome is scrubbed of the sinks' secrets. */
  async function attempt1(lane: Lane, e: AlertEvent): Promise<Outcome> {
    const sink = lane.sink;
    let req: ReturnType<AlertSink['request']>;
    try {
      req = sink.request(e);
    } catch (err) {
      return { ok: false, retryable: false, error: scrub(`cannot build the request: ${String(err)}`) };
    }
    const ac = new AbortController();
    let timedOut = false;
    const timer = clock.setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, timeoutMs);
    unrefTimer(timer);
    const onClose = () => ac.abort();
    abort.signal.addEventListener('abort', onClose);
    try {
      const res = await doFetch(req.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: ac.signal,
      });
      const text = await res.text();
      if (res.status >= 200 && res.status < 300) return { ok: true };
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
      const retryAfterMs = retryable
        ? (parseRetryAfter(res.headers.get('retry-after') ?? undefined, clock.wallNow()) ??
          sink.retryAfterMs?.(body))
        : undefined;
      return {
        ok: false,
        retryable,
        error: scrub(describeFailure(res.status, body, text)),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    } catch (err) {
      if (timedOut) return { ok: false, retryable: true, error: `no answer within ${timeoutMs} ms` };
      if (aborted) return { ok: false, retryable: false, error: 'closed', aborted: true };
      return { ok: false, retryable: true, error: scrub(networkText(err)) };
    } finally {
      clock.clearTimeout(timer);
      abort.signal.removeEventListener('abort', onClose);
    }
  }

  function dedup(e: AlertEvent): boolean {
    const now = clock.now();
    // oldest first (a key let through again moves to the end): forget what left the window
    for (const [k, t] of seen) {
      if (now - t < dedupWindowMs) break;
      seen.delete(k);
    }
    if (seen.has(e.key)) return true;
    seen.set(e.key, now);
    return false;
  }

  return {
    notify(e) {
      try {
        if (closed) {
          for (const lane of lanes) lane.c.dropped++;
          return;
        }
        if (!events.has(e.kind)) {
          filtered++;
          return;
        }
        if (dedup(e)) {
          deduped++;
          return;
        }
        for (const lane of lanes) enqueue(lane, e);
      } catch (err) {
        log.error({ error: scrub(String(err)) }, 'alert could not be queued');
      }
    },

    status() {
      const bySink: Record<string, SinkStatus> = {};
      const total = { sent: 0, failed: 0, dropped: 0, rateLimited: 0, queued: 0 };
      for (const l of lanes) {
        const s: SinkStatus = { ...l.c, queued: l.queue.length };
        bySink[l.sink.name] = s;
        total.sent += s.sent;
        total.failed += s.failed;
        total.dropped += s.dropped;
        total.rateLimited += s.rateLimited;
        total.queued += s.queued;
      }
      return { ...total, deduped, filtered, bySink };
    },

    async close(closeTimeoutMs) {
      closed = true;
      if (lanes.some((l) => l.running)) {
        let timer: unknown;
        await Promise.race([
          idle(),
          new Promise<void>((resolve) => {
            timer = clock.setTimeout(resolve, Math.max(0, closeTimeoutMs));
            unrefTimer(timer);
          }),
        ]);
        clock.clearTimeout(timer);
      }
      aborted = true;
      abort.abort();
      wakeAll();
      for (const lane of lanes) {
        lane.c.dropped += lane.queue.length;
        lane.queue.length = 0;
      }
      await idle();
    },
  };
}

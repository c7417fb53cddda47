import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyRateLimit, groupOfRequest } from './http.ts';
import { type BucketLimit, type LimiterClock, type LimitGroup, TokenBucketLimiter } from './token-bucket.ts';

/**
 * A small HTTP server that does nothing but authenticate and rate-limit like the marketplace:
 * the opponent of the daemon's scheduler in tests and benchmarks. It answers every metered
 * request with `{ok:true}` and records each one with its outcome and time.
 */

export interface RateLimitServerOptions {
  /** Bucket sizes the server really enforces. */
  readonly limits: Readonly<Record<LimitGroup, BucketLimit>>;
  /**
   * `rate_limits` strings the key response advertises (may differ from `limits`, to play a
   * server that advertises more than it enforces). Default: `limits` written as `<count>/<unit>`.
   */
  readonly advertised?: Readonly<Record<LimitGroup, string>>;
  readonly clock?: LimiterClock;
  /** Account of a key created through `POST /api/v2/auth/keys`; default one account per client IP. */
  readonly accountFor?: (req: IncomingMessage) => string;
  /** Keys valid from the start: API key → account. */
  readonly keys?: Readonly<Record<string, string>>;
  /** Instant-key creations per client IP; default 3 per hour (the documented limit). */
  readonly keyCreationLimit?: BucketLimit;
  /** Lifetime of created keys; default 7 days. */
  readonly keyLifetimeMs?: number;
  readonly host?: string;
  readonly port?: number;
}

export type RequestOutcome = 'served' | 'throttled';

export interface RequestRecord {
  /** Server monotonic ms (the limiter clock's `now()`) when the request was metered. */
  readonly t: number;
  readonly account: string;
  readonly group: LimitGroup;
  readonly outcome: RequestOutcome;
}

export interface GroupCounts {
  readonly served: number;
  readonly throttled: number;
}

export interface RateLimitServer {
  readonly limiter: TokenBucketLimiter<LimitGroup>;
  /** Base URL, e.g. `http://127.0.0.1:41234` (after `listen`). */
  readonly url: string;
  listen(): Promise<string>;
  close(): Promise<void>;
  /** Every metered request, in order. */
  records(): readonly RequestRecord[];
  clearRecords(): void;
  counts(filter?: {
    readonly account?: string;
    readonly from?: number;
    readonly to?: number;
  }): Readonly<Record<LimitGroup, GroupCounts>>;
  /** Requests a full bucket of `group` allows over [from, to] (server ms): capacity + refill × duration. */
  allowance(group: LimitGroup, from: number, to: number): number;
  /** Registers a key for an account without HTTP. */
  addKey(apiKey: string, account: string): void;
  /** Requests refused for a missing or unknown key. */
  readonly unauthorized: number;
}

const UNITS: readonly [string, number][] = [
  ['s', 1_000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
];

export function formatLimit(limit: BucketLimit): string {
  for (const [unit, ms] of UNITS) if (limit.windowMs === ms) return `${limit.capacity}/${unit}`;
  throw new RangeError(
    `window ${limit.windowMs} ms cannot be written as <count>/<unit>; pass 'advertised' explicitly`,
  );
}

const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;
const OK_BODY = Buffer.from('{"ok":true}');
const UNAUTHORIZED_BODY = Buffer.from(JSON.stringify({ errors: ['Invalid API key'] }));
const NOT_FOUND_BODY = Buffer.from(JSON.stringify({ errors: ['Not found'] }));

function send(res: ServerResponse, status: number, body: Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...JSON_HEADERS, 'Content-Length': String(body.length), ...headers });
  res.end(body);
}

function clientIp(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

export function createRateLimitServer(options: RateLimitServerOptions): RateLimitServer {
  const clock: LimiterClock = options.clock ?? { now: () => performance.now(), wallNow: () => Date.now() };
  const limiter = new TokenBucketLimiter<LimitGroup>({ limits: options.limits, clock });
  const advertised = options.advertised ?? {
    read: formatLimit(options.limits.read),
    write: formatLimit(options.limits.write),
    fulfillment: formatLimit(options.limits.fulfillment),
  };
  const keyLimiter = new TokenBucketLimiter<'keys'>({
    limits: { keys: options.keyCreationLimit ?? { capacity: 3, windowMs: 3_600_000 } },
    clock,
  });
  const lifetimeMs = options.keyLifetimeMs ?? 7 * 86_400_000;
  const accountFor = options.accountFor ?? ((req: IncomingMessage) => `ip:${clientIp(req)}`);
  const keys = new Map<string, { account: string; expiresAt: number }>();
  for (const [k, account] of Object.entries(options.keys ?? {})) {
    keys.set(k, { account, expiresAt: Number.POSITIVE_INFINITY });
  }
  let recs: RequestRecord[] = [];
  let unauthorized = 0;
  let url = '';

  function createKey(req: IncomingMessage, res: ServerResponse): void {
    const d = keyLimiter.take(`ip:${clientIp(req)}`, 'keys');
    if (!d.allowed) {
      const secs = d.retryAfterSeconds ?? 1;
      send(
        res,
        429,
        Buffer.from(
          JSON.stringify({ errors: [`Request was throttled. Expected available in ${secs} seconds.`] }),
        ),
        { 'Retry-After': String(secs) },
      );
      return;
    }
    const apiKey = randomBytes(24).toString('hex');
    const expiresAt = clock.wallNow() + lifetimeMs;
    keys.set(apiKey, { account: accountFor(req), expiresAt });
    const body = {
      api_key: apiKey,
      name: `agent_free_${randomBytes(4).toString('hex')}`,
      expires_at: new Date(expiresAt).toISOString(),
      rate_limits: { read: advertised.read, write: advertised.write, fulfillment: advertised.fulfillment },
      upgrade_url: 'https://opensea.io/settings/developer',
    };
    send(res, 201, Buffer.from(JSON.stringify(body)));
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    // Bodies are never read; drain them so keep-alive connections stay usable.
    req.resume();
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (req.method === 'POST' && path === '/api/v2/auth/keys') {
      createKey(req, res);
      return;
    }
    if (!path.startsWith('/api/')) {
      send(res, 404, NOT_FOUND_BODY);
      return;
    }
    const rawKey = req.headers['x-api-key'];
    const apiKey = Array.isArray(rawKey) ? rawKey[0] : rawKey;
    const key = apiKey === undefined ? undefined : keys.get(apiKey);
    if (!key || key.expiresAt <= clock.wallNow()) {
      unauthorized++;
      send(res, 401, UNAUTHORIZED_BODY);
      return;
    }
    const group = groupOfRequest(req.method, path);
    const d = applyRateLimit(req, res, { limiter, account: key.account, group });
    recs.push({ t: clock.now(), account: key.account, group, outcome: d.allowed ? 'served' : 'throttled' });
    if (d.allowed) send(res, 200, OK_BODY);
  }

  const server: Server = createServer({ keepAliveTimeout: 65_000 }, handle);

  return {
    limiter,
    get url() {
      return url;
    },
    get unauthorized() {
      return unauthorized;
    },
    listen() {
      return new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
          server.off('error', reject);
          const addr = server.address() as AddressInfo;
          url = `http://${addr.address}:${addr.port}`;
          resolve(url);
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    records: () => recs,
    clearRecords() {
      recs = [];
    },
    counts(filter = {}) {
      const out: Record<LimitGroup, { served: number; throttled: number }> = {
        read: { served: 0, throttled: 0 },
        write: { served: 0, throttled: 0 },
        fulfillment: { served: 0, throttled: 0 },
      };
      for (const r of recs) {
        if (filter.account !== undefined && r.account !== filter.account) continue;
        if (filter.from !== undefined && r.t < filter.from) continue;
        if (filter.to !== undefined && r.t > filter.to) continue;
        out[r.group][r.outcome]++;
      }
      return out;
    },
    allowance(group, from, to) {
      const l = limiter.limitOf(group);
      return l.capacity + (Math.max(0, to - from) * l.capacity) / l.windowMs;
    },
    addKey(apiKey, account) {
      keys.set(apiKey, { account, expiresAt: Number.POSITIVE_INFINITY });
    },
  };
}

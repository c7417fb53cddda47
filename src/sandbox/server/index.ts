import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chainIdOf, isChainName } from '../../domain/chains.ts';
import { type AuthOptions, AuthService, type WalletIdentity } from '../auth/service.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import { SandboxClock } from '../clock.ts';
import type { OffchainCollection } from '../data/offchain.ts';
import { MarketData } from '../data/service.ts';
import { HttpError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { Market } from '../market/types.ts';
import { createSandboxMcpHandler, MCP_PATH } from '../mcp/index.ts';
import { groupOfRequest, rateLimitHeaders } from '../ratelimit/http.ts';
import {
  type BucketLimit,
  type LimiterClock,
  type LimitGroup,
  TokenBucketLimiter,
} from '../ratelimit/token-bucket.ts';
import { Faults, HeldRequests } from './faults.ts';
import {
  DEFAULT_BODY_LIMIT,
  isLoopback,
  pathOf,
  queryOf,
  readJsonBody,
  sendError,
  sendJson,
  sendText,
  toJson,
} from './http.ts';
import {
  advertisedOf,
  FREE_TIER,
  type KeyCreationLimit,
  KeyCreationThrottled,
  KeyStore,
  type PreconfiguredKey,
  type Principal,
} from './keys.ts';
import type { TxInfo } from './render-events.ts';
import { Router } from './router.ts';
import { accountRoutes } from './routes/accounts.ts';
import { adminRoutes, collectStats, RequestCounters, type SandboxStats } from './routes/admin.ts';
import { authRoutes } from './routes/auth.ts';
import { clockRoutes } from './routes/clock.ts';
import { collectionListRoutes } from './routes/collection-lists.ts';
import { dropRoutes } from './routes/drops.ts';
import { eventRoutes } from './routes/events.ts';
import { externalListingRoutes } from './routes/external-listings.ts';
import { marketDataRoutes } from './routes/market-data.ts';
import { metadataRoutes } from './routes/metadata.ts';
import { orderRoutes } from './routes/orders.ts';
import { searchRoutes } from './routes/search.ts';
import { swapRoutes } from './routes/swap.ts';
import { tokenRoutes } from './routes/tokens.ts';
import type {
  ApiAnswer,
  ApiCall,
  ApiInvocation,
  CancelWindowFiller,
  LegacyOrderRenderer,
  Reply,
  RequestContext,
  Route,
  ServerState,
  StreamControl,
  TraderControl,
} from './types.ts';

export type { InstantKeyBody, KeyRecord, PreconfiguredKey, Principal } from './keys.ts';
export { FREE_TIER } from './keys.ts';
export type { SandboxStats } from './routes/admin.ts';
export type {
  CancelWindowFiller,
  LegacyOrderRenderer,
  PreparedWindowFill,
  StreamControl,
  StreamFaultTarget,
  TraderControl,
  TraderCounts,
  TraderSettings,
} from './types.ts';

/**
 * The sandbox's HTTP server: the marketplace REST API (keys, rate limits, orders, events, legacy
 * events), token metadata and the `/_sandbox/` admin surface, on node:http.
 *
 * `build()` creates the `http.Server` without binding it (the stream server attaches to it);
 * `listen()` binds. Collaborators that need the server's URL first (the chain fixture points
 * token URIs at `/metadata`, the market needs the chain) are attached later with `attach()`;
 * until a market is attached the order routes answer 503.
 *
 * Request pipeline of `/api`: latency fault → (key creation: per-IP limit) → API key (401) →
 * injected 429 → token bucket of the key's account and the request's group (429 + Retry-After;
 * X-RateLimit-* on every authenticated answer) → injected 500 → route (404/405) → handler.
 * `/mcp` is the agent-protocol server (src/sandbox/mcp): its tools run `/api` routes through the
 * same pipeline in-process (`invoke`), so they share the keys, the buckets and the faults.
 */

export interface SandboxServerOptions {
  readonly events: EventLog;
  readonly catalog?: Catalog;
  readonly market?: Market;
  /** Renders the deprecated `order` field of create responses; default a minimal legacy order. */
  readonly legacyOrderOf?: LegacyOrderRenderer;
  readonly stream?: StreamControl;
  /** Chain name the sandbox serves (`ethereum`). */
  readonly chain?: string;
  /** Seed of the fault dice. Default 1. */
  readonly seed?: number;
  /** Bucket sizes enforced per account and group; default the free tier (600/h, 30/h, 5/m). */
  readonly limits?: Readonly<Record<LimitGroup, BucketLimit>>;
  /** `rate_limits` strings of key responses; default `limits` as `<count>/<unit>`. */
  readonly advertised?: Readonly<Record<LimitGroup, string>>;
  /** Keys valid from the start (the sandbox prints one). */
  readonly keys?: readonly PreconfiguredKey[];
  /** Lifetime of instant keys; default 7 days. */
  readonly keyLifetimeMs?: number;
  /** Instant keys per source IP; default 3 per hour. */
  readonly keyCreationLimit?: KeyCreationLimit;
  /** Start with instant-key creation disabled (503). */
  readonly keysDisabled?: boolean;
  /** Base of the sandbox clock (`/_sandbox/clock` moves it forward); default real time. */
  readonly clock?: LimiterClock;
  /** Wallet credentials: lifetimes, SIWE domains and chain ids, a JWT required on cancellation. */
  readonly auth?: AuthOptions;
  /** Request body cap in bytes; default 1 MiB. */
  readonly bodyLimit?: number;
  /** Default 127.0.0.1 (the admin surface must not be reachable from elsewhere). */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Base URL in links the server hands out (metadata); default the URL it listens on. */
  readonly publicUrl?: string;
  /** On-chain facts of a transaction (legacy event records); the sandbox reads them from anvil. */
  readonly txInfo?: (hash: string) => Promise<TxInfo | undefined>;
  /** Epoch ms the collections count as created; default now. */
  readonly createdAtMs?: number;
}

export interface AttachParts {
  readonly catalog?: Catalog;
  readonly market?: Market;
  readonly legacyOrderOf?: LegacyOrderRenderer;
  readonly stream?: StreamControl;
  readonly txInfo?: (hash: string) => Promise<TxInfo | undefined>;
  readonly fixture?: ChainFixture;
  readonly offchain?: OffchainCollection;
  readonly windowFiller?: CancelWindowFiller;
  readonly traders?: TraderControl;
}

export interface SandboxServer {
  /** The node:http server, created on first call, not listening until `listen`. */
  build(): Server;
  /** Binds and resolves with the base URL (`http://127.0.0.1:41234`). */
  listen(options?: { readonly port?: number; readonly host?: string }): Promise<string>;
  close(): Promise<void>;
  /** Base URL once listening, else ''. */
  readonly url: string;
  /** The principal of a valid API key (for the stream server's `token`), else undefined. */
  authenticate(token: string | undefined): Principal | undefined;
  attach(parts: AttachParts): void;
  readonly keys: KeyStore;
  readonly auth: AuthService;
  readonly clock: SandboxClock;
  readonly limiter: TokenBucketLimiter<LimitGroup>;
  readonly faults: Faults;
  stats(): SandboxStats;
  /** The request listener (for tests or embedding). */
  handle(req: IncomingMessage, res: ServerResponse): void;
}

const realClock: LimiterClock = { now: () => performance.now(), wallNow: () => Date.now() };

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function createSandboxServer(options: SandboxServerOptions): SandboxServer {
  const clock = new SandboxClock(options.clock ?? realClock);
  const limits = options.limits ?? FREE_TIER;
  const limiter = new TokenBucketLimiter<LimitGroup>({ limits, clock });
  const keys = new KeyStore({
    clock,
    advertised: options.advertised ?? advertisedOf(limits),
    ...(options.keyLifetimeMs !== undefined ? { keyLifetimeMs: options.keyLifetimeMs } : {}),
    ...(options.keyCreationLimit !== undefined ? { creationLimit: options.keyCreationLimit } : {}),
    ...(options.keys !== undefined ? { keys: options.keys } : {}),
  });
  keys.disabled = options.keysDisabled ?? false;
  const faults = new Faults(options.seed ?? 1);
  const chain = options.chain ?? 'ethereum';
  const auth = new AuthService(clock, {
    ...options.auth,
    ...(isChainName(chain) && chainIdOf(chain) !== undefined ? { chainId: chainIdOf(chain) as number } : {}),
  });
  const state: ServerState = {
    chain,
    events: options.events,
    keys,
    auth,
    clock,
    faults,
    held: new HeldRequests(),
    createdAtMs: options.createdAtMs ?? Date.now(),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    catalog: options.catalog,
    market: options.market,
    legacyOrderOf: options.legacyOrderOf,
    stream: options.stream,
    txInfo: options.txInfo,
    fixture: undefined,
    offchain: undefined,
    windowFiller: undefined,
    traders: undefined,
    publicUrl: options.publicUrl?.replace(/\/$/, '') ?? '',
  };
  const counters = new RequestCounters();
  const startedAt = Date.now();

  const router = new Router<Route>();
  const data = new MarketData(state);
  const routes: Route[] = [
    {
      method: 'POST',
      pattern: '/api/v2/auth/keys',
      access: 'public',
      handler: ({ req }) => {
        const ip = req.socket.remoteAddress ?? 'unknown';
        try {
          return { status: 201, json: keys.createInstant(ip, faults.settings.keysDisabled) };
        } catch (e) {
          if (e instanceof KeyCreationThrottled) {
            return { status: 429, json: e.toBody(), headers: { 'Retry-After': String(e.retryAfterSeconds) } };
          }
          throw e;
        }
      },
    },
    ...eventRoutes(state),
    ...orderRoutes(state),
    ...metadataRoutes(state),
    ...marketDataRoutes(state, data),
    ...swapRoutes(state, data),
    ...tokenRoutes(state, data),
    ...searchRoutes(state, data),
    ...accountRoutes(state, data),
    ...collectionListRoutes(state, data),
    ...dropRoutes(state),
    ...adminRoutes(state, counters, startedAt),
    ...externalListingRoutes(state, data),
    ...authRoutes(state),
    ...clockRoutes(state),
  ];
  for (const r of routes) router.add(r.method, r.pattern, r);

  function reply(res: ServerResponse, r: Reply): void {
    if ('text' in r) sendText(res, r.status ?? 200, r.contentType, r.text);
    else sendJson(res, r.status ?? 200, r.json, r.headers ?? {});
  }

  function fail(res: ServerResponse, err: unknown): void {
    if (err instanceof HttpError) {
      sendError(res, err);
      return;
    }
    sendJson(res, 500, { errors: ['Internal server error'] });
  }

  /**
   * The pipeline of one `/api` request after the transport (HTTP here, the agent-protocol tools in
   * src/sandbox/mcp): API key (401) → injected 429 → the token bucket of the key's account and the
   * request's group (429; X-RateLimit-* through `setHeader`) → injected 500 → route (404/405) →
   * wallet JWT (401/403) → handler. Errors are thrown as `HttpError`.
   */
  async function serve(call: ApiCall): Promise<Reply> {
    const { method, path, setHeader } = call;
    const isApi = path === '/api' || path.startsWith('/api/');
    const isAdmin = path === '/_sandbox' || path.startsWith('/_sandbox/');
    const match = router.match(method, path);
    const route = match.kind === 'found' ? match.handler : undefined;
    let principal: Principal | undefined;

    if (isApi) {
      const { latencyMs } = faults.settings;
      if (latencyMs > 0) await sleep(latencyMs);
      if (route?.access !== 'public') {
        principal = keys.authenticate(call.apiKey);
        if (!principal) {
          counters.unauthorized++;
          throw new HttpError(401, 'Invalid API key');
        }
        const group = groupOfRequest(method, path);
        const c = counters.groups[group];
        c.requests++;
        if (faults.rollRateLimit()) {
          c.throttled++;
          rateLimitHeaders(setHeader, limiter.peek(principal.account, group));
          setHeader('Retry-After', '1');
          throw new HttpError(429, 'Request was throttled. Expected available in 1 second.');
        }
        const d = limiter.take(principal.account, group);
        rateLimitHeaders(setHeader, d);
        if (!d.allowed) {
          c.throttled++;
          const secs = d.retryAfterSeconds ?? 1;
          setHeader('Retry-After', String(secs));
          throw new HttpError(429, `Request was throttled. Expected available in ${secs} seconds.`);
        }
      }
      if (faults.rollError()) {
        counters.injectedErrors++;
        throw new HttpError(500, 'Internal server error (injected by the sandbox fault settings)');
      }
    }

    if (match.kind === 'method_not_allowed') {
      setHeader('Allow', match.allowed.join(', '));
      throw new HttpError(405, `Method ${method} is not allowed on ${path}`);
    }
    if (match.kind === 'not_found' || !route) throw new HttpError(404, `Not found: ${method} ${path}`);
    if (route.access === 'admin' && !isAdmin) throw new HttpError(404, `Not found: ${method} ${path}`);

    // Wallet-scoped routes: the JWT after the API key and the bucket (401 / 403). A caller that
    // demands the wallet (`walletScope`: the agent-protocol's wallet tools) gets it checked always.
    let wallet: WalletIdentity | undefined;
    const w = route.wallet;
    if (call.walletScope !== undefined) {
      wallet = auth.bearer(call.authorization, call.walletScope, w?.forbiddenBody);
    } else if (w && (w.required?.() !== false || call.authorization !== undefined)) {
      wallet = auth.bearer(call.authorization, w.scope, w.forbiddenBody);
    }

    const ctx: RequestContext = {
      req: call.req,
      res: call.res,
      path,
      params: match.kind === 'found' ? match.params : {},
      query: call.query,
      principal,
      wallet,
      body: call.body,
    };
    return route.handler(ctx);
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req.url);
    const isAdmin = path === '/_sandbox' || path.startsWith('/_sandbox/');
    if (isAdmin && !isLoopback(req.socket.remoteAddress)) {
      throw new HttpError(403, 'The sandbox admin surface answers only local clients');
    }
    if (path === MCP_PATH) {
      await mcp(req, res);
      return;
    }
    let bodyPromise: Promise<unknown> | undefined;
    const r = await serve({
      method: (req.method ?? 'GET').toUpperCase(),
      path,
      query: queryOf(req.url),
      apiKey: headerValue(req.headers['x-api-key']),
      authorization: headerValue(req.headers.authorization),
      req,
      res,
      setHeader: (name, value) => res.setHeader(name, value),
      body: () => {
        bodyPromise ??= readJsonBody(req, state.bodyLimit);
        return bodyPromise;
      },
    });
    if (!bodyPromise) req.resume();
    reply(res, r);
  }

  /** One API request made in-process (an agent-protocol tool): the answer, or the error as an answer. */
  async function invoke(call: ApiInvocation): Promise<ApiAnswer> {
    const headers: Record<string, string> = {};
    const path = call.path;
    try {
      const r = await serve({
        method: call.method.toUpperCase(),
        path,
        query: call.query ?? new URLSearchParams(),
        apiKey: call.apiKey,
        authorization: call.authorization,
        ...(call.walletScope !== undefined ? { walletScope: call.walletScope } : {}),
        req: call.req,
        res: call.res,
        setHeader: (name, value) => {
          headers[name] = value;
        },
        body: () => Promise.resolve(call.body),
      });
      if ('text' in r) return { status: r.status ?? 200, body: r.text, headers };
      return {
        status: r.status ?? 200,
        body: JSON.parse(toJson(r.json)) as unknown,
        headers: { ...headers, ...r.headers },
      };
    } catch (err) {
      if (err instanceof HttpError) return { status: err.status, body: err.toBody(), headers };
      return { status: 500, body: { errors: ['Internal server error'] }, headers };
    }
  }

  const mcp = createSandboxMcpHandler({ invoke, bodyLimit: state.bodyLimit, chain: () => state.chain });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    dispatch(req, res).catch((err: unknown) => {
      req.resume();
      fail(res, err);
    });
  }

  let server: Server | undefined;
  let url = '';

  function build(): Server {
    server ??= createServer({ keepAliveTimeout: 65_000 }, handle);
    return server;
  }

  return {
    build,
    get url() {
      return url;
    },
    listen(opts = {}) {
      const srv = build();
      return new Promise<string>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(opts.port ?? options.port ?? 0, opts.host ?? options.host ?? '127.0.0.1', () => {
          srv.off('error', reject);
          const addr = srv.address() as AddressInfo;
          const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
          url = `http://${host}:${addr.port}`;
          if (state.publicUrl === '') state.publicUrl = url;
          resolve(url);
        });
      });
    },
    close() {
      const srv = server;
      state.held.releaseAll();
      if (!srv?.listening) return Promise.resolve();
      return new Promise<void>((resolve) => {
        srv.close(() => resolve());
        srv.closeAllConnections();
      });
    },
    authenticate: (token) => keys.authenticate(token),
    attach(parts) {
      if (parts.catalog !== undefined) state.catalog = parts.catalog;
      if (parts.market !== undefined) state.market = parts.market;
      if (parts.legacyOrderOf !== undefined) state.legacyOrderOf = parts.legacyOrderOf;
      if (parts.stream !== undefined) state.stream = parts.stream;
      if (parts.txInfo !== undefined) state.txInfo = parts.txInfo;
      if (parts.fixture !== undefined) state.fixture = parts.fixture;
      if (parts.offchain !== undefined) state.offchain = parts.offchain;
      if (parts.windowFiller !== undefined) state.windowFiller = parts.windowFiller;
      if (parts.traders !== undefined) state.traders = parts.traders;
    },
    keys,
    auth,
    clock,
    limiter,
    faults,
    stats: () => collectStats(state, counters, startedAt),
    handle,
  };
}

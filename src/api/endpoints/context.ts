/**
 * What every endpoint module shares: the transport, the client options, and the one function that
 * turns an endpoint's description plus the caller's call options into a RequestSpec.
 */
import { TransientError } from '../../errors/index.ts';
import { Priority, type RateGroup } from '../../ratelimit/types.ts';
import {
  type CursorParam,
  checkMaxPages,
  type PageSource,
  paginateItems,
  readNext,
  withCursor,
} from '../paginate.ts';
import type { ApiResponse, AuthMode, HttpMethod, QueryValue, RequestSpec, Transport } from '../request.ts';
import type { CallOptions, DeprecatedFieldEvent, IterateOptions } from '../types.ts';

export interface EndpointConfig {
  /** Path template of the collection metadata refresh, with one `{slug}` placeholder. */
  readonly collectionRefreshPath: string;
  /** Default `{protocol}` segment of the order endpoints. */
  readonly defaultProtocol: string;
  readonly onDeprecatedField?: (event: DeprecatedFieldEvent) => void;
}

export interface EndpointContext {
  readonly transport: Transport;
  readonly config: EndpointConfig;
}

/** How one endpoint is called; call options are layered on top. */
export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  readonly group: RateGroup;
  /** Default priority when the caller gives none. */
  readonly priority: Priority;
  readonly auth?: AuthMode;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly idempotent?: boolean;
  readonly deprecated?: { readonly replacement: string };
  readonly text?: boolean;
  readonly acceptStatus?: readonly number[];
}

/** Drops undefined values (and empty arrays), so a recorded spec holds only what is sent. */
export function compactQuery(query: Readonly<Record<string, QueryValue>>): Record<string, QueryValue> {
  const out: Record<string, QueryValue> = {};
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

export function toSpec(route: Route, call: CallOptions = {}): RequestSpec {
  const query = route.query === undefined ? undefined : compactQuery(route.query);
  return {
    method: route.method,
    path: route.path,
    group: route.group,
    priority: call.priority ?? route.priority,
    auth: route.auth ?? 'apiKey',
    ...(query !== undefined && Object.keys(query).length > 0 ? { query } : {}),
    ...(route.body !== undefined ? { body: route.body } : {}),
    ...(route.idempotent !== undefined ? { idempotent: route.idempotent } : {}),
    ...(route.deprecated !== undefined ? { deprecated: route.deprecated } : {}),
    ...(route.text !== undefined ? { text: route.text } : {}),
    ...(route.acceptStatus !== undefined ? { acceptStatus: route.acceptStatus } : {}),
    ...(call.coalesceKey !== undefined ? { coalesceKey: call.coalesceKey } : {}),
    ...(call.signal !== undefined ? { signal: call.signal } : {}),
    ...(call.format !== undefined ? { format: call.format } : {}),
  };
}

/** Route presets. */
export function read(path: string, query?: Readonly<Record<string, QueryValue>>): Route {
  return { method: 'GET', path, group: 'read', priority: Priority.read, ...(query ? { query } : {}) };
}

export function send<T>(ctx: EndpointContext, route: Route, call?: CallOptions): Promise<T> {
  return ctx.transport.request<T>(toSpec(route, call));
}

/** Like `send`, keeping the status and headers (404-as-none, Set-Cookie of the session endpoints). */
export function sendRaw<T>(ctx: EndpointContext, route: Route, call?: CallOptions): Promise<ApiResponse<T>> {
  return ctx.transport.requestRaw<T>(toSpec(route, call));
}

/**
 * Builds an item iterator over a paginated endpoint. Arguments are validated by the caller before
 * this runs, and `maxPages` here, so bad input fails at call time with no request.
 */
export function iterate<P, T>(
  ctx: EndpointContext,
  endpoint: string,
  route: Route,
  cursorParam: CursorParam,
  items: (page: P) => readonly T[],
  options: IterateOptions = {},
  next: (page: P) => string | undefined = readNext,
): AsyncGenerator<T, void, undefined> {
  const maxPages = checkMaxPages(options.maxPages);
  const { maxPages: _omit, ...call } = options;
  const source: PageSource<P, T> = {
    endpoint,
    fetch: (cursor) =>
      send<P>(ctx, { ...route, query: withCursor(route.query ?? {}, cursorParam, cursor) }, call),
    items,
    next,
  };
  return paginateItems(source, {
    ...(maxPages !== undefined ? { maxPages } : {}),
    ...(call.signal !== undefined ? { signal: call.signal } : {}),
  });
}

/**
 * Create-listing / create-offer responses: the current field (`listing` / `offer`), else the
 * deprecated `order` (reported via `onDeprecatedField`), else a bare order object.
 */
export function currentOrderField<T>(
  ctx: EndpointContext,
  endpoint: string,
  response: unknown,
  field: 'listing' | 'offer',
): T {
  if (typeof response === 'object' && response !== null) {
    const r = response as Record<string, unknown>;
    const current = r[field];
    if (typeof current === 'object' && current !== null) return current as T;
    const legacy = r['order'];
    if (typeof legacy === 'object' && legacy !== null) {
      ctx.config.onDeprecatedField?.({ endpoint, field: 'order', replacement: field });
      return legacy as T;
    }
    if (typeof r['order_hash'] === 'string' || typeof r['protocol_data'] === 'object') return response as T;
  }
  throw new TransientError(
    'unexpected_response',
    `${endpoint}: response has neither '${field}' nor 'order'; the order may have been created, reconcile before retrying`,
    { maybeProcessed: true, details: { endpoint } },
  );
}

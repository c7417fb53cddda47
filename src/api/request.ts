import type { Priority, RateGroup } from '../ratelimit/types.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type QueryScalar = string | number | boolean | bigint;
export type QueryValue = QueryScalar | readonly QueryScalar[] | undefined;

/**
 * Which credentials a request carries:
 * - `apiKey` (default): `X-API-KEY`.
 * - `wallet`: `X-API-KEY` plus `Authorization: Bearer <wallet JWT>`.
 * - `session`: SIWE session cookies (PAT management), no API key needed.
 * - `none`: nothing (instant key creation, SIWE nonce/verify, PAT exchange, scopes).
 */
export type AuthMode = 'apiKey' | 'wallet' | 'session' | 'none';

/** Response encoding asked of the server: JSON, or TOON via `Accept: text/markdown`. */
export type ResponseFormat = 'json' | 'toon';

/** One API call, as endpoint modules describe it to the transport. */
export interface RequestSpec {
  readonly method: HttpMethod;
  /** Path with every parameter already encoded (use `path\`...\`` from ./path.ts). */
  readonly path: string;
  /** Arrays repeat the key (`?event_type=sale&event_type=listing`); undefined values are dropped. */
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  /** Rate group; default GET → read, otherwise write. Fulfillment-data calls say `fulfillment`. */
  readonly group?: RateGroup;
  readonly priority?: Priority;
  readonly coalesceKey?: string;
  readonly auth?: AuthMode;
  /**
   * Safe to repeat after a 5xx or a network failure (default: true for GET, false otherwise).
   * Order-creating POSTs are never idempotent: a failure is reported as `maybeProcessed`.
   */
  readonly idempotent?: boolean;
  readonly format?: ResponseFormat;
  /** Marks a deprecated endpoint: the first call logs one warning naming the replacement. */
  readonly deprecated?: { readonly replacement: string };
  /** The response is plain text (e.g. NFT refresh returns a string). */
  readonly text?: boolean;
  /** Statuses that are answers, not errors (e.g. 201 is always fine; 404 for "none" when asked). */
  readonly acceptStatus?: readonly number[];
  readonly signal?: AbortSignal;
  /** Per-request timeout override in ms. */
  readonly timeoutMs?: number;
}

export interface ApiResponse<T> {
  readonly status: number;
  readonly data: T;
  readonly headers: Headers;
}

/** The one transport every endpoint module talks through. Implemented in ./transport.ts. */
export interface Transport {
  request<T>(spec: RequestSpec): Promise<T>;
  requestRaw<T>(spec: RequestSpec): Promise<ApiResponse<T>>;
}

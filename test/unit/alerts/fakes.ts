import type { AlertFetch, AlertFetchResponse } from '../../../src/alerts/index.ts';
import type { AlertEvent, AlertSink } from '../../../src/alerts/types.ts';
import type { FakeClock } from '../ratelimit/fake-clock.ts';

/** What the fake service answers one request with. */
export type Reply =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly error: Error }
  | { readonly hang: true };

export interface FetchCall {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The fake clock's time of the request. */
  readonly at: number;
}

/**
 * A fetch that answers from a script (`reply(call, n)`; n counts the calls to that URL from 0) and
 * records every call with the fake clock's time. A hanging answer rejects when its signal aborts.
 */
export function fakeFetch(
  clock: FakeClock,
  reply: (call: FetchCall, n: number) => Reply = () => ({ status: 200, body: { ok: true } }),
): { fetch: AlertFetch; calls: FetchCall[]; to: (prefix: string) => FetchCall[] } {
  const calls: FetchCall[] = [];
  const perUrl = new Map<string, number>();
  const fetch: AlertFetch = (url, init) => {
    const call: FetchCall = { url, body: init.body, headers: init.headers, at: clock.now() };
    calls.push(call);
    const n = perUrl.get(url) ?? 0;
    perUrl.set(url, n + 1);
    const r = reply(call, n);
    if ('hang' in r)
      return new Promise((_resolve, reject) => {
        init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    if ('error' in r) return Promise.reject(r.error);
    const text = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    const headers = new Map(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const res: AlertFetchResponse = {
      status: r.status,
      headers: { get: (name) => headers.get(name.toLowerCase()) ?? null },
      text: () => Promise.resolve(text),
    };
    return Promise.resolve(res);
  };
  return { fetch, calls, to: (prefix) => calls.filter((c) => c.url.startsWith(prefix)) };
}

/** A sink posting to `http://<name>.test/` with the alert's key as the body. */
export function keySink(name: string): AlertSink {
  return {
    name,
    request: (e) => ({ url: `http://${name}.test/`, headers: {}, body: e.key }),
    scrub: (t) => t,
  };
}

let n = 0;

/** An alert with a fresh key unless one is given. */
export function ev(over: Partial<AlertEvent> = {}): AlertEvent {
  n++;
  return {
    kind: 'fill',
    at: 1_700_000_000_000,
    severity: 'info',
    title: `alert ${n}`,
    text: 'text',
    key: `k${n}`,
    ...over,
  };
}

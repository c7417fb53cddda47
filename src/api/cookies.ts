import { Secret } from '../domain/secret.ts';

/**
 * A tiny cookie jar for the SIWE session (HTTP-only `access_token` / `refresh_token` cookies).
 *
 * It serves exactly one API origin, so domain and path attributes are ignored. Values are kept as
 * `Secret`s; the only place they are revealed is `header()`, called while the transport builds the
 * `Cookie` header of a `session` request. A newer `Set-Cookie` for the same name replaces the old
 * value (the refresh cookie rotates); `Max-Age<=0` or an `Expires` in the past deletes it.
 */
export class CookieJar {
  readonly #now: () => number;
  readonly #cookies = new Map<string, { readonly value: Secret; readonly expiresAtMs?: number }>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Stores every `Set-Cookie` line; returns the names stored or deleted. */
  store(setCookieLines: readonly string[]): string[] {
    const touched: string[] = [];
    for (const line of setCookieLines) {
      const parsed = parseSetCookie(line, this.#now());
      if (!parsed) continue;
      touched.push(parsed.name);
      if (parsed.deleted) {
        this.#cookies.delete(parsed.name);
        continue;
      }
      this.#cookies.set(parsed.name, {
        value: new Secret(parsed.value, `cookie:${parsed.name}`),
        ...(parsed.expiresAtMs !== undefined ? { expiresAtMs: parsed.expiresAtMs } : {}),
      });
    }
    return touched;
  }

  /** Names of the live (unexpired) cookies. Names are not secret; values are. */
  names(): string[] {
    this.#prune();
    return [...this.#cookies.keys()];
  }

  has(name: string): boolean {
    this.#prune();
    return this.#cookies.has(name);
  }

  get size(): number {
    this.#prune();
    return this.#cookies.size;
  }

  /** The cookie value as a Secret (e.g. to persist the session), or undefined. */
  get(name: string): Secret | undefined {
    this.#prune();
    return this.#cookies.get(name)?.value;
  }

  /** Puts one cookie back (e.g. a session read from the credentials file); a past expiry drops it. */
  set(name: string, value: Secret, expiresAtMs?: number): void {
    if (name === '' || /[\s;,=]/.test(name))
      throw new TypeError(`not a cookie name: ${JSON.stringify(name)}`);
    if (expiresAtMs !== undefined && expiresAtMs <= this.#now()) {
      this.#cookies.delete(name);
      return;
    }
    this.#cookies.set(name, { value, ...(expiresAtMs !== undefined ? { expiresAtMs } : {}) });
  }

  /** The live cookies with their expiry (epoch ms, undefined for a session cookie), values wrapped. */
  entries(): { readonly name: string; readonly value: Secret; readonly expiresAtMs?: number }[] {
    this.#prune();
    return [...this.#cookies].map(([name, c]) => ({ name, ...c }));
  }

  /** The `Cookie` request header value (reveals the values), or undefined when the jar is empty. */
  header(): string | undefined {
    this.#prune();
    if (this.#cookies.size === 0) return undefined;
    return [...this.#cookies].map(([name, c]) => `${name}=${c.value.reveal()}`).join('; ');
  }

  /** Raw values, for value-based scrubbing of log lines and error reasons. */
  values(): string[] {
    return [...this.#cookies.values()].map((c) => c.value.reveal());
  }

  clear(): void {
    this.#cookies.clear();
  }

  #prune(): void {
    const now = this.#now();
    for (const [name, c] of this.#cookies) {
      if (c.expiresAtMs !== undefined && c.expiresAtMs <= now) this.#cookies.delete(name);
    }
  }
}

interface ParsedSetCookie {
  readonly name: string;
  readonly value: string;
  readonly deleted: boolean;
  readonly expiresAtMs?: number;
}

/** Parses one `Set-Cookie` line (RFC 6265 §5.2, the parts a single-origin client needs). */
export function parseSetCookie(line: string, nowMs: number): ParsedSetCookie | undefined {
  const [pair = '', ...attrs] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return undefined;
  const name = pair.slice(0, eq).trim();
  let value = pair.slice(eq + 1).trim();
  if (name === '' || /[\s;,=]/.test(name)) return undefined;
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);

  let maxAgeMs: number | undefined;
  let expiresMs: number | undefined;
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const key = (i === -1 ? attr : attr.slice(0, i)).trim().toLowerCase();
    const v = i === -1 ? '' : attr.slice(i + 1).trim();
    if (key === 'max-age' && /^-?\d+$/.test(v)) maxAgeMs = Number(v) * 1000;
    else if (key === 'expires') {
      const t = Date.parse(v);
      if (Number.isFinite(t)) expiresMs = t;
    }
  }
  // Max-Age wins over Expires (RFC 6265 §5.3 step 3).
  const expiresAtMs = maxAgeMs !== undefined ? nowMs + maxAgeMs : expiresMs;
  const deleted = expiresAtMs !== undefined && expiresAtMs <= nowMs;
  return { name, value, deleted, ...(expiresAtMs !== undefined ? { expiresAtMs } : {}) };
}

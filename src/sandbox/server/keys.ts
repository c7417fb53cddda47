import { randomBytes } from 'node:crypto';
import { HttpError } from '../errors.ts';
import { formatLimit } from '../ratelimit/server.ts';
import type { BucketLimit, LimiterClock, LimitGroup } from '../ratelimit/token-bucket.ts';

/**
 * API keys of the sandbox: instant keys issued by `POST /api/v2/auth/keys` and preconfigured
 * ones, each mapped to an account (all keys of an account share its rate buckets).
 *
 * Instant keys follow the spec: 201 with `api_key`, `name` (`agent_free_<hex>`), `expires_at`,
 * `rate_limits` (`<count>/<unit>`), `upgrade_url`; at most 3 per source IP per hour (a sliding
 * hour, then 429 with Retry-After until the oldest creation leaves the window); 503 while
 * creation is disabled; a key stops working when it expires.
 */

/** The free tier documented at the time of writing: read 600/h, write 30/h, fulfillment 5/m. */
export const FREE_TIER: Readonly<Record<LimitGroup, BucketLimit>> = Object.freeze({
  read: { capacity: 600, windowMs: 3_600_000 },
  write: { capacity: 30, windowMs: 3_600_000 },
  fulfillment: { capacity: 5, windowMs: 60_000 },
});

export const DEFAULT_KEY_LIFETIME_MS = 7 * 86_400_000;
export const DEFAULT_UPGRADE_URL = 'https://opensea.io/settings/developer';

export interface KeyCreationLimit {
  /** Creations allowed per source IP within `windowMs`. */
  readonly count: number;
  readonly windowMs: number;
}

export const DEFAULT_KEY_CREATION_LIMIT: KeyCreationLimit = Object.freeze({ count: 3, windowMs: 3_600_000 });

export interface PreconfiguredKey {
  readonly apiKey: string;
  readonly account: string;
  /** Epoch ms; default never. */
  readonly expiresAt?: number;
}

export interface KeyRecord {
  readonly apiKey: string;
  readonly name: string;
  readonly account: string;
  /** Epoch ms (`Infinity` = never). */
  readonly expiresAt: number;
  readonly instant: boolean;
}

/** What `authenticate` tells the caller (the stream server uses it for its `token`). */
export interface Principal {
  readonly account: string;
  readonly keyName: string;
  readonly expiresAt: number;
}

/** Body of the 201 answer of `POST /api/v2/auth/keys` (wire shape). */
export interface InstantKeyBody {
  readonly api_key: string;
  readonly name: string;
  readonly expires_at: string;
  readonly rate_limits: { readonly read: string; readonly write: string; readonly fulfillment: string };
  readonly upgrade_url: string;
}

export interface KeyStoreOptions {
  readonly clock: LimiterClock;
  /** `rate_limits` strings in key responses; default the enforced limits written as `<count>/<unit>`. */
  readonly advertised: Readonly<Record<LimitGroup, string>>;
  readonly keyLifetimeMs?: number;
  readonly creationLimit?: KeyCreationLimit;
  readonly upgradeUrl?: string;
  readonly keys?: readonly PreconfiguredKey[];
  /** Account of an instant key; default one account per source IP (more keys never raise the limit). */
  readonly accountForIp?: (ip: string) => string;
  /** Random bytes (tests may make keys predictable). */
  readonly random?: (bytes: number) => Buffer;
}

/** `rate_limits` strings for enforced limits (`600/h`, `5/m`, `10/s`). */
export function advertisedOf(limits: Readonly<Record<LimitGroup, BucketLimit>>): Record<LimitGroup, string> {
  return {
    read: formatLimit(limits.read),
    write: formatLimit(limits.write),
    fulfillment: formatLimit(limits.fulfillment),
  };
}

export class KeyStore {
  readonly #clock: LimiterClock;
  readonly #advertised: Readonly<Record<LimitGroup, string>>;
  readonly #lifetimeMs: number;
  readonly #creation: KeyCreationLimit;
  readonly #upgradeUrl: string;
  readonly #accountForIp: (ip: string) => string;
  readonly #random: (bytes: number) => Buffer;
  readonly #keys = new Map<string, KeyRecord>();
  /** Source IP → wall-clock ms of its creations inside the window. */
  readonly #createdBy = new Map<string, number[]>();
  #disabled = false;
  #issued = 0;
  #refused = 0;

  constructor(options: KeyStoreOptions) {
    this.#clock = options.clock;
    this.#advertised = { ...options.advertised };
    this.#lifetimeMs = options.keyLifetimeMs ?? DEFAULT_KEY_LIFETIME_MS;
    if (!(this.#lifetimeMs > 0)) throw new RangeError(`keyLifetimeMs must be > 0, got ${this.#lifetimeMs}`);
    this.#creation = options.creationLimit ?? DEFAULT_KEY_CREATION_LIMIT;
    this.#upgradeUrl = options.upgradeUrl ?? DEFAULT_UPGRADE_URL;
    this.#accountForIp = options.accountForIp ?? ((ip) => `ip:${ip}`);
    this.#random = options.random ?? randomBytes;
    for (const k of options.keys ?? []) this.add(k);
  }

  /** Registers a key for an account (no rate limit on this path). */
  add(key: PreconfiguredKey): KeyRecord {
    if (key.apiKey.length === 0) throw new RangeError('an API key must not be empty');
    const rec: KeyRecord = {
      apiKey: key.apiKey,
      name: `preconfigured_${key.account}`,
      account: key.account,
      expiresAt: key.expiresAt ?? Number.POSITIVE_INFINITY,
      instant: false,
    };
    this.#keys.set(key.apiKey, rec);
    return rec;
  }

  /** Makes a new random key for an account without HTTP (the sandbox's printed key). */
  issue(account: string, expiresAt = Number.POSITIVE_INFINITY): KeyRecord {
    return this.add({ apiKey: this.#newKey(), account, expiresAt });
  }

  /** Instant-key creation on (default) or off (503). */
  get disabled(): boolean {
    return this.#disabled;
  }
  set disabled(v: boolean) {
    this.#disabled = v;
  }

  get issued(): number {
    return this.#issued;
  }
  /** Creations refused (429 or 503). */
  get refused(): number {
    return this.#refused;
  }

  get advertised(): Readonly<Record<LimitGroup, string>> {
    return this.#advertised;
  }

  /**
   * `POST /api/v2/auth/keys` from `ip`: the 201 body, or an `HttpError` (429 with `retryAfterSeconds`,
   * 503 when disabled). `disabledNow` lets a fault switch turn creation off without changing the store.
   */
  createInstant(ip: string, disabledNow = false): InstantKeyBody {
    if (this.#disabled || disabledNow) {
      this.#refused++;
      throw new HttpError(503, 'Instant API key creation is currently disabled. Try again later.');
    }
    const now = this.#clock.wallNow();
    const recent = (this.#createdBy.get(ip) ?? []).filter((t) => t > now - this.#creation.windowMs);
    if (recent.length >= this.#creation.count) {
      this.#refused++;
      this.#createdBy.set(ip, recent);
      const oldest = recent[0] as number;
      const secs = Math.max(1, Math.ceil((oldest + this.#creation.windowMs - now) / 1000));
      throw new KeyCreationThrottled(secs, this.#creation);
    }
    recent.push(now);
    this.#createdBy.set(ip, recent);
    const apiKey = this.#newKey();
    const expiresAt = now + this.#lifetimeMs;
    const name = `agent_free_${this.#random(6).toString('hex')}`;
    this.#keys.set(apiKey, { apiKey, name, account: this.#accountForIp(ip), expiresAt, instant: true });
    this.#issued++;
    return {
      api_key: apiKey,
      name,
      expires_at: new Date(expiresAt).toISOString(),
      rate_limits: {
        read: this.#advertised.read,
        write: this.#advertised.write,
        fulfillment: this.#advertised.fulfillment,
      },
      upgrade_url: this.#upgradeUrl,
    };
  }

  /** The principal of a valid, unexpired key, else undefined. */
  authenticate(token: string | undefined): Principal | undefined {
    if (token === undefined || token === '') return undefined;
    const rec = this.#keys.get(token);
    if (!rec || rec.expiresAt <= this.#clock.wallNow()) return undefined;
    return { account: rec.account, keyName: rec.name, expiresAt: rec.expiresAt };
  }

  /** Every key (tests, admin); secrets included, so never serve this over HTTP. */
  records(): readonly KeyRecord[] {
    return [...this.#keys.values()];
  }

  #newKey(): string {
    return this.#random(16).toString('hex');
  }
}

/** 429 of key creation: carries the seconds for `Retry-After`. */
export class KeyCreationThrottled extends HttpError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, limit: KeyCreationLimit) {
    super(
      429,
      `Instant API key creation is limited to ${limit.count} per ${Math.round(limit.windowMs / 60_000)} minutes per IP address. Expected available in ${retryAfterSeconds} seconds.`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

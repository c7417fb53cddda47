// Credentials that renew themselves while the daemon runs, so it still trades a month later:
//
// - wallet JWT from a personal access token: exchanged at start, renewed before it expires (at
//   80 % of its lifetime: 2.4 h early for the usual 12 h), and once more on a 401 (the transport's
//   refresh hook) — single-flight, so N callers share one exchange. An unanswered exchange is
//   retried with backoff while the current JWT still lives. A refused exchange (revoked, rotated
//   or expired PAT) is fatal with what to do; never a 401 storm.
// - a fixed JWT (HARPOON_WALLET_JWT): used as is, never renewed; its 401 is fatal with the fix.
// - instant API key (no key configured and `api.instantKey`): created at start, renewed before
//   `expires_at` (at 90 % of its life, at least an hour early), never more than 3 created in any hour (the API's
//   limit); each new key's `rate_limits` re-size the scheduler.
//
// Nothing here logs or throws a secret: values stay in `Secret`, errors carry codes and texts.

import type { InstantApiKeyResponse, TokenExchangeResponse } from '@opensea/api-types';
import type { Credentials } from '../api/credentials.ts';
import { Secret } from '../domain/secret.ts';
import { BaseError, FatalError, RejectedError } from '../errors/index.ts';
import { type Logger, silentLogger } from '../observability/index.ts';
import { parseGroupRates } from '../ratelimit/rates.ts';
import type { GroupRates } from '../ratelimit/types.ts';

/** The API's limit on instant key creation. */
export const INSTANT_KEYS_PER_HOUR = 3;
const HOUR = 3_600_000;
/** A JWT lifetime when the exchange does not say (the documented ~12 h). */
const DEFAULT_JWT_LIFETIME_MS = 12 * HOUR;

export interface KeeperTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface CredentialKeeperOptions {
  readonly auth: {
    exchange(pat: Secret): Promise<TokenExchangeResponse>;
    createInstantKey(): Promise<InstantApiKeyResponse>;
  };
  /** The transport's credentials: the keeper sets the API key and the JWT on it. */
  readonly credentials: Credentials;
  /** A personal access token (HARPOON_PAT or the credentials file): exchanged for wallet JWTs. */
  readonly pat?: Secret;
  /** A fixed wallet JWT (HARPOON_WALLET_JWT): used as is, never renewed. */
  readonly fixedJwt?: Secret;
  /** Create and renew an instant API key (only when no key is configured). */
  readonly instantKey?: boolean;
  readonly clock: { now(): number };
  readonly logger?: Logger;
  /** A new instant key's `rate_limits` (the scheduler re-sizes its groups). */
  readonly onRates?: (rates: GroupRates) => void;
  /** Trading must stop: a credential was refused and cannot be renewed (the message says the fix). */
  readonly onFatal: (e: FatalError) => void;
  /** Renew an instant key at least this long before `expires_at` (and at 90 % of its life); default one hour. */
  readonly keyRenewBeforeMs?: number;
  /** Renew a JWT when this fraction of its lifetime has passed; default 0.8. */
  readonly jwtRenewAt?: number;
  /** Waits between attempts of an unanswered exchange or key creation; default 5 s doubling to 5 min. */
  readonly retryBaseMs?: number;
  /** How often the clock is looked at while a renewal is due later; default 1 s. */
  readonly checkEveryMs?: number;
  readonly timers?: KeeperTimers;
}

export interface CredentialStatus {
  readonly apiKey: { readonly source: 'config' | 'instant' | 'none'; readonly expiresAt: number | null };
  readonly walletJwt: {
    readonly source: 'pat' | 'fixed' | 'none';
    readonly expiresAt: number | null;
    readonly renewals: number;
  };
  readonly instantKeysCreated: number;
  /** The longest a renewal (exchange or key creation) took: how long calls waiting on it paused. */
  readonly longestRenewalMs: number;
  /** The last renewal problem (code and text, never a secret), cleared by a success. */
  readonly lastError: string | null;
}

export interface CredentialKeeper {
  /** Obtains what is missing (instant key, first JWT); a refusal is a FatalError with the fix. */
  start(): Promise<void>;
  /** The transport's 401 hook for wallet calls: a fresh JWT (single-flight). */
  refreshWalletJwt(): Promise<Secret>;
  /** The transport's 401 hook for API-key calls in instant-key mode: a new key. */
  refreshApiKey(): Promise<Secret>;
  /** True when wallet-scoped calls can be made (a JWT is held or can be obtained). */
  readonly hasWalletCredential: boolean;
  /** True when the current wallet JWT (from the PAT) carries this scope, e.g. `write:orders`. */
  hasScope(scope: string): boolean;
  status(): CredentialStatus;
  stop(): void;
}

const realTimers: KeeperTimers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, Math.min(ms, 2 ** 31 - 1));
    t.unref?.();
    return t;
  },
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

const codeOf = (e: unknown) => (e instanceof BaseError ? e.code : 'error');
const textOf = (e: unknown) => (e instanceof BaseError ? e.shortMessage : 'unexpected error');

export function createCredentialKeeper(o: CredentialKeeperOptions): CredentialKeeper {
  const log = o.logger ?? silentLogger();
  const timers = o.timers ?? realTimers;
  const keyEarly = o.keyRenewBeforeMs ?? HOUR;
  const jwtAt = Math.min(0.95, Math.max(0.1, o.jwtRenewAt ?? 0.8));
  const retryBase = o.retryBaseMs ?? 5_000;
  const checkMs = Math.max(10, o.checkEveryMs ?? 1_000);
  const instant = o.instantKey === true && o.credentials.apiKey() === undefined;

  let stopped = false;
  let fatal: FatalError | undefined;
  let jwtExpiresAt: number | null = null;
  let jwtRenewals = 0;
  let jwtScopes = new Set<string>();
  let longestRenewalMs = 0;
  /** Times a renewal (elapsed real time, whatever the clock does), for `longestRenewalMs`. */
  async function timed<T>(work: Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work;
    } finally {
      longestRenewalMs = Math.max(longestRenewalMs, Math.round(performance.now() - t0));
    }
  }
  let keyExpiresAt: number | null = null;
  /** Creation times within the trailing hour (the API allows 3). */
  const keysCreated: number[] = [];
  let keysTotal = 0;
  let lastError: string | null = null;
  let jwtTimer: unknown;
  let keyTimer: unknown;
  let jwtFlight: Promise<Secret> | undefined;
  let keyFlight: Promise<Secret> | undefined;

  /** Records the first fatal credential failure, stops renewing and tells the daemon; returns it. */
  function fail(e: FatalError): FatalError {
    if (fatal === undefined) {
      fatal = e;
      lastError = `${e.code}: ${e.shortMessage}`;
      log.error({ code: e.code }, e.shortMessage);
      stop();
      o.onFatal(e);
    }
    return fatal;
  }
  function die(e: FatalError): never {
    throw fail(e);
  }

  /**
   * Runs `fn` once the clock reaches `atMs`, looking at the clock at least every `checkMs` (so a
   * clock that jumps — a suspended machine, a moved sandbox clock — is noticed within that time).
   */
  function schedule(which: 'jwt' | 'key', atMs: number, fn: () => void): void {
    if (stopped) return;
    const arm = () => {
      const wait = Math.max(0, Math.min(atMs - o.clock.now(), checkMs));
      const h = timers.set(() => {
        if (stopped) return;
        if (o.clock.now() >= atMs) fn();
        else arm();
      }, wait);
      if (which === 'jwt') jwtTimer = h;
      else keyTimer = h;
    };
    const old = which === 'jwt' ? jwtTimer : keyTimer;
    if (old !== undefined) timers.clear(old);
    arm();
  }

  // -- wallet JWT ---------------------------------------------------------------------------

  async function exchangeOnce(pat: Secret): Promise<Secret> {
    let res: TokenExchangeResponse;
    try {
      res = await o.auth.exchange(pat);
    } catch (e) {
      if (e instanceof RejectedError || e instanceof FatalError)
        die(
          new FatalError(
            'pat_refused',
            `the personal access token was refused by the token exchange (${codeOf(e)}: revoked, rotated or expired): ` +
              'run `harpoon auth login` (or set a new HARPOON_PAT) and start again',
          ),
        );
      throw e;
    }
    if (typeof res?.accessToken !== 'string' || res.accessToken === '')
      die(new FatalError('pat_exchange_malformed', 'the token exchange answered without an access token'));
    const now = o.clock.now();
    const lifetime =
      typeof res.expiresIn === 'number' && res.expiresIn > 0 ? res.expiresIn * 1000 : DEFAULT_JWT_LIFETIME_MS;
    const jwt = new Secret(res.accessToken, 'wallet JWT');
    jwtScopes = new Set([
      ...(typeof res.scope === 'string' ? res.scope.split(/\s+/).filter(Boolean) : []),
      ...(Array.isArray(res.tokenScopes) ? res.tokenScopes.map(String) : []),
    ]);
    o.credentials.setWalletJwt(jwt);
    jwtExpiresAt = now + lifetime;
    jwtRenewals++;
    lastError = null;
    log.info(
      { expiresAt: new Date(jwtExpiresAt).toISOString(), scopes: res.scope ?? null },
      'wallet JWT obtained from the personal access token',
    );
    // never sooner than a second after this one: a tiny lifetime must not loop
    const renewAt = now + Math.max(1_000, Math.floor(lifetime * jwtAt));
    schedule('jwt', renewAt, () => void renewJwt(0));
    return jwt;
  }

  /** Renewal by the timer: retried with backoff while the current JWT lives; then the 401 path decides. */
  async function renewJwt(attempt: number): Promise<void> {
    if (stopped || o.pat === undefined) return;
    try {
      await refreshWalletJwt();
    } catch (e) {
      if (fatal !== undefined) return;
      lastError = `${codeOf(e)}: ${textOf(e)}`;
      const wait = Math.min(300_000, retryBase * 2 ** attempt);
      const left = (jwtExpiresAt ?? 0) - o.clock.now();
      log.warn(
        { code: codeOf(e), attempt: attempt + 1, retryInMs: wait, jwtLeftMs: left },
        'JWT renewal failed',
      );
      schedule('jwt', o.clock.now() + wait, () => void renewJwt(attempt + 1));
    }
  }

  async function refreshWalletJwt(): Promise<Secret> {
    if (fatal !== undefined) throw fatal;
    if (o.pat === undefined)
      die(
        new FatalError(
          'wallet_jwt_refused',
          'the wallet JWT (HARPOON_WALLET_JWT) was refused (expired?) and there is no personal access token to renew it: ' +
            'run `harpoon auth login`, or set a fresh HARPOON_WALLET_JWT',
        ),
      );
    const pat = o.pat;
    jwtFlight ??= timed(exchangeOnce(pat)).finally(() => {
      jwtFlight = undefined;
    });
    return jwtFlight;
  }

  // -- instant API key ------------------------------------------------------------------------

  async function createKey(): Promise<Secret> {
    const now = o.clock.now();
    while (keysCreated.length > 0 && (keysCreated[0] as number) <= now - HOUR) keysCreated.shift();
    if (keysCreated.length >= INSTANT_KEYS_PER_HOUR)
      throw new RejectedError(
        'instant_key_budget',
        `${INSTANT_KEYS_PER_HOUR} instant keys were created in the last hour (the API's limit): next at ${new Date(
          (keysCreated[0] as number) + HOUR,
        ).toISOString()}`,
      );
    const res = await o.auth.createInstantKey();
    keysCreated.push(o.clock.now());
    keysTotal++;
    if (typeof res?.api_key !== 'string' || res.api_key === '')
      throw new RejectedError('instant_key_malformed', 'the instant key answer has no api_key');
    const key = new Secret(res.api_key, 'instant API key');
    const expires = Date.parse(res.expires_at);
    o.credentials.setApiKey(key);
    keyExpiresAt = Number.isFinite(expires) ? expires : null;
    lastError = null;
    try {
      o.onRates?.(parseGroupRates(res.rate_limits));
    } catch (e) {
      log.warn({ code: codeOf(e) }, 'instant key rate_limits unreadable; rates unchanged');
    }
    log.info(
      { name: res.name, expiresAt: res.expires_at, rateLimits: res.rate_limits },
      'instant API key created',
    );
    // an hour early, or a tenth of the key's life if that is more (7 d → 16.8 h): a clock that
    // jumps (a suspended machine) still finds the key renewable before it lapses
    const created = o.clock.now();
    if (keyExpiresAt !== null)
      schedule(
        'key',
        keyExpiresAt - Math.max(keyEarly, Math.floor((keyExpiresAt - created) / 10)),
        () => void renewKey(0),
      );
    return key;
  }

  async function renewKey(attempt: number): Promise<void> {
    if (stopped) return;
    try {
      await refreshApiKey();
    } catch (e) {
      if (fatal !== undefined) return;
      lastError = `${codeOf(e)}: ${textOf(e)}`;
      const now = o.clock.now();
      if (keyExpiresAt !== null && now >= keyExpiresAt) {
        fail(
          new FatalError(
            'api_key_expired',
            `the instant API key expired and could not be renewed (${lastError}): set HARPOON_API_KEY to a key of your account and start again`,
          ),
        );
        return;
      }
      const budgetWait =
        keysCreated.length >= INSTANT_KEYS_PER_HOUR ? (keysCreated[0] as number) + HOUR - now : 0;
      const wait = Math.max(budgetWait, Math.min(300_000, retryBase * 2 ** attempt));
      log.warn({ code: codeOf(e), attempt: attempt + 1, retryInMs: wait }, 'instant key renewal failed');
      schedule('key', Math.min(now + wait, keyExpiresAt ?? now + wait), () => void renewKey(attempt + 1));
    }
  }

  async function refreshApiKey(): Promise<Secret> {
    if (fatal !== undefined) throw fatal;
    if (!instant)
      die(
        new FatalError(
          'api_key_refused',
          'the API key was refused (401): check HARPOON_API_KEY / OPENSEA_API_KEY (revoked or mistyped?), ' +
            'or run without one and set api.instantKey: true',
        ),
      );
    keyFlight ??= timed(createKey()).finally(() => {
      keyFlight = undefined;
    });
    return keyFlight;
  }

  function stop(): void {
    stopped = true;
    if (jwtTimer !== undefined) timers.clear(jwtTimer);
    if (keyTimer !== undefined) timers.clear(keyTimer);
    jwtTimer = keyTimer = undefined;
  }

  return {
    async start() {
      if (instant) {
        try {
          await refreshApiKey();
        } catch (e) {
          if (e instanceof FatalError) throw e;
          throw new FatalError(
            'instant_key_unavailable',
            `no API key configured and an instant key could not be created (${codeOf(e)}: ${textOf(e)}): set HARPOON_API_KEY`,
          );
        }
      }
      if (o.pat !== undefined) await refreshWalletJwt();
    },
    refreshWalletJwt,
    refreshApiKey,
    hasScope: (scope) => fatal === undefined && jwtScopes.has(scope),
    get hasWalletCredential() {
      return fatal === undefined && (o.pat !== undefined || o.fixedJwt !== undefined);
    },
    status() {
      return {
        apiKey: {
          source: instant ? 'instant' : o.credentials.apiKey() !== undefined ? 'config' : 'none',
          expiresAt: keyExpiresAt,
        },
        walletJwt: {
          source: o.pat !== undefined ? 'pat' : o.fixedJwt !== undefined ? 'fixed' : 'none',
          expiresAt: jwtExpiresAt,
          renewals: jwtRenewals,
        },
        instantKeysCreated: keysTotal,
        longestRenewalMs,
        lastError,
      };
    },
    stop,
  };
}

import { Secret } from '../domain/secret.ts';
import { BaseError, FatalError } from '../errors/index.ts';
import { CookieJar } from './cookies.ts';

/** Returns the current wallet JWT (e.g. from the auth layer), or undefined when there is none yet. */
export type WalletJwtProvider = () => Secret | undefined | Promise<Secret | undefined>;

export interface CredentialsOptions {
  /** The API key (`X-API-KEY`). May be absent until an instant key is created. */
  readonly apiKey?: Secret;
  /** The wallet JWT, or a provider of the current one. */
  readonly walletJwt?: Secret | WalletJwtProvider;
  /** Called on a 401 of an `apiKey`/`wallet` request caused by the API key (or when no key is set). */
  readonly refreshApiKey?: () => Promise<Secret>;
  /** Called on a 401 of a `wallet` request (or when no JWT is available): exchange the PAT again. */
  readonly refreshWalletJwt?: () => Promise<Secret>;
  /** Called on a 401 of a `session` request: `POST /api/v2/auth/session/refresh` (cookies rotate). */
  readonly refreshSession?: () => Promise<void>;
  /** The SIWE session cookie jar; default a new empty one. */
  readonly cookieJar?: CookieJar;
  /** Clock for cookie expiry of the default jar. */
  readonly now?: () => number;
}

export type CredentialKind = 'apiKey' | 'walletJwt' | 'session';

/**
 * A snapshot of which credential generation a request was sent with, so that a 401 refreshes only
 * when nobody has refreshed since (N concurrent 401s → one refresh).
 */
export interface CredentialStamp {
  readonly apiKey: number;
  readonly walletJwt: number;
  readonly session: number;
}

/**
 * The credentials a transport sends. Secrets stay wrapped; `reveal()` happens only in the transport
 * while it builds headers. Refreshes are single-flight per kind.
 *
 * Wallet JWT precedence: the last JWT obtained through `refreshWalletJwt` (or `setWalletJwt`) wins
 * over the provider, because the provider's value is the one the server just refused.
 */
export class Credentials {
  readonly cookies: CookieJar;
  #apiKey: Secret | undefined;
  #jwt: Secret | undefined;
  readonly #jwtProvider: WalletJwtProvider | undefined;
  readonly #refreshApiKey: (() => Promise<Secret>) | undefined;
  readonly #refreshWalletJwt: (() => Promise<Secret>) | undefined;
  readonly #refreshSession: (() => Promise<void>) | undefined;
  readonly #gen: Record<CredentialKind, number> = { apiKey: 0, walletJwt: 0, session: 0 };
  readonly #inflight: Partial<Record<CredentialKind, Promise<void>>> = {};
  /** Every secret value this object has held, for value-based scrubbing of server text. */
  readonly #seen = new Set<Secret>();

  constructor(options: CredentialsOptions = {}) {
    this.#apiKey = options.apiKey;
    if (options.apiKey) this.#seen.add(options.apiKey);
    if (options.walletJwt instanceof Secret) {
      this.#jwt = options.walletJwt;
      this.#seen.add(options.walletJwt);
      this.#jwtProvider = undefined;
    } else {
      this.#jwtProvider = options.walletJwt;
    }
    this.#refreshApiKey = options.refreshApiKey;
    this.#refreshWalletJwt = options.refreshWalletJwt;
    this.#refreshSession = options.refreshSession;
    this.cookies = options.cookieJar ?? new CookieJar(options.now);
  }

  apiKey(): Secret | undefined {
    return this.#apiKey;
  }

  async walletJwt(): Promise<Secret | undefined> {
    if (this.#jwt) return this.#jwt;
    const jwt = this.#jwtProvider ? await this.#jwtProvider() : undefined;
    if (jwt) this.#seen.add(jwt);
    return jwt;
  }

  /** Replace the API key (e.g. after instant key creation). */
  setApiKey(key: Secret): void {
    this.#apiKey = key;
    this.#seen.add(key);
    this.#gen.apiKey++;
  }

  /** Replace the wallet JWT (e.g. after the auth layer exchanged the PAT). */
  setWalletJwt(jwt: Secret): void {
    this.#jwt = jwt;
    this.#seen.add(jwt);
    this.#gen.walletJwt++;
  }

  stamp(): CredentialStamp {
    return { ...this.#gen };
  }

  canRefresh(kind: CredentialKind): boolean {
    if (kind === 'apiKey') return this.#refreshApiKey !== undefined;
    if (kind === 'walletJwt') return this.#refreshWalletJwt !== undefined;
    return this.#refreshSession !== undefined;
  }

  /**
   * Refreshes `kind` unless it has already been refreshed since `usedStamp` (then the caller just
   * retries with the newer credential). Concurrent callers share one refresh.
   * Throws FatalError `unauthorized` when there is no hook; a hook's BaseError passes through.
   */
  async refresh(kind: CredentialKind, usedStamp: CredentialStamp): Promise<void> {
    if (this.#gen[kind] > usedStamp[kind]) return;
    const running = this.#inflight[kind];
    if (running) return running;
    if (!this.canRefresh(kind)) {
      throw new FatalError('unauthorized', `no way to refresh the ${describe(kind)}`, { details: { kind } });
    }
    const p = this.#runRefresh(kind).finally(() => {
      delete this.#inflight[kind];
    });
    this.#inflight[kind] = p;
    return p;
  }

  async #runRefresh(kind: CredentialKind): Promise<void> {
    try {
      if (kind === 'apiKey') {
        const key = await (this.#refreshApiKey as () => Promise<Secret>)();
        assertSecret(key, kind);
        this.setApiKey(key);
      } else if (kind === 'walletJwt') {
        const jwt = await (this.#refreshWalletJwt as () => Promise<Secret>)();
        assertSecret(jwt, kind);
        this.setWalletJwt(jwt);
      } else {
        await (this.#refreshSession as () => Promise<void>)();
        this.#gen.session++;
      }
    } catch (e) {
      if (e instanceof BaseError) throw e;
      // Never carry a hook's raw error: it may quote a token. Keep only its name.
      throw new FatalError('credential_refresh_failed', `refreshing the ${describe(kind)} failed`, {
        details: { kind, errorName: e instanceof Error ? e.name : typeof e },
      });
    }
  }

  /** Every secret value known to this object (API keys, JWTs, cookies), for scrubbing server text. */
  secretValues(): string[] {
    return [...[...this.#seen].map((s) => s.reveal()), ...this.cookies.values()];
  }
}

function describe(kind: CredentialKind): string {
  return kind === 'apiKey' ? 'API key' : kind === 'walletJwt' ? 'wallet JWT' : 'SIWE session';
}

function assertSecret(v: unknown, kind: CredentialKind): asserts v is Secret {
  if (!(v instanceof Secret)) {
    throw new FatalError(
      'credential_refresh_failed',
      `the ${describe(kind)} refresh hook returned no Secret`,
      {
        details: { kind },
      },
    );
  }
}

export function createCredentials(options: CredentialsOptions = {}): Credentials {
  return new Credentials(options);
}

import { createHash, randomBytes } from 'node:crypto';
import { AUTH_SCOPES } from '@opensea/api-types';
import { HttpError } from '../errors.ts';
import type { LimiterClock } from '../ratelimit/token-bucket.ts';
import { AuthHttpError, EXCHANGE_UNAVAILABLE } from './errors.ts';
import { JwtSigner, type WalletClaims } from './jwt.ts';
import { checkSiweFields, INVALID_SIGNATURE, SiweRejected, signedBy, siweFieldsOf } from './siwe.ts';

/**
 * The sandbox's wallet credentials (spec, Authentication): single-use SIWE nonces, SIWE sessions
 * (access and refresh cookies, the refresh cookie rotated at every refresh), scoped personal
 * access tokens (session only, the value shown once), PAT → wallet JWT exchange, and the check of
 * `Authorization: Bearer <JWT>` on wallet-scoped endpoints. Every lifetime is an option and is
 * judged on the sandbox clock.
 *
 * No secret is kept in clear: nonces, cookie values and PAT values are stored as SHA-256
 * digests, so nothing here can leak one into a log or the stats.
 */

export interface AuthLifetimes {
  /** A nonce not used within this is forgotten. Default 10 min. */
  readonly nonceMs: number;
  /** SIWE access cookie. Default 3.5 days. */
  readonly accessMs: number;
  /** SIWE refresh cookie (each rotated cookie gets a new one). Default 30 days. */
  readonly refreshMs: number;
  /** Wallet JWT. Default 12 hours. */
  readonly jwtMs: number;
  /** Largest `expiresInDays` of a PAT. Default 365. */
  readonly maxPatDays: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const DEFAULT_AUTH_LIFETIMES: AuthLifetimes = Object.freeze({
  nonceMs: 10 * 60_000,
  accessMs: 3.5 * DAY,
  refreshMs: 30 * DAY,
  jwtMs: 12 * HOUR,
  maxPatDays: 365,
});

export interface AuthOptions {
  readonly lifetimes?: Partial<AuthLifetimes>;
  /** Domains a SIWE message may name besides the sandbox's own host. Default `opensea.io`. */
  readonly siweDomains?: readonly string[];
  /** Chain ids a SIWE message may name. Default 1 and the sandbox's chain. */
  readonly siweChainIds?: readonly number[];
  /** Order cancellation needs a wallet JWT with `write:orders` too (default off: an API key may cancel). */
  readonly requireJwtOnCancel?: boolean;
}

export const SCOPE_NAMES: readonly string[] = Object.freeze(AUTH_SCOPES.map((s) => s.name));

export const ACCESS_COOKIE = 'access_token';
export const REFRESH_COOKIE = 'refresh_token';

/** A credential the server handed out once: its value goes to the client, its digest stays here. */
const digest = (value: string): string => createHash('sha256').update(value).digest('hex');

interface SessionToken {
  readonly wallet: string;
  readonly expiresAt: number;
}

interface PatRecord {
  readonly id: string;
  readonly wallet: string;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly days: number;
  readonly createdAt: number;
  expiresAt: number;
  /** Digest of the current value; undefined once revoked. */
  valueDigest: string | undefined;
  lastUsedAt: number | undefined;
}

export interface IssuedSession {
  readonly wallet: string;
  readonly access: string;
  readonly refresh: string;
  readonly accessMaxAgeSec: number;
  readonly refreshMaxAgeSec: number;
}

/** A PAT as created or rotated: `token` is the value, returned this once. */
export interface PatCreatedBody {
  readonly id: string;
  readonly token: string;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly createdAt: string;
  readonly expiresAt: string;
}

export interface PatListEntry {
  readonly id: string;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
}

export interface ExchangeBody {
  readonly accessToken: string;
  readonly tokenType: 'Bearer';
  readonly expiresIn: number;
  readonly scope: string;
  readonly tokenScopes: readonly string[];
}

/** Who a valid wallet JWT speaks for. */
export interface WalletIdentity {
  readonly address: string;
  readonly scopes: readonly string[];
  readonly patId: string;
}

export interface AuthCounts {
  nonces: number;
  signIns: number;
  refusedSignIns: number;
  refreshes: number;
  patsCreated: number;
  exchanges: number;
  refusedExchanges: number;
  jwtRefusals: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const iso = (ms: number): string => new Date(ms).toISOString();

export class AuthService {
  readonly lifetimes: AuthLifetimes;
  readonly #clock: LimiterClock;
  readonly #domains: readonly string[];
  readonly #chainIds: readonly number[];
  readonly #jwt = new JwtSigner();
  readonly #random: (bytes: number) => Buffer;
  /** Nonce → expiry (epoch ms). */
  readonly #nonces = new Map<string, number>();
  readonly #access = new Map<string, SessionToken>();
  readonly #refresh = new Map<string, SessionToken>();
  readonly #pats = new Map<string, PatRecord>();
  /** PAT value digest → PAT id (current values only). */
  readonly #patByValue = new Map<string, string>();
  /** Digests of PAT values that were rotated away or revoked (to answer "a PAT is not a JWT"). */
  readonly #retiredPats = new Set<string>();
  requireJwtOnCancel: boolean;
  readonly counts: AuthCounts = {
    nonces: 0,
    signIns: 0,
    refusedSignIns: 0,
    refreshes: 0,
    patsCreated: 0,
    exchanges: 0,
    refusedExchanges: 0,
    jwtRefusals: 0,
  };

  constructor(
    clock: LimiterClock,
    options: AuthOptions & { readonly chainId?: number; readonly random?: (n: number) => Buffer } = {},
  ) {
    this.#clock = clock;
    this.lifetimes = Object.freeze({ ...DEFAULT_AUTH_LIFETIMES, ...options.lifetimes });
    for (const [k, v] of Object.entries(this.lifetimes)) {
      if (!(typeof v === 'number' && v > 0)) throw new RangeError(`auth lifetime ${k} must be > 0, got ${v}`);
    }
    this.#domains = options.siweDomains ?? ['opensea.io'];
    this.#chainIds = options.siweChainIds ?? [...new Set([1, options.chainId ?? 1])];
    this.requireJwtOnCancel = options.requireJwtOnCancel ?? false;
    this.#random = options.random ?? randomBytes;
  }

  #now(): number {
    return this.#clock.wallNow();
  }

  #secret(prefix: string): string {
    return `${prefix}${this.#random(24).toString('hex')}`;
  }

  // ── SIWE ───────────────────────────────────────────────────────────────────────────────────

  /** A fresh single-use nonce (alphanumeric, as EIP-4361 wants). */
  newNonce(): string {
    const now = this.#now();
    for (const [n, exp] of this.#nonces) if (exp <= now) this.#nonces.delete(n);
    const nonce = this.#random(16).toString('hex');
    this.#nonces.set(nonce, now + this.lifetimes.nonceMs);
    this.counts.nonces++;
    return nonce;
  }

  /**
   * `siwe/verify`: checks the body (`message` fields, `signature`, `chainArch`), uses up the nonce,
   * and opens a session. `ownDomains` are the host names the sandbox is reached at.
   */
  signIn(body: unknown, ownDomains: readonly string[]): IssuedSession {
    try {
      if (!isRecord(body)) throw new SiweRejected('The request body must be {message, signature, chainArch}');
      const fields = siweFieldsOf(body['message']);
      const signature = body['signature'];
      if (typeof signature !== 'string' || signature === '') throw new SiweRejected(INVALID_SIGNATURE);
      const arch = body['chainArch'];
      if (arch !== 'EVM') {
        throw new SiweRejected(`chainArch must be EVM for Ethereum accounts, got ${JSON.stringify(arch)}`);
      }
      const exp = this.#nonces.get(fields.nonce);
      this.#nonces.delete(fields.nonce);
      if (exp === undefined || exp <= this.#now()) throw new SiweRejected('Invalid or expired nonce');
      const address = checkSiweFields(fields, {
        domains: [...this.#domains, ...ownDomains],
        chainIds: this.#chainIds,
        nowMs: this.#now(),
        skewMs: 5 * 60_000,
      });
      if (!signedBy(fields, signature, address)) throw new SiweRejected(INVALID_SIGNATURE);
      this.counts.signIns++;
      return this.#openSession(address);
    } catch (e) {
      if (e instanceof SiweRejected) {
        this.counts.refusedSignIns++;
        throw new AuthHttpError(400, e.message);
      }
      throw e;
    }
  }

  #openSession(wallet: string): IssuedSession {
    const now = this.#now();
    const access = this.#secret('sat_');
    const refresh = this.#secret('srt_');
    this.#access.set(digest(access), { wallet, expiresAt: now + this.lifetimes.accessMs });
    this.#refresh.set(digest(refresh), { wallet, expiresAt: now + this.lifetimes.refreshMs });
    return {
      wallet,
      access,
      refresh,
      accessMaxAgeSec: Math.floor(this.lifetimes.accessMs / 1000),
      refreshMaxAgeSec: Math.floor(this.lifetimes.refreshMs / 1000),
    };
  }

  /** `session/refresh`: a valid refresh cookie buys a new pair; the old refresh cookie stops working. */
  refresh(refreshToken: string | undefined): IssuedSession {
    const key = refreshToken !== undefined ? digest(refreshToken) : undefined;
    const rec = key !== undefined ? this.#refresh.get(key) : undefined;
    if (key === undefined || !rec || rec.expiresAt <= this.#now()) {
      if (key !== undefined) this.#refresh.delete(key);
      throw new AuthHttpError(401, 'Invalid or expired refresh token: sign in again (SIWE)');
    }
    this.#refresh.delete(key);
    this.counts.refreshes++;
    return this.#openSession(rec.wallet);
  }

  /**
   * The wallet of a live session (PAT management), else 401. A bearer token without the session
   * cookie is refused: PAT management is session only.
   */
  sessionWallet(accessToken: string | undefined, hasBearer: boolean): string {
    if (accessToken === undefined) {
      throw new AuthHttpError(
        401,
        hasBearer
          ? 'Personal access tokens are managed with the SIWE session only; a wallet JWT cannot manage them'
          : 'Not signed in: a SIWE session (access_token cookie) is required',
      );
    }
    const rec = this.#access.get(digest(accessToken));
    if (!rec) throw new AuthHttpError(401, 'Invalid session: sign in again');
    if (rec.expiresAt <= this.#now()) {
      throw new AuthHttpError(401, 'Session expired: refresh it with POST /api/v2/auth/session/refresh');
    }
    return rec.wallet;
  }

  // ── PATs ───────────────────────────────────────────────────────────────────────────────────

  createPat(wallet: string, body: unknown): PatCreatedBody {
    if (!isRecord(body))
      throw new AuthHttpError(400, 'The request body must be {label, scopes, expiresInDays}');
    const label = body['label'];
    if (typeof label !== 'string' || label.trim() === '' || label.length > 200) {
      throw new AuthHttpError(400, 'label: required, 1 to 200 characters');
    }
    const scopes = body['scopes'];
    if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string')) {
      throw new AuthHttpError(400, 'scopes: required, a non-empty list of scope names');
    }
    const unknown = scopes.filter((s) => !SCOPE_NAMES.includes(s));
    if (unknown.length > 0) {
      throw new AuthHttpError(
        400,
        `scopes: unknown scope(s) ${unknown.join(', ')}; see GET /api/v2/auth/scopes`,
      );
    }
    const days = body['expiresInDays'];
    const max = this.lifetimes.maxPatDays;
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > max) {
      throw new AuthHttpError(400, `expiresInDays: required, a whole number from 1 to ${max}`);
    }
    const now = this.#now();
    const rec: PatRecord = {
      id: this.#random(8).toString('hex'),
      wallet,
      label,
      scopes: [...new Set(scopes as string[])],
      days,
      createdAt: now,
      expiresAt: now + days * DAY,
      valueDigest: undefined,
      lastUsedAt: undefined,
    };
    this.#pats.set(rec.id, rec);
    this.counts.patsCreated++;
    return this.#issueValue(rec);
  }

  #issueValue(rec: PatRecord): PatCreatedBody {
    if (rec.valueDigest !== undefined) {
      this.#patByValue.delete(rec.valueDigest);
      this.#retiredPats.add(rec.valueDigest);
    }
    const token = this.#secret('pat_');
    rec.valueDigest = digest(token);
    this.#patByValue.set(rec.valueDigest, rec.id);
    return {
      id: rec.id,
      token,
      label: rec.label,
      scopes: rec.scopes,
      createdAt: iso(rec.createdAt),
      expiresAt: iso(rec.expiresAt),
    };
  }

  #ownPat(wallet: string, id: string): PatRecord {
    const rec = this.#pats.get(id);
    if (!rec || rec.wallet !== wallet || rec.valueDigest === undefined) {
      throw new AuthHttpError(404, `No personal access token ${id}`);
    }
    return rec;
  }

  /** The session wallet's live PATs (never their values). */
  listPats(wallet: string): PatListEntry[] {
    const now = this.#now();
    return [...this.#pats.values()]
      .filter((p) => p.wallet === wallet && p.valueDigest !== undefined && p.expiresAt > now)
      .map((p) => ({
        id: p.id,
        label: p.label,
        scopes: p.scopes,
        createdAt: iso(p.createdAt),
        expiresAt: iso(p.expiresAt),
        lastUsedAt: p.lastUsedAt !== undefined ? iso(p.lastUsedAt) : null,
      }));
  }

  /** A new value for the same PAT (same id, label, scopes; lifetime restarts); the old value stops exchanging. */
  rotatePat(wallet: string, id: string): PatCreatedBody {
    const rec = this.#ownPat(wallet, id);
    rec.expiresAt = this.#now() + rec.days * DAY;
    return this.#issueValue(rec);
  }

  revokePat(wallet: string, id: string): void {
    const rec = this.#ownPat(wallet, id);
    this.#patByValue.delete(rec.valueDigest as string);
    this.#retiredPats.add(rec.valueDigest as string);
    rec.valueDigest = undefined;
  }

  // ── exchange and bearer check ─────────────────────────────────────────────────────────────

  /** `tokens/exchange`: a live PAT → a wallet JWT with the PAT's scopes. */
  exchange(body: unknown): ExchangeBody {
    if (!isRecord(body) || body['subjectToken'] === undefined || body['subjectToken'] === null) {
      throw new AuthHttpError(422, 'subjectToken: required field is missing');
    }
    const type = body['subjectTokenType'] ?? 'ACCESS_TOKEN';
    if (type !== 'ACCESS_TOKEN') {
      throw new AuthHttpError(422, `subjectTokenType: unsupported, must be ACCESS_TOKEN`);
    }
    const token = body['subjectToken'];
    if (typeof token !== 'string' || token.length < 10 || token.length > 8192) {
      throw new AuthHttpError(400, 'subjectToken: must be a string of 10 to 8192 characters');
    }
    const id = this.#patByValue.get(digest(token));
    const rec = id !== undefined ? this.#pats.get(id) : undefined;
    const now = this.#now();
    if (!rec || rec.valueDigest === undefined || rec.expiresAt <= now) {
      this.counts.refusedExchanges++;
      throw new AuthHttpError(403, EXCHANGE_UNAVAILABLE);
    }
    rec.lastUsedAt = now;
    const nowSec = Math.floor(now / 1000);
    const expiresIn = Math.floor(this.lifetimes.jwtMs / 1000);
    const claims: WalletClaims = {
      sub: rec.wallet,
      wallet: rec.wallet,
      opensea_scopes: rec.scopes,
      iat: nowSec,
      exp: nowSec + expiresIn,
      jti: this.#random(8).toString('hex'),
      pat: rec.id,
    };
    this.counts.exchanges++;
    return {
      accessToken: this.#jwt.sign(claims),
      tokenType: 'Bearer',
      expiresIn,
      scope: rec.scopes.join(' '),
      tokenScopes: rec.scopes,
    };
  }

  /**
   * The wallet of `Authorization: Bearer <JWT>` carrying `scope`: 401 when missing, malformed,
   * expired or a PAT (a PAT is never sent there), 403 when the scope is missing. Errors are the
   * API's `{"errors": [...]}` (`body` merged in, e.g. the eligibility 403's `stages`).
   */
  bearer(authorization: string | undefined, scope: string, body?: Record<string, unknown>): WalletIdentity {
    const refuse = (status: number, why: string): never => {
      this.counts.jwtRefusals++;
      throw new HttpError(status, why, status === 403 ? body : undefined);
    };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!m) {
      return refuse(
        401,
        `A wallet JWT is required: send Authorization: Bearer <ACCESS_TOKEN> with the scope ${scope}`,
      );
    }
    const token = m[1] as string;
    const d = digest(token);
    if (this.#patByValue.has(d) || this.#retiredPats.has(d)) {
      return refuse(
        401,
        'A personal access token is never sent in the Authorization header: exchange it for a wallet JWT (POST /api/v2/auth/tokens/exchange)',
      );
    }
    const v = this.#jwt.verify(token, Math.floor(this.#now() / 1000));
    if (!v.ok) {
      return refuse(
        401,
        v.reason === 'expired' ? 'Wallet JWT expired: exchange the PAT again' : 'Invalid wallet JWT',
      );
    }
    if (!v.claims.opensea_scopes.includes(scope)) {
      return refuse(403, `Missing scope: ${scope}. Request a PAT with the missing scope`);
    }
    return { address: v.claims.wallet, scopes: v.claims.opensea_scopes, patId: v.claims.pat };
  }

  /** Counters and sizes for `/_sandbox/stats` (no secrets). */
  stats(): AuthCounts & {
    readonly sessions: number;
    readonly pats: number;
    readonly requireJwtOnCancel: boolean;
  } {
    return {
      ...this.counts,
      sessions: this.#refresh.size,
      pats: [...this.#pats.values()].filter((p) => p.valueDigest !== undefined).length,
      requireJwtOnCancel: this.requireJwtOnCancel,
    };
  }
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Wallet JWTs of the sandbox: compact JWS, HS256, signed with a key that lives only in this
 * process (a restarted sandbox forgets every JWT, as a rotated signing key would).
 *
 * Claims follow what clients read from the real tokens: `wallet` (checksummed address),
 * `opensea_scopes` (array), plus `sub`, `iat`, `exp` (epoch seconds), `jti` and `pat` (the id of
 * the PAT it was exchanged from).
 */

export interface WalletClaims {
  readonly sub: string;
  readonly wallet: string;
  readonly opensea_scopes: readonly string[];
  /** Epoch seconds. */
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  readonly pat: string;
}

export type JwtVerdict =
  | { readonly ok: true; readonly claims: WalletClaims }
  | { readonly ok: false; readonly reason: 'malformed' | 'signature' | 'expired' };

const b64 = (v: Buffer | string): string => Buffer.from(v).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

export class JwtSigner {
  readonly #key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.#key = Buffer.from(key);
  }

  sign(claims: WalletClaims): string {
    const body = `${HEADER}.${b64(JSON.stringify(claims))}`;
    return `${body}.${this.#mac(body)}`;
  }

  /** Checks form, signature and expiry (`nowSec`, the sandbox clock). */
  verify(token: string, nowSec: number): JwtVerdict {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return { ok: false, reason: 'malformed' };
    const body = `${parts[0]}.${parts[1]}`;
    const want = Buffer.from(this.#mac(body));
    const got = Buffer.from(parts[2] as string);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false, reason: 'signature' };
    let claims: WalletClaims;
    try {
      claims = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as WalletClaims;
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (typeof claims.exp !== 'number' || !Array.isArray(claims.opensea_scopes)) {
      return { ok: false, reason: 'malformed' };
    }
    if (claims.exp <= nowSec) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}

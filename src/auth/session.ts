// The SIWE session of `harpoon auth`: signing in with the wallet's key (nonce → EIP-4361 message →
// personal_sign → verify; the transport keeps the HTTP-only cookies in its jar), moving the cookies
// between the jar and the credentials file, and running a session call with one session refresh on
// a 401 (the refresh cookie rotates: the caller saves the new one).
import type { CookieJar } from '../api/cookies.ts';
import type { AuthApi } from '../api/endpoints/auth.ts';
import { httpErrorInfo } from '../api/errors.ts';
import { signPersonalMessage } from '../chain/personal-sign.ts';
import type { Signer } from '../chain/signer.ts';
import { FatalError } from '../errors/index.ts';
import type { StoredCookie } from './credentials-file.ts';
import { buildSiweMessage } from './siwe-message.ts';

export const ACCESS_COOKIE = 'access_token';
export const REFRESH_COOKIE = 'refresh_token';

const LOGIN_AGAIN = 'run `harpoon auth login` to sign in again';

export interface SignInOptions {
  readonly baseUrl: string;
  readonly chainId: number;
  readonly nowMs: number;
}

/** Signs in with the wallet's key; the session cookies land in the transport's jar. */
export async function signInWithWallet(
  auth: Pick<AuthApi, 'siweNonce' | 'siweVerify'>,
  signer: Pick<Signer, 'address' | 'signDigest'>,
  o: SignInOptions,
): Promise<void> {
  const { nonce } = await auth.siweNonce();
  const message = buildSiweMessage({
    baseUrl: o.baseUrl,
    address: signer.address,
    chainId: o.chainId,
    nonce,
    nowMs: o.nowMs,
  });
  const signature = signPersonalMessage(signer, message.text);
  await auth.siweVerify({ message: message.fields, signature, chainArch: 'EVM' });
}

/** The jar's live cookies as the credentials file keeps them. */
export function cookiesOfJar(jar: CookieJar): StoredCookie[] {
  return jar.entries().map((c) => ({ name: c.name, value: c.value, expiresAt: c.expiresAtMs ?? null }));
}

/** Puts stored cookies into the jar (expired ones are skipped). */
export function restoreCookies(jar: CookieJar, cookies: readonly StoredCookie[]): void {
  for (const c of cookies) jar.set(c.name, c.value, c.expiresAt ?? undefined);
}

/** The session is gone (no cookie left, or the server refused the refresh cookie). */
export function sessionGone(why: string): FatalError {
  return new FatalError('session_expired', `${why}: ${LOGIN_AGAIN}`);
}

const isUnauthorized = (e: unknown): boolean => httpErrorInfo(e)?.status === 401;

/**
 * Runs a session call. On a 401 it refreshes the session once (`session/refresh`, which rotates
 * the refresh cookie), calls `onRefreshed` (save the cookies now: the old refresh cookie is dead)
 * and runs the call again. No refresh cookie, a refused refresh or a second 401 is FatalError
 * `session_expired` that says to sign in again.
 */
export async function withSession<T>(
  jar: CookieJar,
  auth: Pick<AuthApi, 'refreshSession'>,
  call: () => Promise<T>,
  onRefreshed: () => void,
): Promise<T> {
  if (jar.size === 0) throw sessionGone('no SIWE session is stored (or it has expired)');
  try {
    return await call();
  } catch (e) {
    if (!isUnauthorized(e)) throw e;
  }
  if (!jar.has(REFRESH_COOKIE))
    throw sessionGone('the SIWE session has expired and no refresh cookie is left');
  try {
    await auth.refreshSession();
  } catch (e) {
    if (isUnauthorized(e))
      throw sessionGone('the SIWE session could not be refreshed (the refresh cookie was refused)');
    throw e;
  }
  onRefreshed();
  try {
    return await call();
  } catch (e) {
    if (isUnauthorized(e)) throw sessionGone('the server refused the refreshed SIWE session');
    throw e;
  }
}

import { verifyMessage } from 'ethers';
import { describe, expect, it } from 'vitest';
import { CookieJar } from '../../../src/api/cookies.ts';
import { httpError } from '../../../src/api/errors.ts';
import type { SiweVerifyRequest } from '../../../src/api/types.ts';
import { cookiesOfJar, restoreCookies, signInWithWallet, withSession } from '../../../src/auth/session.ts';
import { signerFromPrivateKey } from '../../../src/chain/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { FatalError, RejectedError } from '../../../src/errors/index.ts';

const unauthorized = () =>
  httpError({
    method: 'GET',
    path: '/api/v2/auth/tokens',
    status: 401,
    reasons: ['Session expired'],
    group: 'read',
  });

function jarWith(names: string[], now = () => 1_000): CookieJar {
  const jar = new CookieJar(now);
  for (const n of names) jar.set(n, new Secret(`${n}-v1`, n), 10_000);
  return jar;
}

/** A fake session/refresh: rotates both cookies in the jar, as the transport does with Set-Cookie. */
function fakeAuth(jar: CookieJar, refuse = false) {
  let refreshes = 0;
  return {
    get refreshes() {
      return refreshes;
    },
    async refreshSession() {
      refreshes++;
      if (refuse) throw unauthorized();
      jar.set('access_token', new Secret(`access-v${refreshes + 1}`), 10_000);
      jar.set('refresh_token', new Secret(`refresh-v${refreshes + 1}`), 50_000);
      return {};
    },
  };
}

describe('withSession: one session refresh on a 401', () => {
  it('refreshes once, saves the rotated cookies, then runs the call again', async () => {
    const jar = jarWith(['access_token', 'refresh_token']);
    const auth = fakeAuth(jar);
    let calls = 0;
    const saved: string[] = [];
    const r = await withSession(
      jar,
      auth,
      async () => {
        calls++;
        if (calls === 1) throw unauthorized();
        return 'tokens';
      },
      () => saved.push(jar.get('refresh_token')?.reveal() ?? ''),
    );
    expect(r).toBe('tokens');
    expect([calls, auth.refreshes]).toEqual([2, 1]);
    expect(saved).toEqual(['refresh-v2']);
  });

  it('no refresh without a 401; other errors pass through untouched', async () => {
    const jar = jarWith(['access_token', 'refresh_token']);
    const auth = fakeAuth(jar);
    await expect(
      withSession(
        jar,
        auth,
        async () => 1,
        () => {},
      ),
    ).resolves.toBe(1);
    const notFound = new RejectedError('http_404', 'no token');
    await expect(
      withSession(
        jar,
        auth,
        () => Promise.reject(notFound),
        () => {},
      ),
    ).rejects.toBe(notFound);
    expect(auth.refreshes).toBe(0);
  });

  it('a second 401, a refused refresh, no refresh cookie or no cookie at all: sign in again', async () => {
    const jar = jarWith(['access_token', 'refresh_token']);
    const again = withSession(
      jar,
      fakeAuth(jar),
      () => Promise.reject(unauthorized()),
      () => {},
    );
    await expect(again).rejects.toThrow(FatalError);
    await expect(again).rejects.toThrow(/refreshed SIWE session.*harpoon auth login/);

    const refused = jarWith(['access_token', 'refresh_token']);
    await expect(
      withSession(
        refused,
        fakeAuth(refused, true),
        () => Promise.reject(unauthorized()),
        () => {},
      ),
    ).rejects.toMatchObject({
      code: 'session_expired',
      message: expect.stringMatching(/refresh cookie was refused/),
    });

    const accessOnly = jarWith(['access_token']);
    const a = fakeAuth(accessOnly);
    await expect(
      withSession(
        accessOnly,
        a,
        () => Promise.reject(unauthorized()),
        () => {},
      ),
    ).rejects.toThrow(/no refresh cookie is left: run `harpoon auth login`/);
    expect(a.refreshes).toBe(0);

    let ran = false;
    await expect(
      withSession(
        new CookieJar(),
        fakeAuth(new CookieJar()),
        async () => (ran = true),
        () => {},
      ),
    ).rejects.toMatchObject({ code: 'session_expired' });
    expect(ran).toBe(false);
  });
});

describe('session cookies between the jar and the credentials file', () => {
  it('round-trips names, values and expiry; an expired stored cookie is not restored', () => {
    let now = 1_000;
    const jar = new CookieJar(() => now);
    jar.store(['access_token=a1; Max-Age=10; HttpOnly', 'refresh_token=r1; Max-Age=100', 'plain=p']);
    const stored = cookiesOfJar(jar);
    expect(stored.map((c) => [c.name, c.value.reveal(), c.expiresAt])).toEqual([
      ['access_token', 'a1', 11_000],
      ['refresh_token', 'r1', 101_000],
      ['plain', 'p', null],
    ]);
    // values stay wrapped
    expect(JSON.stringify(stored)).not.toMatch(/a1|r1/);

    now = 50_000; // the access cookie has expired
    const back = new CookieJar(() => now);
    restoreCookies(back, stored);
    expect(back.names().sort()).toEqual(['plain', 'refresh_token']);
    expect(back.header()).toBe('refresh_token=r1; plain=p');
  });
});

describe('signInWithWallet', () => {
  it('signs the EIP-4361 text of the nonce with the wallet and sends the parsed fields', async () => {
    const signer = signerFromPrivateKey(
      new Secret('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'),
    );
    let sent: SiweVerifyRequest | undefined;
    await signInWithWallet(
      {
        siweNonce: async () => ({ nonce: 'n0nce1234567' }),
        siweVerify: async (r) => {
          sent = r;
          return {};
        },
      },
      signer,
      { baseUrl: 'http://127.0.0.1:5000', chainId: 1, nowMs: Date.UTC(2026, 5, 1) },
    );
    expect(sent?.chainArch).toBe('EVM');
    expect(sent?.message).toMatchObject({
      domain: '127.0.0.1:5000',
      uri: 'http://127.0.0.1:5000',
      address: signer.address,
      nonce: 'n0nce1234567',
      chainId: '1',
      accountType: 'Ethereum',
      issuedAt: '2026-06-01T00:00:00.000Z',
    });
    const m = sent?.message as NonNullable<typeof sent>['message'];
    const text = [
      `${m.domain} wants you to sign in with your Ethereum account:`,
      m.address,
      '',
      m.statement,
      '',
      `URI: ${m.uri}`,
      'Version: 1',
      `Chain ID: ${m.chainId}`,
      `Nonce: ${m.nonce}`,
      `Issued At: ${m.issuedAt}`,
    ].join('\n');
    expect(verifyMessage(text, sent?.signature as string)).toBe(signer.address);
  });
});

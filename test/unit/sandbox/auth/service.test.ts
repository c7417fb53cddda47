import { createSiwxMessage, parseSiwxMessage } from '@opensea/sdk';
import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { AuthHttpError, EXCHANGE_UNAVAILABLE } from '../../../../src/sandbox/auth/errors.ts';
import { JwtSigner } from '../../../../src/sandbox/auth/jwt.ts';
import { AuthService, SCOPE_NAMES } from '../../../../src/sandbox/auth/service.ts';
import { SandboxClock } from '../../../../src/sandbox/clock.ts';
import { HttpError } from '../../../../src/sandbox/errors.ts';

/** A JWT's claims read without checking it (the test reads them to forge a token with another key). */
function decodeClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const wallet = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

function setup(options: ConstructorParameters<typeof AuthService>[1] = {}) {
  let wall = Date.UTC(2025, 0, 1);
  const clock = new SandboxClock({ now: () => wall, wallNow: () => wall });
  const auth = new AuthService(clock, options);
  return {
    clock,
    auth,
    tick(ms: number) {
      wall += ms;
    },
    async signIn(patch: Record<string, unknown> = {}) {
      const message = createSiwxMessage({
        address: wallet.address,
        chainArch: 'EVM',
        chainId: 1,
        nonce: auth.newNonce(),
        issuedAt: new Date(clock.wallNow()),
      });
      const signature = await wallet.signMessage(message);
      return auth.signIn(
        { message: { ...parseSiwxMessage(message), ...patch }, signature, chainArch: 'EVM' },
        [],
      );
    },
  };
}

function statusOf(f: () => unknown): [number, string] {
  try {
    f();
  } catch (e) {
    if (e instanceof HttpError) return [e.status, e.reasons.join('; ')];
    throw e;
  }
  throw new Error('expected an HttpError');
}

describe('AuthService: SIWE sessions', () => {
  it('signs in once per nonce and sets both cookies with the 3.5-day and 30-day lifetimes', async () => {
    const t = setup();
    const s = await t.signIn();
    expect(s.wallet).toBe(wallet.address);
    expect(s.accessMaxAgeSec).toBe(302_400);
    expect(s.refreshMaxAgeSec).toBe(2_592_000);
    expect(t.auth.sessionWallet(s.access, false)).toBe(wallet.address);
    // The nonce is used up: the same body again is refused.
    const message = createSiwxMessage({
      address: wallet.address,
      chainArch: 'EVM',
      chainId: 1,
      nonce: 'a'.repeat(16),
    });
    const signature = await wallet.signMessage(message);
    const e = statusOf(() =>
      t.auth.signIn({ message: parseSiwxMessage(message), signature, chainArch: 'EVM' }, []),
    );
    expect(e).toEqual([400, 'Invalid or expired nonce']);
  });

  it('refuses a missing accountType with the invalid-signature 400 in the auth error shape', async () => {
    const t = setup();
    const err = await t.signIn({ accountType: undefined }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthHttpError);
    expect((err as AuthHttpError).toBody()).toEqual({
      error: { message: 'Invalid signature', status: 'BAD_REQUEST', code: 400 },
    });
  });

  it('refuses an unknown chainArch and a nonce older than its lifetime', async () => {
    const t = setup({ lifetimes: { nonceMs: 1000 } });
    const nonce = t.auth.newNonce();
    t.tick(1000);
    const message = createSiwxMessage({ address: wallet.address, chainArch: 'EVM', chainId: 1, nonce });
    const signature = await wallet.signMessage(message);
    const body = { message: parseSiwxMessage(message), signature };
    expect(statusOf(() => t.auth.signIn({ ...body, chainArch: 'SVM' }, []))[1]).toMatch(/chainArch/);
    expect(statusOf(() => t.auth.signIn({ ...body, chainArch: 'EVM' }, []))[1]).toBe(
      'Invalid or expired nonce',
    );
  });

  it('expires the access cookie after 3.5 days; refresh rotates the refresh cookie (the old one stops)', async () => {
    const t = setup();
    const s = await t.signIn();
    t.tick(3.5 * DAY);
    expect(statusOf(() => t.auth.sessionWallet(s.access, false))).toEqual([
      401,
      'Session expired: refresh it with POST /api/v2/auth/session/refresh',
    ]);
    const r = t.auth.refresh(s.refresh);
    expect(r.refresh).not.toBe(s.refresh);
    expect(t.auth.sessionWallet(r.access, false)).toBe(wallet.address);
    expect(statusOf(() => t.auth.refresh(s.refresh))[0]).toBe(401);
    expect(statusOf(() => t.auth.refresh(undefined))[0]).toBe(401);
  });

  it('expires the refresh cookie after 30 days (sign in again)', async () => {
    const t = setup();
    const s = await t.signIn();
    t.tick(30 * DAY - 1);
    const r = t.auth.refresh(s.refresh);
    t.tick(30 * DAY);
    expect(statusOf(() => t.auth.refresh(r.refresh))).toEqual([
      401,
      'Invalid or expired refresh token: sign in again (SIWE)',
    ]);
  });

  it('PAT management is session only: a bearer without the cookie is told so', () => {
    const t = setup();
    expect(statusOf(() => t.auth.sessionWallet(undefined, true))[1]).toMatch(
      /a wallet JWT cannot manage them/,
    );
    expect(statusOf(() => t.auth.sessionWallet(undefined, false))[1]).toMatch(/Not signed in/);
    expect(statusOf(() => t.auth.sessionWallet('sat_nope', false))[0]).toBe(401);
  });
});

describe('AuthService: PATs, exchange, wallet JWT', () => {
  const W = wallet.address;

  it('validates creation: label, known scopes, expiresInDays within bounds', () => {
    const t = setup({ lifetimes: { maxPatDays: 30 } });
    const ok = { label: 'bot', scopes: ['write:orders'], expiresInDays: 1 };
    expect(statusOf(() => t.auth.createPat(W, { ...ok, label: '' }))[1]).toMatch(/label/);
    expect(statusOf(() => t.auth.createPat(W, { ...ok, scopes: [] }))[1]).toMatch(/scopes/);
    expect(statusOf(() => t.auth.createPat(W, { ...ok, scopes: ['write:everything'] }))[1]).toMatch(
      /unknown scope\(s\) write:everything/,
    );
    expect(statusOf(() => t.auth.createPat(W, { ...ok, expiresInDays: 31 }))[1]).toMatch(/1 to 30/);
    expect(statusOf(() => t.auth.createPat(W, { ...ok, expiresInDays: 1.5 }))[0]).toBe(400);
  });

  it('returns the value once: the list never shows it', () => {
    const t = setup();
    const pat = t.auth.createPat(W, { label: 'bot', scopes: ['read:eligibility'], expiresInDays: 2 });
    expect(pat.token).toMatch(/^pat_[0-9a-f]{48}$/);
    const list = t.auth.listPats(W);
    expect(list.map((p) => p.id)).toEqual([pat.id]);
    expect(JSON.stringify(list)).not.toContain(pat.token);
    expect(t.auth.listPats(Wallet.createRandom().address)).toEqual([]);
  });

  it('exchanges a PAT for a 12-hour JWT carrying its scopes; the JWT expires, the PAT exchanges again', () => {
    const t = setup();
    const pat = t.auth.createPat(W, {
      label: 'bot',
      scopes: ['read:eligibility', 'write:orders'],
      expiresInDays: 1,
    });
    const x = t.auth.exchange({ subjectToken: pat.token, subjectTokenType: 'ACCESS_TOKEN' });
    expect(x).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 43_200,
      scope: 'read:eligibility write:orders',
      tokenScopes: ['read:eligibility', 'write:orders'],
    });
    expect(decodeClaims(x.accessToken)).toMatchObject({ wallet: W, pat: pat.id });
    const id = t.auth.bearer(`Bearer ${x.accessToken}`, 'write:orders');
    expect(id).toEqual({ address: W, scopes: ['read:eligibility', 'write:orders'], patId: pat.id });
    t.tick(12 * HOUR);
    expect(statusOf(() => t.auth.bearer(`Bearer ${x.accessToken}`, 'write:orders'))).toEqual([
      401,
      'Wallet JWT expired: exchange the PAT again',
    ]);
    const again = t.auth.exchange({ subjectToken: pat.token });
    expect(t.auth.bearer(`Bearer ${again.accessToken}`, 'read:eligibility').address).toBe(W);
  });

  it('403 for a missing scope, 401 for none, a forged one, or a PAT in Authorization', () => {
    const t = setup();
    const pat = t.auth.createPat(W, { label: 'bot', scopes: ['write:orders'], expiresInDays: 1 });
    const jwt = t.auth.exchange({ subjectToken: pat.token }).accessToken;
    const [s403, m403] = statusOf(() => t.auth.bearer(`Bearer ${jwt}`, 'read:eligibility'));
    expect([s403, m403]).toEqual([
      403,
      'Missing scope: read:eligibility. Request a PAT with the missing scope',
    ]);
    expect(statusOf(() => t.auth.bearer(undefined, 'write:orders'))[0]).toBe(401);
    const claims = decodeClaims(jwt) as unknown as Parameters<JwtSigner['sign']>[0];
    const forged = new JwtSigner().sign({ ...claims, opensea_scopes: ['read:eligibility'] });
    expect(statusOf(() => t.auth.bearer(`Bearer ${forged}`, 'read:eligibility'))).toEqual([
      401,
      'Invalid wallet JWT',
    ]);
    expect(statusOf(() => t.auth.bearer(`Bearer ${pat.token}`, 'write:orders'))[1]).toMatch(
      /personal access token is never sent in the Authorization header/,
    );
    expect(t.auth.counts.jwtRefusals).toBe(4);
  });

  it('rotation and revocation stop new exchanges; JWTs already issued stay valid until they expire', () => {
    const t = setup();
    const pat = t.auth.createPat(W, { label: 'bot', scopes: ['write:orders'], expiresInDays: 1 });
    const jwt1 = t.auth.exchange({ subjectToken: pat.token }).accessToken;
    const rotated = t.auth.rotatePat(W, pat.id);
    expect(rotated.id).toBe(pat.id);
    expect(rotated.token).not.toBe(pat.token);
    expect(statusOf(() => t.auth.exchange({ subjectToken: pat.token }))).toEqual([403, EXCHANGE_UNAVAILABLE]);
    const jwt2 = t.auth.exchange({ subjectToken: rotated.token }).accessToken;
    t.auth.revokePat(W, pat.id);
    expect(statusOf(() => t.auth.exchange({ subjectToken: rotated.token }))).toEqual([
      403,
      EXCHANGE_UNAVAILABLE,
    ]);
    expect(t.auth.listPats(W)).toEqual([]);
    expect(statusOf(() => t.auth.rotatePat(W, pat.id))[0]).toBe(404);
    t.tick(12 * HOUR - 1000);
    expect(t.auth.bearer(`Bearer ${jwt1}`, 'write:orders').address).toBe(W);
    expect(t.auth.bearer(`Bearer ${jwt2}`, 'write:orders').address).toBe(W);
  });

  it('a PAT stops exchanging when its expiresInDays has passed; another wallet cannot touch it', () => {
    const t = setup();
    const pat = t.auth.createPat(W, { label: 'bot', scopes: ['write:orders'], expiresInDays: 7 });
    expect(statusOf(() => t.auth.revokePat(Wallet.createRandom().address, pat.id))[0]).toBe(404);
    t.tick(7 * DAY);
    expect(statusOf(() => t.auth.exchange({ subjectToken: pat.token }))).toEqual([403, EXCHANGE_UNAVAILABLE]);
  });

  it('exchange body errors: 422 missing field or other type, 400 length, 403 unknown token', () => {
    const t = setup();
    expect(statusOf(() => t.auth.exchange({}))[0]).toBe(422);
    expect(
      statusOf(() => t.auth.exchange({ subjectToken: 'x'.repeat(20), subjectTokenType: 'ID_TOKEN' }))[0],
    ).toBe(422);
    expect(statusOf(() => t.auth.exchange({ subjectToken: 'short' }))[0]).toBe(400);
    expect(statusOf(() => t.auth.exchange({ subjectToken: 'pat_' + '0'.repeat(48) }))).toEqual([
      403,
      EXCHANGE_UNAVAILABLE,
    ]);
    expect(t.auth.counts.refusedExchanges).toBe(1);
  });

  it('knows the thirteen scopes of the official document', () => {
    expect(SCOPE_NAMES).toContain('read:eligibility');
    expect(SCOPE_NAMES).toContain('write:orders');
    expect(SCOPE_NAMES).toHaveLength(13);
  });

  it('every lifetime is an option and must be positive', () => {
    const t = setup({ lifetimes: { jwtMs: 60_000, accessMs: 1000, refreshMs: 2000 } });
    expect(t.auth.lifetimes).toMatchObject({
      jwtMs: 60_000,
      accessMs: 1000,
      refreshMs: 2000,
      nonceMs: 600_000,
    });
    const pat = t.auth.createPat(W, { label: 'bot', scopes: ['write:orders'], expiresInDays: 1 });
    expect(t.auth.exchange({ subjectToken: pat.token }).expiresIn).toBe(60);
    expect(() => setup({ lifetimes: { jwtMs: 0 } })).toThrow(RangeError);
  });
});

describe('SandboxClock', () => {
  it('adds a forward-only offset to its base on both readings', () => {
    const c = new SandboxClock({ now: () => 5, wallNow: () => 1000 });
    c.advance(250);
    expect([c.now(), c.wallNow(), c.offsetMs]).toEqual([255, 1250, 250]);
    expect(() => c.advance(-1)).toThrow(RangeError);
    expect(() => c.advance(0.5)).toThrow(RangeError);
  });
});

import type { Offer } from '@opensea/api-types';
import { createSiwxMessage, OpenSeaAuth, parseSiwxMessage } from '@opensea/sdk';
import { MaxUint256, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageUuid } from '../../../../src/sandbox/data/drops.ts';
import type { Sandbox } from '../../../../src/sandbox/index.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { harnessOf, startSandbox } from '../data/helpers.ts';
import { ETH, fundWeth, offerParameters, sign } from '../market/helpers.ts';

/**
 * The spec's Authentication section against a whole sandbox, with real wallet signatures: SIWE
 * sign-in, session cookies, PATs, the PAT → wallet JWT exchange, the wallet-scoped drop eligibility
 * and cancellation, each refusal with its status and text, and every lifetime crossed by moving the
 * sandbox clock (12 h JWT, 3.5 d access cookie, 7 d instant key, 30 d refresh cookie) — the chain's
 * time moving with it. A client is written here, in the test, from the wire reference.
 */

const HOUR = 3600;
const DAY = 24 * HOUR;
const GENESIS = 'harpoon-genesis';
const ELIGIBILITY = `/api/v2/drops/${GENESIS}/eligibility`;

let sb: Sandbox;
/** Wallet 0 is on the genesis allowlist; wallet 4 is not. */
let member: Wallet;
let outsider: Wallet;

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly cookies: Map<string, string>;
  readonly setCookie: string[];
}

interface Init {
  readonly body?: unknown;
  readonly key?: string | null;
  readonly jwt?: string;
  readonly cookies?: Map<string, string>;
}

async function call(method: string, path: string, init: Init = {}): Promise<Answer> {
  const key = init.key === undefined ? sb.apiKey : init.key;
  const headers: Record<string, string> = {};
  if (key !== null) headers['X-API-KEY'] = key;
  if (init.jwt !== undefined) headers['Authorization'] = `Bearer ${init.jwt}`;
  if (init.cookies !== undefined)
    headers['Cookie'] = [...init.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  const setCookie = res.headers.getSetCookie();
  const cookies = new Map<string, string>();
  for (const line of setCookie) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return {
    status: res.status,
    body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
    cookies,
    setCookie,
  };
}

const authError = (a: Answer) => (a.body['error'] as { message: string }).message;
const errors = (a: Answer) => (a.body['errors'] as string[]).join(' | ');

async function advance(sec: number): Promise<void> {
  const r = await call('POST', '/_sandbox/clock', { body: { advanceSec: sec }, key: null });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** The manual flow of the spec (rule 7): nonce, sign locally, verify with the parsed message. */
async function signIn(w: Wallet, patch: Record<string, unknown> = {}): Promise<Answer> {
  const n = await call('POST', '/api/v2/auth/siwe/nonce', { key: null });
  expect(n.status).toBe(200);
  const message = createSiwxMessage({
    address: w.address,
    chainArch: 'EVM',
    chainId: 1,
    nonce: n.body['nonce'] as string,
    statement: 'Sign in to the sandbox.',
  });
  const signature = await w.signMessage(message);
  return call('POST', '/api/v2/auth/siwe/verify', {
    key: null,
    body: { message: { ...parseSiwxMessage(message), ...patch }, signature, chainArch: 'EVM' },
  });
}

async function createPat(cookies: Map<string, string>, scopes: string[], expiresInDays = 60) {
  const r = await call('POST', '/api/v2/auth/tokens', {
    key: null,
    cookies,
    body: { label: 'harpoon test', scopes, expiresInDays },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; token: string; scopes: string[] };
}

async function exchange(pat: string): Promise<Answer> {
  return call('POST', '/api/v2/auth/tokens/exchange', {
    key: null,
    body: { subjectToken: pat, subjectTokenType: 'ACCESS_TOKEN' },
  });
}

async function jwtOf(pat: string): Promise<string> {
  const r = await exchange(pat);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expectValidResponse('POST', '/api/v2/auth/tokens/exchange', 200, r.body);
  return r.body['accessToken'] as string;
}

beforeAll(async () => {
  sb = await startSandbox(21);
  member = sb.fixture.wallets[0] as Wallet;
  outsider = sb.fixture.wallets[4] as Wallet;
}, 300_000);
afterAll(async () => {
  await sb?.close();
});

describe('sandbox auth: sign-in, PATs, JWT, wallet-scoped endpoints', () => {
  let session: Map<string, string>;
  let pat: { id: string; token: string; scopes: string[] };
  let jwt: string;

  it('lists the scopes with their endpoints and agent tools, without an API key', async () => {
    const r = await call('GET', '/api/v2/auth/scopes', { key: null });
    expect(r.status).toBe(200);
    const scopes = r.body['scopes'] as { name: string; endpoints: string[]; mcpTools: string[] }[];
    expect(scopes).toHaveLength(13);
    expect(scopes.find((s) => s.name === 'read:eligibility')).toMatchObject({
      endpoints: ['/api/v2/drops/{slug}/eligibility'],
      mcpTools: ['check_drop_eligibility'],
    });
    expect(scopes.find((s) => s.name === 'write:orders')?.mcpTools).toEqual(['cancel_orders']);
  });

  it('refuses a message without accountType with the invalid-signature 400, though the signature is right', async () => {
    const n = await call('POST', '/api/v2/auth/siwe/nonce', { key: null });
    // Signed as a plain EIP-4361 message: no account type in the header, none in the fields.
    const message = createSiwxMessage({
      address: member.address,
      chainId: 1,
      nonce: n.body['nonce'] as string,
    });
    const r = await call('POST', '/api/v2/auth/siwe/verify', {
      key: null,
      body: {
        message: parseSiwxMessage(message),
        signature: await member.signMessage(message),
        chainArch: 'EVM',
      },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: { message: 'Invalid signature', status: 'BAD_REQUEST', code: 400 } });
    expect(r.setCookie).toEqual([]);
  });

  it('refuses another wallet’s signature, a foreign domain and a used nonce', async () => {
    const n = await call('POST', '/api/v2/auth/siwe/nonce', { key: null });
    const nonce = n.body['nonce'] as string;
    const message = createSiwxMessage({ address: member.address, chainArch: 'EVM', chainId: 1, nonce });
    const forged = await call('POST', '/api/v2/auth/siwe/verify', {
      key: null,
      body: {
        message: parseSiwxMessage(message),
        signature: await outsider.signMessage(message),
        chainArch: 'EVM',
      },
    });
    expect([forged.status, authError(forged)]).toEqual([400, 'Invalid signature']);
    // The nonce went with that attempt: single use.
    const again = await call('POST', '/api/v2/auth/siwe/verify', {
      key: null,
      body: {
        message: parseSiwxMessage(message),
        signature: await member.signMessage(message),
        chainArch: 'EVM',
      },
    });
    expect([again.status, authError(again)]).toEqual([400, 'Invalid or expired nonce']);
    const foreign = await signIn(member, { domain: 'evil.example' });
    expect(foreign.status).toBe(400);
    expect(authError(foreign)).toMatch(/domain 'evil.example'/);
  });

  it('signs in with a real wallet signature: HTTP-only access (3.5 d) and refresh (30 d) cookies', async () => {
    const r = await signIn(member);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ address: member.address });
    const access = r.setCookie.find((c) => c.startsWith('access_token='));
    const refresh = r.setCookie.find((c) => c.startsWith('refresh_token='));
    expect(access).toMatch(/; Max-Age=302400; .*HttpOnly/);
    expect(refresh).toMatch(/; Max-Age=2592000; .*HttpOnly/);
    session = r.cookies;
  });

  it('PAT management is session only: no cookie, or a wallet JWT instead, is 401', async () => {
    const none = await call('GET', '/api/v2/auth/tokens', { key: null });
    expect([none.status, authError(none)]).toEqual([
      401,
      'Not signed in: a SIWE session (access_token cookie) is required',
    ]);
    pat = await createPat(session, ['read:eligibility', 'write:orders']);
    jwt = await jwtOf(pat.token);
    const byJwt = await call('POST', '/api/v2/auth/tokens', {
      key: null,
      jwt,
      body: { label: 'x', scopes: ['write:orders'], expiresInDays: 1 },
    });
    expect(byJwt.status).toBe(401);
    expect(authError(byJwt)).toMatch(/a wallet JWT cannot manage them/);
  });

  it('returns the PAT value once; the list never shows it', async () => {
    expect(pat.token).toMatch(/^pat_/);
    const list = await call('GET', '/api/v2/auth/tokens', { key: null, cookies: session });
    expect(list.status).toBe(200);
    const tokens = list.body['tokens'] as { id: string; scopes: string[] }[];
    expect(tokens.map((t) => t.id)).toEqual([pat.id]);
    expect(tokens[0]?.scopes).toEqual(['read:eligibility', 'write:orders']);
    expect(JSON.stringify(list.body)).not.toContain(pat.token);
    // Nor does the admin surface hold a secret.
    const admin = await call('GET', '/_sandbox/auth', { key: null });
    expect(JSON.stringify(admin.body)).not.toContain(pat.token);
    expect(JSON.stringify(admin.body)).not.toContain(jwt);
  });

  it('drop eligibility needs the API key and a JWT with read:eligibility (401, 403), then counts allowlist stages', async () => {
    const noKey = await call('GET', ELIGIBILITY, { key: null, jwt });
    expect([noKey.status, errors(noKey)]).toEqual([401, 'Invalid API key']);
    const noJwt = await call('GET', ELIGIBILITY);
    expect(noJwt.status).toBe(401);
    expect(errors(noJwt)).toMatch(/wallet JWT is required/);
    const patInHeader = await call('GET', ELIGIBILITY, { jwt: pat.token });
    expect(patInHeader.status).toBe(401);
    expect(errors(patInHeader)).toMatch(/personal access token is never sent in the Authorization header/);
    const bogus = await call('GET', ELIGIBILITY, { jwt: `${jwt.slice(0, -4)}AAAA` });
    expect([bogus.status, errors(bogus)]).toEqual([401, 'Invalid wallet JWT']);

    const ordersOnly = await jwtOf((await createPat(session, ['write:orders'])).token);
    const forbidden = await call('GET', ELIGIBILITY, { jwt: ordersOnly });
    expect(forbidden.status).toBe(403);
    expect(errors(forbidden)).toBe('Missing scope: read:eligibility. Request a PAT with the missing scope');
    expectValidResponse('GET', '/api/v2/drops/{slug}/eligibility', 403, forbidden.body);

    const ok = await call('GET', ELIGIBILITY, { jwt });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expectValidResponse('GET', '/api/v2/drops/{slug}/eligibility', 200, ok.body);
    const address = sb.fixture.drops.find((d) => d.slug === GENESIS)?.address as string;
    expect(ok.body['stages']).toEqual([
      {
        stage_uuid: stageUuid(address, 0),
        is_eligible: true,
        price: String(ETH / 200n),
        max_total_mintable_by_wallet: '2',
      },
      {
        stage_uuid: stageUuid(address, 1),
        is_eligible: true,
        price: String(ETH / 100n),
        max_total_mintable_by_wallet: '5',
      },
    ]);

    // A wallet off the allowlist: the public stage only.
    const other = await signIn(outsider);
    const otherJwt = await jwtOf((await createPat(other.cookies, ['read:eligibility'])).token);
    const theirs = await call('GET', ELIGIBILITY, { jwt: otherJwt });
    expect((theirs.body['stages'] as { is_eligible: boolean }[]).map((s) => s.is_eligible)).toEqual([
      false,
      true,
    ]);
  });

  it('the official SDK signs in, creates a PAT and exchanges it against the sandbox unchanged but the base URL', async () => {
    const token = await new OpenSeaAuth({ apiBaseUrl: sb.apiUrl }).authenticate(outsider, {
      scopes: ['read:eligibility'],
    });
    expect(token.scopes).toEqual(['read:eligibility']);
    expect(token.expiresAt.getTime() - Date.now()).toBeGreaterThan(11 * HOUR * 1000);
    const r = await call('GET', ELIGIBILITY, { jwt: token.accessToken });
    expect(r.status).toBe(200);
  });

  it('cancellation: the JWT’s wallet is the caller; the sandbox switch makes the JWT mandatory', async () => {
    const h = harnessOf(sb);
    await fundWeth(h, member, ETH, MaxUint256);
    const post = async () => {
      const parameters = await offerParameters(h, member, {
        slug: 'harpoon-apes',
        tokenId: 1n,
        price: ETH / 50n,
      });
      const r = await call('POST', '/api/v2/orders/ethereum/seaport/offers', {
        body: { parameters, signature: await sign(h, member, parameters), protocol_address: sb.seaport },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body as unknown as Offer).order_hash as string;
    };
    const cancelPath = (hash: string) =>
      `/api/v2/orders/chain/ethereum/protocol/${sb.seaport}/${hash}/cancel`;

    const hash1 = await post();
    // The API key alone is not the offerer (400); the offerer's JWT is.
    const byKey = await call('POST', cancelPath(hash1), { body: {} });
    expect(byKey.status).toBe(400);
    const byJwt = await call('POST', cancelPath(hash1), { body: {}, jwt });
    expect(byJwt.status, JSON.stringify(byJwt.body)).toBe(200);
    expectValidResponse(
      'POST',
      '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel',
      200,
      byJwt.body,
    );

    const on = await call('POST', '/_sandbox/auth', { key: null, body: { requireJwtOnCancel: true } });
    expect(on.body['requireJwtOnCancel']).toBe(true);
    const hash2 = await post();
    const noJwt = await call('POST', cancelPath(hash2), { body: {} });
    expect(noJwt.status).toBe(401);
    const eligibilityOnly = await jwtOf((await createPat(session, ['read:eligibility'])).token);
    const noScope = await call('POST', cancelPath(hash2), { body: {}, jwt: eligibilityOnly });
    expect([noScope.status, errors(noScope)]).toEqual([
      403,
      'Missing scope: write:orders. Request a PAT with the missing scope',
    ]);
    const ok = await call('POST', cancelPath(hash2), { body: {}, jwt });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await call('POST', '/_sandbox/auth', { key: null, body: { requireJwtOnCancel: false } });
  });

  it('rotation and revocation stop new exchanges with the opaque 403; issued JWTs keep working', async () => {
    const extra = await createPat(session, ['read:eligibility']);
    const before = await jwtOf(extra.token);
    const rot = await call('POST', `/api/v2/auth/tokens/${extra.id}/rotate`, { key: null, cookies: session });
    expect(rot.status).toBe(200);
    expect(rot.body['id']).toBe(extra.id);
    const old = await exchange(extra.token);
    expect(old.status).toBe(403);
    expect(old.body).toEqual({
      error: { message: 'Token exchange is not available', status: 'FORBIDDEN', code: 403 },
    });
    const rotated = rot.body['token'] as string;
    expect((await exchange(rotated)).status).toBe(200);
    const del = await call('DELETE', `/api/v2/auth/tokens/${extra.id}`, { key: null, cookies: session });
    expect(del.status).toBe(200);
    expect((await exchange(rotated)).status).toBe(403);
    expect((await call('GET', ELIGIBILITY, { jwt: before })).status).toBe(200);
    const bad = await call('POST', '/api/v2/auth/tokens/exchange', {
      key: null,
      body: { subjectTokenType: 'ACCESS_TOKEN' },
    });
    expect(bad.status).toBe(422);
  });

  it('crosses 12 h, 3.5 d, 7 d and 30 d on the sandbox clock, the chain moving with it', async () => {
    const key = await call('POST', '/api/v2/auth/keys', { key: null });
    expect(key.status).toBe(201);
    const instant = key.body['api_key'] as string;
    const expiresAt = Date.parse(key.body['expires_at'] as string);
    expect(Math.abs(expiresAt - Date.now() - 7 * DAY * 1000)).toBeLessThan(60_000);
    const chainBefore = (await sb.fixture.provider.getBlock('latest'))?.timestamp as number;

    // 12 h: the JWT expires (401); the PAT exchanges a new one.
    await advance(12 * HOUR);
    const expired = await call('GET', ELIGIBILITY, { jwt });
    expect([expired.status, errors(expired)]).toEqual([401, 'Wallet JWT expired: exchange the PAT again']);
    jwt = await jwtOf(pat.token);
    expect((await call('GET', ELIGIBILITY, { jwt, key: instant })).status).toBe(200);

    // 3.5 d: the access cookie is dead; refresh rotates the refresh cookie; the old one stops.
    await advance(3 * DAY);
    const stale = await call('GET', '/api/v2/auth/tokens', { key: null, cookies: session });
    expect([stale.status, authError(stale)]).toEqual([
      401,
      'Session expired: refresh it with POST /api/v2/auth/session/refresh',
    ]);
    const refreshed = await call('POST', '/api/v2/auth/session/refresh', { key: null, cookies: session });
    expect(refreshed.status).toBe(200);
    expect(refreshed.cookies.get('refresh_token')).not.toBe(session.get('refresh_token'));
    const replay = await call('POST', '/api/v2/auth/session/refresh', { key: null, cookies: session });
    expect([replay.status, authError(replay)]).toEqual([
      401,
      'Invalid or expired refresh token: sign in again (SIWE)',
    ]);
    session = refreshed.cookies;
    expect((await call('GET', '/api/v2/auth/tokens', { key: null, cookies: session })).status).toBe(200);

    // 7 d: the instant key has expired (401), while the preconfigured key keeps working.
    expect((await call('GET', '/api/v2/drops', { key: instant })).status).toBe(200);
    await advance(4 * DAY);
    const dead = await call('GET', '/api/v2/drops', { key: instant });
    expect([dead.status, errors(dead)]).toEqual([401, 'Invalid API key']);
    expect((await call('GET', '/api/v2/drops')).status).toBe(200);

    // 30 d after the last refresh: the refresh cookie has expired; sign in again.
    await advance(26 * DAY + HOUR);
    const late = await call('POST', '/api/v2/auth/session/refresh', { key: null, cookies: session });
    expect(late.status).toBe(401);
    const back = await signIn(member);
    expect(back.status).toBe(200);
    expect((await call('GET', '/api/v2/auth/tokens', { key: null, cookies: back.cookies })).status).toBe(200);

    // The PAT (60 days) still exchanges; the chain's clock moved by the same 33.5 days and 1 hour.
    expect((await exchange(pat.token)).status).toBe(200);
    const chainAfter = (await sb.fixture.provider.getBlock('latest'))?.timestamp as number;
    expect(chainAfter - chainBefore).toBeGreaterThanOrEqual(33.5 * DAY + HOUR);
    const clock = await call('GET', '/_sandbox/clock', { key: null });
    expect(clock.body['offsetSec']).toBe(33.5 * DAY + HOUR);
  });

  it('the clock only moves forward', async () => {
    const r = await call('POST', '/_sandbox/clock', { key: null, body: { advanceSec: -1 } });
    expect(r.status).toBe(400);
  });
});

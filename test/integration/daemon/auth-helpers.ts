/** Sign-in, PATs and counters of the sandbox's Authentication section, for the daemon's tests. */
import { createSiwxMessage, parseSiwxMessage } from '@opensea/sdk';
import type { Wallet } from 'ethers';
import { expect } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/index.ts';

export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** The `Set-Cookie` pairs, as a `Cookie` header. */
  readonly cookies: string;
}

export async function sandboxCall(
  sb: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  cookies?: string,
): Promise<Answer> {
  const res = await fetch(`${sb.apiUrl}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(cookies !== undefined ? { cookie: cookies } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
    cookies: res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
  };
}

/** Signs in with the wallet (SIWE) and creates a PAT; returns it, its id and the session cookies. */
export async function patOf(
  sb: Sandbox,
  w: Wallet,
  scopes: string[],
  expiresInDays = 30,
): Promise<{ pat: string; id: string; session: string }> {
  const n = await sandboxCall(sb, 'POST', '/api/v2/auth/siwe/nonce');
  const message = createSiwxMessage({
    address: w.address,
    chainArch: 'EVM',
    chainId: 1,
    nonce: n.body['nonce'] as string,
    statement: 'Sign in to the sandbox.',
  });
  const v = await sandboxCall(sb, 'POST', '/api/v2/auth/siwe/verify', {
    message: parseSiwxMessage(message),
    signature: await w.signMessage(message),
    chainArch: 'EVM',
  });
  expect(v.status, JSON.stringify(v.body)).toBe(200);
  const t = await sandboxCall(
    sb,
    'POST',
    '/api/v2/auth/tokens',
    { label: 'daemon test', scopes, expiresInDays },
    v.cookies,
  );
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  return { pat: t.body['token'] as string, id: t.body['id'] as string, session: v.cookies };
}

/** The sandbox's auth counters (`GET /_sandbox/auth`). */
export async function authCounts(
  sb: Sandbox,
): Promise<{ exchanges: number; refusedExchanges: number; jwtRefusals: number }> {
  return (await sandboxCall(sb, 'GET', '/_sandbox/auth')).body as never;
}

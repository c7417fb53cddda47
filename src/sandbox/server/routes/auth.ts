import type { IncomingMessage } from 'node:http';
import { AUTH_SCOPES } from '@opensea/api-types';
import { AuthHttpError } from '../../auth/errors.ts';
import { ACCESS_COOKIE, type IssuedSession, REFRESH_COOKIE } from '../../auth/service.ts';
import { HttpError } from '../../errors.ts';
import { scopeTools } from '../../mcp/tools.ts';
import type { Reply, RequestContext, Route, ServerState } from '../types.ts';

/**
 * The wallet-credential endpoints (spec, "Authentication and key endpoints"; no API key):
 *
 * - `POST /api/v2/auth/siwe/nonce` → `{nonce}` (single use).
 * - `POST /api/v2/auth/siwe/verify` `{message (parsed EIP-4361 fields), signature, chainArch}` →
 *   `{address}` and the HTTP-only cookies `access_token` (3.5 d) and `refresh_token` (30 d).
 * - `POST /api/v2/auth/session/refresh` (cookies) → new cookies; the old refresh cookie is dead.
 * - `GET|POST /api/v2/auth/tokens`, `POST /api/v2/auth/tokens/{id}/rotate`,
 *   `DELETE /api/v2/auth/tokens/{id}`: PATs, with the session cookie only.
 * - `POST /api/v2/auth/tokens/exchange` `{subjectToken, subjectTokenType: ACCESS_TOKEN}` →
 *   `{accessToken, tokenType, expiresIn, scope, tokenScopes}`; every refusal is 403
 *   "Token exchange is not available".
 * - `GET /api/v2/auth/scopes` → `{scopes: [{name, displayName, description, group, endpoints, mcpTools}]}`;
 *   `mcpTools` are the tools of the sandbox's agent-protocol server needing the scope (src/sandbox/mcp).
 *
 * Errors of these endpoints are `{"error": {message, status, code}}` (`AuthErrorResponse`).
 *
 * Admin: `GET|POST /_sandbox/auth` (`{requireJwtOnCancel}`: cancellation needs a wallet JWT with
 * `write:orders`), answering the settings, lifetimes and counters (never a secret).
 *
 * Cookies carry `HttpOnly; Path=/; SameSite=Lax; Max-Age` but not `Secure`: the sandbox speaks
 * plain HTTP on loopback, where a `Secure` cookie would never come back from a browser.
 */

/** The request's cookies (name → value; the first of a repeated name wins). */
export function cookiesOf(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

function sessionCookies(s: IssuedSession): string[] {
  const attrs = 'Path=/; HttpOnly; SameSite=Lax';
  return [
    `${ACCESS_COOKIE}=${s.access}; Max-Age=${s.accessMaxAgeSec}; ${attrs}`,
    `${REFRESH_COOKIE}=${s.refresh}; Max-Age=${s.refreshMaxAgeSec}; ${attrs}`,
  ];
}

/** The JSON body; malformed JSON is the endpoint's `status` in the auth error shape. */
async function authBody(ctx: RequestContext, status = 400): Promise<unknown> {
  try {
    return await ctx.body();
  } catch (e) {
    if (e instanceof HttpError && !(e instanceof AuthHttpError)) throw new AuthHttpError(status, e.reasons);
    throw e;
  }
}

/** The host names a SIWE message may give for this sandbox (`127.0.0.1:41234`, the Host header). */
function ownDomains(state: ServerState, req: IncomingMessage): string[] {
  const out: string[] = [];
  if (state.publicUrl !== '') out.push(new URL(state.publicUrl).host);
  if (req.headers.host) out.push(req.headers.host);
  return out;
}

const hasBearer = (req: IncomingMessage): boolean => /^Bearer\s/i.test(req.headers.authorization ?? '');

export function authRoutes(state: ServerState): Route[] {
  const { auth } = state;
  const session = (ctx: RequestContext): string =>
    auth.sessionWallet(cookiesOf(ctx.req).get(ACCESS_COOKIE), hasBearer(ctx.req));
  const withCookies = (ctx: RequestContext, s: IssuedSession): Reply => {
    ctx.res.setHeader('Set-Cookie', sessionCookies(s));
    return { json: { address: s.wallet } };
  };
  const id = (ctx: RequestContext): string => ctx.params['id'] as string;

  return [
    {
      method: 'POST',
      pattern: '/api/v2/auth/siwe/nonce',
      access: 'public',
      handler: () => ({ json: { nonce: auth.newNonce() } }),
    },
    {
      method: 'POST',
      pattern: '/api/v2/auth/siwe/verify',
      access: 'public',
      handler: async (ctx) => withCookies(ctx, auth.signIn(await authBody(ctx), ownDomains(state, ctx.req))),
    },
    {
      method: 'POST',
      pattern: '/api/v2/auth/session/refresh',
      access: 'public',
      handler: (ctx) => withCookies(ctx, auth.refresh(cookiesOf(ctx.req).get(REFRESH_COOKIE))),
    },
    {
      method: 'GET',
      pattern: '/api/v2/auth/tokens',
      access: 'public',
      handler: (ctx) => ({ json: { tokens: auth.listPats(session(ctx)) } }),
    },
    {
      method: 'POST',
      pattern: '/api/v2/auth/tokens',
      access: 'public',
      handler: async (ctx) => {
        const wallet = session(ctx);
        return { status: 201, json: auth.createPat(wallet, await authBody(ctx)) };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/auth/tokens/{id}/rotate',
      access: 'public',
      handler: (ctx) => ({ json: auth.rotatePat(session(ctx), id(ctx)) }),
    },
    {
      method: 'DELETE',
      pattern: '/api/v2/auth/tokens/{id}',
      access: 'public',
      handler: (ctx) => {
        auth.revokePat(session(ctx), id(ctx));
        return { json: { id: id(ctx), revoked: true } };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/auth/tokens/exchange',
      access: 'public',
      handler: async (ctx) => ({ json: auth.exchange(await authBody(ctx, 422)) }),
    },
    {
      method: 'GET',
      pattern: '/api/v2/auth/scopes',
      access: 'public',
      // each scope's agent tools are the wallet tools of the sandbox's MCP server (one table)
      handler: () => ({ json: { scopes: AUTH_SCOPES.map((s) => ({ ...s, mcpTools: scopeTools(s.name) })) } }),
    },
    {
      method: 'GET',
      pattern: '/_sandbox/auth',
      access: 'admin',
      handler: () => ({ json: { lifetimes: auth.lifetimes, ...auth.stats() } }),
    },
    {
      method: 'POST',
      pattern: '/_sandbox/auth',
      access: 'admin',
      handler: async (ctx) => {
        const body = await ctx.body();
        const keys = body !== null && typeof body === 'object' ? Object.keys(body) : [];
        const v = (body as Record<string, unknown> | undefined)?.['requireJwtOnCancel'];
        if (keys.length !== 1 || typeof v !== 'boolean') {
          throw new HttpError(400, 'body: must be {"requireJwtOnCancel": true|false}');
        }
        auth.requireJwtOnCancel = v;
        return { json: { lifetimes: auth.lifetimes, ...auth.stats() } };
      },
    },
  ];
}

/**
 * Auth: instant API keys, SIWE sign-in, session refresh, personal access tokens (session only),
 * PAT → wallet JWT exchange, scope discovery. Bodies are camelCase on the wire.
 *
 * The session endpoints' result is in `Set-Cookie`: the transport stores those cookies in its jar
 * (responses under `/api/v2/auth/`) and sends them on `session` requests, so these methods only return
 * the (undocumented) body.
 */
import type { InstantApiKeyResponse, TokenExchangeRequest, TokenExchangeResponse } from '@opensea/api-types';
import { isSecret, type Secret } from '../../domain/index.ts';
import { TransientError } from '../../errors/index.ts';
import { Priority } from '../../ratelimit/types.ts';
import { path } from '../path.ts';
import {
  type CallOptions,
  type PatCreated,
  type PatCreateRequest,
  type PatInfo,
  type ScopesResponse,
  type SessionResponse,
  SIWE_ACCOUNT_TYPES,
  type SiweNonceResponse,
  type SiweVerifyRequest,
} from '../types.ts';
import {
  checkEnum,
  invalidInput,
  requireIdentifier,
  requireInt,
  requireObject,
  requireString,
} from '../validate.ts';
import { type EndpointContext, type Route, read, send } from './context.ts';

/** Bounds of `subjectToken` in the interface description. */
export const SUBJECT_TOKEN_LENGTH = Object.freeze({ min: 10, max: 8192 });
/** Upper bound we accept for `expiresInDays` (not documented; a year). */
export const MAX_PAT_DAYS = 365;

function post(path: string, extra: Partial<Route> = {}): Route {
  return { method: 'POST', path, group: 'write', priority: Priority.trade, ...extra };
}

function checkSiweVerify(request: SiweVerifyRequest): SiweVerifyRequest {
  const o = requireObject('body', request);
  const message = requireObject('body.message', o['message']);
  checkEnum('body.message.accountType', message['accountType'], SIWE_ACCOUNT_TYPES);
  for (const field of ['domain', 'address', 'uri', 'version', 'nonce', 'issuedAt'] as const) {
    requireString(`body.message.${field}`, message[field]);
  }
  const chainId = message['chainId'];
  if (
    !(typeof chainId === 'number' && Number.isSafeInteger(chainId) && chainId > 0) &&
    !(typeof chainId === 'string' && chainId !== '')
  ) {
    throw invalidInput('body.message.chainId', chainId, 'a positive chain id');
  }
  requireString('body.signature', o['signature'], 'a signature string');
  requireString('body.chainArch', o['chainArch'], 'a chain architecture such as "EVM"');
  return request;
}

/** The PAT list: an array, or the first array-valued field of a wrapper object (shape not documented). */
function patList(response: unknown): PatInfo[] {
  if (Array.isArray(response)) return response as PatInfo[];
  if (typeof response === 'object' && response !== null) {
    for (const v of Object.values(response)) if (Array.isArray(v)) return v as PatInfo[];
  }
  throw new TransientError(
    'unexpected_response',
    'GET /api/v2/auth/tokens: response holds no list of tokens',
    {
      details: { endpoint: '/api/v2/auth/tokens' },
    },
  );
}

export function authApi(ctx: EndpointContext) {
  return {
    /** `POST /api/v2/auth/keys`: a free-tier API key, no authentication (201). Read `rate_limits` and `expires_at`. */
    async createInstantKey(call?: CallOptions): Promise<InstantApiKeyResponse> {
      return send(
        ctx,
        post('/api/v2/auth/keys', { auth: 'none', idempotent: false, acceptStatus: [201] }),
        call,
      );
    },

    /** `POST /api/v2/auth/siwe/nonce`: a single-use nonce for the SIWE message. */
    async siweNonce(call?: CallOptions): Promise<SiweNonceResponse> {
      return send(ctx, post('/api/v2/auth/siwe/nonce', { auth: 'none', idempotent: true }), call);
    },

    /**
     * `POST /api/v2/auth/siwe/verify` with `{message, signature, chainArch}`. The message must carry
     * `accountType` (checked here: the server answers a misleading 400 "invalid signature" without it).
     * The transport keeps the session cookies it sets.
     */
    async siweVerify(request: SiweVerifyRequest, call?: CallOptions): Promise<SessionResponse> {
      const body = checkSiweVerify(request);
      return send(ctx, post('/api/v2/auth/siwe/verify', { auth: 'none', body, idempotent: false }), call);
    },

    /** `POST /api/v2/auth/session/refresh`: new session cookies; the refresh cookie is rotated (store the newest). */
    async refreshSession(call?: CallOptions): Promise<SessionResponse> {
      return send(ctx, post('/api/v2/auth/session/refresh', { auth: 'session', idempotent: false }), call);
    },

    /** `GET /api/v2/auth/tokens`: the session's PATs. */
    async listTokens(call?: CallOptions): Promise<PatInfo[]> {
      const response = await send<unknown>(ctx, { ...read('/api/v2/auth/tokens'), auth: 'session' }, call);
      return patList(response);
    },

    /** `POST /api/v2/auth/tokens`: a PAT with a label, the smallest useful scopes and a lifetime. Returned once. */
    async createToken(request: PatCreateRequest, call?: CallOptions): Promise<PatCreated> {
      const o = requireObject('body', request);
      const scopes = o['scopes'];
      if (!Array.isArray(scopes) || scopes.length === 0) {
        throw invalidInput('body.scopes', scopes, 'a non-empty array of scope names (see auth.scopes())');
      }
      const body: PatCreateRequest = {
        label: requireString('body.label', o['label']),
        scopes: scopes.map((s, i) =>
          requireIdentifier(`body.scopes[${i}]`, s, 'a scope name such as "write:orders"'),
        ),
        expiresInDays: requireInt('body.expiresInDays', o['expiresInDays'], 1, MAX_PAT_DAYS),
      };
      return send(ctx, post('/api/v2/auth/tokens', { auth: 'session', body, idempotent: false }), call);
    },

    /** `POST /api/v2/auth/tokens/{id}/rotate`: the old token stops exchanging; JWTs already issued stay valid. */
    async rotateToken(id: string, call?: CallOptions): Promise<PatCreated> {
      const p = path`/api/v2/auth/tokens/${requireIdentifier('id', id)}/rotate`;
      return send(ctx, post(p, { auth: 'session', idempotent: false }), call);
    },

    /** `DELETE /api/v2/auth/tokens/{id}`: revokes a PAT (issued JWTs stay valid until they expire). */
    async revokeToken(id: string, call?: CallOptions): Promise<void> {
      const p = path`/api/v2/auth/tokens/${requireIdentifier('id', id)}`;
      await send<unknown>(
        ctx,
        {
          method: 'DELETE',
          path: p,
          group: 'write',
          priority: Priority.trade,
          auth: 'session',
          idempotent: true,
          text: true,
        },
        call,
      );
    },

    /** `POST /api/v2/auth/tokens/exchange`: PAT → short-lived wallet JWT (no API key needed). */
    async exchange(pat: string | Secret, call?: CallOptions): Promise<TokenExchangeResponse> {
      const token = isSecret(pat) ? pat.reveal() : pat;
      if (
        typeof token !== 'string' ||
        token.length < SUBJECT_TOKEN_LENGTH.min ||
        token.length > SUBJECT_TOKEN_LENGTH.max
      ) {
        // never echo the token itself
        throw invalidInput(
          'subjectToken',
          typeof token === 'string' ? `<${token.length} chars>` : token,
          `a personal access token of ${SUBJECT_TOKEN_LENGTH.min} to ${SUBJECT_TOKEN_LENGTH.max} characters`,
        );
      }
      const body: TokenExchangeRequest = { subjectToken: token, subjectTokenType: 'ACCESS_TOKEN' };
      return send(ctx, post('/api/v2/auth/tokens/exchange', { auth: 'none', body, idempotent: true }), call);
    },

    /** `GET /api/v2/auth/scopes`: current scopes with their REST endpoints and agent tools (no auth). */
    async scopes(call?: CallOptions): Promise<ScopesResponse> {
      return send(ctx, { ...read('/api/v2/auth/scopes'), auth: 'none' }, call);
    },
  };
}

export type AuthApi = ReturnType<typeof authApi>;

/** Drops: discover drops, check mint eligibility (wallet), build mint transactions (ready to sign). */
import type {
  DropDetailedResponse,
  DropEligibilityResponse,
  DropMintRequest,
  DropMintResponse,
  DropPaginatedResponse,
  DropResponse,
} from '@opensea/api-types';
import { Priority } from '../../ratelimit/types.ts';
import { path } from '../path.ts';
import type { CallOptions, IterateOptions } from '../types.ts';
import {
  checkEnum,
  checkLimit,
  LIMITS,
  optional,
  requireAddress,
  requireChains,
  requireCursor,
  requireInt,
  requireObject,
  requireSlug,
} from '../validate.ts';
import { type EndpointContext, iterate, read, send } from './context.ts';

export type DropCalendarType = 'featured' | 'upcoming' | 'recently_minted';
export const DROP_CALENDAR_TYPES: readonly DropCalendarType[] = Object.freeze([
  'featured',
  'upcoming',
  'recently_minted',
]);

/** Mint quantity bounds of the interface description. */
export const MINT_QUANTITY = Object.freeze({ min: 1, max: 100 });

export interface DropsQuery {
  /** Default `featured` on the server. */
  readonly type?: DropCalendarType;
  readonly limit?: number;
  readonly chains?: readonly string[];
  readonly cursor?: string;
}

const drops = (page: DropPaginatedResponse): readonly DropResponse[] => page.drops;

export function dropsApi(ctx: EndpointContext) {
  const listRoute = (q: DropsQuery = {}) =>
    read('/api/v2/drops', {
      type: optional(q.type, (x) => checkEnum('type', x, DROP_CALENDAR_TYPES)),
      limit: optional(q.limit, (x) => checkLimit('limit', x, LIMITS.v2)),
      chains: optional(q.chains, (x) => requireChains('chains', x)),
      cursor: optional(q.cursor, (x) => requireCursor('cursor', x)),
    });

  return {
    /** `GET /api/v2/drops` (one page; cursor parameter `cursor`). */
    async list(query?: DropsQuery, call?: CallOptions): Promise<DropPaginatedResponse> {
      return send(ctx, listRoute(query), call);
    },
    /** Every drop; pages may be empty while `next` is still set, which is followed. */
    iterate(query?: Omit<DropsQuery, 'cursor'>, options?: IterateOptions) {
      return iterate(ctx, '/api/v2/drops', listRoute(query), 'cursor', drops, options);
    },

    /** `GET /api/v2/drops/{slug}` */
    async get(slug: string, call?: CallOptions): Promise<DropDetailedResponse> {
      return send(ctx, read(path`/api/v2/drops/${requireSlug('slug', slug)}`), call);
    },

    /** `GET /api/v2/drops/{slug}/eligibility`: needs a wallet JWT with `read:eligibility`. */
    async eligibility(slug: string, call?: CallOptions): Promise<DropEligibilityResponse> {
      const s = requireSlug('slug', slug);
      return send(ctx, { ...read(path`/api/v2/drops/${s}/eligibility`), auth: 'wallet' }, call);
    },

    /**
     * `POST /api/v2/drops/{slug}/mint`: ready-to-sign transaction (to, data, value) minting `quantity`
     * tokens to `minter`. API key only. Not idempotent.
     */
    async mint(slug: string, request: DropMintRequest, call?: CallOptions): Promise<DropMintResponse> {
      const s = requireSlug('slug', slug);
      const o = requireObject('body', request);
      const body: DropMintRequest = {
        minter: requireAddress('body.minter', o['minter']),
        quantity: requireInt('body.quantity', o['quantity'], MINT_QUANTITY.min, MINT_QUANTITY.max),
      };
      return send(
        ctx,
        {
          method: 'POST',
          path: path`/api/v2/drops/${s}/mint`,
          group: 'write',
          priority: Priority.trade,
          body,
          idempotent: false,
        },
        call,
      );
    },
  };
}

export type DropsApi = ReturnType<typeof dropsApi>;

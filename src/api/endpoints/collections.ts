/** Collection: details, stats, traits, trait floors, batch reads, editing and metadata refresh. */
import type {
  CollectionBatchResponse,
  CollectionDetailedResponse,
  CollectionStatsResponse,
  ModifyCollectionRequest,
  ModifyCollectionResponse,
  TraitFloorsResponse,
  UpdateCollectionMetadataRequest,
  UpdateCollectionMetadataResponse,
} from '@opensea/api-types';
import { Priority } from '../../ratelimit/types.ts';
import { path } from '../path.ts';
import type { CallOptions, CollectionTraits } from '../types.ts';
import { invalidInput, requireObject, requireSlug } from '../validate.ts';
import { type EndpointContext, read, send } from './context.ts';

/** Most slugs one batch call takes (not documented; kept to the v2 page size). */
export const MAX_BATCH = 200;

/** Fills the `{slug}` placeholder of a configured path template, encoding the slug. */
export function fillSlugTemplate(template: string, slug: string): string {
  const [before, after] = template.split('{slug}') as [string, string];
  return before + path`${slug}` + after;
}

function nonEmptyBody(param: string, body: unknown): Record<string, unknown> {
  const o = requireObject(param, body);
  if (Object.keys(o).length === 0) throw invalidInput(param, body, 'an object with at least one field');
  return o;
}

export function collectionsApi(ctx: EndpointContext) {
  return {
    /** `GET /api/v2/collections/{slug}` */
    async get(slug: string, call?: CallOptions): Promise<CollectionDetailedResponse> {
      const s = requireSlug('slug', slug);
      return send(ctx, read(path`/api/v2/collections/${s}`), call);
    },

    /** `GET /api/v2/collections/{slug}/stats` (includes `floor_price`, volume, sales). */
    async stats(slug: string, call?: CallOptions): Promise<CollectionStatsResponse> {
      const s = requireSlug('slug', slug);
      return send(ctx, read(path`/api/v2/collections/${s}/stats`), call);
    },

    /** `GET /api/v2/traits/{slug}`: trait categories and counts. */
    async traits(slug: string, call?: CallOptions): Promise<CollectionTraits> {
      const s = requireSlug('slug', slug);
      return send(ctx, read(path`/api/v2/traits/${s}`), call);
    },

    /** `GET /api/v2/traits/{slug}/floors`: cheapest listing per text trait value, per currency. */
    async traitFloors(slug: string, call?: CallOptions): Promise<TraitFloorsResponse> {
      const s = requireSlug('slug', slug);
      return send(ctx, read(path`/api/v2/traits/${s}/floors`), call);
    },

    /** `POST /api/v2/collections/batch`: several collections by slug in one (read) call. */
    async batch(slugs: readonly string[], call?: CallOptions): Promise<CollectionBatchResponse> {
      if (!Array.isArray(slugs) || slugs.length === 0 || slugs.length > MAX_BATCH) {
        throw invalidInput('slugs', slugs, `an array of 1 to ${MAX_BATCH} collection slugs`);
      }
      const body = { slugs: slugs.map((s, i) => requireSlug(`slugs[${i}]`, s)) };
      return send(
        ctx,
        {
          method: 'POST',
          path: '/api/v2/collections/batch',
          group: 'read',
          priority: Priority.read,
          body,
          idempotent: true,
        },
        call,
      );
    },

    /** `PATCH /api/v2/collections/{slug}`: name, description, images, fees… (wallet JWT with write:collections). */
    async update(
      slug: string,
      body: ModifyCollectionRequest,
      call?: CallOptions,
    ): Promise<ModifyCollectionResponse> {
      const s = requireSlug('slug', slug);
      nonEmptyBody('body', body);
      return send(
        ctx,
        {
          method: 'PATCH',
          path: path`/api/v2/collections/${s}`,
          group: 'write',
          priority: Priority.trade,
          auth: 'wallet',
          body,
        },
        call,
      );
    },

    /** `PATCH /api/v2/collections/{slug}/metadata`: page content (overview, about, hero, preview media). */
    async updateMetadata(
      slug: string,
      body: UpdateCollectionMetadataRequest,
      call?: CallOptions,
    ): Promise<UpdateCollectionMetadataResponse> {
      const s = requireSlug('slug', slug);
      nonEmptyBody('body', body);
      return send(
        ctx,
        {
          method: 'PATCH',
          path: path`/api/v2/collections/${s}/metadata`,
          group: 'write',
          priority: Priority.trade,
          auth: 'wallet',
          body,
        },
        call,
      );
    },

    /**
     * Collection metadata refresh (owner or authorized editor; queued in the background). The path is
     * not in the spec: `ApiClientOptions.collectionRefreshPath`, default `/api/v2/collections/{slug}/refresh`.
     */
    async refreshMetadata(slug: string, call?: CallOptions): Promise<string> {
      const s = requireSlug('slug', slug);
      return send(
        ctx,
        {
          method: 'POST',
          path: fillSlugTemplate(ctx.config.collectionRefreshPath, s),
          group: 'write',
          priority: Priority.analytics,
          idempotent: true,
          // the answer ("queued") is not documented: take whatever body comes back as text
          text: true,
        },
        call,
      );
    },
  };
}

export type CollectionsApi = ReturnType<typeof collectionsApi>;

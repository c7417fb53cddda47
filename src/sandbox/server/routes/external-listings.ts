import { parseExternalListingInput, renderExternalListing } from '../../data/external.ts';
import type { MarketData } from '../../data/service.ts';
import { HttpError } from '../../errors.ts';
import { strParam } from '../http.ts';
import type { Route, ServerState } from '../types.ts';

/**
 * Admin hook of the other marketplaces' listings (src/sandbox/data/external.ts), under
 * `/_sandbox/` (loopback only, no key):
 * - `GET /_sandbox/external-listings[?collection=slug]` → `{listings: [...]}` (unexpired ones);
 * - `POST /_sandbox/external-listings` with one listing or `{listings: [...]}` → 201 `{listings}`;
 * - `DELETE /_sandbox/external-listings/{id}` → `{removed: 1}` (404 when unknown);
 * - `DELETE /_sandbox/external-listings[?collection=slug]` → `{removed: n}`.
 */
export function externalListingRoutes(state: ServerState, data: MarketData): Route[] {
  const catalog = () => {
    if (!state.catalog) throw new HttpError(409, 'No catalog is attached yet');
    return state.catalog;
  };
  return [
    {
      method: 'GET',
      pattern: '/_sandbox/external-listings',
      access: 'admin',
      handler: (ctx) => ({
        json: {
          listings: data.external().active(strParam(ctx.query, 'collection')).map(renderExternalListing),
        },
      }),
    },
    {
      method: 'POST',
      pattern: '/_sandbox/external-listings',
      access: 'admin',
      handler: async (ctx) => {
        const body = await ctx.body();
        const many =
          typeof body === 'object' && body !== null && !Array.isArray(body) && 'listings' in body
            ? (body as { listings: unknown }).listings
            : [body];
        if (!Array.isArray(many) || many.length === 0)
          throw new HttpError(400, 'listings: a non-empty array');
        const cat = catalog();
        const off = state.offchain;
        const c = {
          bySlug: (slug: string) =>
            cat.bySlug(slug) ??
            (off && off.slug === slug ? { slug, supply: off.items, standard: off.standard } : undefined),
        };
        // All are validated before any is stored.
        const inputs = many.map((b) => parseExternalListingInput(b, c, data.tokens()));
        const store = data.external();
        return { status: 201, json: { listings: inputs.map((i) => renderExternalListing(store.add(i))) } };
      },
    },
    {
      method: 'DELETE',
      pattern: '/_sandbox/external-listings/{id}',
      access: 'admin',
      handler: (ctx) => {
        const id = ctx.params['id'] as string;
        if (!data.external().remove(id)) throw new HttpError(404, `No external listing ${id}`);
        return { json: { removed: 1 } };
      },
    },
    {
      method: 'DELETE',
      pattern: '/_sandbox/external-listings',
      access: 'admin',
      handler: (ctx) => ({ json: { removed: data.external().clear(strParam(ctx.query, 'collection')) } }),
    },
  ];
}

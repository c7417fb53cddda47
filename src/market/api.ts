/**
 * The part of the API client the market view reads through. `createApiClient(...)` satisfies it;
 * unit tests pass a fake with the same methods.
 */
import type { CollectionsApi, ListingsApi, OffersApi } from '../api/index.ts';

export interface MarketApi {
  readonly collections: Pick<CollectionsApi, 'stats' | 'traits' | 'traitFloors'>;
  readonly listings: Pick<ListingsApi, 'best'>;
  readonly offers: Pick<OffersApi, 'collection' | 'traits'>;
}

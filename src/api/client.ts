/**
 * The API client: one object per capability group, all talking through one `Transport`.
 *
 *   const api = createApiClient(transport, { onDeprecatedField: (e) => log.warn(e, 'deprecated field') });
 *   const floor = await api.collections.stats('doodles-official');
 *   for await (const listing of api.listings.iterateBest('doodles-official', { limit: 100 }, { maxPages: 5 })) …
 *   const best = await api.listings.bestForNft('doodles-official', '42'); // Listing | null
 */
import { ConfigError } from '../errors/index.ts';
import { accountsApi } from './endpoints/accounts.ts';
import { authApi } from './endpoints/auth.ts';
import { chainsApi } from './endpoints/chains.ts';
import { collectionsApi } from './endpoints/collections.ts';
import type { EndpointConfig, EndpointContext } from './endpoints/context.ts';
import { contractsApi } from './endpoints/contracts.ts';
import { dropsApi } from './endpoints/drops.ts';
import { eventsApi } from './endpoints/events.ts';
import { listingsApi } from './endpoints/listings.ts';
import { nftsApi } from './endpoints/nfts.ts';
import { offersApi } from './endpoints/offers.ts';
import { ordersApi } from './endpoints/orders.ts';
import { searchApi } from './endpoints/search.ts';
import { swapApi } from './endpoints/swap.ts';
import { tokensApi } from './endpoints/tokens.ts';
import type { Transport } from './request.ts';
import type { DeprecatedFieldEvent } from './types.ts';

export const DEFAULT_COLLECTION_REFRESH_PATH = '/api/v2/collections/{slug}/refresh';
export const DEFAULT_PROTOCOL = 'seaport';

export interface ApiClientOptions {
  /**
   * Path template of the collection metadata refresh (POST), which the spec does not give. Must start
   * with `/` and hold exactly one `{slug}`. Default `/api/v2/collections/{slug}/refresh`.
   */
  readonly collectionRefreshPath?: string;
  /** `{protocol}` path segment of the order endpoints. Default `seaport`. */
  readonly defaultProtocol?: string;
  /**
   * Called each time a create-listing / create-offer response carried only the deprecated `order`
   * field; the client still returns that order. Wire it to a logger that warns once.
   */
  readonly onDeprecatedField?: (event: DeprecatedFieldEvent) => void;
}

export interface ApiClient {
  readonly chains: ReturnType<typeof chainsApi>;
  readonly accounts: ReturnType<typeof accountsApi>;
  readonly collections: ReturnType<typeof collectionsApi>;
  readonly nfts: ReturnType<typeof nftsApi>;
  readonly contracts: ReturnType<typeof contractsApi>;
  readonly tokens: ReturnType<typeof tokensApi>;
  readonly search: ReturnType<typeof searchApi>;
  readonly listings: ReturnType<typeof listingsApi>;
  readonly offers: ReturnType<typeof offersApi>;
  readonly orders: ReturnType<typeof ordersApi>;
  readonly swap: ReturnType<typeof swapApi>;
  readonly drops: ReturnType<typeof dropsApi>;
  readonly events: ReturnType<typeof eventsApi>;
  readonly auth: ReturnType<typeof authApi>;
}

function resolveConfig(options: ApiClientOptions): EndpointConfig {
  const refresh = options.collectionRefreshPath ?? DEFAULT_COLLECTION_REFRESH_PATH;
  if (!refresh.startsWith('/') || refresh.split('{slug}').length !== 2 || /[?#]/.test(refresh)) {
    throw new ConfigError(
      `collectionRefreshPath must start with '/', contain exactly one {slug} and no query, got "${refresh}"`,
    );
  }
  const protocol = options.defaultProtocol ?? DEFAULT_PROTOCOL;
  if (!/^[a-z][a-z0-9_-]{0,31}$/.test(protocol)) {
    throw new ConfigError(
      `defaultProtocol must be a lower-case protocol name such as "seaport", got "${protocol}"`,
    );
  }
  return {
    collectionRefreshPath: refresh,
    defaultProtocol: protocol,
    ...(options.onDeprecatedField !== undefined ? { onDeprecatedField: options.onDeprecatedField } : {}),
  };
}

export function createApiClient(transport: Transport, options: ApiClientOptions = {}): ApiClient {
  const ctx: EndpointContext = { transport, config: resolveConfig(options) };
  return Object.freeze({
    chains: chainsApi(ctx),
    accounts: accountsApi(ctx),
    collections: collectionsApi(ctx),
    nfts: nftsApi(ctx),
    contracts: contractsApi(ctx),
    tokens: tokensApi(ctx),
    search: searchApi(ctx),
    listings: listingsApi(ctx),
    offers: offersApi(ctx),
    orders: ordersApi(ctx),
    swap: swapApi(ctx),
    drops: dropsApi(ctx),
    events: eventsApi(ctx),
    auth: authApi(ctx),
  });
}

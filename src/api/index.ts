/** Public surface of the API layer. */
export {
  type ApiClient,
  type ApiClientOptions,
  createApiClient,
  DEFAULT_COLLECTION_REFRESH_PATH,
  DEFAULT_PROTOCOL,
} from './client.ts';
// ---------------------------------------------------------------------------------------------
// Transport (implemented by the transport module: src/api/transport.ts, credentials.ts, errors.ts…).
// Its own exports may be extended here by its owner.
export { type Credentials, type CredentialsOptions, createCredentials } from './credentials.ts';
export type { AccountsApi } from './endpoints/accounts.ts';
export type { AuthApi } from './endpoints/auth.ts';
export type { ChainsApi } from './endpoints/chains.ts';
export type { CollectionsApi } from './endpoints/collections.ts';
export type { ContractsApi } from './endpoints/contracts.ts';
export type { DropCalendarType, DropsApi, DropsQuery } from './endpoints/drops.ts';
export type {
  AccountEventsQuery,
  AssetEvent,
  CollectionEventsQuery,
  EventsApi,
  EventsQuery,
  LegacyEventsQuery,
} from './endpoints/events.ts';
export type {
  AllListingsQuery,
  BestListingsQuery,
  LegacyListingsQuery,
  ListingFulfillmentRequest,
  ListingsApi,
} from './endpoints/listings.ts';
export type {
  MetadataQuery,
  NftsApi,
  NftsByAccountQuery,
  NftsByCollectionQuery,
  NftsByContractQuery,
} from './endpoints/nfts.ts';
export type {
  AllOffersQuery,
  LegacyOffersQuery,
  OfferFulfillmentRequest,
  OffersApi,
  OffersPageQuery,
  TraitOffersQuery,
} from './endpoints/offers.ts';
export type { LegacyOrdersQuery } from './endpoints/orderInput.ts';
export type { OrdersApi } from './endpoints/orders.ts';
export type { SearchApi, SearchQuery } from './endpoints/search.ts';
export type { SwapApi, SwapQuoteQuery } from './endpoints/swap.ts';
export type { TokenBalancesQuery, TokenListQuery, TokensApi } from './endpoints/tokens.ts';
export {
  type CursorParam,
  type PageSource,
  type PaginateOptions,
  paginateItems,
  paginatePages,
  readLegacyNext,
  readNext,
} from './paginate.ts';
export { path } from './path.ts';
export type {
  ApiResponse,
  AuthMode,
  HttpMethod,
  QueryValue,
  RequestSpec,
  ResponseFormat,
  Transport,
} from './request.ts';
export * from './transport.ts';
export * from './types.ts';
export {
  EVENT_TYPES,
  type EventType,
  INVALID_INPUT,
  LIMITS,
  SEARCH_ASSET_TYPES,
  type SearchAssetType,
  SLIPPAGE,
} from './validate.ts';

/**
 * Wire types the official `@opensea/api-types` package does not cover: the SIWE / session / PAT
 * endpoints, the scopes registry, the collection traits object, the deprecated legacy order lists and
 * the legacy v1 event records. Everything else comes from `@opensea/api-types` directly.
 *
 * Wire casing is kept as is: snake_case, except the auth bodies (`chainArch`, `expiresInDays`,
 * `subjectToken`...) and the parsed SIWE message, which the API takes in camelCase.
 */
import type { AuthScope, SeaportParameters } from '@opensea/api-types';
import type { Priority } from '../ratelimit/types.ts';
import type { ResponseFormat } from './request.ts';

// ---------------------------------------------------------------------------------------------
// Call options

/** Per-call options every endpoint method accepts; passed through to the RequestSpec. */
export interface CallOptions {
  readonly priority?: Priority;
  readonly coalesceKey?: string;
  readonly signal?: AbortSignal;
  readonly format?: ResponseFormat;
}

/** Options of the `iterate…` methods: call options for every page, plus a page cap. */
export interface IterateOptions extends CallOptions {
  /** Stop after this many pages (default: until the server returns no cursor). */
  readonly maxPages?: number;
}

/** Call options of the endpoints under `/api/v2/orders/{chain}/{protocol}/…`. */
export interface ProtocolCallOptions extends CallOptions {
  /** Order protocol path segment; default `seaport` (see `ApiClientOptions.defaultProtocol`). */
  readonly protocol?: string;
}

/** One trait filter of the `traits` query parameter (sent as a JSON array string). */
export interface TraitFilter {
  readonly traitType: string;
  readonly value: string;
}

// ---------------------------------------------------------------------------------------------
// Collections

export type TraitDataType = 'string' | 'number';

/** `counts` entry of a numeric trait. */
export interface NumericTraitRange {
  readonly min: number;
  readonly max: number;
}

/** `GET /api/v2/traits/{slug}` (typed `unknown` in api-types). */
export interface CollectionTraits {
  /** Trait name → data type. */
  readonly categories: Readonly<Record<string, TraitDataType>>;
  /** Trait name → value counts (string traits) or `{min, max}` (number traits). */
  readonly counts: Readonly<Record<string, Readonly<Record<string, number>> | NumericTraitRange>>;
}

// ---------------------------------------------------------------------------------------------
// Auth: SIWE, session, PATs, scopes

/** `POST /api/v2/auth/siwe/nonce`. */
export interface SiweNonceResponse {
  readonly nonce: string;
}

/** Required in the SIWE message; omitting it makes verify answer 400 "invalid signature". */
export type SiweAccountType = 'Ethereum' | 'Solana';
export const SIWE_ACCOUNT_TYPES: readonly SiweAccountType[] = Object.freeze(['Ethereum', 'Solana']);

/** Chain architecture sent beside the signature (`EVM` for Ethereum-style wallets). */
export type ChainArch = 'EVM' | 'SVM' | (string & {});

/** The parsed EIP-4361 message, camelCase as the API expects it. */
export interface SiweMessageFields {
  readonly domain: string;
  readonly address: string;
  readonly statement?: string;
  readonly uri: string;
  readonly version: string;
  readonly chainId: number | string;
  readonly nonce: string;
  readonly issuedAt: string;
  readonly expirationTime?: string;
  readonly notBefore?: string;
  readonly requestId?: string;
  readonly resources?: readonly string[];
  readonly accountType: SiweAccountType;
  readonly [extra: string]: unknown;
}

/** `POST /api/v2/auth/siwe/verify` body. */
export interface SiweVerifyRequest {
  readonly message: SiweMessageFields;
  readonly signature: string;
  readonly chainArch: ChainArch;
}

/**
 * Body of `siwe/verify` and `session/refresh` (not documented). What matters is their `Set-Cookie`
 * (`access_token`, `refresh_token`), which the transport's cookie jar keeps.
 */
export type SessionResponse = Readonly<Record<string, unknown>>;

/** `POST /api/v2/auth/tokens` body. */
export interface PatCreateRequest {
  readonly label: string;
  readonly scopes: readonly (AuthScope | (string & {}))[];
  readonly expiresInDays: number;
}

/** A personal access token as created or rotated: the secret `token` is returned only here. */
export interface PatCreated {
  readonly id: string;
  readonly token: string;
  readonly scopes: readonly string[];
  readonly [extra: string]: unknown;
}

/** One entry of the PAT list (fields beyond `id` are not documented). */
export interface PatInfo {
  readonly id: string;
  readonly label?: string;
  readonly scopes?: readonly string[];
  readonly [extra: string]: unknown;
}

/** One entry of `GET /api/v2/auth/scopes` (shape not documented; mirrors api-types' AUTH_SCOPES). */
export interface ScopeInfo {
  readonly name: string;
  readonly displayName?: string;
  readonly description?: string;
  readonly group?: string;
  readonly endpoints?: readonly string[];
  readonly mcpTools?: readonly string[];
  readonly [extra: string]: unknown;
}

export interface ScopesResponse {
  readonly scopes: readonly ScopeInfo[];
  readonly [extra: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Legacy records shared by the v1 events and the deprecated order lists

/** Legacy account object. */
export interface LegacyAccount {
  readonly user: { readonly username: string | null } | null;
  readonly profile_img_url: string;
  readonly address: string;
  readonly config: string;
  readonly discord_id?: string;
}

/** Legacy payment token object. */
export interface LegacyPaymentToken {
  readonly id: number;
  readonly symbol: string;
  readonly address: string;
  readonly image_url: string | null;
  readonly name: string | null;
  readonly decimals: number;
  /** Decimal string. */
  readonly eth_price: string;
  /** Decimal string. */
  readonly usd_price: string;
}

/** Legacy onchain transaction object. */
export interface LegacyTransaction {
  readonly id: number;
  readonly from_account: LegacyAccount | null;
  readonly to_account: LegacyAccount | null;
  readonly created_date: string;
  readonly modified_date: string;
  readonly transaction_hash: string;
  readonly transaction_index: string;
  readonly block_number: string;
  readonly block_hash: string;
  readonly timestamp: string;
}

/** Legacy asset contract object (fee fields are integers in basis points). */
export interface LegacyAssetContract {
  readonly address: string;
  readonly asset_contract_type: string;
  readonly created_date: string;
  readonly name: string;
  readonly nft_version: string | null;
  readonly opensea_version: string | null;
  readonly owner: number | null;
  readonly schema_name: string;
  readonly symbol: string;
  readonly total_supply: string | null;
  readonly description: string | null;
  readonly external_link: string | null;
  readonly image_url: string | null;
  readonly default_to_fiat: boolean;
  readonly dev_buyer_fee_basis_points: number;
  readonly dev_seller_fee_basis_points: number;
  readonly only_proxied_transfers: boolean;
  readonly opensea_buyer_fee_basis_points: number;
  readonly opensea_seller_fee_basis_points: number;
  readonly buyer_fee_basis_points: number;
  readonly seller_fee_basis_points: number;
  readonly payout_address: string | null;
}

/** Legacy collection object nested in an asset (fee fields are strings here, per the spec). */
export interface LegacyCollection {
  readonly banner_image_url: string | null;
  readonly chat_url: string | null;
  readonly created_date: string;
  readonly default_to_fiat: boolean;
  readonly description: string | null;
  readonly dev_buyer_fee_basis_points: string;
  readonly dev_seller_fee_basis_points: string;
  readonly discord_url: string | null;
  readonly display_data: { readonly card_display_style: string; readonly images?: readonly string[] | null };
  readonly external_url: string | null;
  readonly featured: boolean;
  readonly featured_image_url: string | null;
  readonly hidden: boolean;
  readonly safelist_request_status: string;
  readonly image_url: string | null;
  readonly is_subject_to_whitelist: boolean;
  readonly large_image_url: string | null;
  readonly medium_username: string | null;
  readonly name: string;
  readonly only_proxied_transfers: boolean;
  readonly opensea_buyer_fee_basis_points: string;
  readonly opensea_seller_fee_basis_points: string;
  readonly payout_address: string | null;
  readonly require_email: boolean;
  readonly short_description: string | null;
  readonly slug: string;
  readonly telegram_url: string | null;
  readonly twitter_username: string | null;
  readonly wiki_url: string | null;
}

/** Legacy asset object. */
export interface LegacyAsset {
  readonly id: number;
  readonly token_id: string;
  readonly num_sales: number;
  readonly background_color: string | null;
  readonly image_url: string | null;
  readonly image_preview_url: string | null;
  readonly image_thumbnail_url: string | null;
  readonly image_original_url: string | null;
  readonly animation_url: string | null;
  readonly animation_original_url: string | null;
  readonly name: string | null;
  readonly description: string | null;
  readonly external_link: string | null;
  readonly asset_contract: LegacyAssetContract;
  readonly owner: LegacyAccount | null;
  readonly permalink: string;
  readonly collection: LegacyCollection;
  readonly decimals: number | null;
}

/** Legacy asset bundle. */
export interface LegacyAssetBundle {
  readonly maker: LegacyAccount | null;
  readonly slug: string | null;
  readonly assets: readonly LegacyAsset[];
  readonly [extra: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Legacy v1 events: GET /api/v1/events/

/** Event types seen in legacy records (others are not documented). */
export type LegacyEventType = 'created' | 'offer_entered' | 'transfer' | 'successful';
export const LEGACY_EVENT_TYPES: readonly LegacyEventType[] = Object.freeze([
  'created',
  'offer_entered',
  'transfer',
  'successful',
]);

/** One element of `asset_events` in `GET /api/v1/events/`. */
export interface LegacyAssetEvent {
  readonly id: number;
  /** Null for bundle events. */
  readonly asset: LegacyAsset | null;
  readonly asset_bundle: LegacyAssetBundle | null;
  readonly transaction: LegacyTransaction | null;
  readonly payment_token: LegacyPaymentToken | null;
  readonly winner_account: LegacyAccount | null;
  readonly from_account: LegacyAccount | null;
  readonly to_account: LegacyAccount | null;
  readonly owner_account: LegacyAccount | null;
  readonly approved_account: LegacyAccount | null;
  readonly seller: LegacyAccount | null;
  /** Only `null` seen; type otherwise unspecified. */
  readonly dev_fee_payment_event: unknown;
  readonly collection_slug: string;
  /** ISO 8601 without zone, with fractional seconds. */
  readonly created_date: string;
  readonly modified_date: string;
  readonly contract_address: string;
  readonly log_index: string | null;
  readonly event_type: LegacyEventType | (string & {});
  readonly auction_type: 'dutch' | (string & {}) | null;
  /** Integer amounts as decimal strings, in the payment token's smallest unit. */
  readonly starting_price: string | null;
  readonly ending_price: string | null;
  readonly min_price: string | null;
  readonly bid_amount: string | null;
  readonly total_price: string | null;
  readonly payout_amount: string | null;
  /** Only `null` seen. */
  readonly duration: unknown;
  readonly offered_to: unknown;
  readonly custom_event_name: unknown;
  /** Integer as string. */
  readonly quantity: string;
  /** With or without fractional seconds. */
  readonly event_timestamp: string;
  /** Null for onchain transfers. */
  readonly relayer: string | null;
  /** Numeric collection id. */
  readonly collection: number;
  readonly payout_account: unknown;
  readonly payout_asset_contract: unknown;
  readonly payout_collection: unknown;
  readonly buy_order: number | null;
  readonly sell_order: number | null;
}

/** `GET /api/v1/events/` (wrapper fields other than `asset_events` are not documented). */
export interface LegacyEventsResponse {
  readonly asset_events: readonly LegacyAssetEvent[];
  readonly next?: string | null;
  readonly previous?: string | null;
  readonly [extra: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Deprecated legacy order lists: GET /api/v2/orders/{chain}/{protocol}/(listings|offers)

export type OrderBy = 'price' | 'created_at';
export type OrderDirection = 'asc' | 'desc';
export const ORDER_BY_VALUES: readonly OrderBy[] = Object.freeze(['price', 'created_at']);
export const ORDER_DIRECTIONS: readonly OrderDirection[] = Object.freeze(['asc', 'desc']);

export interface LegacyOrderFee {
  readonly account: LegacyAccount;
  readonly basis_points: string;
}

/** One order in the legacy format. */
export interface LegacyOrder {
  readonly created_date: string;
  readonly closing_date: string | null;
  readonly listing_time: number;
  readonly expiration_time: number;
  readonly order_hash: string | null;
  readonly protocol_data: {
    readonly parameters: SeaportParameters;
    readonly signature: string | null;
  };
  readonly protocol_address: string | null;
  /** Decimal string in the payment token's smallest unit. */
  readonly current_price: string;
  readonly maker: LegacyAccount;
  readonly taker: LegacyAccount | null;
  readonly maker_fees: readonly LegacyOrderFee[];
  readonly taker_fees: readonly LegacyOrderFee[];
  readonly side: 'ask' | 'bid';
  readonly order_type: 'basic' | 'dutch' | 'english' | 'criteria';
  readonly cancelled: boolean;
  readonly finalized: boolean;
  readonly marked_invalid: boolean;
  readonly remaining_quantity?: number;
  readonly relay_id?: string;
  readonly criteria_proof?: readonly string[] | null;
  readonly maker_asset_bundle: LegacyAssetBundle;
  readonly taker_asset_bundle: LegacyAssetBundle;
  readonly [extra: string]: unknown;
}

/** Orders response in the legacy format. The next-page cursor's field name is not documented. */
export interface LegacyOrdersResponse {
  readonly orders: readonly LegacyOrder[];
  readonly next?: string | null;
  readonly previous?: string | null;
  readonly [extra: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Deprecated response fields

/** Reported through `ApiClientOptions.onDeprecatedField` when a response only had a deprecated field. */
export interface DeprecatedFieldEvent {
  /** Path template of the endpoint, e.g. `/api/v2/orders/{chain}/{protocol}/listings`. */
  readonly endpoint: string;
  /** The deprecated field that was used. */
  readonly field: 'order';
  /** The current field that was missing. */
  readonly replacement: 'listing' | 'offer';
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Listing, Offer } from '@opensea/api-types';
import type { AuthService, WalletIdentity } from '../auth/service.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import type { SandboxClock } from '../clock.ts';
import type { OffchainCollection } from '../data/offchain.ts';
import type { EventLog } from '../events/log.ts';
import type { Market, WindowOrder } from '../market/types.ts';
import type { Faults, HeldRequests } from './faults.ts';
import type { KeyStore, Principal } from './keys.ts';
import type { TxInfo } from './render-events.ts';
import type { Params } from './router.ts';

/** What a route handler sees of one request. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly path: string;
  readonly params: Params;
  readonly query: URLSearchParams;
  /** Set on authenticated `/api` routes. */
  readonly principal: Principal | undefined;
  /** Set on wallet-scoped routes when a valid wallet JWT came with the request. */
  readonly wallet: WalletIdentity | undefined;
  /** The JSON body (size-capped; malformed → 400); `undefined` when empty. */
  body(): Promise<unknown>;
}

/** One `/api` request as the server's pipeline sees it, whatever carried it (HTTP, an agent tool). */
export interface ApiCall {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The `X-API-KEY` header. */
  readonly apiKey: string | undefined;
  /** The `Authorization` header. */
  readonly authorization: string | undefined;
  /** Check the wallet JWT for this scope whatever the route says (the agent-protocol's wallet tools). */
  readonly walletScope?: string;
  /** The transport's request and response (peer address; a held request drops this response). */
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Where the pipeline's headers go (X-RateLimit-*, Retry-After, Allow). */
  setHeader(name: string, value: string): void;
  body(): Promise<unknown>;
}

/** An API request made in-process (src/sandbox/mcp): the body is already parsed. */
export interface ApiInvocation {
  readonly method: string;
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly apiKey: string | undefined;
  readonly authorization: string | undefined;
  readonly walletScope?: string;
  readonly body?: unknown;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

/** Its answer: the status, the body as a JSON client parses it (errors as `{errors}`), the headers. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/** A handler's answer: JSON (default) or text. Errors are thrown as `HttpError`. */
export type Reply =
  | { readonly status?: number; readonly json: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly status?: number; readonly text: string; readonly contentType: string };

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

/** Who may call a route. */
export type Access = 'key' | 'public' | 'admin';

export interface Route {
  readonly method: string;
  readonly pattern: string;
  readonly access: Access;
  /**
   * A wallet-scoped route: `Authorization: Bearer <JWT>` must carry `scope` (401/403), checked
   * after the API key. `required` (default always) may make the JWT optional; a JWT sent anyway is
   * still checked. `forbiddenBody` is merged into the 403 body (an operation's own 403 shape).
   */
  readonly wallet?: {
    readonly scope: string;
    readonly required?: () => boolean;
    readonly forbiddenBody?: Readonly<Record<string, unknown>>;
  };
  readonly handler: Handler;
}

/** Renders an order in the deprecated legacy format (the `order` field of create responses). */
export type LegacyOrderRenderer = (order: Listing | Offer) => unknown;

/** The part of the stream server's fault control the admin surface forwards to. */
export interface StreamFaultTarget {
  configure(settings: {
    readonly duplicateRate?: number;
    readonly reorderWindow?: number;
    readonly malformedRate?: number;
  }): void;
  reset(): void;
  dropAll(): number;
  stall(ms: number): number;
}

export interface StreamControl {
  readonly faults: StreamFaultTarget;
  /** The stream server's own counters (connections, deliveries per type), shown in `/_sandbox/stats`. */
  stats?(): unknown;
}

/** A trader set up to fill an order inside its cancel window. */
export interface PreparedWindowFill {
  readonly trader: string;
  /** Sends the fill (approvals first) after a short delay; resolves with the mined transaction's hash. */
  fill(): Promise<string>;
}

/**
 * The trader side of the cancel-window fault (src/sandbox/simulator/window-fill.ts): the server
 * asks it, before an accepted cancel marks the order cancelled, for a trader holding a zone
 * authorization valid until the window's end.
 */
export interface CancelWindowFiller {
  /** A trader able to fill `order`, with its authorization; undefined when no trader can. */
  prepare(order: WindowOrder, validUntil: bigint): Promise<PreparedWindowFill | undefined>;
}

/**
 * Settings of the simulated traders who answer other wallets' orders (`POST /_sandbox/traders`):
 * listing takers and offer makers on held items (src/sandbox/simulator/takers.ts).
 */
export interface TraderSettings {
  /** Master switch; `false` stops both without forgetting the rates. */
  readonly enabled: boolean;
  /** Probability per taker tick (1 s) that a trader buys an attractive listing of a non-simulated wallet. */
  readonly listingTakerRate: number;
  /** A listing is attractive at or below the collection's floor × (1 + premiumBps / 10000), per unit. */
  readonly premiumBps: number;
  /** Probability per taker tick that a trader makes an item offer on an NFT a non-simulated wallet holds. */
  readonly heldItemOfferRate: number;
}

/** What the listing takers and held-item offer makers did (`traders.counts` of `GET /_sandbox/stats`). */
export interface TraderCounts {
  /** Taker ticks run, and ticks that found the previous one still running. */
  readonly ticks: number;
  readonly skippedTicks: number;
  /** Non-simulated wallets' listings bought on chain, and the units bought (ERC1155 partial fills). */
  readonly listingBuys: number;
  readonly listingBuyUnits: number;
  /** The dice chose a buy, but no listing of a non-simulated wallet was attractive. */
  readonly listingNoTarget: number;
  readonly listingBuyFailures: number;
  /** Item offers posted on NFTs non-simulated wallets hold. */
  readonly heldItemOffers: number;
  /** The dice chose an offer, but no held item wanted one (none held, or enough offers on it). */
  readonly heldItemNoTarget: number;
  /** No trader had the WETH for the offer. */
  readonly heldItemNoFunds: number;
  readonly heldItemOfferFailures: number;
  readonly lastError?: string;
}

/** The simulator's side of `/_sandbox/traders`. */
export interface TraderControl {
  settings(): TraderSettings;
  /** Applies a validated partial update; returns the settings now in force. */
  configure(update: Partial<TraderSettings>): TraderSettings;
  counts(): TraderCounts;
}

/** The server's collaborators; some arrive after `listen` (the chain needs the server's URL first). */
export interface ServerState {
  readonly chain: string;
  readonly events: EventLog;
  readonly keys: KeyStore;
  /** SIWE sessions, PATs, wallet JWTs (src/sandbox/auth). */
  readonly auth: AuthService;
  /** The one clock of lifetimes (keys, sessions, JWTs), movable from `/_sandbox/clock`. */
  readonly clock: SandboxClock;
  readonly faults: Faults;
  /** Requests held open by the `'timeout'` cancel fault (dropped at close). */
  readonly held: HeldRequests;
  readonly createdAtMs: number;
  readonly bodyLimit: number;
  catalog: Catalog | undefined;
  market: Market | undefined;
  legacyOrderOf: LegacyOrderRenderer | undefined;
  stream: StreamControl | undefined;
  txInfo: ((hash: string) => Promise<TxInfo | undefined>) | undefined;
  /** The chain the market settles on (contracts, provider, swap venue, drops). */
  fixture: ChainFixture | undefined;
  /** A collection known only from other marketplaces (items and listings in the sandbox's data). */
  offchain: OffchainCollection | undefined;
  /** Fills orders inside a cancel's signature window (`cancel.fillInWindowRate`). */
  windowFiller: CancelWindowFiller | undefined;
  /** The simulated traders' listing takers and held-item offers (`/_sandbox/traders`); with the simulator. */
  traders: TraderControl | undefined;
  /** Base URL clients reach the server at (metadata links); set by `listen` unless configured. */
  publicUrl: string;
}

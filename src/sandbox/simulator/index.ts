/**
 * The market simulator: seeded traders with funded anvil wallets keep the sandbox's market
 * moving — they list around a floor (a share of listings well under it), post item, collection
 * and trait offers, buy listings, accept offers, transfer NFTs to each other, cancel their orders
 * and update token metadata, and mint from the drops that are active (the drop's supply moves),
 * at `activity` actions per second.
 *
 * Everything is real: orders are signed with the traders' keys and go through the programmatic
 * market API (the same verification as `POST /orders`, no HTTP, no rate limits); purchases,
 * accepted offers, transfers, on-chain cancels, metadata touches and drop mints are transactions
 * on anvil (a mint is the transaction `POST /api/v2/drops/{slug}/mint` would return, built by the
 * same code, sent and paid by the trader who receives the tokens).
 * The simulator records no market event itself except the metadata update (the market has no
 * metadata path): listings and offers are recorded by the market when it stores them, sales,
 * transfers and on-chain cancels by its chain watcher, off-chain cancels by `market.cancel`.
 *
 * Wallets: by default the traders are the fixture wallets from index 3 on (with the default 10
 * wallets: 3–9); wallets 0–2 are never used, they are left to the user, the daemon and tests.
 * Metadata updates are sent by the fixture's admin (the collections' owner).
 *
 * Determinism: action `n` draws from a PRNG seeded with (seed, n), so the same seed gives the
 * same sequence of chosen actions with the same random parameters (trader, collection, price
 * factors, durations, which of the candidates). What they act on — which tokens a trader holds,
 * which listings and offers are in the book — depends on earlier outcomes on the chain and on
 * other clients, so the chain outcome may differ from run to run with timing.
 *
 * Other wallets' orders (a daemon's, a test's): besides the `buy` action, which buys any maker's
 * listing up to `BUY_LIMIT` × the floor, listing takers buy attractive listings of non-simulated
 * wallets and traders bid on NFTs those wallets hold (takers.ts), once per `TAKER_TICK_MS` with
 * the probabilities of `takers` (switchable at `POST /_sandbox/traders`).
 *
 * Scheduling: one action per tick of `1000 / activity` ms; actions never overlap — a tick that
 * finds the previous action still running is skipped and counted. An action's failure (a race
 * lost to another client, a reverted transaction) is counted and logged, never thrown.
 */
import {
  Contract,
  getAddress,
  Interface,
  MaxUint256,
  parseEther,
  type TransactionReceipt,
  type TransactionRequest,
  type Wallet,
  ZeroAddress,
} from 'ethers';
import type { Catalog, CatalogCollection } from '../catalog/catalog.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import { activityOf, buildMint, readDropState } from '../data/drops.ts';
import { HttpError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { SandboxMarket } from '../market/index.ts';
import { ERC20_ABI, NFT_ABI, OrderType, seaportInterface, type WireParameters } from '../market/seaport.ts';
import type { TraderControl, TraderCounts, TraderSettings } from '../server/types.ts';
import { Inventory } from './inventory.ts';
import {
  fulfillmentTransaction,
  listingParameters,
  type OrderContext,
  offerParameters,
  sign,
  signCancel,
} from './orders.ts';
import {
  ACTION_KINDS,
  type ActionKind,
  type ActionWeights,
  actionRng,
  between,
  chooseKind,
  DEFAULT_WEIGHTS,
  initialRng,
  listingPriceFactor,
  type OfferKind,
  offerPriceFactor,
  pick,
  type Rng,
  scalePrice,
} from './plan.ts';
import { type SenderPool, TxSender } from './sender.ts';
import { TAKER_TICK_MS } from './taker-plan.ts';
import { createTakers } from './takers.ts';

export type { ActionKind, ActionWeights } from './plan.ts';
export { ACTION_KINDS, DEFAULT_WEIGHTS, planActions } from './plan.ts';
export { DEFAULT_TRADER_SETTINGS, TAKER_TICK_MS } from './taker-plan.ts';

/** Default activity: actions per second (each action records one or a few market events). */
export const DEFAULT_ACTIVITY = 3;
export const DEFAULT_UNDERPRICED_SHARE = 0.1;
/** The first fixture wallet the simulator trades with by default (0–2 stay free). */
export const FIRST_TRADER_WALLET = 3;
/** Floors (wei per unit) of the sandbox's collections; other collections get `FALLBACK_FLOOR`. */
export const DEFAULT_FLOORS: Readonly<Record<string, bigint>> = Object.freeze({
  'harpoon-apes': parseEther('0.05'),
  'harpoon-punks': parseEther('0.03'),
  'harpoon-items': parseEther('0.005'),
});
export const FALLBACK_FLOOR = parseEther('0.01');
/** WETH each trader holds (wraps the difference at start) for its offers. */
export const DEFAULT_WETH_PER_TRADER = parseEther('20');
/** A trader keeps at most this many active offers per collection (the book stays bounded). */
export const MAX_OFFERS_PER_COLLECTION = 12;
/** Traders buy listings up to this multiple of the floor and accept offers from this multiple. */
export const BUY_LIMIT = 1.3;
export const ACCEPT_LIMIT = 0.7;
/** A drop mint takes 1..this many tokens. */
export const MAX_MINT_PER_ACTION = 2;

export interface InitialBook {
  /** Listings per collection around the floor. Default 10. */
  readonly listings?: number;
  /** Collection offers per collection. Default 3. */
  readonly collectionOffers?: number;
  /** Trait offers per collection. Default 2. */
  readonly traitOffers?: number;
  /** Item offers per collection. Default 2. */
  readonly itemOffers?: number;
}

/** pino-compatible: `logger.warn({ ...detail }, message)`. */
export interface SimulatorLogger {
  warn(detail: Record<string, unknown>, message: string): void;
  info?(detail: Record<string, unknown>, message: string): void;
}

export interface SimulatorOptions {
  readonly market: SandboxMarket;
  readonly fixture: ChainFixture;
  readonly catalog: Catalog;
  readonly events: EventLog;
  /** Default 1. */
  readonly seed?: number;
  /** Actions per second; default 3. 0: only the initial book, no ticks. */
  readonly activity?: number;
  /** Share of listings 20–40 % below the floor; default 0.1. */
  readonly underpricedShare?: number;
  /** Fixture wallet indices of the traders; default 3..(wallets − 1). */
  readonly traders?: readonly number[];
  /** Floor per collection slug (wei per unit); merged over `DEFAULT_FLOORS`. */
  readonly floors?: Readonly<Record<string, bigint>>;
  /** Relative frequencies of the actions; merged over `DEFAULT_WEIGHTS`. */
  readonly weights?: Partial<ActionWeights>;
  /** The book posted at start; `false` for none. */
  readonly initialBook?: InitialBook | false;
  /** Default 20 WETH. */
  readonly wethPerTrader?: bigint;
  readonly logger?: SimulatorLogger;
  /** Transaction senders shared with others who send for the same wallets; default the simulator's own. */
  readonly senders?: SenderPool;
  /** Listing takers and held-item offers; merged over `DEFAULT_TRADER_SETTINGS` (on, modest rates). */
  readonly takers?: Partial<TraderSettings>;
}

export interface ActionCounts {
  readonly ok: number;
  readonly failed: number;
  /** Chosen but nothing to act on (no token held, no listing within the price limit…). */
  readonly noTarget: number;
}

export interface SimulatorStats {
  readonly state: 'idle' | 'starting' | 'running' | 'stopped';
  readonly activity: number;
  readonly traders: readonly string[];
  /** Actions started (the next action's number). */
  readonly actions: number;
  readonly ok: number;
  readonly failed: number;
  readonly noTarget: number;
  /** Ticks that found the previous action still running. */
  readonly skippedTicks: number;
  /** An action is running now. */
  readonly busy: boolean;
  readonly byKind: Readonly<Record<ActionKind, ActionCounts>>;
  readonly initial: { readonly listings: number; readonly offers: number; readonly failed: number };
  /** Listing takers and held-item offers (their own ticks, not counted in `actions`). */
  readonly takers: TraderCounts;
  readonly lastError?: string;
}

export interface Simulator {
  /** Trader addresses, in the order of `traderWallets`. */
  readonly traders: readonly string[];
  /** Their fixture wallet indices. */
  readonly traderWallets: readonly number[];
  /**
   * Funds and approves the traders (WETH wrapped, the conduit approved for WETH and every
   * collection), posts the initial book, then starts ticking. Resolves once the book is posted.
   */
  start(): Promise<void>;
  /** Stops ticking and waits for the running action (and a running start) to finish. */
  stop(): Promise<void>;
  stats(): SimulatorStats;
  /** The listing takers' and held-item offers' settings and counters (`/_sandbox/traders`). */
  readonly takers: TraderControl;
}

type Outcome = 'ok' | 'no_target';

interface Trader {
  readonly index: number;
  readonly address: string;
  readonly wallet: Wallet;
  readonly sender: TxSender;
}

/** The loose view of a rendered Listing/Offer the simulator reads. */
interface OrderView {
  readonly order_hash: string;
  readonly price: { readonly value?: string; readonly current?: { readonly value: string } };
  readonly remaining_quantity: number;
  readonly protocol_data: { readonly parameters: WireParameters };
  readonly asset?: { readonly identifier: string };
}
const view = (o: unknown) => o as OrderView;
const makerOf = (o: OrderView) => o.protocol_data.parameters.offerer.toLowerCase();
const unitPrice = (o: OrderView): bigint => {
  const total = BigInt(o.price.current?.value ?? o.price.value ?? '0');
  return o.remaining_quantity > 0 ? total / BigInt(o.remaining_quantity) : total;
};

const NFT_WRITE = new Interface([
  'function setApprovalForAll(address operator, bool approved)',
  'function transferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
  'function touchMetadata(uint256 tokenId)',
]);
const WETH_WRITE = new Interface([
  'function deposit() payable',
  'function approve(address spender, uint256 amount) returns (bool)',
]);

const HOUR = 3600;

function errorMessage(e: unknown): string {
  if (e instanceof HttpError) return e.message;
  const short = (e as { shortMessage?: unknown } | null)?.shortMessage;
  const msg = typeof short === 'string' ? short : e instanceof Error ? e.message : String(e);
  return msg.length > 300 ? `${msg.slice(0, 300)}…` : msg;
}

export function createSimulator(options: SimulatorOptions): Simulator {
  const { market, fixture, catalog, events } = options;
  const seed = options.seed ?? 1;
  const activity = options.activity ?? DEFAULT_ACTIVITY;
  if (!Number.isFinite(activity) || activity < 0) throw new Error(`activity must be ≥ 0, got ${activity}`);
  const underpricedShare = options.underpricedShare ?? DEFAULT_UNDERPRICED_SHARE;
  if (!(underpricedShare >= 0 && underpricedShare <= 1)) {
    throw new Error(`underpricedShare must be between 0 and 1, got ${underpricedShare}`);
  }
  const weights: ActionWeights = { ...DEFAULT_WEIGHTS, ...options.weights };
  chooseKind(0, weights); // validates the weights
  const floors: Readonly<Record<string, bigint>> = { ...DEFAULT_FLOORS, ...options.floors };
  const wethPerTrader = options.wethPerTrader ?? DEFAULT_WETH_PER_TRADER;
  const logger = options.logger;

  const traderWallets = [
    ...(options.traders ??
      Array.from(
        { length: Math.max(0, fixture.wallets.length - FIRST_TRADER_WALLET) },
        (_, i) => i + FIRST_TRADER_WALLET,
      )),
  ];
  if (traderWallets.length === 0) {
    throw new Error(
      `the simulator needs at least one trader wallet (the fixture has ${fixture.wallets.length} wallets; traders default to index ${FIRST_TRADER_WALLET} on)`,
    );
  }
  const traders: Trader[] = traderWallets.map((index) => {
    const wallet = fixture.wallets[index];
    if (!wallet) throw new Error(`trader wallet index ${index} is not a fixture wallet`);
    const address = getAddress(wallet.address);
    return {
      index,
      address,
      wallet,
      sender: options.senders?.for(wallet, address) ?? new TxSender(wallet, address),
    };
  });
  if (new Set(traders.map((t) => t.address)).size !== traders.length) {
    throw new Error('trader wallet indices must be distinct');
  }

  const collections = catalog.collections();
  const erc721 = collections.filter((c) => c.standard === 'erc721');
  const chain = market.chain;
  const seaport = fixture.seaport.seaport;
  const conduit = fixture.seaport.conduit;
  const weth = getAddress(String(fixture.weth.target));
  const ctx: OrderContext = {
    fx: fixture,
    weth,
    zone: getAddress(String(fixture.zone.target)),
    coll(slug) {
      const c = catalog.bySlug(slug);
      if (!c) throw new Error(`unknown collection '${slug}'`);
      return c;
    },
  };
  const inventory = new Inventory(collections);
  const counters = new Map<string, bigint>();
  let admin: TxSender | undefined;

  // ---- state and stats
  type Mutable<T> = { -readonly [K in keyof T]: T[K] };
  const byKind = Object.fromEntries(
    ACTION_KINDS.map((k) => [k, { ok: 0, failed: 0, noTarget: 0 }]),
  ) as Record<ActionKind, Mutable<ActionCounts>>;
  const initial = { listings: 0, offers: 0, failed: 0 };
  let state: SimulatorStats['state'] = 'idle';
  let next = 0;
  let skippedTicks = 0;
  let lastError: string | undefined;
  let current: Promise<void> | undefined;
  let starting: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let unfollow: (() => void) | undefined;
  let stopping = false;
  const failures = new Map<string, number>();

  function failed(what: string, e: unknown, detail: Record<string, unknown> = {}): void {
    const message = errorMessage(e);
    lastError = `${what}: ${message}`;
    const n = (failures.get(what) ?? 0) + 1;
    failures.set(what, n);
    // The first few failures of a kind, then every 50th: a broken market cannot flood the log.
    if (logger && (n <= 3 || n % 50 === 0)) {
      logger.warn({ action: what, failures: n, error: message, ...detail }, `simulator: ${what} failed`);
    }
  }

  const floorOf = (c: CatalogCollection) => floors[c.slug] ?? FALLBACK_FLOOR;
  const traderOf = (rng: Rng) => traders[pick(rng, traders.length)] as Trader;
  const collectionOf = (rng: Rng) => collections[pick(rng, collections.length)] as CatalogCollection;
  const counterOf = (t: Trader) => counters.get(t.address) ?? 0n;

  // ---- order posting (the market records the events)

  async function postListing(
    t: Trader,
    c: CatalogCollection,
    tokenId: bigint,
    units: bigint,
    unit: bigint,
    durationSec: number,
  ): Promise<void> {
    const parameters = await listingParameters(ctx, t.wallet, {
      slug: c.slug,
      tokenId,
      price: unit * units,
      amount: units,
      orderType: OrderType.PARTIAL_OPEN,
      duration: BigInt(durationSec),
      counter: counterOf(t),
      now: market.chainNow(),
    });
    const signature = await sign(ctx, t.wallet, parameters);
    await market.createOrder('listing', chain, 'seaport', { parameters, signature });
  }

  async function postItemOffer(
    t: Trader,
    c: CatalogCollection,
    tokenId: bigint,
    price: bigint,
    durationSec: number,
  ): Promise<void> {
    const parameters = await offerParameters(ctx, t.wallet, {
      slug: c.slug,
      tokenId,
      price,
      duration: BigInt(durationSec),
      counter: counterOf(t),
      now: market.chainNow(),
    });
    const signature = await sign(ctx, t.wallet, parameters);
    await market.createOrder('offer', chain, 'seaport', { parameters, signature });
  }

  async function postCriteriaOffer(
    t: Trader,
    c: CatalogCollection,
    traits: readonly { type: string; value: string }[],
    price: bigint,
    durationSec: number,
  ): Promise<void> {
    const criteria = { collection: { slug: c.slug }, ...(traits.length > 0 ? { traits } : {}) };
    const b = await market.buildOffer({
      offerer: t.address,
      quantity: 1,
      criteria,
      protocol_address: seaport,
      offer_protection_enabled: true,
    });
    const { recipient: _recipient, ...nftItem } = b.partialParameters.consideration[0] as {
      recipient: string;
    } & WireParameters['offer'][number];
    const parameters = await offerParameters(ctx, t.wallet, {
      slug: c.slug,
      price,
      nftItem,
      zone: b.partialParameters.zone,
      duration: BigInt(durationSec),
      counter: counterOf(t),
      now: market.chainNow(),
    });
    const signature = await sign(ctx, t.wallet, parameters);
    await market.createCriteriaOffer({
      protocol_data: { parameters, signature },
      criteria: b.criteria,
      protocol_address: seaport,
    });
  }

  /** A text trait (type, value) some token of the collection has now. */
  function traitOf(c: CatalogCollection, rng: Rng): { type: string; value: string } | undefined {
    const id = BigInt(1 + pick(rng, c.supply));
    const types = Object.keys(c.traits.text);
    if (types.length === 0) return undefined;
    const type = types[pick(rng, types.length)] as string;
    const value = catalog.traits(c.slug, id).find((t) => t.trait_type === type)?.value;
    return value === undefined ? undefined : { type, value: String(value) };
  }

  const openOffers = (t: Trader, c: CatalogCollection) =>
    market.allOffers(c.slug, { maker: t.address, limit: 200 }).items.length;

  const takers = createTakers({
    market,
    fixture,
    ctx,
    traders,
    inventory,
    collections,
    seed,
    floorOf,
    counterOf: (address) => counters.get(address) ?? 0n,
    openOffers: (address, slug) => market.allOffers(slug, { maker: address, limit: 200 }).items.length,
    maxOffersPerCollection: MAX_OFFERS_PER_COLLECTION,
    ...(options.takers !== undefined ? { settings: options.takers } : {}),
    onFailure: (what, e, detail) => failed(what, e, detail),
    ...(logger?.info ? { onEvent: (d: Record<string, unknown>, m: string) => logger.info?.(d, m) } : {}),
  });
  let takerTimer: NodeJS.Timeout | undefined;
  let takerTick = 0;
  let takerCurrent: Promise<void> | undefined;

  const listedIds = (t: Trader, c: CatalogCollection) =>
    new Set(
      market
        .allListings(c.slug, { maker: t.address, limit: 200 })
        .items.map((l) => view(l).asset?.identifier),
    );

  async function send(t: TxSender, tx: TransactionRequest) {
    const receipt = await t.send(tx);
    // Let the market record what the transaction did before the next action looks at the book.
    await market.sync();
    return receipt;
  }

  // ---- actions: each draws its parameters first, then looks at the market

  async function list(rng: Rng): Promise<Outcome> {
    const t = traderOf(rng);
    const c = collectionOf(rng);
    const price = listingPriceFactor(rng, underpricedShare);
    const duration = Math.round(between(rng, 1, 24) * HOUR);
    const tokenU = rng();
    const unitsU = rng();
    const listed = listedIds(t, c);
    const candidates = inventory.holdings(c.slug, t.address).filter((h) => !listed.has(h.tokenId.toString()));
    if (candidates.length === 0) return 'no_target';
    const h = candidates[Math.min(candidates.length - 1, Math.floor(tokenU * candidates.length))];
    if (!h) return 'no_target';
    const wanted = 1n + BigInt(Math.floor(unitsU * 3));
    const units = c.standard === 'erc721' ? 1n : h.units < wanted ? h.units : wanted;
    await postListing(t, c, h.tokenId, units, scalePrice(floorOf(c), price.factor), duration);
    return 'ok';
  }

  async function offer(kind: OfferKind, rng: Rng): Promise<Outcome> {
    const t = traderOf(rng);
    const c = collectionOf(rng);
    const price = scalePrice(floorOf(c), offerPriceFactor(rng, kind));
    const duration = Math.round(between(rng, 0.5, 12) * HOUR);
    if (openOffers(t, c) >= MAX_OFFERS_PER_COLLECTION) return 'no_target';
    if (kind === 'item_offer') {
      const first = pick(rng, c.supply);
      // Nobody bids on their own ERC721: the first token from the drawn one the trader lacks.
      for (let k = 0; k < c.supply; k++) {
        const id = BigInt(((first + k) % c.supply) + 1);
        if (c.standard === 'erc721' && inventory.units(c.slug, id, t.address) > 0n) continue;
        await postItemOffer(t, c, id, price, duration);
        return 'ok';
      }
      return 'no_target';
    } else if (kind === 'collection_offer') {
      await postCriteriaOffer(t, c, [], price, duration);
    } else {
      const trait = traitOf(c, rng);
      if (!trait) return 'no_target';
      await postCriteriaOffer(t, c, [trait], price, duration);
    }
    return 'ok';
  }

  async function buy(rng: Rng): Promise<Outcome> {
    const t = traderOf(rng);
    const c = collectionOf(rng);
    const u = rng();
    const limit = (floorOf(c) * BigInt(Math.round(BUY_LIMIT * 100))) / 100n;
    const me = t.address.toLowerCase();
    const candidates = market
      .bestListings(c.slug, { limit: 50 })
      .items.map(view)
      .filter((l) => makerOf(l) !== me && unitPrice(l) <= limit);
    if (candidates.length === 0) return 'no_target';
    // Cheapest first, most likely: u² leans towards the head of the list.
    const l = candidates[Math.min(candidates.length - 1, Math.floor(u * u * candidates.length))];
    if (!l) return 'no_target';
    const res = await market.fulfillmentData('listing', {
      listing: { hash: l.order_hash, chain, protocol_address: seaport },
      fulfiller: { address: t.address },
    });
    await send(t.sender, fulfillmentTransaction(res));
    return 'ok';
  }

  async function accept(rng: Rng): Promise<Outcome> {
    const t = traderOf(rng);
    const c = collectionOf(rng);
    const u = rng();
    const holdings = inventory.holdings(c.slug, t.address);
    if (holdings.length === 0) return 'no_target';
    const min = (floorOf(c) * BigInt(Math.round(ACCEPT_LIMIT * 100))) / 100n;
    const me = t.address.toLowerCase();
    const first = Math.min(holdings.length - 1, Math.floor(u * holdings.length));
    for (let k = 0; k < Math.min(5, holdings.length); k++) {
      const h = holdings[(first + k) % holdings.length];
      if (!h) continue;
      const best = market
        .itemOffers(c.slug, h.tokenId.toString(), { limit: 20 })
        .items.map(view)
        .find((o) => makerOf(o) !== me && unitPrice(o) >= min);
      if (!best) continue;
      const res = await market.fulfillmentData('offer', {
        offer: { hash: best.order_hash, chain, protocol_address: seaport },
        fulfiller: { address: t.address },
        consideration: { asset_contract_address: c.contract, token_id: h.tokenId.toString() },
        units_to_fill: 1,
      });
      await send(t.sender, fulfillmentTransaction(res));
      return 'ok';
    }
    return 'no_target';
  }

  async function transfer(rng: Rng): Promise<Outcome> {
    const t = traderOf(rng);
    const c = collectionOf(rng);
    const tokenU = rng();
    const toU = rng();
    const others = traders.filter((o) => o !== t);
    const holdings = inventory.holdings(c.slug, t.address);
    if (others.length === 0 || holdings.length === 0) return 'no_target';
    const h = holdings[Math.min(holdings.length - 1, Math.floor(tokenU * holdings.length))];
    const to = others[Math.min(others.length - 1, Math.floor(toU * others.length))];
    if (!h || !to) return 'no_target';
    const data =
      c.standard === 'erc721'
        ? NFT_WRITE.encodeFunctionData('transferFrom', [t.address, to.address, h.tokenId])
        : NFT_WRITE.encodeFunctionData('safeTransferFrom', [t.address, to.address, h.tokenId, 1n, '0x']);
    await send(t.sender, { to: c.contract, data });
    return 'ok';
  }

  async function cancel(rng: Rng): Promise<Outcome> {
    const t = traderOf(rng);
    const c = collectionOf(rng);
    const u = rng();
    const own = [
      ...market.allListings(c.slug, { maker: t.address, limit: 200 }).items,
      ...market.allOffers(c.slug, { maker: t.address, limit: 200 }).items,
    ].map(view);
    if (own.length === 0) return 'no_target';
    const o = own[Math.min(own.length - 1, Math.floor(u * own.length))];
    if (!o) return 'no_target';
    const p = o.protocol_data.parameters;
    const zoned = p.orderType === OrderType.FULL_RESTRICTED || p.orderType === OrderType.PARTIAL_RESTRICTED;
    if (zoned && p.zone !== ZeroAddress) {
      // Zone-protected offers are cancelled off-chain: the zone stops signing for them.
      const offererSignature = await signCancel(ctx, t.wallet, o.order_hash);
      await market.cancel(chain, seaport, o.order_hash, { offererSignature });
    } else {
      await send(t.sender, { to: seaport, data: seaportInterface.encodeFunctionData('cancel', [[p]]) });
    }
    return 'ok';
  }

  async function metadata(rng: Rng): Promise<Outcome> {
    if (erc721.length === 0 || !admin) return 'no_target';
    const c = erc721[pick(rng, erc721.length)] as CatalogCollection;
    const tokenId = BigInt(1 + pick(rng, c.supply));
    const types = Object.keys(c.traits.text);
    if (types.length === 0) return 'no_target';
    const type = types[pick(rng, types.length)] as string;
    const current = catalog.traits(c.slug, tokenId).find((x) => x.trait_type === type)?.value;
    const choices = (c.traits.text[type] ?? []).map(([v]) => v).filter((v) => v !== current);
    if (choices.length === 0) return 'no_target';
    const value = choices[pick(rng, choices.length)] as string;
    // On chain first (EIP-4906 MetadataUpdate): the catalog changes only once the event is real.
    const receipt: TransactionReceipt = await admin.send({
      to: c.contract,
      data: NFT_WRITE.encodeFunctionData('touchMetadata', [tokenId]),
    });
    const traits = catalog.setTrait(c.slug, tokenId, type, value);
    events.append({
      kind: 'metadata_update',
      chain,
      collection: c.slug,
      nft: { contract: c.contract, identifier: tokenId.toString(), standard: c.standard },
      traits: traits.map((x) => ({ trait_type: x.trait_type, value: x.value })),
      txHash: receipt.hash,
      blockNumber: receipt.blockNumber,
    });
    return 'ok';
  }

  /** Mints from one of the active drops (paused, ended, not started ones are skipped). */
  async function mint(rng: Rng): Promise<Outcome> {
    const t = traderOf(rng);
    const dropU = rng();
    const quantity = 1 + pick(rng, MAX_MINT_PER_ACTION);
    if (fixture.drops.length === 0) return 'no_target';
    const states = await Promise.all(fixture.drops.map((d) => readDropState(fixture, d)));
    const active = fixture.drops.filter((_, i) => {
      const st = states[i];
      return st !== undefined && activityOf(st) === 'active';
    });
    const d = active[Math.min(active.length - 1, Math.floor(dropU * active.length))];
    if (!d) return 'no_target';
    let tx: Awaited<ReturnType<typeof buildMint>>;
    try {
      tx = await buildMint(fixture, d, { minter: t.address, quantity }, chain);
    } catch (e) {
      // Not active any more, or this trader's limit / the supply is used up: nothing to mint.
      if (e instanceof HttpError && (e.status === 409 || e.status === 422)) return 'no_target';
      throw e;
    }
    await t.sender.send({ to: tx.to, data: tx.data, value: BigInt(tx.value) });
    return 'ok';
  }

  const handlers: Record<ActionKind, (rng: Rng) => Promise<Outcome>> = {
    list,
    item_offer: (rng) => offer('item_offer', rng),
    collection_offer: (rng) => offer('collection_offer', rng),
    trait_offer: (rng) => offer('trait_offer', rng),
    buy,
    accept,
    transfer,
    cancel,
    metadata,
    mint,
  };

  async function runAction(n: number): Promise<void> {
    const rng = actionRng(seed, n);
    const kind = chooseKind(rng(), weights);
    const counts = byKind[kind];
    try {
      const outcome = await handlers[kind](rng);
      if (outcome === 'ok') counts.ok++;
      else counts.noTarget++;
    } catch (e) {
      counts.failed++;
      failed(kind, e, { n });
    }
  }

  // ---- start: funds, approvals, the initial book

  async function prepare(t: Trader): Promise<void> {
    const wethRead = new Contract(weth, ERC20_ABI as unknown as string[], fixture.provider);
    const [balance, allowance, counter] = await Promise.all([
      wethRead.getFunction('balanceOf')(t.address) as Promise<bigint>,
      wethRead.getFunction('allowance')(t.address, conduit) as Promise<bigint>,
      new Contract(seaport, seaportInterface, fixture.provider).getFunction('getCounter')(
        t.address,
      ) as Promise<bigint>,
    ]);
    counters.set(t.address, counter);
    if (balance < wethPerTrader) {
      await t.sender.send({
        to: weth,
        data: WETH_WRITE.encodeFunctionData('deposit'),
        value: wethPerTrader - balance,
      });
    }
    if (allowance < MaxUint256 / 2n) {
      await t.sender.send({
        to: weth,
        data: WETH_WRITE.encodeFunctionData('approve', [conduit, MaxUint256]),
      });
    }
    for (const c of collections) {
      const nft = new Contract(c.contract, NFT_ABI as unknown as string[], fixture.provider);
      if (!((await nft.getFunction('isApprovedForAll')(t.address, conduit)) as boolean)) {
        await t.sender.send({
          to: c.contract,
          data: NFT_WRITE.encodeFunctionData('setApprovalForAll', [conduit, true]),
        });
      }
    }
  }

  async function initialBookOf(c: CatalogCollection, book: Required<InitialBook>): Promise<void> {
    const rng = initialRng(seed, c.slug);
    const attempt = async (what: 'listings' | 'offers', f: () => Promise<boolean>) => {
      if (stopping) return;
      try {
        if (await f()) initial[what]++;
      } catch (e) {
        initial.failed++;
        failed(`initial ${what === 'listings' ? 'listing' : 'offer'}`, e, { collection: c.slug });
      }
    };
    const offset = pick(rng, traders.length);
    const listed = new Set<string>();
    for (let i = 0; i < book.listings; i++) {
      const price = listingPriceFactor(rng, underpricedShare);
      const duration = Math.round(between(rng, 6, 24) * HOUR);
      await attempt('listings', async () => {
        // Round-robin over the traders, each listing a token nobody listed yet.
        for (let k = 0; k < traders.length; k++) {
          const t = traders[(offset + i + k) % traders.length] as Trader;
          const key = (id: bigint) => (c.standard === 'erc721' ? `${id}` : `${t.address}:${id}`);
          const h = inventory.holdings(c.slug, t.address).find((x) => !listed.has(key(x.tokenId)));
          if (!h) continue;
          listed.add(key(h.tokenId));
          await postListing(t, c, h.tokenId, 1n, scalePrice(floorOf(c), price.factor), duration);
          return true;
        }
        return false;
      });
    }
    const offerers = (i: number) => traders[(offset + i) % traders.length] as Trader;
    for (let i = 0; i < book.collectionOffers; i++) {
      const price = scalePrice(floorOf(c), offerPriceFactor(rng, 'collection_offer'));
      await attempt('offers', async () => {
        await postCriteriaOffer(offerers(i), c, [], price, 12 * HOUR);
        return true;
      });
    }
    for (let i = 0; i < book.traitOffers; i++) {
      const price = scalePrice(floorOf(c), offerPriceFactor(rng, 'trait_offer'));
      const trait = traitOf(c, rng);
      await attempt('offers', async () => {
        if (!trait) return false;
        await postCriteriaOffer(offerers(i + 1), c, [trait], price, 12 * HOUR);
        return true;
      });
    }
    for (let i = 0; i < book.itemOffers; i++) {
      const price = scalePrice(floorOf(c), offerPriceFactor(rng, 'item_offer'));
      const first = pick(rng, c.supply);
      await attempt('offers', async () => {
        const t = offerers(i + 2);
        // The first token from the drawn one that the offerer does not hold (ERC721).
        for (let k = 0; k < c.supply; k++) {
          const id = BigInt(((first + k) % c.supply) + 1);
          if (c.standard === 'erc721' && inventory.units(c.slug, id, t.address) > 0n) continue;
          await postItemOffer(t, c, id, price, 12 * HOUR);
          return true;
        }
        return false;
      });
    }
  }

  async function run(): Promise<void> {
    state = 'starting';
    unfollow = inventory.follow(events);
    // ERC1155 balances of every fixture wallet: the traders' own, and what the others hold to bid on.
    await inventory.load(fixture.provider, [
      ...new Set([...traders.map((t) => t.address), ...fixture.wallets.map((w) => getAddress(w.address))]),
    ]);
    admin = new TxSender(fixture.admin, getAddress(await fixture.admin.getAddress()));
    const prepared = await Promise.allSettled(traders.map((t) => prepare(t)));
    for (const [i, r] of prepared.entries()) {
      if (r.status === 'rejected') failed('prepare', r.reason, { trader: traders[i]?.address });
    }
    await market.sync();
    if (stopping) return;
    if (options.initialBook !== false) {
      const book: Required<InitialBook> = {
        listings: 10,
        collectionOffers: 3,
        traitOffers: 2,
        itemOffers: 2,
        ...options.initialBook,
      };
      await Promise.all(collections.map((c) => initialBookOf(c, book)));
    }
    if (stopping) return;
    state = 'running';
    if (activity > 0) {
      timer = setInterval(
        () => {
          if (stopping) return;
          if (current) {
            skippedTicks++;
            return;
          }
          const n = next++;
          current = runAction(n).finally(() => {
            current = undefined;
          });
        },
        Math.max(1, 1000 / activity),
      );
      timer.unref?.();
      takerTimer = setInterval(() => {
        if (stopping) return;
        if (takerCurrent) {
          takers.skipped();
          return;
        }
        const n = takerTick++;
        takerCurrent = takers
          .tick(n)
          .catch((e: unknown) => failed('takers', e, { n }))
          .finally(() => {
            takerCurrent = undefined;
          });
      }, TAKER_TICK_MS);
      takerTimer.unref?.();
    }
    logger?.info?.(
      { traders: traders.map((t) => t.address), activity, initial: { ...initial } },
      'simulator: running',
    );
  }

  return {
    traders: traders.map((t) => t.address),
    traderWallets,
    takers: { settings: takers.settings, configure: takers.configure, counts: takers.counts },

    start() {
      if (stopping) return Promise.reject(new Error('the simulator was stopped'));
      starting ??= run().catch((e: unknown) => {
        failed('start', e);
        throw e;
      });
      return starting;
    },

    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      if (takerTimer) clearInterval(takerTimer);
      takerTimer = undefined;
      await starting?.catch(() => undefined);
      while (current || takerCurrent) await (current ?? takerCurrent);
      unfollow?.();
      unfollow = undefined;
      state = 'stopped';
    },

    stats(): SimulatorStats {
      let ok = 0;
      let fail = 0;
      let noTarget = 0;
      const kinds = {} as Record<ActionKind, ActionCounts>;
      for (const k of ACTION_KINDS) {
        const v = byKind[k];
        ok += v.ok;
        fail += v.failed;
        noTarget += v.noTarget;
        kinds[k] = { ...v };
      }
      return {
        state,
        activity,
        traders: traders.map((t) => t.address),
        actions: next,
        ok,
        failed: fail,
        noTarget,
        skippedTicks,
        busy: current !== undefined,
        byKind: kinds,
        initial: { ...initial },
        takers: takers.counts(),
        ...(lastError !== undefined ? { lastError } : {}),
      };
    },
  };
}

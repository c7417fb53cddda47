/**
 * Simulated traders who answer the orders of wallets that are not simulated (a daemon's, a test's,
 * the user's), so that their listings do sell and what they hold gets bids:
 *
 * - **Listing takers**: with probability `listingTakerRate` per taker tick, a trader (never the
 *   maker) buys the most attractive listing of a non-simulated wallet — per unit at or below the
 *   collection's floor × (1 + premiumBps / 10000) — on chain through Seaport, from fulfillment data
 *   exactly as a client gets it; ERC1155 listings are filled partly (a drawn count of the units
 *   that divide the order evenly). The chain watcher records the sale.
 * - **Held-item offers**: with probability `heldItemOfferRate` per tick, a trader (never the
 *   holder) posts a signed WETH item offer on an NFT a non-simulated wallet holds, near the floor
 *   or just over the NFT's best offer, never above the floor; at most `MAX_HELD_OFFERS_PER_ITEM`
 *   simulated item offers stand on one NFT. The trader's WETH balance must cover the offer and its
 *   allowance to the conduit is topped up when short; a trader without the WETH is skipped.
 *
 * The simulated-to-simulated market (traders buying each other's listings) is the `buy` action's;
 * takers look only at other wallets' listings. Floors are the simulator's (what the traders think
 * a collection is worth), not the book's lowest ask, which a cheap listing would itself lower.
 *
 * Tick `n` draws from its own PRNG (taker-plan.ts); what it finds depends on the book and the
 * chain. A failure is counted and logged, never thrown.
 */
import {
  Contract,
  Interface,
  MaxUint256,
  type TransactionReceipt,
  type TransactionRequest,
  ZeroAddress,
} from 'ethers';
import type { CatalogCollection } from '../catalog/catalog.ts';
import type { ChainFixture } from '../chain/fixture.ts';
import type { SandboxMarket } from '../market/index.ts';
import { ERC20_ABI, ItemType, type WireParameters } from '../market/seaport.ts';
import type { TraderControl, TraderCounts, TraderSettings } from '../server/types.ts';
import type { Inventory } from './inventory.ts';
import {
  fulfillmentTransaction,
  type OrderContext,
  offerParameters,
  sign,
  type TypedDataSigner,
} from './orders.ts';
import {
  attractionLimit,
  attractiveListings,
  chooseUnits,
  DEFAULT_TRADER_SETTINGS,
  fillableUnits,
  type HeldItem,
  heldItems,
  heldOfferPrice,
  type ListingCandidate,
  MAX_HELD_OFFERS_PER_ITEM,
  planTakerTick,
  type TakerTickPlan,
  traderFor,
} from './taker-plan.ts';

export interface TakerTrader {
  readonly address: string;
  readonly wallet: TypedDataSigner;
  readonly sender: { send(tx: TransactionRequest): Promise<TransactionReceipt> };
}

export interface TakersOptions {
  readonly market: SandboxMarket;
  readonly fixture: ChainFixture;
  readonly ctx: OrderContext;
  readonly traders: readonly TakerTrader[];
  readonly inventory: Inventory;
  readonly collections: readonly CatalogCollection[];
  readonly seed: number;
  floorOf(c: CatalogCollection): bigint;
  /** The trader's Seaport counter. */
  counterOf(address: string): bigint;
  /** The trader's open offers in a collection, and the most it keeps. */
  openOffers(address: string, slug: string): number;
  readonly maxOffersPerCollection: number;
  readonly settings?: Partial<TraderSettings>;
  /** Called with a short description of each failure. */
  onFailure?(what: string, e: unknown, detail: Record<string, unknown>): void;
  onEvent?(detail: Record<string, unknown>, message: string): void;
}

export interface Takers extends TraderControl {
  /** Runs tick `n` (the caller never overlaps two ticks). */
  tick(n: number): Promise<void>;
  /** A tick found the previous one still running. */
  skipped(): void;
}

const HOUR = 3600;
const WETH_WRITE = new Interface([
  'function deposit() payable',
  'function approve(address spender, uint256 amount) returns (bool)',
]);
/** Listings a taker tries in one tick before giving up (each failure is counted). */
const MAX_TAKE_ATTEMPTS = 3;
/** Pages of 200 listings a taker reads per collection at most. */
const MAX_BOOK_PAGES = 10;
/** Held items looked at in one tick. */
const MAX_OFFER_TARGETS = 8;

interface OrderView {
  readonly order_hash: string;
  readonly price: { readonly value?: string; readonly current?: { readonly value: string } };
  readonly remaining_quantity: number;
  readonly protocol_data: { readonly parameters: WireParameters };
}

function candidateOf(slug: string, o: OrderView): ListingCandidate {
  const remaining = BigInt(o.remaining_quantity);
  const total = BigInt(o.price.current?.value ?? o.price.value ?? '0');
  return {
    orderHash: o.order_hash,
    slug,
    maker: o.protocol_data.parameters.offerer.toLowerCase(),
    unitPrice: remaining > 0n ? total / remaining : total,
    remaining,
    parameters: o.protocol_data.parameters,
  };
}

function validate(s: TraderSettings): TraderSettings {
  const r = (k: 'listingTakerRate' | 'heldItemOfferRate') => {
    if (!(s[k] >= 0 && s[k] <= 1)) throw new Error(`${k} must be between 0 and 1, got ${s[k]}`);
  };
  r('listingTakerRate');
  r('heldItemOfferRate');
  if (!Number.isInteger(s.premiumBps) || s.premiumBps < 0) {
    throw new Error(`premiumBps must be a whole number ≥ 0, got ${s.premiumBps}`);
  }
  return Object.freeze({ ...s });
}

export function createTakers(o: TakersOptions): Takers {
  const { market, fixture, ctx, traders, inventory, collections } = o;
  const chain = market.chain;
  const seaport = fixture.seaport.seaport;
  const conduit = fixture.seaport.conduit;
  const simulated = new Set(traders.map((t) => t.address.toLowerCase()));
  // Not holders anyone bids to: burns, and the contracts that hold an NFT in passing.
  const ignore = new Set([ZeroAddress, seaport, conduit].map((a) => a.toLowerCase()));
  const bySlug = new Map(collections.map((c) => [c.slug, c]));
  const floor = (slug: string) => {
    const c = bySlug.get(slug);
    return c ? o.floorOf(c) : 0n;
  };
  const weth = new Contract(ctx.weth, ERC20_ABI as unknown as string[], fixture.provider);
  let settings = validate({ ...DEFAULT_TRADER_SETTINGS, ...o.settings });
  const counts: { -readonly [K in keyof TraderCounts]: TraderCounts[K] } = {
    ticks: 0,
    skippedTicks: 0,
    listingBuys: 0,
    listingBuyUnits: 0,
    listingNoTarget: 0,
    listingBuyFailures: 0,
    heldItemOffers: 0,
    heldItemNoTarget: 0,
    heldItemNoFunds: 0,
    heldItemOfferFailures: 0,
  };

  function failed(what: string, e: unknown, detail: Record<string, unknown>): void {
    const message = e instanceof Error ? e.message : String(e);
    counts.lastError = `${what}: ${message.length > 300 ? `${message.slice(0, 300)}…` : message}`;
    o.onFailure?.(what, e, detail);
  }

  /** The non-simulated listings a taker would buy now, best deal first. */
  function attractive(): ListingCandidate[] {
    const all: ListingCandidate[] = [];
    for (const c of collections) {
      // Unit price ascending: page on until past the limit (a long book hides nothing cheap).
      const limit = attractionLimit(o.floorOf(c), settings.premiumBps);
      let next: string | undefined;
      for (let pages = 0; pages < MAX_BOOK_PAGES; pages++) {
        const page = market.bestListings(c.slug, { limit: 200, ...(next !== undefined ? { next } : {}) });
        const items = page.items.map((l) => candidateOf(c.slug, l as unknown as OrderView));
        all.push(...items);
        const last = items.at(-1);
        if (page.next === undefined || last === undefined || last.unitPrice > limit) break;
        next = page.next;
      }
    }
    return attractiveListings(all, { simulated, premiumBps: settings.premiumBps, floorOf: floor });
  }

  /** WETH the trader must hold for `amount`, with the allowance to `operator` topped up. */
  async function wethReady(
    t: TakerTrader,
    operator: string,
    amount: bigint,
    wrap: boolean,
  ): Promise<boolean> {
    const [balance, allowance] = await Promise.all([
      weth.getFunction('balanceOf')(t.address) as Promise<bigint>,
      weth.getFunction('allowance')(t.address, operator) as Promise<bigint>,
    ]);
    if (balance < amount) {
      if (!wrap) return false;
      await t.sender.send({
        to: ctx.weth,
        data: WETH_WRITE.encodeFunctionData('deposit'),
        value: amount - balance,
      });
    }
    if (allowance < amount) {
      await t.sender.send({
        to: ctx.weth,
        data: WETH_WRITE.encodeFunctionData('approve', [operator, MaxUint256]),
      });
    }
    return true;
  }

  async function take(plan: TakerTickPlan): Promise<void> {
    const candidates = attractive();
    let attempts = 0;
    for (const l of candidates) {
      const t = traderFor(traders, l.maker, plan.takerU);
      const units = chooseUnits(fillableUnits(l.parameters, l.remaining), plan.unitsU);
      if (!t || units === undefined) continue;
      if (attempts++ >= MAX_TAKE_ATTEMPTS) break;
      try {
        const res = await market.fulfillmentData('listing', {
          listing: { hash: l.orderHash, chain, protocol_address: seaport },
          fulfiller: { address: t.address },
          units_to_fill: units.toString(),
        });
        const tx = fulfillmentTransaction(res);
        const currency = l.parameters.consideration[0];
        if (currency && currency.itemType === ItemType.ERC20) {
          const input = res.fulfillment_data.transaction.input_data as { fulfillerConduitKey?: string };
          const viaConduit =
            input.fulfillerConduitKey !== undefined && BigInt(input.fulfillerConduitKey) !== 0n;
          await wethReady(t, viaConduit ? conduit : seaport, l.unitPrice * units, true);
        }
        const receipt = await t.sender.send(tx);
        // Recorded by the chain watcher now, before the next look at the book.
        await market.sync().catch(() => undefined);
        counts.listingBuys++;
        counts.listingBuyUnits += Number(units);
        o.onEvent?.(
          { order: l.orderHash, maker: l.maker, taker: t.address, units: units.toString(), tx: receipt.hash },
          'simulator: a trader bought a listing of a non-simulated wallet',
        );
        return;
      } catch (e) {
        counts.listingBuyFailures++;
        failed('listing taker', e, { order: l.orderHash, trader: t.address });
      }
    }
    if (attempts === 0) counts.listingNoTarget++;
  }

  /** Simulated item offers standing on the NFT, and the best unit price of any offer that can buy it. */
  function offersOn(item: HeldItem): { readonly simulatedItemOffers: number; readonly best?: bigint } {
    let simulatedItemOffers = 0;
    let best: bigint | undefined;
    for (const raw of market.itemOffers(item.slug, item.tokenId.toString(), { limit: 50 }).items) {
      const v = raw as unknown as OrderView;
      const p = v.protocol_data.parameters;
      const nftItem = p.consideration[0];
      const isItemOffer =
        nftItem !== undefined &&
        (nftItem.itemType === ItemType.ERC721 || nftItem.itemType === ItemType.ERC1155) &&
        BigInt(nftItem.identifierOrCriteria) === item.tokenId;
      if (isItemOffer && simulated.has(p.offerer.toLowerCase())) simulatedItemOffers++;
      const c = candidateOf(item.slug, v);
      if (best === undefined || c.unitPrice > best) best = c.unitPrice;
    }
    return best === undefined ? { simulatedItemOffers } : { simulatedItemOffers, best };
  }

  async function offer(plan: TakerTickPlan): Promise<void> {
    const held = heldItems(
      collections.flatMap((c) => inventory.holders(c.slug).map((h) => ({ slug: c.slug, ...h }))),
      simulated,
      ignore,
    );
    if (held.length === 0) {
      counts.heldItemNoTarget++;
      return;
    }
    const first = Math.min(held.length - 1, Math.floor(plan.targetU * held.length));
    let noFunds = false;
    for (let k = 0; k < Math.min(MAX_OFFER_TARGETS, held.length); k++) {
      const item = held[(first + k) % held.length] as HeldItem;
      const c = bySlug.get(item.slug);
      if (!c) continue;
      const on = offersOn(item);
      if (on.simulatedItemOffers >= MAX_HELD_OFFERS_PER_ITEM) continue;
      const eligible = traders.filter((t) => o.openOffers(t.address, c.slug) < o.maxOffersPerCollection);
      const t = traderFor(eligible, item.owner, plan.offererU);
      if (!t) continue;
      const price = heldOfferPrice(o.floorOf(c), on.best, plan.priceU, plan.outbidU);
      try {
        if (!(await wethReady(t, conduit, price, false))) {
          noFunds = true;
          continue;
        }
        const parameters = await offerParameters(ctx, t.wallet, {
          slug: c.slug,
          tokenId: item.tokenId,
          price,
          duration: BigInt(Math.round((1 + 5 * plan.durationU) * HOUR)),
          counter: o.counterOf(t.address),
          now: market.chainNow(),
        });
        const signature = await sign(ctx, t.wallet, parameters);
        const created = await market.createOrder('offer', chain, 'seaport', { parameters, signature });
        counts.heldItemOffers++;
        o.onEvent?.(
          {
            order: (created as { order_hash?: string }).order_hash,
            collection: c.slug,
            tokenId: item.tokenId.toString(),
            holder: item.owner,
            offerer: t.address,
            price: price.toString(),
          },
          'simulator: a trader made an offer on an NFT a non-simulated wallet holds',
        );
        return;
      } catch (e) {
        counts.heldItemOfferFailures++;
        failed('held-item offer', e, { collection: c.slug, tokenId: item.tokenId.toString() });
        return;
      }
    }
    if (noFunds) counts.heldItemNoFunds++;
    else counts.heldItemNoTarget++;
  }

  return {
    async tick(n) {
      counts.ticks++;
      const plan = planTakerTick(o.seed, n, settings);
      if (plan.take) await take(plan);
      if (plan.offer) await offer(plan);
    },
    skipped() {
      counts.skippedTicks++;
    },
    settings: () => settings,
    configure(update) {
      settings = validate({ ...settings, ...update });
      return settings;
    },
    counts: () => ({ ...counts }),
  };
}

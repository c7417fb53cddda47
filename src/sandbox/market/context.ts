/**
 * What the market's parts share: addresses of the fixture, the catalog, the event log, the book,
 * the chain reader and the clocks, plus the request checks every endpoint makes.
 */
import { isChainName, isEvmChain } from '../../domain/chains.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { badRequest } from '../errors.ts';
import type { EventLog, PriceInfo } from '../events/log.ts';
import type { Currency, OrderBook, StoredOrder } from './book.ts';
import { orderPrice } from './book.ts';
import type { ChainReader } from './chain.ts';
import type { ZoneSigner } from './zone.ts';

export interface MarketContext {
  readonly chain: string;
  readonly chainId: number;
  readonly seaport: string;
  readonly conduit: string;
  readonly conduitKey: string;
  readonly zone: string;
  readonly weth: string;
  readonly catalog: Catalog;
  readonly events: EventLog;
  readonly book: OrderBook;
  readonly reader: ChainReader;
  readonly zoneSigner: ZoneSigner;
  /** Sandbox clock, epoch ms. */
  readonly now: () => number;
  readonly zoneSignatureTtlSec: number;
  readonly native: Currency;
  readonly wethCurrency: Currency;
}

/**
 * 400 unless `chain` is the chain the sandbox serves: a non-EVM chain is named as such, another
 * EVM chain is unsupported.
 */
export function checkChain(ctx: MarketContext, chain: unknown, what = 'chain'): void {
  if (chain === ctx.chain) return;
  if (typeof chain !== 'string' || chain === '') throw badRequest(`${what} is required`);
  if (isChainName(chain) && !isEvmChain(chain)) throw badRequest(`chain '${chain}' is not an EVM chain`);
  if (!isChainName(chain)) throw badRequest(`chain '${chain}' is not a supported chain`);
  throw badRequest(`chain '${chain}' is not served by this marketplace (it serves '${ctx.chain}')`);
}

export const sameAddress = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/** 400 unless `address` is the Seaport 1.6 contract of the sandbox. */
export function checkProtocolAddress(ctx: MarketContext, address: unknown, what = 'protocol_address'): void {
  if (typeof address !== 'string' || address === '') throw badRequest(`${what} is required`);
  if (!sameAddress(address, ctx.seaport)) {
    throw badRequest(
      `${what} ${address} is not a supported order-protocol contract (Seaport 1.6 is ${ctx.seaport})`,
    );
  }
}

/** Price info for events: the order's whole price now, in its currency. */
export function priceInfo(o: StoredOrder, nowSec: bigint, amount?: bigint): PriceInfo {
  return {
    amount: amount ?? orderPrice(o, nowSec),
    token: { address: o.currency.address, symbol: o.currency.symbol, decimals: o.currency.decimals },
  };
}

/** The NFT reference of an order (or of a resolved token of a criteria offer). */
export function nftRef(o: StoredOrder, tokenId?: bigint) {
  const id = tokenId ?? o.tokenId;
  if (id === undefined) return undefined;
  return { contract: o.collection.contract, identifier: id.toString(), standard: o.collection.standard };
}

/** The fields every order event carries. */
export function orderEventBase(ctx: MarketContext, o: StoredOrder) {
  const nft = nftRef(o);
  return {
    chain: ctx.chain,
    collection: o.collection.slug,
    orderHash: o.hash,
    protocolAddress: ctx.seaport,
    maker: o.components.offerer,
    ...(nft ? { nft } : {}),
  };
}

/** The criteria of an offer as events carry them. */
export function criteriaInfo(o: StoredOrder) {
  if (!o.criteria) return undefined;
  return {
    contract: o.criteria.contract,
    ...(o.criteria.traits.length > 0 ? { traits: o.criteria.traits } : {}),
    ...(o.resolution ? { encodedTokenIds: o.resolution.encodedTokenIds } : {}),
  };
}

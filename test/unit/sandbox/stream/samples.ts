import {
  Catalog,
  type CatalogCollection,
  COLLECTION_SPECS,
} from '../../../../src/sandbox/catalog/catalog.ts';
import type { MarketEventInput, MarketEventKind } from '../../../../src/sandbox/events/log.ts';

/** Stream test data: a catalog with fixed contract addresses and one event input of every kind. */

export const APES_CONTRACT = '0xAbCdEf0000000000000000000000000000000001';
export const PUNKS_CONTRACT = '0xAbCdEf0000000000000000000000000000000002';
export const ITEMS_CONTRACT = '0xAbCdEf0000000000000000000000000000000003';
export const MAKER = '0x1111111111111111111111111111111111111111';
export const TAKER = '0x2222222222222222222222222222222222222222';
export const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
export const ZERO = '0x0000000000000000000000000000000000000000';
export const ORDER_HASH = `0x${'ab'.repeat(32)}`;
export const TX_HASH = `0x${'CD'.repeat(32)}`;

const CONTRACTS = [APES_CONTRACT, PUNKS_CONTRACT, ITEMS_CONTRACT];

export function testCatalog(seed = 7): Catalog {
  const collections: CatalogCollection[] = COLLECTION_SPECS.map((spec, i) => ({
    ...spec,
    contract: CONTRACTS[i] as string,
    owner: MAKER,
    fees: [],
  }));
  return new Catalog(seed, collections);
}

const eth = (wei: bigint) => ({ amount: wei, token: { address: ZERO, symbol: 'ETH', decimals: 18 } });
const weth = (wei: bigint) => ({ amount: wei, token: { address: WETH, symbol: 'WETH', decimals: 18 } });

const nft = (identifier: string, contract = APES_CONTRACT) =>
  ({ contract, identifier, standard: 'erc721' }) as const;

/** One input per event-log kind, all in collection `harpoon-apes` unless `collection` is given. */
export function sampleInput(kind: MarketEventKind, collection = 'harpoon-apes'): MarketEventInput {
  const common = { chain: 'ethereum', collection } as const;
  switch (kind) {
    case 'listing':
      return {
        ...common,
        kind,
        nft: nft('7'),
        orderHash: ORDER_HASH,
        maker: MAKER,
        price: eth(1_500_000_000_000_000_000n),
        quantity: 1,
        startDate: 1_700_000_000,
        expirationDate: 1_700_086_400,
        isPrivate: false,
      };
    case 'item_offer':
      return {
        ...common,
        kind,
        nft: nft('8'),
        orderHash: `0x${'01'.repeat(32)}`,
        maker: MAKER,
        price: weth(900_000_000_000_000_000n),
        startDate: 1_700_000_000,
        expirationDate: 1_700_086_400,
      };
    case 'collection_offer':
      return {
        ...common,
        kind,
        orderHash: `0x${'02'.repeat(32)}`,
        maker: MAKER,
        price: weth(800_000_000_000_000_000n),
        quantity: 3,
        startDate: 1_700_000_000,
        expirationDate: 1_700_086_400,
        criteria: { contract: APES_CONTRACT },
      };
    case 'trait_offer':
      return {
        ...common,
        kind,
        orderHash: `0x${'03'.repeat(32)}`,
        maker: MAKER,
        price: weth(950_000_000_000_000_000n),
        startDate: 1_700_000_000,
        expirationDate: 1_700_086_400,
        criteria: {
          contract: APES_CONTRACT,
          traits: [
            { type: 'Fur', value: 'Golden' },
            { type: 'Hat', value: 'Crown' },
          ],
        },
      };
    case 'sale':
      return {
        ...common,
        kind,
        nft: nft('7'),
        orderHash: ORDER_HASH,
        maker: MAKER,
        taker: TAKER,
        seller: MAKER,
        buyer: TAKER,
        price: eth(1_500_000_000_000_000_000n),
        quantity: 1,
        txHash: TX_HASH,
      };
    case 'transfer':
      return { ...common, kind, nft: nft('7'), from: MAKER, to: TAKER, quantity: 1, txHash: TX_HASH };
    case 'mint':
      return { ...common, kind, nft: nft('61'), to: TAKER, quantity: 1, txHash: TX_HASH };
    case 'cancel':
      return {
        ...common,
        kind,
        nft: nft('9'),
        orderHash: `0x${'04'.repeat(32)}`,
        maker: MAKER,
        price: eth(2_000_000_000_000_000_000n),
        startDate: 1_700_000_000,
        expirationDate: 1_700_086_400,
        txHash: TX_HASH,
      };
    case 'metadata_update':
      return {
        ...common,
        kind,
        nft: nft('5'),
        traits: [
          { trait_type: 'Fur', value: 'Golden' },
          { trait_type: 'Level', value: 9 },
        ],
      };
    case 'order_invalidate':
    case 'order_revalidate':
      return {
        ...common,
        kind,
        nft: nft('7'),
        orderHash: ORDER_HASH,
        protocolAddress: '0x0000000000000068F116a894984e2DB1123eB395',
      };
  }
}

export const ALL_KINDS: readonly MarketEventKind[] = [
  'listing',
  'item_offer',
  'collection_offer',
  'trait_offer',
  'sale',
  'transfer',
  'mint',
  'cancel',
  'metadata_update',
  'order_invalidate',
  'order_revalidate',
];

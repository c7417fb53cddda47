import {
  Catalog,
  type CatalogCollection,
  COLLECTION_SPECS,
} from '../../../../src/sandbox/catalog/catalog.ts';
import type { MarketEventInput } from '../../../../src/sandbox/events/log.ts';

/** Shared test data of the sandbox server tests: a catalog at fixed addresses and one event of each kind. */

export const OWNER = '0x00000000000000000000000000000000000000aa';
export const FEE_RECIPIENT = '0x0000a26b00c1f0df003000390027140000faa719';
export const APES = '0x1111111111111111111111111111111111111111';
export const PUNKS = '0x2222222222222222222222222222222222222222';
export const ITEMS = '0x3333333333333333333333333333333333333333';
export const SEAPORT = '0x0000000000000068f116a894984e2db1123eb395';
export const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
export const ALICE = '0x000000000000000000000000000000000000a11c';
export const BOB = '0x0000000000000000000000000000000000000b0b';
export const ZERO = '0x0000000000000000000000000000000000000000';

export function sampleCatalog(seed = 7): Catalog {
  const addresses = [APES, PUNKS, ITEMS];
  const collections: CatalogCollection[] = COLLECTION_SPECS.map((spec, i) => ({
    ...spec,
    contract: addresses[i] as string,
    owner: OWNER,
    fees: [
      { fee: 1, recipient: FEE_RECIPIENT, required: true },
      ...(spec.royaltyPercent > 0 ? [{ fee: spec.royaltyPercent, recipient: OWNER, required: true }] : []),
    ],
  }));
  return new Catalog(seed, collections);
}

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const eth = { address: ZERO, symbol: 'ETH', decimals: 18 };
const weth = { address: WETH, symbol: 'WETH', decimals: 18 };

export const SAMPLE_EVENTS = {
  listing: {
    kind: 'listing',
    chain: 'ethereum',
    collection: 'harpoon-apes',
    nft: { contract: APES, identifier: '3', standard: 'erc721' },
    orderHash: hash(0xa1),
    protocolAddress: SEAPORT,
    maker: ALICE,
    price: { amount: 1_500_000_000_000_000_000n, token: eth },
    quantity: 1,
    startDate: 1_700_000_000,
    expirationDate: 1_700_086_400,
    isPrivate: false,
  },
  item_offer: {
    kind: 'item_offer',
    chain: 'ethereum',
    collection: 'harpoon-apes',
    nft: { contract: APES, identifier: '4', standard: 'erc721' },
    orderHash: hash(0xb2),
    protocolAddress: SEAPORT,
    maker: BOB,
    price: { amount: 900_000_000_000_000_000n, token: weth },
    quantity: 1,
    startDate: 1_700_000_000,
    expirationDate: 1_700_086_400,
  },
  collection_offer: {
    kind: 'collection_offer',
    chain: 'ethereum',
    collection: 'harpoon-punks',
    orderHash: hash(0xc3),
    protocolAddress: SEAPORT,
    maker: BOB,
    price: { amount: 500_000_000_000_000_000n, token: weth },
    quantity: 2,
    startDate: 1_700_000_000,
    expirationDate: 1_700_086_400,
    criteria: { contract: PUNKS, encodedTokenIds: '*' },
  },
  trait_offer: {
    kind: 'trait_offer',
    chain: 'ethereum',
    collection: 'harpoon-apes',
    orderHash: hash(0xd4),
    protocolAddress: SEAPORT,
    maker: BOB,
    price: { amount: 700_000_000_000_000_000n, token: weth },
    quantity: 1,
    startDate: 1_700_000_000,
    expirationDate: 1_700_086_400,
    criteria: { contract: APES, traits: [{ type: 'Fur', value: 'Zombie' }] },
  },
  sale: {
    kind: 'sale',
    chain: 'ethereum',
    collection: 'harpoon-apes',
    nft: { contract: APES, identifier: '3', standard: 'erc721' },
    orderHash: hash(0xa1),
    protocolAddress: SEAPORT,
    seller: ALICE,
    buyer: BOB,
    maker: ALICE,
    taker: BOB,
    price: { amount: 1_500_000_000_000_000_000n, token: eth },
    quantity: 1,
    txHash: hash(0xe5),
    blockNumber: 42,
    logIndex: 3,
  },
  transfer: {
    kind: 'transfer',
    chain: 'ethereum',
    collection: 'harpoon-items',
    nft: { contract: ITEMS, identifier: '2', standard: 'erc1155' },
    from: ALICE,
    to: BOB,
    quantity: 4,
    txHash: hash(0xf6),
    blockNumber: 43,
    logIndex: 0,
  },
  mint: {
    kind: 'mint',
    chain: 'ethereum',
    collection: 'harpoon-punks',
    nft: { contract: PUNKS, identifier: '9', standard: 'erc721' },
    from: ZERO,
    to: ALICE,
    quantity: 1,
    txHash: hash(0x107),
    blockNumber: 44,
    logIndex: 1,
  },
  cancel: {
    kind: 'cancel',
    chain: 'ethereum',
    collection: 'harpoon-apes',
    nft: { contract: APES, identifier: '3', standard: 'erc721' },
    orderHash: hash(0xa1),
    protocolAddress: SEAPORT,
    maker: ALICE,
  },
} satisfies Record<string, MarketEventInput>;

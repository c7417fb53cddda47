/**
 * The order desk with src/seaport's real order building and signing, the real store (in memory)
 * and fake API/sender: an order is recorded before it is posted; a refused post fails it; a post
 * whose outcome is unknown stays pending until reconcile asks the API; cancels go off-chain when
 * assured, on chain otherwise.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '../../../src/domain/secret.ts';
import { RejectedError, TransientError } from '../../../src/errors/index.ts';
import { createOrderDesk, type OrderDesk, type OrderDeskApi } from '../../../src/execution/index.ts';
import { createLocalDigestSigner, createSeaportOrders } from '../../../src/seaport/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';
import { FakeSender, KEY } from './fakes.ts';

const SEAPORT = '0x0000000000000068F116a894984e2DB1123eB395';
const ZONE = '0x000056f7000000ece9003ca63978907a00ffd100';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const NFT = '0x1111111111111111111111111111111111111111';
const NOW = 1_800_000_000n;
const fees = [{ fee: 1, recipient: '0x0000a26b00c1F0DF003000390027140000fAa719', required: true }];

let store: Store;
let sender: FakeSender;
let desk: OrderDesk;
let posted: string[];
let cancels: string[];
let post: () => Promise<unknown>;
let cancelAnswer: () => Promise<{ last_signature_issued_valid_until: string }>;
let known: Set<string>;

beforeEach(async () => {
  store = openStore(':memory:');
  sender = new FakeSender(store, 1);
  await sender.reconcile();
  posted = [];
  cancels = [];
  known = new Set();
  post = async () => ({});
  cancelAnswer = async () => ({
    last_signature_issued_valid_until: new Date(Number(NOW - 60n) * 1000).toISOString(),
  });
  const orders = createSeaportOrders(
    {
      chainId: 1,
      protocolAddress: SEAPORT,
      conduitKey: `0x${'00'.repeat(32)}`,
      signedZone: ZONE,
      offerToken: WETH,
      offerExpirySec: 3600,
    },
    {
      signer: createLocalDigestSigner(new Secret(KEY)),
      counters: { getCounter: async () => 0n },
      clock: { nowSec: () => NOW },
    },
  );
  const api = {
    offers: {
      create: async (_chain: string, body: { parameters: unknown }) => {
        posted.push(JSON.stringify(body.parameters));
        return post();
      },
      build: async () => {
        throw new Error('not used');
      },
      createCriteria: async () => post(),
    },
    orders: {
      cancel: async (_c: string, _p: string, hash: string) => {
        cancels.push(hash);
        return cancelAnswer();
      },
      get: async (_c: string, _p: string, hash: string) => {
        if (!known.has(hash)) throw new RejectedError('http_404', 'not found');
        return {} as never;
      },
    },
  } as unknown as OrderDeskApi;
  desk = createOrderDesk({ api, orders, sender, store, chain: 'ethereum', clock: { nowSec: () => NOW } });
});

const item = (intentId: string) =>
  desk.placeOffer({
    intentId,
    collection: 'apes',
    target: { type: 'item', nft: { contract: NFT, tokenId: 7n, standard: 'erc721' } },
    price: 10n ** 17n,
    fees,
  });

describe('order desk', () => {
  it('places an item offer: recorded, posted, open; the same intent again is a replay', async () => {
    const o = await item('p1');
    expect(o.orderHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(posted).toHaveLength(1);
    expect(store.orders.get(o.orderHash)).toMatchObject({
      status: 'open',
      side: 'item_offer',
      intentId: 'p1',
      price: 10n ** 17n,
      tokenId: '7',
    });
    expect(store.intents.get('p1')?.state).toBe('done');
    expect(await item('p1')).toMatchObject({ orderHash: o.orderHash, replayed: true });
    expect(posted).toHaveLength(1);
  });

  it('a refused post fails the order and the intent; an unknown outcome stays pending until reconcile', async () => {
    post = async () => {
      throw new RejectedError('http_400', 'bad order');
    };
    await expect(item('p1')).rejects.toBeInstanceOf(RejectedError);
    expect(store.intents.get('p1')).toMatchObject({ state: 'failed', error: 'http_400' });
    expect(store.orders.list()).toMatchObject([{ status: 'failed' }]);

    post = async () => {
      throw new TransientError('http_timeout', 'timeout', { maybeProcessed: true });
    };
    await expect(item('p2')).rejects.toBeInstanceOf(TransientError);
    const pending = store.orders.list({ status: 'pending' });
    expect(pending).toHaveLength(1);
    expect(store.intents.get('p2')?.state).toBe('pending');
    known.add(pending[0]?.hash as string);
    expect(await desk.reconcile()).toEqual({ opened: [pending[0]?.hash], failed: [] });
    expect(store.orders.get(pending[0]?.hash as string)?.status).toBe('open');
    expect(store.intents.get('p2')?.state).toBe('done');
  });

  it('cancel: off-chain when no fill signature can still be used, else on chain', async () => {
    const a = await item('p1');
    const c1 = await desk.cancelOrder({ intentId: 'c1', orderHash: a.orderHash });
    expect(c1).toMatchObject({ method: 'offchain' });
    expect(sender.submits).toEqual([]);
    expect(store.orders.get(a.orderHash)?.status).toBe('cancelled');

    const b = await desk.placeOffer({
      intentId: 'p2',
      collection: 'apes',
      target: { type: 'item', nft: { contract: NFT, tokenId: 8n, standard: 'erc721' } },
      price: 10n ** 17n,
      fees,
    });
    cancelAnswer = async () => ({
      last_signature_issued_valid_until: new Date(Number(NOW + 600n) * 1000).toISOString(),
    });
    const c2 = await desk.cancelOrder({ intentId: 'c2', orderHash: b.orderHash });
    expect(c2.method).toBe('onchain');
    expect(sender.submits).toEqual(['c2/cancel']);
    expect(c2.txHash).toBe(store.transactions.byIntent('c2/cancel')[0]?.hash);
    expect(cancels).toEqual([a.orderHash, b.orderHash]);
    expect(store.intents.get('c2')?.state).toBe('done');
    await expect(desk.cancelOrder({ intentId: 'c3', orderHash: `0x${'12'.repeat(32)}` })).rejects.toThrow(
      /not one of ours/,
    );
  });
});

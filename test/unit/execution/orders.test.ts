/**
 * The one offer path with src/seaport's real order building and signing, the real ledger on the
 * real store (in memory), and a fake API, chain allowance and sender: an order counts from before
 * its post until it is really gone; a refused or unanswered cancel is never "cancelled".
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '../../../src/domain/secret.ts';
import { RejectedError, TransientError } from '../../../src/errors/index.ts';
import {
  createOrderDesk,
  type OrderDesk,
  type OrderDeskApi,
  type OrderDeskOptions,
} from '../../../src/execution/index.ts';
import { createOrderLedger, type OrderLedger, storeLedger } from '../../../src/ledger/index.ts';
import { createApprovals, createLocalDigestSigner, createSeaportOrders } from '../../../src/seaport/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';
import type { OfferSpec } from '../../../src/strategy.ts';
import { FakeSender, KEY } from './fakes.ts';

const SEAPORT = '0x0000000000000068F116a894984e2DB1123eB395';
const ZONE = '0x000056f7000000ece9003ca63978907a00ffd100';
const CONDUIT = '0x1E0049783F008A0085193E00003D00cd54003c71';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const NFT = '0x1111111111111111111111111111111111111111';
const NOW_MS = 1_800_000_000_000;
const E17 = 10n ** 17n;
const fees = [{ fee: 1, recipient: '0x0000a26b00c1F0DF003000390027140000fAa719', required: true }];
const WETH_TOKEN = { address: WETH.toLowerCase() as never, symbol: 'WETH', decimals: 18 };

let now: number;
let store: Store;
let sender: FakeSender;
let ledger: OrderLedger;
let desk: OrderDesk;
let calls: string[];
let post: () => Promise<unknown>;
let cancelAnswer: () => Promise<{ last_signature_issued_valid_until: string }>;
let status: string | undefined;
let allowance: bigint;
let approvals: { spender: string; data: string }[];
let nftApproved: boolean;
let deskOptions: OrderDeskOptions;

const iso = (ms: number) => new Date(ms).toISOString();

beforeEach(async () => {
  now = NOW_MS;
  store = openStore(':memory:');
  sender = new FakeSender(store, 1);
  await sender.reconcile();
  calls = [];
  post = async () => ({});
  cancelAnswer = async () => ({ last_signature_issued_valid_until: iso(now - 1000) });
  status = 'ACTIVE';
  allowance = 10n ** 30n;
  approvals = [];
  nftApproved = false;
  ledger = createOrderLedger({
    clock: { now: () => now },
    chain: 'ethereum',
    store: storeLedger(store, () => now),
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
      clock: { nowSec: () => BigInt(Math.floor(now / 1000)) },
    },
  );
  const api = {
    listings: {
      create: async () => {
        calls.push('list');
        return post();
      },
    },
    offers: {
      create: async () => {
        calls.push('post');
        return post();
      },
      build: async () => {
        throw new Error('not used');
      },
      createCriteria: async () => post(),
    },
    orders: {
      cancel: async () => {
        calls.push('cancel');
        return cancelAnswer();
      },
      cancelWithWallet: async () => {
        calls.push('cancel-wallet');
        return cancelAnswer();
      },
      get: async () => {
        calls.push('get');
        if (status === undefined) throw new RejectedError('http_404', 'not found');
        return { order: { status } } as never;
      },
    },
  } as unknown as OrderDeskApi;
  const reader = {
    allowance: async (_t: string, _o: string, spender: string) => {
      expect(spender.toLowerCase()).toBe(CONDUIT.toLowerCase());
      return allowance;
    },
    isApprovedForAll: async () => nftApproved,
  };
  const wrapped = createApprovals({ chainId: 1, conduit: CONDUIT }, reader);
  deskOptions = {
    api,
    orders,
    sender,
    ledger,
    approvals: {
      conduit: wrapped.conduit,
      nft: wrapped.nft,
      weth: async (token, owner, needed) => {
        const tx = await wrapped.weth(token, owner, needed);
        if (tx !== null) approvals.push({ spender: CONDUIT, data: tx.data ?? '' });
        return tx;
      },
    },
    chain: 'ethereum',
    clock: { now: () => now },
    collection: async () => ({ fees }),
    minApproval: 5n * E17,
    cancelAttempts: 3,
    cancelRetryMs: 0,
    bookSettleMs: 0, // the book follows at once in these tests
  };
  desk = createOrderDesk(deskOptions);
});

const itemOffer: OfferSpec = {
  type: 'item',
  collection: 'apes',
  nft: { chain: 'ethereum', contract: NFT as never, identifier: '7' as never },
};

const place = (intentId: string, price = E17) =>
  desk.place({
    intentId,
    strategyId: 'bidder',
    target: 'offer:item:7',
    offer: itemOffer,
    price,
    paymentToken: WETH_TOKEN,
    quantity: 1n,
    expiresAt: now + 3_600_000,
  });

const state = (hash: string) => ledger.get(hash)?.state;
const counted = (hash: string) => {
  const o = ledger.get(hash);
  return o !== undefined && ledger.counts(o);
};

describe('order desk: placing', () => {
  it('records the order (with its components) before the post; open once posted; persisted', async () => {
    let seenBeforePost: string | undefined;
    post = async () => {
      seenBeforePost = ledger.list()[0]?.state;
      return {};
    };
    const hash = await place('p1');
    expect(seenBeforePost).toBe('posted');
    expect(ledger.get(hash)).toMatchObject({
      state: 'open',
      intentId: 'p1',
      strategyId: 'bidder',
      price: E17,
    });
    expect(ledger.get(hash)?.components).toBeDefined();
    expect(store.orders.get(hash)).toMatchObject({ status: 'open', side: 'item_offer', tokenId: '7' });
    expect(counted(hash)).toBe(true);
  });

  it('a refused post is failed (not counted); an unanswered one stays posted (counted) until read back', async () => {
    // a refusal says the collection's fees may have changed; an unanswered post says nothing of them
    const refusedIn: string[] = [];
    desk = createOrderDesk({ ...deskOptions, onRefused: (slug) => refusedIn.push(slug) });
    post = async () => {
      throw new RejectedError('http_400', 'bad order');
    };
    await expect(place('p1')).rejects.toThrow(RejectedError);
    expect(refusedIn).toEqual(['apes']);
    const failed = ledger.list()[0];
    expect(failed?.state).toBe('failed');
    expect(counted(failed?.orderHash ?? '')).toBe(false);
    post = async () => {
      throw new TransientError('timeout', 'timed out', { maybeProcessed: true });
    };
    await expect(place('p2', 2n * E17)).rejects.toThrow(TransientError);
    expect(refusedIn).toEqual(['apes']);
    const unsure = ledger.byIntent('p2');
    expect(unsure?.state).toBe('posted');
    expect(counted(unsure?.orderHash ?? '')).toBe(true);
    status = undefined; // the marketplace never saw it
    expect(await desk.reconcile()).toEqual({ checked: 1, settled: 1 });
    expect(state(unsure?.orderHash ?? '')).toBe('failed');
  });

  it('a read-back while the post is still under way leaves it to the post (no race to "failed")', async () => {
    let answer: (v: unknown) => void = () => undefined;
    post = () => new Promise((r) => (answer = r));
    const placing = place('p1');
    while (ledger.list().length === 0) await new Promise((r) => setTimeout(r, 1));
    status = undefined; // the marketplace has not stored it yet
    expect(await desk.reconcile()).toEqual({ checked: 0, settled: 0 });
    answer({});
    const hash = await placing;
    expect(state(hash)).toBe('open');
  });

  it('an unanswered post the marketplace did get becomes open on reconcile', async () => {
    post = async () => {
      throw new TransientError('timeout', 'timed out', { maybeProcessed: true });
    };
    await expect(place('p1')).rejects.toThrow(TransientError);
    status = 'ACTIVE';
    await desk.reconcile();
    expect(ledger.byIntent('p1')?.state).toBe('open');
  });

  it('the conduit allowance is read from the chain at every offer and raised again when fills used it up', async () => {
    const sent = () => sender.submits.filter((s) => s.includes('/approve-')).length;
    allowance = 0n;
    await place('p1');
    expect(sent()).toBe(1);
    allowance = 5n * E17; // approved the minimum
    await place('p2');
    expect(sent()).toBe(1); // 2 × 0.1 fits the allowance
    allowance = E17; // fills spent most of it: 0.2 open + 0.1 new > 0.1
    await place('p3');
    expect(sent()).toBe(2);
    expect(approvals.every((a) => a.spender === CONDUIT)).toBe(true);
  });

  it('an offer in a token other than the offer token is refused before anything is signed', async () => {
    await expect(
      desk.place({
        intentId: 'p1',
        strategyId: 'bidder',
        target: 't',
        offer: itemOffer,
        price: E17,
        paymentToken: {
          address: '0x00000000000000000000000000000000000000c1' as never,
          symbol: 'USDC',
          decimals: 6,
        },
        quantity: 1n,
        expiresAt: now + 60_000,
      }),
    ).rejects.toMatchObject({ code: 'offer_token_unsupported' });
    expect(ledger.list()).toHaveLength(0);
  });
});

describe('order desk: listing what we hold', () => {
  it('approves the conduit for the collection only when missing, signs a zone-protected listing, records it, posts it', async () => {
    const listOne = (intentId: string, id: string, price: bigint) =>
      desk.list({
        intentId,
        strategyId: 'seller',
        target: `list:ethereum/${NFT.toLowerCase()}/${id}`,
        collection: 'apes',
        nft: { chain: 'ethereum', contract: NFT as never, identifier: id as never },
        price,
        paymentToken: {
          address: '0x0000000000000000000000000000000000000000' as never,
          symbol: 'ETH',
          decimals: 18,
        },
        quantity: 1n,
        expiresAt: now + 3_600_000,
      });
    const gas: [string, string, bigint][] = [];
    desk = createOrderDesk({ ...deskOptions, onGas: (i, k, a) => gas.push([i, k, a]) });
    const before = sender.submits.length;
    const h = await listOne('l1', '7', 2n * E17);
    // the approval's gas is reported against the listing's intent (PnL counts it)
    expect(gas).toEqual([['l1', 'gas:approve-nft', 100_000n * 1_500_000_000n]]);
    expect(sender.submits.length - before).toBe(1); // setApprovalForAll to the conduit
    expect(sender.calldata.at(-1)?.slice(0, 10)).toBe('0xa22cb465'); // setApprovalForAll
    expect(sender.calldata.at(-1)?.toLowerCase()).toContain(CONDUIT.slice(2).toLowerCase());
    expect(calls).toContain('list');
    const o = ledger.get(h);
    expect(o).toMatchObject({
      side: 'listing',
      state: 'open',
      tokenId: '7',
      price: 2n * E17,
      strategyId: 'seller',
    });
    const zone = (o?.components as { zone?: string } | undefined)?.zone;
    expect(zone?.toLowerCase()).toBe(ZONE.toLowerCase());
    // approved now: the next listing sends nothing on chain
    nftApproved = true;
    await listOne('l2', '8', 3n * E17);
    expect(sender.submits.length - before).toBe(1);
  });
});

describe('order desk: cancelling until really gone', () => {
  it('an accepted off-chain cancel whose window has passed is gone', async () => {
    const hash = await place('p1');
    expect(await desk.cancel(hash, { intentId: 'c1' })).toEqual({ state: 'gone' });
    expect(state(hash)).toBe('cancelled');
    expect(sender.submits).toHaveLength(0);
  });

  it('an accepted cancel with a signature still usable counts until the window ends', async () => {
    const hash = await place('p1');
    cancelAnswer = async () => ({ last_signature_issued_valid_until: iso(now + 60_000) });
    expect(await desk.cancel(hash, { intentId: 'c1' })).toEqual({ state: 'window', until: now + 60_000 });
    expect(state(hash)).toBe('cancelling');
    expect(counted(hash)).toBe(true);
    // a fill inside the window is recorded and charged
    const fills: bigint[] = [];
    ledger.onChange((c) => c.filledUnits > 0n && fills.push(c.filledAmount));
    ledger.note(hash, {
      kind: 'filled',
      fillId: '0xabc',
      units: 1n,
      amount: E17,
      txHash: '0xabc',
      tokenId: '7',
      contract: NFT,
    });
    expect(fills).toEqual([E17]);
    expect(state(hash)).toBe('filled');
  });

  it('when the order must be gone, an open window means an on-chain cancel', async () => {
    const hash = await place('p1');
    cancelAnswer = async () => ({ last_signature_issued_valid_until: iso(now + 60_000) });
    expect(await desk.cancel(hash, { intentId: 'c1', requireGone: true })).toEqual({ state: 'gone' });
    expect(sender.submits.some((s) => s.startsWith('c1/cancel'))).toBe(true);
    expect(state(hash)).toBe('cancelled');
  });

  for (const refusal of [
    new RejectedError('http_400', 'apiKey is not from offerer'),
    new RejectedError('http_403', 'forbidden'),
  ])
    it(`a refused cancel (${refusal.code}) of a still-active order is cancelled on chain`, async () => {
      const hash = await place('p1');
      cancelAnswer = async () => {
        throw refusal;
      };
      expect(await desk.cancel(hash, { intentId: 'c1' })).toEqual({ state: 'gone' });
      expect(calls.filter((c) => c === 'cancel')).toHaveLength(1); // a refusal is not retried
      expect(calls).toContain('get'); // the marketplace's word first
      expect(state(hash)).toBe('cancelled');
    });

  it('a refused cancel of an order the marketplace says filled needs no transaction', async () => {
    const hash = await place('p1');
    cancelAnswer = async () => {
      throw new RejectedError('http_400', 'already filled');
    };
    status = 'FULFILLED';
    expect(await desk.cancel(hash, { intentId: 'c1' })).toEqual({ state: 'gone' });
    expect(state(hash)).toBe('filled');
    expect(sender.submits).toHaveLength(0);
  });

  it('an unanswered cancel is retried, then cancelled on chain', async () => {
    const hash = await place('p1');
    cancelAnswer = async () => {
      throw new TransientError('http_500', 'server error');
    };
    expect(await desk.cancel(hash, { intentId: 'c1' })).toEqual({ state: 'gone' });
    expect(calls.filter((c) => c === 'cancel')).toHaveLength(3);
    expect(state(hash)).toBe('cancelled');
  });

  it('a refused cancel whose on-chain cancel fails too is never "cancelled": the order stays counted', async () => {
    const hash = await place('p1');
    cancelAnswer = async () => {
      throw new TransientError('scheduler_stopped', 'the scheduler stopped');
    };
    sender.outcome = 'reverted';
    await expect(desk.cancel(hash, { intentId: 'c1' })).rejects.toMatchObject({ code: 'cancel_reverted' });
    expect(state(hash)).toBe('open');
    expect(counted(hash)).toBe(true);
    expect(store.orders.get(hash)?.status).toBe('open');
    expect(store.orders.get(hash)?.error).toMatch(/cancel refused/);
  });

  it('after an on-chain cancel the order counts until the marketplace book drops it (bounded)', async () => {
    const hash = await place('p1');
    cancelAnswer = async () => {
      throw new RejectedError('http_403', 'forbidden');
    };
    // rebuild the desk with the settle wait (the beforeEach one has none)
    const seen: string[] = [];
    let gets = 0;
    const slow = createOrderDesk({
      ...deskOptions,
      api: {
        ...deskOptions.api,
        orders: {
          ...deskOptions.api.orders,
          get: async () => {
            gets++;
            seen.push(state(hash) ?? '');
            return { order: { status: gets <= 3 ? 'ACTIVE' : 'CANCELLED' } } as never;
          },
        },
      },
      bookSettleMs: 2000,
    });
    expect(await slow.cancel(hash, { intentId: 'c1' })).toEqual({ state: 'gone' });
    expect(gets).toBeGreaterThanOrEqual(4);
    expect(seen.slice(1).every((x) => x !== 'cancelled')).toBe(true); // counted while the book showed it
    expect(state(hash)).toBe('cancelled');
  });

  it('on-chain cancels asked for together go in one transaction', async () => {
    const a = await place('p1');
    const b = await place('p2', 2n * E17);
    cancelAnswer = async () => {
      throw new RejectedError('http_403', 'forbidden');
    };
    const before = sender.submits.length;
    const [ra, rb] = await Promise.all([
      desk.cancel(a, { intentId: 'c1' }),
      desk.cancel(b, { intentId: 'c2' }),
    ]);
    expect([ra, rb]).toEqual([{ state: 'gone' }, { state: 'gone' }]);
    expect(sender.submits.length - before).toBe(1);
    expect([state(a), state(b)]).toEqual(['cancelled', 'cancelled']);
  });

  it('with a wallet JWT that carries write:orders, the off-chain cancel goes with it', async () => {
    let scoped = false;
    desk = createOrderDesk({ ...deskOptions, cancelWithWallet: () => scoped });
    const a = await place('p1');
    await desk.cancel(a, { intentId: 'c1' });
    const b = await place('p2', 2n * E17);
    scoped = true;
    await desk.cancel(b, { intentId: 'c2' });
    expect(calls.filter((c) => c.startsWith('cancel'))).toEqual(['cancel', 'cancel-wallet']);
    expect([state(a), state(b)]).toEqual(['cancelled', 'cancelled']);
  });

  it('many stuck at once: one incrementCounter() voids every order of ours on that counter; fewer: cancel(orders)', async () => {
    desk = createOrderDesk({ ...deskOptions, counterBumpAt: 3 });
    const INCREMENT = '0x5b34b966'; // incrementCounter()
    const CANCEL = '0xfd9f1e10'; // cancel(OrderComponents[])
    cancelAnswer = async () => {
      throw new RejectedError('http_400', 'apiKey is not from offerer');
    };
    // two stuck: below the threshold, one cancel(orders) of exactly those two
    const [a, b, keep] = [await place('p1'), await place('p2', 2n * E17), await place('p3', 3n * E17)];
    await Promise.all([desk.cancel(a, { intentId: 'c1' }), desk.cancel(b, { intentId: 'c2' })]);
    expect(sender.calldata.at(-1)?.slice(0, 10)).toBe(CANCEL);
    expect([state(a), state(b), state(keep)]).toEqual(['cancelled', 'cancelled', 'open']);
    // three stuck (of four standing): one incrementCounter(); the fourth is void too
    const more = [await place('p4'), await place('p5', 2n * E17), await place('p6', 3n * E17)];
    const before = sender.submits.length;
    const results = await Promise.all(more.map((h, i) => desk.cancel(h, { intentId: `c${3 + i}` })));
    expect(results).toEqual([{ state: 'gone' }, { state: 'gone' }, { state: 'gone' }]);
    expect(sender.submits.length - before).toBe(1);
    expect(sender.calldata.at(-1)).toBe(INCREMENT);
    expect([...more, keep].map(state)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expect(counted(keep)).toBe(false);
  });

  it('replace without overlap: the old order is gone before the new one is posted', async () => {
    const old = await place('p1');
    cancelAnswer = async () => ({ last_signature_issued_valid_until: iso(now + 60_000) });
    calls.length = 0;
    const next = await desk.replace(old, {
      intentId: 'r1',
      strategyId: 'bidder',
      price: 2n * E17,
      expiresAt: now + 3_600_000,
      overlap: false,
    });
    expect(state(old)).toBe('cancelled'); // cancelled on chain: the window was open
    expect(calls).toEqual(['cancel', 'post']);
    expect(ledger.get(next)).toMatchObject({ state: 'open', price: 2n * E17, target: 'offer:item:7' });
  });

  it('replace with overlap: posts while the old one still counts for its window', async () => {
    const old = await place('p1');
    cancelAnswer = async () => ({ last_signature_issued_valid_until: iso(now + 60_000) });
    const next = await desk.replace(old, {
      intentId: 'r1',
      strategyId: 'bidder',
      price: 2n * E17,
      expiresAt: now + 3_600_000,
      overlap: true,
    });
    expect(counted(old)).toBe(true);
    expect(counted(next)).toBe(true);
    expect(sender.submits.some((s) => s.startsWith('r1/cancel'))).toBe(false);
    now += 61_000;
    ledger.tick();
    expect(state(old)).toBe('cancelled');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { liveRunFills, liveRunTried } from '../../../src/daemon/run-report.ts';
import type { PaymentToken } from '../../../src/domain/events.ts';
import type { JournalRecord } from '../../../src/engine/index.ts';
import type { LedgerOrder } from '../../../src/ledger/index.ts';
import { openStore, type Store } from '../../../src/store/index.ts';

const C = '0x00000000000000000000000000000000000000c1';
const DROP = '0x00000000000000000000000000000000000000d1';
const ETH: PaymentToken = {
  address: '0x0000000000000000000000000000000000000000' as never,
  symbol: 'ETH',
  decimals: 18,
};
const WETH: PaymentToken = {
  address: '0x00000000000000000000000000000000000000e1' as never,
  symbol: 'WETH',
  decimals: 18,
};
const E = 10n ** 16n;
const tokenOf = (a: string) => (a.toLowerCase() === WETH.address ? WETH : ETH);

let store: Store | undefined;
afterEach(() => store?.close());

describe('a live run report: its fills as a paper report names them', () => {
  it('purchases, sales, our orders taken, a mint of two tokens as one, a swap from the journal; gas from the store; from its start on', () => {
    store = openStore(':memory:');
    const st = store;
    const intent = (id: string, strategy: string, kind: string) =>
      st.intents.create({ id, strategy, kind, targetKey: id, payload: {} });
    const gas = (intentId: string, amount: bigint) =>
      st.spend.record({ strategy: 'x', intentId, kind: 'gas', token: ETH.address, amount, at: 1 });
    const fill = (f: Partial<Parameters<Store['fills']['record']>[0]> & { filledAt: number }) =>
      st.fills.record({
        side: 'buy',
        collection: 'apes',
        contract: C,
        tokenId: '1',
        price: E,
        token: ETH.address,
        txHash: `0x${f.filledAt}${f.tokenId ?? ''}`,
        ...f,
      });
    intent('old', 'sniper', 'buy_listing');
    fill({ intentId: 'old', filledAt: 500 }); // before the run's engine started
    intent('b1', 'sniper', 'buy_listing');
    gas('b1', 7n);
    fill({ intentId: 'b1', orderHash: '0xlisting', filledAt: 1_000, tokenId: '5', price: 3n * E });
    intent('a1', 'seller', 'accept_offer');
    gas('a1', 9n);
    fill({
      intentId: 'a1',
      side: 'sell',
      filledAt: 2_000,
      tokenId: '5',
      price: 4n * E,
      fees: E / 10n,
      token: WETH.address,
    });
    intent('m1', 'drop-minter', 'mint');
    gas('m1', 11n);
    fill({
      intentId: 'm1',
      collection: 'genesis',
      contract: DROP,
      tokenId: '40',
      filledAt: 3_000,
      price: E / 2n,
    });
    fill({
      intentId: 'm1',
      collection: 'genesis',
      contract: DROP,
      tokenId: '41',
      filledAt: 3_000,
      price: E / 2n,
    });
    // our offer and our listing taken (the ledger's fills: no intent of theirs)
    fill({ orderHash: '0xoffer', filledAt: 4_000, tokenId: '6', price: 2n * E, token: WETH.address });
    fill({ orderHash: '0xours', side: 'sell', filledAt: 5_000, tokenId: '6', price: 5n * E, fees: E / 8n });
    const orders = new Map<string, Pick<LedgerOrder, 'side' | 'strategyId'>>([
      ['0xoffer', { side: 'trait_offer', strategyId: 'trait-bidder' }],
      ['0xours', { side: 'listing', strategyId: 'seller' }],
    ]);
    const swap = {
      id: 's1',
      strategyId: 'rebalancer',
      state: 'done',
      createdAt: 5_900,
      updatedAt: 6_000,
      intent: { kind: 'swap', fromToken: ETH, toToken: WETH, amountIn: 3n * E, slippageBps: 50 },
    } as unknown as JournalRecord;
    const failed = { ...swap, id: 's2', state: 'failed' } as JournalRecord;
    const mint = { ...swap, id: 'm1', intent: { kind: 'mint', drop: 'genesis' } } as unknown as JournalRecord;
    const fills = liveRunFills({
      store: st,
      ledger: { get: (h: string) => orders.get(h) as LedgerOrder | undefined },
      holdings: {
        gasOf: (id) =>
          id === undefined
            ? 0n
            : st.spend
                .list()
                .filter((s) => s.intentId === id)
                .reduce((a, s) => a + s.amount, 0n),
      },
      journal: [swap, failed, mint],
      tokenOf,
      chain: 'ethereum',
      since: 1_000,
    });
    const item = (id: string) => `ethereum/${C}/${id}`;
    expect(fills.map((f) => [f.at, f.strategyId, f.kind, f.item, f.price, f.symbol, f.fees, f.gas])).toEqual([
      [1_000, 'sniper', 'buy', item('5'), 3n * E, 'ETH', null, 7n],
      [2_000, 'seller', 'offer_accepted', item('5'), 4n * E, 'WETH', E / 10n, 9n],
      [3_000, 'drop-minter', 'mint', '2 × genesis', E, 'ETH', 0n, 11n],
      [4_000, 'trait-bidder', 'offer_filled', item('6'), 2n * E, 'WETH', null, 0n],
      [5_000, 'seller', 'listing_sold', item('6'), 5n * E, 'ETH', E / 8n, 0n],
      [6_000, 'rebalancer', 'swap', 'ETH → WETH', 3n * E, 'ETH', null, 0n],
    ]);
    expect(fills[0]).toMatchObject({ orderHash: '0xlisting', txHash: '0x10005' });
  });

  it('what it tried and did not get: failed purchases, sales, mints and swaps, named as their fills would be', () => {
    const nft = { chain: 'ethereum' as const, contract: C as never, identifier: '5' as never };
    const rec = (id: string, state: string, intent: Record<string, unknown>, error?: object) =>
      ({
        id,
        strategyId: 's',
        state,
        createdAt: 1,
        updatedAt: 2,
        intent,
        ...(error ? { error } : {}),
      }) as unknown as JournalRecord;
    const tried = liveRunTried([
      rec(
        'a',
        'failed',
        { kind: 'buy_listing', nft },
        { code: 'reverted', message: 'the listing was filled' },
      ),
      rec('b', 'failed', { kind: 'accept_offer', nft }),
      rec('c', 'failed', { kind: 'mint', drop: 'genesis', quantity: 2n }),
      rec('d', 'failed', { kind: 'swap', fromToken: ETH, toToken: WETH }),
      rec('e', 'failed', { kind: 'place_offer' }),
      rec('f', 'done', { kind: 'buy_listing', nft }),
    ]);
    expect(tried.map((t) => [t.kind, t.item, t.error])).toEqual([
      ['buy', `ethereum/${C}/5`, 'reverted: the listing was filled'],
      ['offer_accepted', `ethereum/${C}/5`, 'failed'],
      ['mint', '2 × genesis', 'failed'],
      ['swap', 'ETH → WETH', 'failed'],
    ]);
  });
});

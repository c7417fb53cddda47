import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ComparedFill,
  compareFills,
  RunReportError,
  readRun,
  SALE_AFTER_BUY_MS,
  strategyDifferences,
} from '../../../src/backtest/compare.ts';

const ITEM = 'ethereum/0x0165878a594ca255338adfa4d48449f69242eb8f/35';
const about = { file: 'paper.json', mode: 'paper' as const, from: 0, to: 10_000, fills: 0 };
const none = { run: new Map<string, bigint>(), backtest: new Map<string, bigint>() };

function fill(
  at: number,
  strategy: string,
  kind: string,
  price: bigint,
  extra: Partial<ComparedFill> = {},
): ComparedFill {
  return {
    at,
    strategy,
    kind,
    item: ITEM,
    price,
    fees: price / 40n,
    gas: 0n,
    symbol: 'ETH',
    decimals: 18,
    ...extra,
  };
}

describe('compareFills', () => {
  it('the same fills a few ms apart agree; the most they are apart is told', () => {
    const run = [fill(1_010, 'sniper', 'buy', 100n), fill(5_020, 'seller', 'listing_sold', 130n)];
    const back = [fill(1_000, 'sniper', 'buy', 100n), fill(5_000, 'seller', 'listing_sold', 130n)];
    const c = compareFills(
      run,
      back,
      { run: new Map([['seller', 27n]]), backtest: new Map([['seller', 27n]]) },
      about,
    );
    expect(c).toMatchObject({ same: 2, maxShiftMs: 20, differences: [], agree: true });
    expect(c.realized).toEqual([{ strategy: 'seller', run: '27', backtest: '27', differs: null }]);
  });

  it("another gas price is a known cause; a swap off by the gas paid before it too (the wallets' ETH differs)", () => {
    const run = [
      fill(1_000, 'sniper', 'buy', 100n, { gas: 50n }),
      fill(2_000, 'rebalancer', 'swap', 1_000n, { item: 'ETH → WETH', fees: 0n }),
    ];
    const back = [
      fill(1_000, 'sniper', 'buy', 100n, { gas: 80n }),
      fill(2_000, 'rebalancer', 'swap', 1_030n, { item: 'ETH → WETH', fees: 0n }),
    ];
    // a cost basis holds its buy's gas: the realized PnL of what was bought differs by as much
    const c = compareFills(
      run,
      back,
      { run: new Map([['seller', 100n]]), backtest: new Map([['seller', 70n]]) },
      about,
    );
    expect(c.same).toBe(1);
    expect(c.agree).toBe(true);
    expect(c.realized[0]?.differs?.cause).toMatch(/the gas paid above differs \(30 wei in all\)/);
    // by more than that: no known cause
    expect(
      compareFills(
        run,
        back,
        { run: new Map([['seller', 100n]]), backtest: new Map([['seller', 69n]]) },
        about,
      ).agree,
    ).toBe(false);
    expect(c.differences.map((d) => [d.what, d.cause])).toEqual([
      [`gas of sniper buy ${ITEM}`, expect.stringMatching(/gas price/)],
      ['rebalancer swap ETH → WETH', expect.stringMatching(/30 wei the gas paid before it/)],
    ]);
    // off by more than the gas apart: no known cause
    const far = compareFills(
      run,
      [back[0] as ComparedFill, fill(2_000, 'rebalancer', 'swap', 1_031n, { item: 'ETH → WETH', fees: 0n })],
      none,
      about,
    );
    expect(far.agree).toBe(false);
    expect(
      far.differences.filter((d) => d.cause === null).map((d) => [d.what, d.run?.price, d.backtest?.price]),
    ).toEqual([
      ['rebalancer swap ETH → WETH', '1000', undefined],
      ['rebalancer swap ETH → WETH', undefined, '1031'],
    ]);
  });

  it('a sale decided within a moment of the buy may take another offer: known, and its PnL differs by as much', () => {
    const run = [
      fill(1_000, 'sniper', 'buy', 100n),
      fill(1_000 + SALE_AFTER_BUY_MS - 1, 'seller', 'offer_accepted', 140n),
    ];
    const back = [fill(1_000, 'sniper', 'buy', 100n), fill(1_003, 'seller', 'offer_accepted', 120n)];
    const c = compareFills(
      run,
      back,
      { run: new Map([['seller', 35n]]), backtest: new Map([['seller', 17n]]) },
      about,
    );
    expect(c.agree).toBe(true);
    expect(c.differences).toHaveLength(1);
    expect(c.differences[0]?.cause).toMatch(
      /within a moment of the purchase \(paper 1499 ms after it, the backtest 3 ms\)/,
    );
    expect(c.realized[0]).toMatchObject({ strategy: 'seller', run: '35', backtest: '17' });
    expect(c.realized[0]?.differs?.cause).toMatch(/another price/);
    // the same sale later than that: no known cause
    const late = compareFills(
      [run[0] as ComparedFill, fill(1_000 + SALE_AFTER_BUY_MS, 'seller', 'offer_accepted', 140n)],
      back,
      none,
      about,
    );
    expect(late.agree).toBe(false);
  });

  it('a fill in one of them only, or a PnL apart without a sale to explain it, is a disagreement', () => {
    const c = compareFills(
      [fill(1_000, 'sniper', 'buy', 100n), fill(3_000, 'trait-bidder', 'offer_filled', 90n)],
      [fill(1_000, 'sniper', 'buy', 100n), fill(4_000, 'collection-bidder', 'offer_filled', 80n)],
      { run: new Map([['sniper', 0n]]), backtest: new Map([['seller', 5n]]) },
      about,
    );
    expect(c.agree).toBe(false);
    expect(
      c.differences.map((d) => [d.what, d.run !== undefined, d.backtest !== undefined, d.cause]),
    ).toEqual([
      [`trait-bidder offer_filled ${ITEM}`, true, false, null],
      [`collection-bidder offer_filled ${ITEM}`, false, true, null],
    ]);
    expect(c.realized).toEqual([{ strategy: 'seller', run: '0', backtest: '5', differs: { cause: null } }]);
    // the PnL alone apart disagrees too
    const pnl = compareFills(
      [],
      [],
      { run: new Map([['seller', 4n]]), backtest: new Map([['seller', 5n]]) },
      about,
    );
    expect(pnl.agree).toBe(false);
  });
});

describe('compareFills with a live run', () => {
  const liveAbout = { ...about, file: 'run-report.json', mode: 'live' as const };
  const GAS_LIVE = 127_715_001_021_720n;

  it("a purchase matches whatever the fees (a live run does not know those of what it bought); its gas is a transaction's", () => {
    const run = [fill(1_050, 'sniper', 'buy', 100n, { fees: null, gas: GAS_LIVE })];
    const back = [fill(1_000, 'sniper', 'buy', 100n, { gas: 160_000_001_280_000n })];
    const c = compareFills(run, back, none, liveAbout);
    expect(c).toMatchObject({ same: 1, agree: true });
    expect(c.differences).toEqual([
      expect.objectContaining({
        what: `gas of sniper buy ${ITEM}`,
        run: expect.objectContaining({ fees: null, gas: String(GAS_LIVE) }),
        cause: expect.stringMatching(/^the run's transaction paid its gas used at its effective price/),
      }),
    ]);
    // at another price it is no match, fees or not
    expect(
      compareFills([fill(1_050, 'sniper', 'buy', 101n, { fees: null })], back, none, liveAbout).agree,
    ).toBe(false);
  });

  it("offers filled in one of them only are the fill model's against live sellers, and so is the PnL after them; on paper they are not explained", () => {
    const run = [fill(2_000, 'trait-bidder', 'offer_filled', 50n, { item: 'a/1', fees: null })];
    const back = [fill(1_500, 'trait-bidder', 'offer_filled', 60n, { item: 'a/2' })];
    const realized = { run: new Map([['seller', 5n]]), backtest: new Map([['seller', 9n]]) };
    const c = compareFills(run, back, realized, liveAbout);
    expect(c.agree).toBe(true);
    expect(c.differences.map((d) => [d.what, d.run !== undefined, d.backtest !== undefined])).toEqual([
      ['trait-bidder offer_filled a/1', true, false],
      ['trait-bidder offer_filled a/2', false, true],
    ]);
    expect(c.differences[0]?.cause).toMatch(/^a seller accepted the run's offer \(the sale is on the tape\)/);
    expect(c.differences[1]?.cause).toMatch(
      /^the fill model filled the backtest's offer on a listing or sale/,
    );
    expect(c.realized[0]?.differs?.cause).toMatch(/^offers above were filled differently/);
    // the same fills from a paper run: the same model on both sides, so a difference without a cause
    const paper = compareFills(run, back, realized, about);
    expect(paper.agree).toBe(false);
    expect(paper.differences.every((d) => d.cause === null)).toBe(true);
    // a purchase only in one of them stays unexplained, live too
    expect(compareFills([fill(1, 'sniper', 'buy', 5n, { fees: null })], [], none, liveAbout).agree).toBe(
      false,
    );
  });

  it('a purchase only in the backtest is explained when the run tried it and did not get it, once each', () => {
    const back = [fill(1_000, 'sniper', 'buy', 5n), fill(2_000, 'sniper', 'buy', 5n)];
    const tried = [
      { at: 1_020, strategy: 'sniper', kind: 'buy', item: ITEM, error: 'reverted: the listing was filled' },
      { at: 1_020, strategy: 'other', kind: 'buy', item: ITEM, error: 'x' },
    ];
    const c = compareFills([], back, none, liveAbout, tried);
    expect(c.differences.map((d) => d.cause)).toEqual([
      "the run tried it too and did not get it (reverted: the listing was filled): the backtest's fill model knows no other buyer first, no revert",
      null,
    ]);
    expect(c.agree).toBe(false);
    expect(compareFills([], back.slice(0, 1), none, liveAbout, tried).agree).toBe(true);
  });
});

describe('readRun', () => {
  const dir = mkdtempSync(join(tmpdir(), 'harpoon-compare-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const report = {
    mode: 'paper',
    startedAt: 1_000,
    endedAt: 9_000,
    wallet: '0xABCDEF0000000000000000000000000000000001',
    fills: [
      {
        at: 2_000,
        strategyId: 'sniper',
        kind: 'buy',
        collection: 'harpoon-apes',
        item: ITEM,
        price: '32619000000000000',
        token: '0x0000000000000000000000000000000000000000',
        symbol: 'ETH',
        decimals: 18,
        fees: '1141665000000000',
        gas: '0',
        orderHash: null,
      },
    ],
    pnl: {
      byStrategy: [
        { key: 'seller', symbol: 'ETH', sales: 1, held: 0, realized: '0.5', unrealizedAtFloor: null },
        { key: 'seller', symbol: 'WETH', sales: 1, held: 0, realized: '0.25', unrealizedAtFloor: null },
        { key: 'seller', symbol: 'HRP', sales: 1, held: 0, realized: '7', unrealizedAtFloor: null },
      ],
    },
  };

  it("reads a live daemon's run report too: its mode, a purchase's fees not known", () => {
    const live = {
      ...report,
      mode: 'live',
      tradingFrom: 1_200,
      fills: [{ ...report.fills[0], fees: null, gas: '127715001021720', txHash: '0xabc' }],
    };
    const r = readRun(write('run-report.json', JSON.stringify(live)), 'run-report.json');
    expect([r.mode, r.tradingFrom]).toEqual(['live', 1_200]);
    expect(r.fills[0]).toMatchObject({ kind: 'buy', fees: null, gas: 127_715_001_021_720n });
    expect(r.tried).toEqual([]);
    const tried = readRun(
      write(
        'tried.json',
        JSON.stringify({
          ...live,
          tried: [{ at: 1_300, strategyId: 'sniper', kind: 'buy', item: ITEM, error: 'reverted: gone' }],
        }),
      ),
    );
    expect(tried.tried).toEqual([
      { at: 1_300, strategy: 'sniper', kind: 'buy', item: ITEM, error: 'reverted: gone' },
    ]);
    expect(readRun(write('p.json', JSON.stringify(report))).mode).toBe('paper');
  });

  it('reads the report "harpoon run --paper" saves: amounts as bigints, ETH and WETH PnL together in wei', () => {
    const r = readRun(write('paper.json', JSON.stringify(report)), 'paper.json');
    expect(r).toMatchObject({ file: 'paper.json', startedAt: 1_000, tradingFrom: 1_000, endedAt: 9_000 });
    expect(r.wallet).toBe('0xabcdef0000000000000000000000000000000001');
    expect(r.fills).toEqual([
      {
        at: 2_000,
        strategy: 'sniper',
        kind: 'buy',
        item: ITEM,
        price: 32_619_000_000_000_000n,
        fees: 1_141_665_000_000_000n,
        gas: 0n,
        symbol: 'ETH',
        decimals: 18,
      },
    ]);
    expect([...(r.realized ?? [])]).toEqual([['seller', 750_000_000_000_000_000n]]);
    expect(r.walletAtStart).toBeUndefined();
    // when its strategies began and its simulated wallet then, once the daemon says them
    const since = readRun(
      write(
        't.json',
        JSON.stringify({
          ...report,
          tradingFrom: 1_500,
          walletAtStart: [
            {
              token: '0xC02AAA39B223FE8D0A0E5C4F27EAD9083C756CC2',
              symbol: 'WETH',
              amount: '7',
              decimals: 18,
            },
          ],
        }),
      ),
    );
    expect(since.tradingFrom).toBe(1_500);
    expect(since.walletAtStart).toEqual([
      { token: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', symbol: 'WETH', amount: 7n, decimals: 18 },
    ]);
  });

  it('a file that is not one says what is wrong with it', () => {
    const bad = (text: string) => {
      try {
        readRun(write('bad.json', text), 'bad.json');
      } catch (e) {
        expect(e).toBeInstanceOf(RunReportError);
        return (e as Error).message;
      }
      throw new Error('read');
    };
    expect(bad('{"mode":')).toMatch(/^bad\.json is not JSON: /);
    expect(bad(JSON.stringify({ ...report, mode: 'backtest' }))).toMatch(
      /^bad\.json is not the report of a paper or live run \(mode: /,
    );
    expect(bad(JSON.stringify({ ...report, fills: [{ ...report.fills[0], price: '1.5' }] }))).toMatch(
      /\(fills\.0\.price: /,
    );
    expect(
      bad(
        JSON.stringify({
          ...report,
          pnl: { byStrategy: [{ key: 'seller', symbol: 'ETH', realized: 'lots' }] },
        }),
      ),
    ).toBe('bad.json: the realized PnL of seller is not an amount: lots');
    expect(() => readRun(join(dir, 'none.json'), 'none.json')).toThrow('no file at none.json');
    expect(() => readRun(dir, 'reports')).toThrow("reports is a folder, not a run's report");
  });
});

describe('strategyDifferences', () => {
  const sniper = {
    id: 'sniper',
    module: 'sniper',
    params: { discountBps: 1500, collections: ['a', 'b'], limits: { x: 1, y: 2 } },
  };
  it('the same strategies and params, keys in any order: none', () => {
    expect(
      strategyDifferences(
        [sniper],
        [{ ...sniper, params: { limits: { y: 2, x: 1 }, collections: ['a', 'b'], discountBps: 1500 } }],
      ),
    ).toEqual([]);
  });
  it('a param set otherwise or not at all, another module, a strategy in one only: each said', () => {
    expect(
      strategyDifferences(
        [sniper, { id: 'seller', module: 'seller', params: {} }],
        [
          {
            id: 'sniper',
            module: './my-sniper.ts',
            params: { discountBps: 2000, collections: ['b', 'a'], limits: { x: 1, y: 2 }, maxPrice: '0.05' },
          },
          { id: 'rebalancer', module: 'rebalancer', params: {} },
        ],
      ),
    ).toEqual([
      'sniper: module sniper in the run, ./my-sniper.ts here',
      'sniper.collections: ["a","b"] in the run, ["b","a"] here',
      'sniper.discountBps: 1500 in the run, 2000 here',
      'sniper.maxPrice: not set in the run, "0.05" here',
      'seller: traded by the run, not in this config',
      'rebalancer: in this config, not traded by the run',
    ]);
  });
});

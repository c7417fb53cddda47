import { describe, expect, it } from 'vitest';
import { findAccount, namedAccounts, parseAccountIdentifier } from '../../../../src/sandbox/data/accounts.ts';
import { ETH_TOKEN, type TokenInfo } from '../../../../src/sandbox/data/currencies.ts';
import { rank, relevance } from '../../../../src/sandbox/data/search.ts';
import { ethPerAt, figuresOf, type PoolHistory } from '../../../../src/sandbox/data/token-market.ts';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import { rankTokens } from '../../../../src/sandbox/server/routes/tokens.ts';

const E18 = 10n ** 18n;
const HOUR = 3_600_000;
const tok = (symbol: string, decimals: number, address: string): TokenInfo => ({
  symbol,
  name: symbol,
  decimals,
  address,
  native: false,
});
const USDC = tok('USDC', 6, '0x00000000000000000000000000000000000000c1');
const HRP = tok('HRP', 18, '0x00000000000000000000000000000000000000c2');
const WETH = tok('WETH', 18, '0x00000000000000000000000000000000000000c3');
const NOW = 1_000 * HOUR;

// USDC pool: 3000 USDC per ETH until 2 h ago, then 2400 (ETH got cheaper); one swap 30 min ago
const usdcPool: PoolHistory = {
  token: USDC,
  syncs: [
    { timestampMs: NOW - 100 * HOUR, reserveToken: 3_000_000n * 10n ** 6n, reserveWeth: 1000n * E18 },
    { timestampMs: NOW - 2 * HOUR, reserveToken: 2_400_000n * 10n ** 6n, reserveWeth: 1000n * E18 },
  ],
  swaps: [{ timestampMs: NOW - HOUR / 2, tokenUnits: 600_000n * 10n ** 6n, wethUnits: 200n * E18 }],
};
// HRP pool: 10000 HRP per ETH throughout, no swaps
const hrpPool: PoolHistory = {
  token: HRP,
  syncs: [{ timestampMs: NOW - 50 * HOUR, reserveToken: 10_000n * E18, reserveWeth: E18 }],
  swaps: [],
};
const prices = {
  ethUsd: 2400,
  bySymbol: new Map([
    ['USDC', { eth: 1 / 2400, usd: 1 }],
    ['WETH', { eth: 1, usd: 2400 }],
    ['ETH', { eth: 1, usd: 2400 }],
    ['HRP', { eth: 0.0001, usd: 0.24 }],
  ]),
};

describe('token figures from the pools history', () => {
  it('price at a time: the last sync at or before it, else the first', () => {
    expect(ethPerAt(usdcPool, NOW)).toBeCloseTo(1 / 2400);
    expect(ethPerAt(usdcPool, NOW - 3 * HOUR)).toBeCloseTo(1 / 3000);
    expect(ethPerAt(usdcPool, 0)).toBeCloseTo(1 / 3000);
  });

  it('change over windows, volumes in USD at the current price, supply → market cap', () => {
    const pools = [usdcPool, hrpPool];
    const weth = figuresOf(WETH, pools, NOW, prices, 700n * E18);
    expect(weth.changes.one_hour).toBeCloseTo(0);
    expect(weth.changes.one_day).toBeCloseTo(-20); // 3000 → 2400 USD
    expect(weth.volumeUsd1h).toBeCloseTo(200 * 2400);
    expect(weth.marketCapUsd).toBeCloseTo(700 * 2400);
    const usdc = figuresOf(USDC, pools, NOW, prices, undefined);
    expect(usdc.changes.one_day).toBeCloseTo(0); // a dollar stays a dollar
    expect(usdc.volumeUsd24h).toBeCloseTo(600_000);
    expect(usdc.marketCapUsd).toBeUndefined();
    const hrp = figuresOf(HRP, pools, NOW, prices, undefined);
    expect(hrp.changes.one_day).toBeCloseTo(-20); // priced in ETH, which fell
    expect(hrp.volumeUsd24h).toBe(0);
    expect(hrp.genesisMs).toBe(NOW - 50 * HOUR);
    const eth = figuresOf(ETH_TOKEN, pools, NOW, prices, undefined);
    expect(eth.volumeUsd24h).toBeCloseTo(weth.volumeUsd24h);
  });

  it('ranks by the figure asked, missing figures last', () => {
    const pools = [usdcPool, hrpPool];
    const fs = [HRP, USDC, WETH].map((t) => figuresOf(t, pools, NOW, prices, t === WETH ? E18 : undefined));
    expect(rankTokens(fs, 'one_day_volume', 'desc').map((f) => f.token.symbol)).toEqual([
      'USDC',
      'WETH',
      'HRP',
    ]);
    expect(rankTokens(fs, 'price', 'asc').map((f) => f.token.symbol)).toEqual(['HRP', 'USDC', 'WETH']);
    expect(rankTokens(fs, 'market_cap', 'asc').map((f) => f.token.symbol)[0]).toBe('WETH');
  });
});

describe('search relevance', () => {
  it('exact > prefix > word prefix > substring; the first field counts most', () => {
    expect(relevance('apes', ['Apes'])).toBe(100);
    expect(relevance('harpoon', ['Harpoon Apes'])).toBe(80);
    expect(relevance('apes', ['Harpoon Apes'])).toBe(60);
    expect(relevance('poon', ['Harpoon Apes'])).toBe(40);
    expect(relevance('apes', ['x', 'apes'])).toBe(99);
    expect(relevance('apes harpoon', ['Harpoon Apes'])).toBe(20);
    expect(relevance('zebra', ['Harpoon Apes'])).toBe(0);
  });

  it('ranks by score, then type, then label; limit', () => {
    const c = (type: 'collection' | 'token', label: string) => ({
      type,
      fields: [label],
      label,
      value: label,
    });
    const out = rank(
      'ap',
      [c('token', 'APX'), c('collection', 'Apes'), c('collection', 'Grapes'), c('token', 'zz')],
      2,
    );
    expect(out.map((r) => r.value)).toEqual(['Apes', 'APX']);
  });
});

describe('account identifiers', () => {
  const named = namedAccounts('0x00000000000000000000000000000000000000a0', [
    '0x00000000000000000000000000000000000000b1',
  ]);

  it('addresses, usernames and ENS names; 400 for malformed ones', () => {
    expect(parseAccountIdentifier('wallet-1', 'id')).toEqual({ kind: 'username', username: 'wallet-1' });
    expect(parseAccountIdentifier('Vitalik.eth', 'id')).toEqual({ kind: 'ens', name: 'vitalik.eth' });
    expect(() => parseAccountIdentifier('0x12', 'id')).toThrow(HttpError);
    expect(() => parseAccountIdentifier('a b', 'id')).toThrow(/not an address, a username or an ENS name/);
    expect(() => parseAccountIdentifier('', 'id')).toThrow(HttpError);
  });

  it('usernames of the sandbox wallets; any address is an account; ENS resolves to nothing', () => {
    expect(findAccount(parseAccountIdentifier('SANDBOX-OPERATOR', 'id'), named)?.address.toLowerCase()).toBe(
      '0x00000000000000000000000000000000000000a0',
    );
    expect(findAccount(parseAccountIdentifier('wallet-1', 'id'), named)?.username).toBe('wallet-1');
    expect(findAccount(parseAccountIdentifier('wallet-2', 'id'), named)).toBeUndefined();
    const any = findAccount(parseAccountIdentifier(`0x${'ab'.repeat(20)}`, 'id'), named);
    expect(any?.username).toBeUndefined();
    expect(findAccount(parseAccountIdentifier('x.eth', 'id'), named)).toBeUndefined();
  });
});

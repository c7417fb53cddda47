import { describe, expect, it } from 'vitest';
import {
  alertOfFatal,
  alertOfFeeChange,
  alertOfFill,
  alertOfGuardRefusal,
  alertOfKill,
  alertOfPause,
  alertOfResume,
  FILL_KINDS,
  formatAmount,
  isFillKind,
} from '../../../src/alerts/index.ts';

const AT = Date.UTC(2026, 10, 26, 4, 30);

describe('formatAmount', () => {
  it.each([
    [500_000_000_000_000_000n, 18, 'WETH', '0.5 WETH'],
    [1_250_000n, 6, 'USDC', '1.25 USDC'],
    [123_456_789_000_000_000n, 18, 'ETH', '≈0.123456 ETH'],
    [10_000_000_000_000_000_001n, 18, 'ETH', '≈10 ETH'],
    [0n, 18, 'ETH', '0 ETH'],
    [42n, 0, 'PTS', '42 PTS'],
  ])('%s at %s decimals', (v, d, sym, text) => {
    expect(formatAmount(v, d, sym)).toBe(text);
  });
});

describe('alertOfFill', () => {
  const buy = {
    id: '17',
    at: AT,
    mode: 'live' as const,
    strategy: 'sniper',
    kind: 'buy' as const,
    collection: 'cool-cats',
    tokenId: '1234',
    price: 480_000_000_000_000_000n,
    decimals: 18,
    symbol: 'ETH',
    fees: 12_000_000_000_000_000n,
    gasWei: 2_100_000_000_000_000n,
    txHash: `0x${'ab'.repeat(32)}`,
  };

  it('reads on a phone: what, for how much, the costs, the strategy, the transaction', () => {
    const e = alertOfFill(buy);
    expect(e).toMatchObject({
      kind: 'fill',
      severity: 'info',
      key: 'fill:17',
      title: 'Bought cool-cats #1234 for 0.48 ETH',
      text: 'fees 0.012 ETH · gas 0.0021 ETH\nstrategy sniper\ntx 0xababab…abab',
    });
    expect(e.data).toMatchObject({
      price: '0.48',
      fees: '0.012',
      gas: '0.0021',
      symbol: 'ETH',
      quantity: '1',
    });
  });

  it('a sale in a 6-decimal token with its profit or loss, quantity, paper mode', () => {
    const e = alertOfFill({
      id: 'p-3',
      at: AT,
      mode: 'paper',
      strategy: 'seller',
      kind: 'listing_sold',
      collection: 'parallel',
      tokenId: '7',
      quantity: 2n,
      price: 1_500_000n,
      decimals: 6,
      symbol: 'USDC',
      realizedPnl: -250_000n,
    });
    expect(e.title).toBe('[paper] Sold (our listing) parallel #7 ×2 for 1.5 USDC');
    expect(e.text).toBe('loss 0.25 USDC\nstrategy seller');
    expect(e.data).toMatchObject({ realizedPnl: '-0.25', quantity: '2', mode: 'paper' });
  });

  it('every value of data is a string, number, boolean or null (the webhook JSON never meets a bigint)', () => {
    for (const v of Object.values(alertOfFill(buy).data ?? {}))
      expect(['string', 'number', 'boolean'].includes(typeof v) || v === null).toBe(true);
    expect(() => JSON.stringify(alertOfFill(buy))).not.toThrow();
  });
});

describe('alerts of the switches, refusals and a fatal stop', () => {
  it('guard refusal: warn, says nothing was signed; one per reason, strategy and collection', () => {
    const e = alertOfGuardRefusal({
      at: AT,
      strategy: 'sniper',
      intent: 'buy_listing',
      reason: 'recipient_mismatch',
      message: 'the NFT would go to 0x0000…dead, not to our wallet',
      collection: 'cool-cats',
    });
    expect(e).toMatchObject({
      kind: 'guard_refusal',
      severity: 'warn',
      title: 'Guard refused a buy listing: recipient mismatch',
      key: 'guard_refusal:recipient_mismatch:sniper:cool-cats',
    });
    expect(e.text).toContain('nothing was signed');
  });

  it("a collection's fees changed: a rise warns, a fall is info; one per collection and new fees", () => {
    const fees = [
      { fee: 1, recipient: '0x0000a26b00c1f0df003000390027140000faa719', required: true },
      { fee: 4, recipient: '0x00000000000000000000000000000000000C0FFE', required: true },
    ];
    const rise = alertOfFeeChange({ at: AT, collection: 'apes', beforeBps: 350n, nowBps: 500n, fees });
    expect(rise).toMatchObject({
      kind: 'fees',
      severity: 'warn',
      title: 'Fees of apes changed: 3.5 % → 5 %',
      data: { collection: 'apes', beforeBps: '350', nowBps: '500' },
    });
    expect(rise.text).toContain('4 % to 0x000000…0ffe');
    expect(rise.text).toContain('our orders there carry the new fees');
    const fall = alertOfFeeChange({ at: AT + 1, collection: 'apes', beforeBps: 500n, nowBps: 200n, fees });
    expect(fall.severity).toBe('info');
    // the same new fees: the same key (sent once within the dedup window); other fees: another
    expect(alertOfFeeChange({ at: AT + 2, collection: 'apes', beforeBps: 0n, nowBps: 500n, fees }).key).toBe(
      rise.key,
    );
    expect(fall.key).toBe(rise.key.replace(':500:', ':200:'));
    const unusable = alertOfFeeChange({ at: AT, collection: 'apes', beforeBps: 350n, nowBps: null, fees });
    expect(unusable).toMatchObject({
      severity: 'warn',
      title: 'Fees of apes changed: 3.5 % → unusable fees',
    });
    expect(unusable.data?.nowBps).toBeNull();
  });

  it('kill is critical, pause a warning, resume info; each a key of its own moment', () => {
    const kill = alertOfKill({ at: AT, reason: 'floor crash', by: 'dashboard', openOffers: 4 });
    expect(kill).toMatchObject({
      kind: 'kill',
      severity: 'critical',
      key: `kill:${AT}`,
      title: 'Kill switch engaged',
    });
    expect(kill.text).toBe(
      'floor crash\nby dashboard\ntrading stopped; cancelling 4 open offer(s) until resume',
    );
    expect(alertOfPause({ at: AT })).toMatchObject({ kind: 'pause', severity: 'warn', key: `pause:${AT}` });
    expect(alertOfResume({ at: AT + 1, by: 'control endpoint' })).toMatchObject({
      kind: 'resume',
      severity: 'info',
      key: `resume:${AT + 1}`,
      text: 'by control endpoint\nstrategies run again',
    });
  });

  it('fatal: critical, keyed `fatal` so the push and the detector make one alert', () => {
    const e = alertOfFatal({ at: AT, code: 'chain_mismatch', message: 'the RPC serves chain 5, not 1' });
    expect(e).toMatchObject({ kind: 'fatal', severity: 'critical', key: 'fatal' });
    expect(e.text).toBe(
      'the RPC serves chain 5, not 1\ncode chain_mismatch\ntrading has stopped; restart after fixing',
    );
  });
});

describe('fill kinds', () => {
  it('every kind has its verb; isFillKind tells the known from the rest', () => {
    for (const kind of FILL_KINDS) {
      expect(isFillKind(kind)).toBe(true);
      const e = alertOfFill({
        id: kind,
        at: AT,
        mode: 'live',
        strategy: 's',
        kind,
        collection: 'c',
        price: 1n,
        decimals: 0,
        symbol: 'X',
      });
      expect(e.title).toMatch(/^(Bought|Sold|Minted|Swapped)/);
    }
    expect(isFillKind('transfer')).toBe(false);
  });
});

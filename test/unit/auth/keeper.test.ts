import { describe, expect, it } from 'vitest';
import { createCredentials } from '../../../src/api/credentials.ts';
import { createCredentialKeeper, type KeeperTimers } from '../../../src/auth/keeper.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { FatalError, RejectedError, TransientError } from '../../../src/errors/index.ts';

const HOUR = 3_600_000;

/** A clock and timers moved by hand: `advance` fires what falls due, in order. */
function fakeTime(start = 1_800_000_000_000) {
  let now = start;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: KeeperTimers = {
    set: (fn, ms) => {
      const id = ++seq;
      due.set(id, { at: now + ms, fn });
      return id;
    },
    clear: (h) => void due.delete(h as number),
  };
  return {
    clock: { now: () => now },
    timers,
    pending: () => [...due.values()].map((d) => d.at - now).sort((a, b) => a - b),
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = [...due.entries()].sort((a, b) => a[1].at - b[1].at)[0];
        if (next === undefined || next[1].at > end) break;
        due.delete(next[0]);
        now = next[1].at;
        next[1].fn();
        for (let i = 0; i < 20; i++) await Promise.resolve();
      }
      now = end;
    },
  };
}

function exchanger() {
  let n = 0;
  const calls: number[] = [];
  let fail: Error | undefined;
  return {
    calls,
    set fail(e: Error | undefined) {
      fail = e;
    },
    exchange: async (pat: Secret) => {
      expect(pat.reveal()).toBe('pat_value_123456');
      calls.push(++n);
      if (fail) throw fail;
      return {
        accessToken: `jwt-${n}`,
        tokenType: 'Bearer',
        expiresIn: 12 * 3600,
        scope: 'read:eligibility',
      };
    },
  };
}

const noKey = async () => {
  throw new Error('not used');
};

describe('credential keeper: wallet JWT from a PAT', () => {
  it('exchanges at start, renews at 80 % of the lifetime (before expiry), keeps renewing for a month', async () => {
    const t = fakeTime();
    const x = exchanger();
    const credentials = createCredentials({ apiKey: new Secret('key') });
    const k = createCredentialKeeper({
      auth: { exchange: x.exchange, createInstantKey: noKey },
      credentials,
      pat: new Secret('pat_value_123456'),
      clock: t.clock,
      timers: t.timers,
      checkEveryMs: 1000 * HOUR, // one timer per renewal: the schedule is visible in pending()
      onFatal: () => expect.unreachable('no fatal'),
    });
    await k.start();
    expect((await credentials.walletJwt())?.reveal()).toBe('jwt-1');
    expect(t.pending()).toEqual([34_560_000]); // 80 % of 12 h
    await t.advance(34_560_000 - 1);
    expect(x.calls).toHaveLength(1);
    await t.advance(1);
    expect(x.calls).toHaveLength(2);
    expect((await credentials.walletJwt())?.reveal()).toBe('jwt-2');
    // a month: every JWT renewed before it expired
    await t.advance(30 * 24 * HOUR);
    expect(x.calls.length).toBe(2 + Math.floor((30 * 24) / 9.6));
    expect(k.status().walletJwt.expiresAt).toBeGreaterThan(t.clock.now());
  });

  it('a clock that jumps (suspended machine, moved clock) is noticed within a second: renewed at once', async () => {
    const t = fakeTime();
    const x = exchanger();
    let jump = 0;
    const k = createCredentialKeeper({
      auth: { exchange: x.exchange, createInstantKey: noKey },
      credentials: createCredentials({ apiKey: new Secret('key') }),
      pat: new Secret('pat_value_123456'),
      clock: { now: () => t.clock.now() + jump },
      timers: t.timers,
      onFatal: () => expect.unreachable('no fatal'),
    });
    await k.start();
    expect(t.pending()).toEqual([1000]);
    jump = 10 * HOUR; // past the 9.6 h renewal point
    await t.advance(1000);
    expect(x.calls).toHaveLength(2);
    expect(k.status().walletJwt.expiresAt).toBe(t.clock.now() + jump + 12 * HOUR);
  });

  it('concurrent 401 refreshes share one exchange (single-flight)', async () => {
    const t = fakeTime();
    const x = exchanger();
    const k = createCredentialKeeper({
      auth: { exchange: x.exchange, createInstantKey: noKey },
      credentials: createCredentials({ apiKey: new Secret('key') }),
      pat: new Secret('pat_value_123456'),
      clock: t.clock,
      timers: t.timers,
      checkEveryMs: 1000 * HOUR, // one timer per renewal: the schedule is visible in pending()
      onFatal: () => undefined,
    });
    await k.start();
    const all = await Promise.all([k.refreshWalletJwt(), k.refreshWalletJwt(), k.refreshWalletJwt()]);
    expect(new Set(all.map((s) => s.reveal()))).toEqual(new Set(['jwt-2']));
    expect(x.calls).toHaveLength(2);
  });

  it('an unanswered renewal is retried with backoff; a refused one (revoked PAT) is fatal once, with the fix, and stops renewing', async () => {
    const t = fakeTime();
    const x = exchanger();
    const fatals: FatalError[] = [];
    const k = createCredentialKeeper({
      auth: { exchange: x.exchange, createInstantKey: noKey },
      credentials: createCredentials({ apiKey: new Secret('key') }),
      pat: new Secret('pat_value_123456'),
      clock: t.clock,
      timers: t.timers,
      checkEveryMs: 1000 * HOUR, // one timer per renewal: the schedule is visible in pending()
      retryBaseMs: 1000,
      onFatal: (e) => fatals.push(e),
    });
    await k.start();
    x.fail = new TransientError('http_503', 'unavailable');
    await t.advance(0.8 * 12 * HOUR);
    expect(x.calls).toHaveLength(2);
    expect(k.status().lastError).toMatch(/http_503/);
    await t.advance(1000);
    expect(x.calls).toHaveLength(3);
    await t.advance(2000);
    expect(x.calls).toHaveLength(4);
    x.fail = new RejectedError('http_403', 'Token exchange is not available');
    await t.advance(4000);
    expect(x.calls).toHaveLength(5);
    expect(fatals).toHaveLength(1);
    expect(fatals[0]?.code).toBe('pat_refused');
    expect(fatals[0]?.shortMessage).toMatch(/harpoon auth login/);
    expect(fatals[0]?.shortMessage).not.toContain('pat_value_123456');
    expect(t.pending()).toEqual([]); // no more timers: no retry storm
    await expect(k.refreshWalletJwt()).rejects.toBe(fatals[0]);
    expect(x.calls).toHaveLength(5);
  });

  it('a fixed JWT is used as is; its 401 is fatal with the fix (no PAT to renew it)', async () => {
    const fatals: FatalError[] = [];
    const credentials = createCredentials({ apiKey: new Secret('key'), walletJwt: new Secret('fixed') });
    const k = createCredentialKeeper({
      auth: { exchange: async () => expect.unreachable(), createInstantKey: noKey },
      credentials,
      fixedJwt: new Secret('fixed'),
      clock: { now: () => 0 },
      onFatal: (e) => fatals.push(e),
    });
    await k.start();
    expect(k.hasWalletCredential).toBe(true);
    await expect(k.refreshWalletJwt()).rejects.toMatchObject({ code: 'wallet_jwt_refused' });
    expect(fatals.map((f) => f.code)).toEqual(['wallet_jwt_refused']);
    expect(k.hasWalletCredential).toBe(false);
  });
});

describe('credential keeper: API keys', () => {
  it('a configured key refused (401) is fatal with what to do', async () => {
    const fatals: FatalError[] = [];
    const k = createCredentialKeeper({
      auth: { exchange: async () => expect.unreachable(), createInstantKey: noKey },
      credentials: createCredentials({ apiKey: new Secret('mistyped') }),
      instantKey: true, // ignored: a key is configured
      clock: { now: () => 0 },
      onFatal: (e) => fatals.push(e),
    });
    await k.start();
    expect(k.status().apiKey.source).toBe('config');
    await expect(k.refreshApiKey()).rejects.toBeInstanceOf(FatalError);
    expect(fatals[0]?.code).toBe('api_key_refused');
    expect(fatals[0]?.shortMessage).toMatch(/HARPOON_API_KEY/);
  });

  it('instant key: created at start, rates applied, renewed at 90 % of its 7 days, at most 3 per hour', async () => {
    const t = fakeTime();
    let n = 0;
    const created: number[] = [];
    const rates: unknown[] = [];
    const credentials = createCredentials();
    const k = createCredentialKeeper({
      auth: {
        exchange: async () => expect.unreachable(),
        createInstantKey: async () => {
          created.push(t.clock.now());
          n++;
          return {
            api_key: `instant-${n}`,
            name: `k${n}`,
            expires_at: new Date(t.clock.now() + 7 * 24 * HOUR).toISOString(),
            rate_limits: { read: '120/m', write: '30/h', fulfillment: `${4 + n}/m` },
            upgrade_url: 'https://example.invalid',
          } as never;
        },
      },
      credentials,
      instantKey: true,
      clock: t.clock,
      timers: t.timers,
      checkEveryMs: 1000 * HOUR, // one timer per renewal: the schedule is visible in pending()
      onRates: (r) => rates.push(r),
      onFatal: () => expect.unreachable('no fatal'),
    });
    await k.start();
    expect(credentials.apiKey()?.reveal()).toBe('instant-1');
    expect(rates[0]).toMatchObject({ read: { count: 120, windowMs: 60_000 }, fulfillment: { count: 5 } });
    expect(t.pending()).toEqual([0.9 * 7 * 24 * HOUR]); // 16.8 h early
    await t.advance(0.9 * 7 * 24 * HOUR);
    expect(credentials.apiKey()?.reveal()).toBe('instant-2');
    expect(rates).toHaveLength(2);
    // 401s in quick succession: two more keys, then the hour's budget (3) is spent
    await k.refreshApiKey();
    await k.refreshApiKey();
    await expect(k.refreshApiKey()).rejects.toMatchObject({ code: 'instant_key_budget' });
    expect(created).toHaveLength(4);
    expect(k.status()).toMatchObject({ apiKey: { source: 'instant' }, instantKeysCreated: 4 });
  });

  it('an instant key that cannot be renewed before it expires is fatal with the fix', async () => {
    const t = fakeTime();
    const fatals: FatalError[] = [];
    let first = true;
    const k = createCredentialKeeper({
      auth: {
        exchange: async () => expect.unreachable(),
        createInstantKey: async () => {
          if (!first) throw new TransientError('http_503', 'instant keys unavailable');
          first = false;
          return {
            api_key: 'instant-1',
            name: 'k1',
            expires_at: new Date(t.clock.now() + 2 * HOUR).toISOString(),
            rate_limits: { read: '120/m', write: '30/h', fulfillment: '5/m' },
            upgrade_url: 'x',
          } as never;
        },
      },
      credentials: createCredentials(),
      instantKey: true,
      clock: t.clock,
      timers: t.timers,
      checkEveryMs: 1000 * HOUR, // one timer per renewal: the schedule is visible in pending()
      retryBaseMs: 60_000,
      onFatal: (e) => fatals.push(e),
    });
    await k.start();
    await t.advance(2 * HOUR + 1);
    expect(fatals.map((f) => f.code)).toEqual(['api_key_expired']);
    expect(fatals[0]?.shortMessage).toMatch(/set HARPOON_API_KEY/);
    expect(t.pending()).toEqual([]);
  });
});

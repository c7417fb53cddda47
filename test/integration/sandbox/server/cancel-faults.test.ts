import type { CancelResponse } from '@opensea/api-types';
import { afterEach, describe, expect, it } from 'vitest';
import type { CancelOptions, WindowOrder } from '../../../../src/sandbox/market/types.ts';
import type { CancelWindowFiller } from '../../../../src/sandbox/server/index.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import { FakeMarket, SEAPORT } from './fake-market.ts';
import { type Harness, startHarness } from './harness.ts';

/**
 * The cancel faults of `POST /_sandbox/faults` over HTTP with a fake market: settings, the
 * refusals (statuses, the held request), and how an accepted cancel hands the signature window
 * and the trader's fill to the market and the filler. The same faults on the real chain are in
 * test/integration/sandbox/market/cancel-faults.test.ts.
 */

const KEY = 'cancel-key';
const HASH = `0x${'ab'.repeat(32)}`;
const CANCEL = `/api/v2/orders/chain/ethereum/protocol/${SEAPORT}/${HASH}/cancel`;
const ORDER: WindowOrder = {
  hash: HASH,
  side: 'offer',
  kind: 'item_offer',
  slug: 'harpoon-apes',
  contract: '0x00000000000000000000000000000000000000c1',
  standard: 'erc721',
  tokenId: 4n,
  maker: '0x000000000000000000000000000000000000a11c',
  remaining: 1n,
  price: 10n ** 17n,
  currency: { address: '0x00000000000000000000000000000000000000e1', native: false },
};

/** A fake market that records the cancel options and runs the window hook like the real one. */
class WindowMarket extends FakeMarket {
  readonly options: CancelOptions[] = [];
  override async cancel(
    chain: string,
    protocol: string,
    orderHash: string,
    body: unknown,
    caller?: string,
    options: CancelOptions = {},
  ): Promise<CancelResponse> {
    this.options.push(options);
    const answer = await super.cancel(chain, protocol, orderHash, body, caller);
    if ((options.signatureWindowSec ?? 0) > 0) {
      await options.beforeCancel?.(ORDER, 2_000_000_000n);
      return { last_signature_issued_valid_until: new Date(2_000_000_000_000).toISOString() };
    }
    return answer;
  }
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(market = new WindowMarket()) {
  h = await startHarness({ market, keys: [{ apiKey: KEY, account: 'trader' }] });
  return { h, market };
}

async function cancelCounts(s: Harness) {
  const r = await s.call('GET', '/_sandbox/stats');
  return (r.body as { faultCounts: { cancel: Record<string, unknown> } }).faultCounts.cancel;
}

describe('cancel fault settings over HTTP', () => {
  it('GET shows them, POST merges them, reset clears them; bad values are 400 and change nothing', async () => {
    const { h: s } = await start();
    expect((await s.call('GET', '/_sandbox/faults')).body).toMatchObject({
      cancel: { refuseRate: 0, refuseStatus: 400, signatureWindowSec: 0, fillInWindowRate: 0 },
    });
    const set = await s.call('POST', '/_sandbox/faults', {
      body: { cancel: { refuseRate: 0.5, refuseStatus: 'timeout' } },
    });
    expect(set.status, set.text).toBe(200);
    await s.call('POST', '/_sandbox/faults', { body: { cancel: { signatureWindowSec: 30 } } });
    expect((await s.call('GET', '/_sandbox/faults')).body).toMatchObject({
      cancel: { refuseRate: 0.5, refuseStatus: 'timeout', signatureWindowSec: 30, fillInWindowRate: 0 },
    });
    for (const bad of [
      { cancel: { refuseStatus: 404 } },
      { cancel: { signatureWindowSec: 7200 } },
      { cancel: { refuse: 1 } },
      { cancel: 'off' },
    ]) {
      const r = await s.call('POST', '/_sandbox/faults', { body: bad });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ errors: [expect.stringMatching(/cancel/)] });
    }
    expect((await s.call('GET', '/_sandbox/faults')).body).toMatchObject({
      cancel: { refuseStatus: 'timeout', signatureWindowSec: 30 },
    });
    const reset = await s.call('POST', '/_sandbox/reset-faults');
    expect(reset.body).toMatchObject({
      cancel: { refuseRate: 0, refuseStatus: 400, signatureWindowSec: 0, fillInWindowRate: 0 },
    });
  });

  it('fillInWindowRate without a trader filler attached is 409 and changes nothing', async () => {
    const { h: s } = await start();
    const r = await s.call('POST', '/_sandbox/faults', {
      body: { cancel: { signatureWindowSec: 10, fillInWindowRate: 1 } },
    });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ errors: [expect.stringMatching(/filler/)] });
    expect((await s.call('GET', '/_sandbox/faults')).body).toMatchObject({
      cancel: { signatureWindowSec: 0, fillInWindowRate: 0 },
    });
  });
});

describe('refused cancels', () => {
  it.each([
    [400, /apiKey is not from offerer/],
    [403, /Forbidden/],
    [500, /Internal server error/],
  ] as const)(
    'refuseStatus %i answers %i with {"errors"} and never reaches the market',
    async (status, msg) => {
      const { h: s, market } = await start();
      await s.call('POST', '/_sandbox/faults', { body: { cancel: { refuseRate: 1, refuseStatus: status } } });
      const r = await s.call('POST', CANCEL, { key: KEY });
      expect(r.status).toBe(status);
      expect(r.body).toEqual({ errors: [expect.stringMatching(msg)] });
      expect(market.callsOf('cancel')).toEqual([]);
      expect(await cancelCounts(s)).toMatchObject({
        refused: 1,
        refusedByStatus: { [String(status)]: 1 },
      });
      // faults off: the same request cancels
      await s.call('POST', '/_sandbox/reset-faults');
      expect((await s.call('POST', CANCEL, { key: KEY })).status).toBe(200);
      expect(market.callsOf('cancel')).toHaveLength(1);
    },
  );

  it('timeout: never answered within the client timeout; reset-faults and close() drop held requests at once', async () => {
    const { h: s, market } = await start();
    await s.call('POST', '/_sandbox/faults', {
      body: { cancel: { refuseRate: 1, refuseStatus: 'timeout' } },
    });
    const t0 = Date.now();
    const err = await fetch(`${s.url}${CANCEL}`, {
      method: 'POST',
      headers: { 'X-API-KEY': KEY },
      signal: AbortSignal.timeout(1500),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error | undefined)?.name).toBe('TimeoutError');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
    expect(market.callsOf('cancel')).toEqual([]);
    // the client gave up: the server lets go of it too
    await expect.poll(async () => (await cancelCounts(s))['held']).toBe(0);
    expect(await cancelCounts(s)).toMatchObject({ refused: 1, refusedByStatus: { timeout: 1 } });

    // a held request that nobody aborts: reset-faults drops it (unanswered)
    const held = fetch(`${s.url}${CANCEL}`, { method: 'POST', headers: { 'X-API-KEY': KEY } });
    await expect.poll(async () => (await cancelCounts(s))['held']).toBe(1);
    await s.call('POST', '/_sandbox/reset-faults');
    await expect(held).rejects.toThrow();

    // and one held at close does not keep close() waiting
    await s.call('POST', '/_sandbox/faults', {
      body: { cancel: { refuseRate: 1, refuseStatus: 'timeout' } },
    });
    const atClose = fetch(`${s.url}${CANCEL}`, { method: 'POST', headers: { 'X-API-KEY': KEY } });
    await expect.poll(async () => (await cancelCounts(s))['held']).toBe(1);
    const c0 = Date.now();
    await s.close();
    h = undefined;
    expect(Date.now() - c0).toBeLessThan(2000);
    await expect(atClose).rejects.toThrow();
    expect(market.callsOf('cancel')).toEqual([]);
  });
});

describe('accepted cancels with a signature window', () => {
  it('pass the window to the market; the filler prepares before the answer and fills after it', async () => {
    const { h: s, market } = await start();
    const log: string[] = [];
    const filler: CancelWindowFiller = {
      async prepare(order, validUntil) {
        log.push(`prepare ${order.hash} ${validUntil}`);
        return {
          trader: '0x0000000000000000000000000000000000000003',
          async fill() {
            log.push('fill');
            return '0xfeed';
          },
        };
      },
    };
    s.server.attach({ windowFiller: filler });
    await s.call('POST', '/_sandbox/faults', {
      body: { cancel: { signatureWindowSec: 45, fillInWindowRate: 1 } },
    });
    const r = await s.call('POST', CANCEL, { key: KEY });
    expect(r.status, r.text).toBe(200);
    expectValidResponse(
      'POST',
      '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel',
      200,
      r.body,
    );
    expect(market.options[0]?.signatureWindowSec).toBe(45);
    expect(log[0]).toBe(`prepare ${HASH} 2000000000`);
    await expect.poll(() => log).toEqual([`prepare ${HASH} 2000000000`, 'fill']);
    await expect
      .poll(() => cancelCounts(s))
      .toMatchObject({ windowed: 1, fillAttempts: 1, filledInWindow: 1, fillFailures: 0, fillNoTarget: 0 });
  });

  it('count a fill nobody can make, and a fill that fails; no window means no hook', async () => {
    const { h: s, market } = await start();
    let outcome: 'none' | 'fail' = 'none';
    s.server.attach({
      windowFiller: {
        prepare: async () =>
          outcome === 'none'
            ? undefined
            : { trader: '0x3', fill: () => Promise.reject(new Error('reverted')) },
      },
    });
    await s.call('POST', '/_sandbox/faults', {
      body: { cancel: { signatureWindowSec: 5, fillInWindowRate: 1 } },
    });
    expect((await s.call('POST', CANCEL, { key: KEY })).status).toBe(200);
    outcome = 'fail';
    expect((await s.call('POST', CANCEL, { key: KEY })).status).toBe(200);
    await expect
      .poll(() => cancelCounts(s))
      .toMatchObject({ windowed: 2, fillAttempts: 1, filledInWindow: 0, fillFailures: 1, fillNoTarget: 1 });
    // window 0: the market gets no window and no hook
    await s.call('POST', '/_sandbox/reset-faults');
    expect((await s.call('POST', CANCEL, { key: KEY })).status).toBe(200);
    expect(market.options.at(-1)).toEqual({});
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { TraderControl, TraderSettings } from '../../../../src/sandbox/server/types.ts';
import { type Harness, startHarness } from './harness.ts';

/** `/_sandbox/traders` on a bare server: 409 without a simulator, forwarded to one once attached. */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function fakeTraders(): TraderControl & { readonly updates: Partial<TraderSettings>[] } {
  let settings: TraderSettings = {
    enabled: true,
    listingTakerRate: 0.2,
    premiumBps: 500,
    heldItemOfferRate: 0.1,
  };
  const updates: Partial<TraderSettings>[] = [];
  return {
    updates,
    settings: () => settings,
    configure(u) {
      updates.push(u);
      settings = { ...settings, ...u };
      return settings;
    },
    counts: () => ({
      ticks: 4,
      skippedTicks: 0,
      listingBuys: 1,
      listingBuyUnits: 2,
      listingNoTarget: 3,
      listingBuyFailures: 0,
      heldItemOffers: 5,
      heldItemNoTarget: 0,
      heldItemNoFunds: 0,
      heldItemOfferFailures: 0,
    }),
  };
}

describe('/_sandbox/traders', () => {
  it('without a simulator: GET and POST are 409, a bad body still 400 first, stats say null', async () => {
    h = await startHarness({});
    expect((await h.call('GET', '/_sandbox/traders')).status).toBe(409);
    const r = await h.call('POST', '/_sandbox/traders', { body: { listingTakerRate: 0.5 } });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ errors: [expect.stringMatching(/simulator/)] });
    expect((await h.call('POST', '/_sandbox/traders', { body: { nope: 1 } })).status).toBe(400);
    expect((await h.call('GET', '/_sandbox/stats')).body).toMatchObject({ traders: null });
  });

  it('with one attached: POST forwards only validated updates and answers the settings in force', async () => {
    h = await startHarness({});
    const t = fakeTraders();
    h.server.attach({ traders: t });
    const r = await h.call('POST', '/_sandbox/traders', { body: { premiumBps: 0, enabled: false } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ enabled: false, listingTakerRate: 0.2, premiumBps: 0, heldItemOfferRate: 0.1 });
    expect((await h.call('POST', '/_sandbox/traders', { body: { premiumBps: 0.5 } })).status).toBe(400);
    expect((await h.call('POST', '/_sandbox/traders', { rawBody: '{oops' })).status).toBe(400);
    expect(t.updates).toEqual([{ premiumBps: 0, enabled: false }]);
    expect((await h.call('GET', '/_sandbox/traders')).body).toEqual(r.body);
    expect((await h.call('GET', '/_sandbox/stats')).body).toMatchObject({
      traders: { settings: r.body, counts: { listingBuys: 1, listingBuyUnits: 2, heldItemOffers: 5 } },
    });
  });
});

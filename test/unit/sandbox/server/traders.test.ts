import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/sandbox/errors.ts';
import { MAX_PREMIUM_BPS, parseTraderUpdate } from '../../../../src/sandbox/server/traders.ts';

const refused = (body: unknown): string => {
  try {
    parseTraderUpdate(body);
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    return (e as HttpError).reasons.join('; ');
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
};

describe('POST /_sandbox/traders body', () => {
  it('accepts a partial update of the known settings', () => {
    expect(parseTraderUpdate({})).toEqual({});
    expect(
      parseTraderUpdate({ enabled: false, listingTakerRate: 1, premiumBps: 0, heldItemOfferRate: 0.25 }),
    ).toEqual({ enabled: false, listingTakerRate: 1, premiumBps: 0, heldItemOfferRate: 0.25 });
    expect(parseTraderUpdate({ premiumBps: MAX_PREMIUM_BPS })).toEqual({ premiumBps: MAX_PREMIUM_BPS });
  });

  it('unknown keys and bad values are 400 naming what is wrong', () => {
    expect(refused({ listingTakerRate: 0.5, takerRate: 1 })).toMatch(
      /unknown trader setting\(s\): takerRate/,
    );
    expect(refused(null)).toMatch(/JSON object/);
    expect(refused([1])).toMatch(/JSON object/);
    expect(refused({ listingTakerRate: 1.5 })).toMatch(/listingTakerRate: must be a number from 0 to 1/);
    expect(refused({ heldItemOfferRate: -0.1 })).toMatch(/heldItemOfferRate/);
    expect(refused({ heldItemOfferRate: '0.5' })).toMatch(/heldItemOfferRate/);
    expect(refused({ premiumBps: 1.5 })).toMatch(/premiumBps: must be a whole number/);
    expect(refused({ premiumBps: -1 })).toMatch(/premiumBps/);
    expect(refused({ premiumBps: MAX_PREMIUM_BPS + 1 })).toMatch(/premiumBps/);
    expect(refused({ enabled: 'yes' })).toMatch(/enabled: must be true or false/);
  });
});

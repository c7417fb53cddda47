import { describe, expect, it } from 'vitest';
import {
  applyMetadata,
  applyModify,
  applyRefresh,
  creatorFeesOf,
  emptyProfile,
  parseContractMetadata,
  parseModifyCollection,
  parseUpdateMetadata,
} from '../../../../src/sandbox/data/collection-edits.ts';
import { parseStageTimes } from '../../../../src/sandbox/data/drops.ts';
import { HttpError } from '../../../../src/sandbox/errors.ts';

function reasons(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof HttpError) return [...e.reasons];
    throw e;
  }
  throw new Error('no error');
}

describe('collection edits', () => {
  it('refresh rule 2: set fields replace saved ones, left-out and blank ones keep them', () => {
    const p = emptyProfile();
    applyModify(
      p,
      parseModifyCollection({ name: 'Saved', description: 'Kept', banner_image_token: 'https://b/1' }),
    );
    applyRefresh(
      p,
      parseContractMetadata({ name: ' Chain ', description: '', image: 'https://i/2', other: 1 }),
      5,
    );
    expect(p.fields).toEqual({
      name: 'Chain',
      description: 'Kept',
      image_url: 'https://i/2',
      banner_image_url: 'https://b/1',
    });
    expect(p.refreshedAtMs).toBe(5);
  });

  it('refresh rule 3: overview and about kept; a fetched hero or preview replaces its slot only', () => {
    const p = emptyProfile();
    const img = (token: string) => ({ image: { token } });
    applyMetadata(
      p,
      parseUpdateMetadata({
        overview: { modules: { faq: [{ index: 0 }] } },
        about: { sections: [{ title: 'T', description: 'D' }], preview_media: [img('p')] },
        hero: { desktop_hero_media: img('d'), mobile_hero_media: img('m') },
      }),
    );
    applyRefresh(p, parseContractMetadata({ mobile_hero_image: 'https://m/2' }), 1);
    expect(p.page).toEqual({
      overview: { modules: { faq: [{ index: 0 }] } },
      about_sections: [{ title: 'T', description: 'D' }],
      preview_media: [img('p')],
      desktop_hero_media: img('d'),
      mobile_hero_media: img('https://m/2'),
    });
  });

  it('PATCH bodies: every reason, refused fields, editors lower-cased', () => {
    expect(reasons(() => parseModifyCollection({ name: '', is_nsfw: 1 })).length).toBeGreaterThanOrEqual(2);
    expect(reasons(() => parseModifyCollection({ slug: 'x' }))).toEqual([
      'slug: cannot be changed on the sandbox',
    ]);
    expect(reasons(() => parseUpdateMetadata({ overview: {} }))[0]).toMatch(/^overview/);
    const p = emptyProfile();
    applyModify(p, parseModifyCollection({ authorized_editors: [`0x${'AB'.repeat(20)}`] }));
    expect(p.editors).toEqual([`0x${'ab'.repeat(20)}`]);
  });
});

describe('creator_fees (PATCH collection)', () => {
  const A = `0x${'a1'.repeat(20)}`;
  const B = `0x${'B2'.repeat(20)}`;
  const fee = (address: string, basis_points: unknown) => ({ address, basis_points });

  it('accepted: up to 5 recipients, 0..1000 bps; percent = bps / 100; the profile is not touched', () => {
    const m = parseModifyCollection({
      creator_fees: [fee(A, 400), fee(B, 25), fee(`0x${'c3'.repeat(20)}`, 0)],
    });
    expect(creatorFeesOf(m)).toEqual([
      { recipient: A, percent: 4 },
      { recipient: B, percent: 0.25 },
      { recipient: `0x${'c3'.repeat(20)}`, percent: 0 },
    ]);
    expect(creatorFeesOf(parseModifyCollection({ creator_fees: [] }))).toEqual([]);
    expect(creatorFeesOf(parseModifyCollection({ name: 'X' }))).toBeUndefined();
    const five = Array.from({ length: 5 }, (_, i) => fee(`0x${String(i).repeat(40)}`, 1000));
    expect(creatorFeesOf(parseModifyCollection({ creator_fees: five }))).toHaveLength(5);
    const p = emptyProfile();
    applyModify(p, parseModifyCollection({ name: 'Named', creator_fees: [fee(A, 100)] }));
    expect(p).toEqual({ ...emptyProfile(), fields: { name: 'Named' } });
  });

  it('refused with a reason naming the field', () => {
    const six = Array.from({ length: 6 }, (_, i) => fee(`0x${String(i).repeat(40)}`, 10));
    const cases: [unknown, RegExp][] = [
      [six, /^creator_fees: /],
      [[fee(A, 1001)], /^creator_fees\.0\.basis_points: /],
      [[fee(A, -1)], /^creator_fees\.0\.basis_points: /],
      [[fee(A, 2.5)], /^creator_fees\.0\.basis_points: /],
      [[fee(A, '250')], /^creator_fees\.0\.basis_points: /],
      [[fee('0x1234', 100)], /^creator_fees\.0\.address: /],
      [[fee(`${A}00`, 100)], /^creator_fees\.0\.address: /],
      [[{ address: A }], /^creator_fees\.0\.basis_points: /],
      [[{ ...fee(A, 100), required: true }], /^creator_fees\.0: .*required/],
      [[fee(A, 100), fee(A.toUpperCase().replace('0X', '0x'), 200)], /^creator_fees\.1\.address: .*twice/],
      [[fee(A, 0), fee(A, 100)], /^creator_fees\.1\.address: .*twice/],
      [[fee('0x0000a26b00c1f0df003000390027140000faa719', 100)], /^creator_fees\.0\.address: .*marketplace/],
      [{ [A]: 100 }, /^creator_fees: /],
    ];
    for (const [creator_fees, want] of cases) {
      const r = reasons(() => parseModifyCollection({ name: 'Valid', creator_fees }));
      expect(r.join(' | '), JSON.stringify(creator_fees)).toMatch(want);
    }
  });

  it('the other fields the sandbox cannot honour stay refused', () => {
    for (const k of [
      'buyer_side_creator_fee_enabled',
      'buyer_side_creator_fee_basis_points',
      'buyer_side_creator_fee_recipient',
      'is_trait_offers_enabled',
      'is_rarity_disabled',
    ]) {
      expect(reasons(() => parseModifyCollection({ [k]: 1, creator_fees: [] }))).toEqual([
        `${k}: cannot be changed on the sandbox`,
      ]);
    }
  });
});

describe('drop stage times (admin)', () => {
  const cur = { start: 100, end: 200 };
  it('absolute or relative bounds; a left-out bound keeps its value', () => {
    expect(parseStageTimes({ start: 150 }, cur, 1000)).toEqual({ start: 150, end: 200 });
    expect(parseStageTimes({ startOffsetSec: -10, endOffsetSec: 60 }, cur, 1000)).toEqual({
      start: 990,
      end: 1060,
    });
  });
  it('400: both spellings, start not before end, unknown fields, nothing to change', () => {
    for (const b of [{ start: 1, startOffsetSec: 1 }, { start: 300 }, { foo: 1 }, {}, null, { end: 'x' }]) {
      expect(reasons(() => parseStageTimes(b, cur, 1000)).length, JSON.stringify(b)).toBeGreaterThan(0);
    }
  });
});

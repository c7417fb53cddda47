import { describe, expect, it } from 'vitest';
import {
  applyMetadata,
  applyModify,
  applyRefresh,
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

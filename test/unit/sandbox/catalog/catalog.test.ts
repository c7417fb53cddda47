import { getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  COLLECTION_SPECS,
  creatorFeeSpecs,
  MARKETPLACE_FEE,
  MARKETPLACE_FEE_PERCENT,
  MARKETPLACE_FEE_RECIPIENT,
} from '../../../../src/sandbox/catalog/catalog.ts';
import { hashString, prng, traitsFor } from '../../../../src/sandbox/catalog/traits.ts';
import { APES, FEE_RECIPIENT, OWNER, sampleCatalog } from '../server/sample.ts';

describe('traits', () => {
  it('prng is deterministic per seed and stays in [0, 1)', () => {
    const a = prng(5);
    const b = prng(5);
    const xs = Array.from({ length: 200 }, () => a());
    expect(Array.from({ length: 200 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const c = prng(6);
    expect(Array.from({ length: 200 }, () => c())).not.toEqual(xs);
  });

  it('hashString is stable and spreads', () => {
    expect(hashString('harpoon')).toBe(hashString('harpoon'));
    expect(hashString('harpoon-apes:1')).not.toBe(hashString('harpoon-apes:2'));
  });

  it('every token gets every text trait (a listed value) and every numeric trait in range', () => {
    const spec = COLLECTION_SPECS[0]!;
    for (let id = 1n; id <= 30n; id++) {
      const traits = traitsFor(spec.traits, 1, spec.slug, id);
      for (const [name, options] of Object.entries(spec.traits.text)) {
        const t = traits.find((x) => x.trait_type === name);
        expect(options.map(([v]) => v)).toContain(t?.value);
      }
      for (const [name, [min, max]] of Object.entries(spec.traits.numeric)) {
        const t = traits.find((x) => x.trait_type === name);
        expect(t?.display_type).toBe('number');
        expect(t?.value).toBeGreaterThanOrEqual(min);
        expect(t?.value).toBeLessThanOrEqual(max);
      }
    }
  });

  it('weights shape the distribution (a weight-50 value beats a weight-10 value)', () => {
    const spec = COLLECTION_SPECS[0]!;
    const count: Record<string, number> = {};
    for (let id = 1n; id <= 2000n; id++) {
      const eyes = traitsFor(spec.traits, 3, spec.slug, id).find((t) => t.trait_type === 'Fur')
        ?.value as string;
      count[eyes] = (count[eyes] ?? 0) + 1;
    }
    expect(count['Brown'] ?? 0).toBeGreaterThan(3 * (count['Golden'] ?? 0));
  });
});

describe('Catalog', () => {
  const catalog = sampleCatalog(7);

  it('finds collections by slug and by contract (case-insensitive)', () => {
    expect(catalog.collections().map((c) => c.slug)).toEqual(COLLECTION_SPECS.map((s) => s.slug));
    expect(catalog.bySlug('harpoon-apes')?.contract).toBe(APES);
    expect(catalog.byContract(APES.toUpperCase().replace('0X', '0x'))?.slug).toBe('harpoon-apes');
    expect(catalog.bySlug('nope')).toBeUndefined();
    expect(catalog.traits('nope', 1n)).toEqual([]);
  });

  it('traits are deterministic in (seed, slug, id) and differ across seeds', () => {
    expect(sampleCatalog(7).traits('harpoon-apes', 5n)).toEqual(catalog.traits('harpoon-apes', 5n));
    const all7 = Array.from({ length: 20 }, (_, i) => catalog.traits('harpoon-apes', BigInt(i + 1)));
    const all8 = Array.from({ length: 20 }, (_, i) => sampleCatalog(8).traits('harpoon-apes', BigInt(i + 1)));
    expect(all8).not.toEqual(all7);
  });

  it('a metadata update overrides one trait of one token only', () => {
    const c = sampleCatalog(7);
    const before3 = c.traits('harpoon-apes', 3n);
    const before4 = c.traits('harpoon-apes', 4n);
    const after = c.setTrait('harpoon-apes', 3n, 'Hat', 'Halo');
    expect(after.find((t) => t.trait_type === 'Hat')?.value).toBe('Halo');
    expect(c.traits('harpoon-apes', 3n)).toEqual(after);
    expect(after.filter((t) => t.trait_type !== 'Hat')).toEqual(
      before3.filter((t) => t.trait_type !== 'Hat'),
    );
    expect(c.traits('harpoon-apes', 4n)).toEqual(before4);
  });

  it('matches and tokensMatching agree (AND over traits)', () => {
    const fur = catalog.traits('harpoon-apes', 1n).find((t) => t.trait_type === 'Fur')?.value as string;
    const eyes = catalog.traits('harpoon-apes', 1n).find((t) => t.trait_type === 'Eyes')?.value as string;
    const wanted = [
      { type: 'Fur', value: fur },
      { type: 'Eyes', value: eyes },
    ];
    const ids = catalog.tokensMatching('harpoon-apes', wanted);
    expect(ids).toContain(1n);
    for (let id = 1n; id <= 60n; id++)
      expect(ids.includes(id)).toBe(catalog.matches('harpoon-apes', id, wanted));
    expect(catalog.tokensMatching('harpoon-apes', [{ type: 'Fur', value: 'Plaid' }])).toEqual([]);
    expect(catalog.tokensMatching('harpoon-apes', [])).toHaveLength(60);
  });

  it('the marketplace fee is 1 % to the marketplace fee recipient', () => {
    expect(MARKETPLACE_FEE_PERCENT).toBe(1);
    expect(MARKETPLACE_FEE).toEqual({ fee: 1, recipient: MARKETPLACE_FEE_RECIPIENT, required: true });
    expect(MARKETPLACE_FEE_RECIPIENT.toLowerCase()).toBe(FEE_RECIPIENT);
  });
});

describe('Catalog.setCreatorFees', () => {
  const A = `0x${'a1'.repeat(20)}`;
  const B = `0x${'b2'.repeat(20)}`;

  it('replaces the creator fees (required, checksummed); the marketplace fee stays first and unchanged', () => {
    const c = sampleCatalog(7);
    const before = c.bySlug('harpoon-apes');
    const marketplace = before?.fees[0];
    const next = c.setCreatorFees('harpoon-apes', [
      { recipient: A, percent: 4 },
      { recipient: B.toUpperCase().replace('0X', '0x'), percent: 0.25 },
    ]);
    expect(next.fees).toEqual([
      { fee: 1, recipient: FEE_RECIPIENT, required: true },
      { fee: 4, recipient: getAddress(A), required: true },
      { fee: 0.25, recipient: getAddress(B), required: true },
    ]);
    expect(next.fees[0]).toBe(marketplace);
    expect(Object.isFrozen(next)).toBe(true);
    expect(Object.isFrozen(next.fees)).toBe(true);
    // everything but the fees is the collection as it was
    const { fees: _f, ...rest } = next;
    const { fees: _g, ...restBefore } = before as NonNullable<typeof before>;
    expect(rest).toEqual(restBefore);
  });

  it('a new object under both the slug and the contract; the old one is left as it was', () => {
    const c = sampleCatalog(7);
    const old = c.bySlug('harpoon-apes');
    const punks = c.bySlug('harpoon-punks');
    const oldFees = [...(old?.fees ?? [])];
    const next = c.setCreatorFees('harpoon-apes', [{ recipient: A, percent: 2 }]);
    expect(next).not.toBe(old);
    expect(c.bySlug('harpoon-apes')).toBe(next);
    expect(c.byContract(APES)).toBe(next);
    expect(c.collections().map((x) => x.slug)).toEqual(COLLECTION_SPECS.map((s) => s.slug));
    expect(c.collections()[0]).toBe(next);
    expect(old?.fees).toEqual(oldFees);
    expect(old?.fees.map((f) => f.recipient)).toEqual([FEE_RECIPIENT, OWNER]);
    // other collections are untouched
    expect(c.bySlug('harpoon-punks')).toBe(punks);
    expect(c.bySlug('harpoon-punks')?.fees.map((f) => f.fee)).toEqual([1, 5]);
  });

  it('0 % entries and an empty list leave only the marketplace fee; later changes replace earlier ones', () => {
    const c = sampleCatalog(7);
    expect(c.setCreatorFees('harpoon-apes', [{ recipient: A, percent: 0 }]).fees).toEqual([
      { fee: 1, recipient: FEE_RECIPIENT, required: true },
    ]);
    c.setCreatorFees('harpoon-apes', [{ recipient: A, percent: 3 }]);
    expect(c.setCreatorFees('harpoon-apes', [{ recipient: B, percent: 1.5 }]).fees.map((f) => f.fee)).toEqual(
      [1, 1.5],
    );
    expect(c.setCreatorFees('harpoon-apes', []).fees).toHaveLength(1);
  });

  it('refuses an unknown slug, a recipient named twice and the marketplace fee recipient', () => {
    const c = sampleCatalog(7);
    const before = c.bySlug('harpoon-apes');
    expect(() => c.setCreatorFees('nope', [])).toThrow(RangeError);
    expect(() =>
      c.setCreatorFees('harpoon-apes', [
        { recipient: A, percent: 1 },
        { recipient: A.toUpperCase().replace('0X', '0x'), percent: 2 },
      ]),
    ).toThrow(/twice/);
    expect(() => c.setCreatorFees('harpoon-apes', [{ recipient: FEE_RECIPIENT, percent: 1 }])).toThrow(
      /marketplace fee recipient/,
    );
    expect(c.bySlug('harpoon-apes')).toBe(before);
  });

  it('creatorFeeSpecs: the one builder of creator fee entries', () => {
    expect(creatorFeeSpecs([{ recipient: OWNER, percent: 2.5 }])).toEqual([
      { fee: 2.5, recipient: getAddress(OWNER), required: true },
    ]);
    expect(creatorFeeSpecs([{ recipient: OWNER, percent: 0 }])).toEqual([]);
  });
});

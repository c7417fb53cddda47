import { getAddress } from 'ethers';
import { type TokenTrait, type TraitSchema, traitsFor } from './traits.ts';

export type TokenStandard = 'erc721' | 'erc1155';

export interface FeeSpec {
  /** Percent, as the API spells it (`fee: 1` = 1 % = 100 bps). */
  readonly fee: number;
  readonly recipient: string;
  readonly required: boolean;
}

export interface CollectionSpec {
  readonly slug: string;
  readonly name: string;
  readonly symbol: string;
  readonly standard: TokenStandard;
  readonly description: string;
  /** Trait offers with criteria '0' (traits checked at fulfillment) are supported. */
  readonly traitOffersSupported: boolean;
  readonly traits: TraitSchema;
  /** Token ids minted at start: 1..supply. */
  readonly supply: number;
  /**
   * Creator royalty in percent at start (the marketplace fee is added by the catalog). The owner
   * may change the creator fees later; a collection's `fees` are the current ones.
   */
  readonly royaltyPercent: number;
}

export interface CatalogCollection extends CollectionSpec {
  /** Checksummed contract address once deployed. */
  readonly contract: string;
  readonly owner: string;
  readonly fees: readonly FeeSpec[];
}

export const MARKETPLACE_FEE_PERCENT = 1;

/** The marketplace fee recipient (OpenSea's address, so clients' fee code sees a familiar one). */
export const MARKETPLACE_FEE_RECIPIENT = getAddress('0x0000a26b00c1f0df003000390027140000faa719');

/** The marketplace fee every collection of the sandbox carries, first among its fees. */
export const MARKETPLACE_FEE: FeeSpec = Object.freeze({
  fee: MARKETPLACE_FEE_PERCENT,
  recipient: MARKETPLACE_FEE_RECIPIENT,
  required: true,
});

/** A creator fee as the owner sets it: who is paid and how much (percent, `fee` on the wire). */
export interface CreatorFee {
  readonly recipient: string;
  readonly percent: number;
}

/**
 * The fee entries of creator fees: required, as the marketplace enforces them; a 0 % fee pays no
 * one and is left out. None may go to the marketplace fee recipient (its entry is the marketplace
 * fee, kept apart).
 */
export function creatorFeeSpecs(fees: readonly CreatorFee[]): FeeSpec[] {
  return fees
    .filter((f) => f.percent > 0)
    .map((f) => {
      if (!Number.isFinite(f.percent) || f.percent > 100) {
        throw new RangeError(`a creator fee of ${f.percent} % is not a fee`);
      }
      const recipient = getAddress(f.recipient.toLowerCase());
      if (recipient === MARKETPLACE_FEE_RECIPIENT) {
        throw new RangeError('the marketplace fee recipient cannot take a creator fee');
      }
      return Object.freeze({ fee: f.percent, recipient, required: true });
    });
}

/** The sandbox's collections, as specs; the chain fixture deploys them in this order. */
export const COLLECTION_SPECS: readonly CollectionSpec[] = Object.freeze([
  {
    slug: 'harpoon-apes',
    name: 'Harpoon Apes',
    symbol: 'HAPE',
    standard: 'erc721',
    description: 'Apes of the harpoon sandbox. Trait offers with criteria 0 are supported.',
    traitOffersSupported: true,
    supply: 60,
    royaltyPercent: 2.5,
    traits: {
      text: {
        Background: [
          ['Blue', 40],
          ['Orange', 30],
          ['Purple', 20],
          ['Gold', 10],
        ],
        Fur: [
          ['Brown', 45],
          ['Black', 30],
          ['Zombie', 15],
          ['Golden', 10],
        ],
        Eyes: [
          ['Bored', 50],
          ['Sleepy', 30],
          ['Laser', 20],
        ],
        Hat: [
          ['None', 50],
          ['Cap', 25],
          ['Crown', 10],
          ['Halo', 15],
        ],
      },
      numeric: { Level: [1, 10] },
    },
  },
  {
    slug: 'harpoon-punks',
    name: 'Harpoon Punks',
    symbol: 'HPNK',
    standard: 'erc721',
    description: 'Punks of the harpoon sandbox. Trait offers use merkle roots of matching token ids.',
    traitOffersSupported: false,
    supply: 40,
    royaltyPercent: 5,
    traits: {
      text: {
        Type: [
          ['Human', 60],
          ['Zombie', 25],
          ['Alien', 15],
        ],
        Accessory: [
          ['None', 40],
          ['Earring', 30],
          ['Pipe', 20],
          ['Hoodie', 10],
        ],
      },
      numeric: { Generation: [1, 3] },
    },
  },
  {
    slug: 'harpoon-items',
    name: 'Harpoon Items',
    symbol: 'HITM',
    standard: 'erc1155',
    description: 'Semi-fungible items of the harpoon sandbox.',
    traitOffersSupported: false,
    supply: 5,
    royaltyPercent: 0,
    traits: {
      text: {
        Rarity: [
          ['Common', 60],
          ['Rare', 30],
          ['Epic', 10],
        ],
      },
      numeric: {},
    },
  },
]);

/**
 * Collections and token traits of the sandbox. Traits are deterministic in (seed, slug, token id);
 * metadata updates override them per token (the sandbox's metadata endpoint serves the result).
 */
export class Catalog {
  readonly seed: number;
  readonly #collections = new Map<string, CatalogCollection>();
  readonly #byContract = new Map<string, CatalogCollection>();
  readonly #overrides = new Map<string, TokenTrait[]>();

  constructor(seed: number, collections: readonly CatalogCollection[]) {
    this.seed = seed;
    for (const c of collections) {
      this.#collections.set(c.slug, c);
      this.#byContract.set(c.contract.toLowerCase(), c);
    }
  }

  collections(): readonly CatalogCollection[] {
    return [...this.#collections.values()];
  }

  bySlug(slug: string): CatalogCollection | undefined {
    return this.#collections.get(slug);
  }

  byContract(address: string): CatalogCollection | undefined {
    return this.#byContract.get(address.toLowerCase());
  }

  /**
   * Replaces a collection's creator fees — every fee entry not paid to the marketplace fee
   * recipient — with `fees` (required; 0 % ones left out); the marketplace fee stays first and as
   * it was. The collection becomes a new frozen object under its slug and its contract, so every
   * later read (order checks, the collection's `fees`) sees the new fees; the old object is left
   * as it was, since orders posted before hold it and keep the fees they were signed with.
   * Returns the new collection.
   */
  setCreatorFees(slug: string, fees: readonly CreatorFee[]): CatalogCollection {
    const c = this.#collections.get(slug);
    if (!c) throw new RangeError(`collection '${slug}' is not in the catalog`);
    const recipients = fees.map((f) => f.recipient.toLowerCase());
    if (new Set(recipients).size !== recipients.length) {
      throw new RangeError('a creator fee recipient is named twice');
    }
    const marketplace = MARKETPLACE_FEE_RECIPIENT.toLowerCase();
    const next: CatalogCollection = Object.freeze({
      ...c,
      fees: Object.freeze([
        ...c.fees.filter((f) => f.recipient.toLowerCase() === marketplace),
        ...creatorFeeSpecs(fees),
      ]),
    });
    this.#collections.set(slug, next);
    this.#byContract.set(next.contract.toLowerCase(), next);
    return next;
  }

  /** Traits of a token (after any metadata update). */
  traits(slug: string, tokenId: bigint): readonly TokenTrait[] {
    const c = this.#collections.get(slug);
    if (!c) return [];
    return this.#overrides.get(`${slug}:${tokenId}`) ?? traitsFor(c.traits, this.seed, slug, tokenId);
  }

  /** Replaces one text trait's value of a token (a metadata update). */
  setTrait(slug: string, tokenId: bigint, traitType: string, value: string | number): readonly TokenTrait[] {
    const next = this.traits(slug, tokenId).map((t) => (t.trait_type === traitType ? { ...t, value } : t));
    this.#overrides.set(`${slug}:${tokenId}`, next);
    return next;
  }

  /** True when the token has every given text trait (type/value pairs, AND). */
  matches(slug: string, tokenId: bigint, wanted: readonly { type: string; value: string }[]): boolean {
    const have = this.traits(slug, tokenId);
    return wanted.every((w) => have.some((t) => t.trait_type === w.type && String(t.value) === w.value));
  }

  /** Token ids 1..supply with all the given traits (for merkle-root criteria). */
  tokensMatching(slug: string, wanted: readonly { type: string; value: string }[]): bigint[] {
    const c = this.#collections.get(slug);
    if (!c) return [];
    const out: bigint[] = [];
    for (let i = 1n; i <= BigInt(c.supply); i++) if (this.matches(slug, i, wanted)) out.push(i);
    return out;
  }
}

export interface DropStageSpec {
  readonly name: string;
  readonly kind: 'public' | 'allowlist';
  /** Seconds relative to the chain time at deployment (negative = already started). */
  readonly startOffsetSec: number;
  readonly endOffsetSec: number;
  /** Price per token in ETH, as a decimal string. */
  readonly price: string;
  readonly perWalletLimit: number;
  readonly supply: number;
}

export interface DropSpec {
  readonly slug: string;
  readonly name: string;
  readonly symbol: string;
  readonly description: string;
  readonly maxSupply: number;
  readonly stages: readonly DropStageSpec[];
  readonly paused: boolean;
  /** How many of the fixture's wallets (from the first) are on the allowlist stages. */
  readonly allowlistWallets: number;
}

const DAY = 86_400;

/** The sandbox's drops: one active (allowlist then public), one not started, one ended, one paused. */
export const DROP_SPECS: readonly DropSpec[] = Object.freeze([
  {
    slug: 'harpoon-genesis',
    name: 'Harpoon Genesis',
    symbol: 'HGEN',
    description: 'An active drop: an allowlist stage and a public stage, both open now.',
    maxSupply: 500,
    paused: false,
    allowlistWallets: 3,
    stages: [
      {
        name: 'Allowlist',
        kind: 'allowlist',
        startOffsetSec: -3600,
        endOffsetSec: 30 * DAY,
        price: '0.005',
        perWalletLimit: 2,
        supply: 100,
      },
      {
        name: 'Public',
        kind: 'public',
        startOffsetSec: -3600,
        endOffsetSec: 30 * DAY,
        price: '0.01',
        perWalletLimit: 5,
        supply: 400,
      },
    ],
  },
  {
    slug: 'harpoon-future',
    name: 'Harpoon Future',
    symbol: 'HFUT',
    description: 'A drop that has not started yet.',
    maxSupply: 100,
    paused: false,
    allowlistWallets: 0,
    stages: [
      {
        name: 'Public',
        kind: 'public',
        startOffsetSec: DAY,
        endOffsetSec: 8 * DAY,
        price: '0.02',
        perWalletLimit: 3,
        supply: 100,
      },
    ],
  },
  {
    slug: 'harpoon-ended',
    name: 'Harpoon Ended',
    symbol: 'HEND',
    description: 'A drop whose only stage has ended.',
    maxSupply: 100,
    paused: false,
    allowlistWallets: 0,
    stages: [
      {
        name: 'Public',
        kind: 'public',
        startOffsetSec: -8 * DAY,
        endOffsetSec: -DAY,
        price: '0.01',
        perWalletLimit: 3,
        supply: 100,
      },
    ],
  },
  {
    slug: 'harpoon-paused',
    name: 'Harpoon Paused',
    symbol: 'HPAU',
    description: 'A drop paused by its owner.',
    maxSupply: 100,
    paused: true,
    allowlistWallets: 0,
    stages: [
      {
        name: 'Public',
        kind: 'public',
        startOffsetSec: -3600,
        endOffsetSec: 30 * DAY,
        price: '0.01',
        perWalletLimit: 3,
        supply: 100,
      },
    ],
  },
]);

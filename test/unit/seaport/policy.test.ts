/**
 * Property: a criteria offer is signed only when it is what we meant. Seeded random mutations of
 * the build response and the inputs (a compromised API, a buggy caller); every outcome is either
 * a RejectedError or a signed order that satisfies the signing policy of threats.md: offerer is
 * us, zone is the configured signed zone, we pay exactly `price` in WETH, the NFT comes to us
 * from the expected contract, every other recipient is a collection fee recipient, fees ≤ cap,
 * our conduit, the chain's counter, and the signature recovers to us.
 */
import type { BuildOfferResponse } from '@opensea/api-types';
import { describe, expect, it } from 'vitest';
import { RejectedError } from '../../../src/errors/index.ts';
import { ItemType, OrderType } from '../../../src/seaport/constants.ts';
import type { CollectionFee } from '../../../src/seaport/fees.ts';
import { createSeaportOrders } from '../../../src/seaport/orders.ts';
import { recoverDigestSigner } from '../../../src/seaport/signer.ts';
import {
  ADDRESS,
  buildResponse,
  CONDUIT_KEY,
  CREATOR,
  deps,
  FEE_RECIPIENT,
  NFT,
  OPTIONS,
  seededRandom,
  WETH,
  ZONE,
} from './fixtures.ts';

const ATTACKER = '0x00000000000000000000000000000000DeaDBeef';
const MAX_FEE_BPS = 2000n;
const RUNS = 1500;

function rng(seed: number) {
  const bytes = seededRandom(seed);
  return {
    int: (n: number) => ((bytes(4).reduce((a, b) => a * 256 + b, 0) >>> 0) % n) as number,
    hex: (len: number) => `0x${Buffer.from(bytes(len)).toString('hex')}`,
  };
}

type Mutable = { -readonly [K in keyof BuildOfferResponse]: BuildOfferResponse[K] };

describe('signing policy under mutated build responses and inputs', () => {
  it(`${RUNS} seeded mutations: every result is rejected or policy-clean`, async () => {
    const { deps: d } = deps({ counter: 5n });
    const orders = createSeaportOrders({ ...OPTIONS, maxFeeBps: Number(MAX_FEE_BPS) }, d);
    const ctx = await orders.prepare();
    const r = rng(99);
    let signed = 0;
    let rejected = 0;
    for (let run = 0; run < RUNS; run++) {
      const build = structuredClone(buildResponse()) as Mutable;
      const item = build.partialParameters.consideration[0] as Record<string, unknown>;
      let fees: CollectionFee[] = [
        { fee: 1, recipient: FEE_RECIPIENT, required: true },
        { fee: 2.5, recipient: CREATOR, required: true },
      ];
      let price = 10n ** 18n;
      let quantity = 1n;
      const mutations = 1 + r.int(3);
      for (let m = 0; m < mutations; m++) {
        switch (r.int(14)) {
          case 0:
            build.partialParameters.zone = r.int(2) ? ATTACKER : ZONE.toLowerCase();
            break;
          case 1:
            build.partialParameters.zoneHash = r.hex(32);
            break;
          case 2:
            item['recipient'] = r.int(2) ? ATTACKER : ADDRESS.toLowerCase();
            break;
          case 3:
            item['token'] = r.int(2) ? ATTACKER : NFT.toUpperCase().replace('0X', '0x');
            break;
          case 4:
            item['itemType'] = r.int(7);
            break;
          case 5:
            item['startAmount'] = String(r.int(3));
            break;
          case 6:
            item['identifierOrCriteria'] = r.int(2) ? BigInt(r.hex(32)).toString() : '0';
            break;
          case 7:
            build.partialParameters.consideration.push({
              itemType: ItemType.ERC20,
              token: WETH,
              identifierOrCriteria: '0',
              startAmount: '1000',
              endAmount: '1000',
              recipient: ATTACKER,
            });
            break;
          case 8:
            build.partialParameters.consideration = [];
            break;
          case 9:
            build.criteria = { collection: { slug: r.int(2) ? 'other' : 'apes' } };
            break;
          case 10:
            fees = [...fees, { fee: r.int(3000) / 100, recipient: ATTACKER, required: r.int(2) === 0 }];
            break;
          case 11:
            price = BigInt(r.int(4)) * 10n ** BigInt(r.int(19));
            break;
          case 12:
            quantity = BigInt(r.int(3));
            item['startAmount'] = quantity.toString();
            item['endAmount'] = quantity.toString();
            break;
          default:
            item['endAmount'] = String(r.int(3));
        }
      }
      let result: ReturnType<typeof orders.signCriteriaOffer> | undefined;
      try {
        result = orders.signCriteriaOffer(
          {
            build,
            price,
            quantity,
            fees,
            contract: NFT,
            requested: { collection: { slug: 'apes' }, traits: [{ type: 'Fur', value: 'Gold' }] },
          },
          ctx,
        );
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(RejectedError);
        rejected++;
        continue;
      }
      signed++;
      const c = result.components;
      expect(c.offerer).toBe(ADDRESS);
      expect(c.zone).toBe(ZONE);
      expect([OrderType.FULL_RESTRICTED, OrderType.PARTIAL_RESTRICTED]).toContain(c.orderType);
      expect(c.offer).toEqual([
        {
          itemType: ItemType.ERC20,
          token: WETH,
          identifierOrCriteria: 0n,
          startAmount: price,
          endAmount: price,
        },
      ]);
      const [nftItem, ...feeItems] = c.consideration;
      expect(nftItem?.recipient.toLowerCase()).toBe(ADDRESS.toLowerCase());
      expect(nftItem?.token.toLowerCase()).toBe(NFT.toLowerCase());
      expect([ItemType.ERC721_WITH_CRITERIA, ItemType.ERC1155_WITH_CRITERIA]).toContain(nftItem?.itemType);
      expect(nftItem?.startAmount).toBe(quantity);
      const allowed = new Set(fees.filter((f) => f.required !== false).map((f) => f.recipient.toLowerCase()));
      let total = 0n;
      for (const f of feeItems) {
        expect(allowed.has(f.recipient.toLowerCase()), f.recipient).toBe(true);
        expect(f.token).toBe(WETH);
        expect(f.itemType).toBe(ItemType.ERC20);
        total += f.startAmount;
      }
      expect(total * 10_000n <= price * MAX_FEE_BPS + 10_000n * BigInt(feeItems.length) * quantity).toBe(
        true,
      );
      expect(c.conduitKey).toBe(CONDUIT_KEY.toLowerCase());
      expect(c.counter).toBe(5n);
      expect(result.criteria).toEqual({
        collection: { slug: 'apes' },
        traits: [{ type: 'Fur', value: 'Gold' }],
      });
      expect(recoverDigestSigner(orders.hasher.hashAndDigest(c).digest, result.signature)).toBe(ADDRESS);
    }
    // both outcomes must occur, or the property says nothing
    expect(signed).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(RUNS / 2);
  });
});

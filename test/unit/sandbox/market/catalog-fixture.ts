import { getAddress } from 'ethers';
import {
  Catalog,
  type CatalogCollection,
  COLLECTION_SPECS,
  MARKETPLACE_FEE_PERCENT,
} from '../../../../src/sandbox/catalog/catalog.ts';

export const FEE_RECIPIENT = getAddress('0x0000a26b00c1f0df003000390027140000faa719');
export const CREATOR = getAddress('0x00000000000000000000000000000000c0ffee01');

/** A catalog of the sandbox's collections at made-up addresses (no chain). */
export function testCatalog(seed = 7): Catalog {
  const collections: CatalogCollection[] = COLLECTION_SPECS.map((c, i) => ({
    ...c,
    contract: getAddress(`0x${(0xc0110000 + i).toString(16).padStart(40, '0')}`),
    owner: CREATOR,
    fees: [
      { fee: MARKETPLACE_FEE_PERCENT, recipient: FEE_RECIPIENT, required: true },
      ...(c.royaltyPercent > 0 ? [{ fee: c.royaltyPercent, recipient: CREATOR, required: true }] : []),
    ],
  }));
  return new Catalog(seed, collections);
}

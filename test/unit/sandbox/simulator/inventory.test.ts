import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../../src/sandbox/events/log.ts';
import { Inventory } from '../../../../src/sandbox/simulator/inventory.ts';
import { testCatalog } from '../market/catalog-fixture.ts';

const A = '0x00000000000000000000000000000000000000aA';
const B = '0x00000000000000000000000000000000000000bB';
const catalog = testCatalog();
const apes = catalog.bySlug('harpoon-apes')!;
const items = catalog.bySlug('harpoon-items')!;

function transfer(
  events: EventLog,
  slug: string,
  standard: 'erc721' | 'erc1155',
  id: number,
  from: string,
  to: string,
  quantity = 1,
) {
  events.append({
    kind: 'transfer',
    chain: 'ethereum',
    collection: slug,
    nft: { contract: '0x0', identifier: String(id), standard },
    from,
    to,
    quantity,
  });
}

describe('Inventory', () => {
  it('follows ERC721 and ERC1155 transfers of the event log', () => {
    const inv = new Inventory(catalog.collections());
    inv.set(apes.slug, 3n, A, 1n);
    inv.set(apes.slug, 1n, A, 1n);
    inv.set(items.slug, 2n, A, 10n);
    const events = new EventLog();
    const stop = inv.follow(events);
    expect(inv.holdings(apes.slug, A).map((h) => h.tokenId)).toEqual([1n, 3n]);

    transfer(events, apes.slug, 'erc721', 3, A, B);
    expect(inv.holdings(apes.slug, A).map((h) => h.tokenId)).toEqual([1n]);
    expect(inv.holdings(apes.slug, B.toLowerCase())).toEqual([{ tokenId: 3n, units: 1n }]);

    transfer(events, items.slug, 'erc1155', 2, A, B, 4);
    expect(inv.units(items.slug, 2n, A)).toBe(6n);
    expect(inv.units(items.slug, 2n, B)).toBe(4n);
    transfer(events, items.slug, 'erc1155', 2, A, B, 6);
    expect(inv.holdings(items.slug, A)).toEqual([]);
    expect(inv.units(items.slug, 2n, B)).toBe(10n);

    // sales and listings do not move anything by themselves (their transfer events do)
    events.append({ kind: 'sale', chain: 'ethereum', collection: apes.slug, seller: A, buyer: B });
    expect(inv.holdings(apes.slug, A).map((h) => h.tokenId)).toEqual([1n]);

    stop();
    transfer(events, apes.slug, 'erc721', 1, A, B);
    expect(inv.holdings(apes.slug, A).map((h) => h.tokenId)).toEqual([1n]);
  });

  it('lists every holder of a collection by token id, then owner (the held items others bid on)', () => {
    const inv = new Inventory(catalog.collections());
    inv.set(items.slug, 2n, B, 3n);
    inv.set(items.slug, 2n, A, 1n);
    inv.set(items.slug, 1n, B, 5n);
    inv.set(items.slug, 4n, A, 0n); // nothing held: not listed
    expect(inv.holders(items.slug)).toEqual([
      { tokenId: 1n, owner: B.toLowerCase(), units: 5n },
      { tokenId: 2n, owner: A.toLowerCase(), units: 1n },
      { tokenId: 2n, owner: B.toLowerCase(), units: 3n },
    ]);
    expect(inv.holders(apes.slug)).toEqual([]);
  });
});

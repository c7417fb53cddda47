import { describe, expect, it } from 'vitest';
import { EventLog, type MarketEvent, type MarketEventInput } from '../../../../src/sandbox/events/log.ts';
import {
  legacyTimestamp,
  legacyTimestampSeconds,
  numericId,
  type RenderContext,
  renderEvent,
  renderLegacyEvent,
} from '../../../../src/sandbox/server/render-events.ts';
import { LEGACY_RECORD_FIELDS } from '../../../helpers/legacy-events.ts';
import { expectValidResponse } from '../../../helpers/openapi.ts';
import {
  ALICE,
  APES,
  BOB,
  ITEMS,
  OWNER,
  PUNKS,
  SAMPLE_EVENTS,
  SEAPORT,
  sampleCatalog,
  WETH,
  ZERO,
} from './sample.ts';

const T0 = Date.UTC(2025, 2, 4, 5, 6, 7, 89);
const catalog = sampleCatalog();
const ctx: RenderContext = {
  catalog,
  metadataBaseUrl: 'http://127.0.0.1:9999/metadata',
  createdAtMs: Date.UTC(2025, 0, 1),
};

function recorded(input: MarketEventInput): MarketEvent {
  const log = new EventLog(() => T0);
  return log.append(input);
}

function rest(input: MarketEventInput): Record<string, unknown> {
  const r = renderEvent(recorded(input), ctx);
  if (!r) throw new Error(`not rendered: ${input.kind}`);
  // every REST record must be a valid element of the documented response
  expectValidResponse('GET', '/api/v2/events', 200, JSON.parse(JSON.stringify({ asset_events: [r] })));
  return r;
}

describe('renderEvent (GET /api/v2/events records)', () => {
  it('listing → event_type "order", order_type "listing", with asset, payment and dates', () => {
    const r = rest(SAMPLE_EVENTS.listing);
    expect(r).toMatchObject({
      event_type: 'order',
      order_type: 'listing',
      event_timestamp: Math.floor(T0 / 1000),
      chain: 'ethereum',
      order_hash: SAMPLE_EVENTS.listing.orderHash,
      protocol_address: SEAPORT,
      maker: ALICE,
      quantity: 1,
      start_date: 1_700_000_000,
      expiration_date: 1_700_086_400,
      is_private_listing: false,
      payment: { quantity: '1500000000000000000', token_address: ZERO, decimals: 18, symbol: 'ETH' },
    });
    expect(r).not.toHaveProperty('criteria');
    expect(r['asset']).toMatchObject({
      identifier: '3',
      collection: 'harpoon-apes',
      contract: APES,
      token_standard: 'erc721',
      name: 'Harpoon Apes #3',
      metadata_url: 'http://127.0.0.1:9999/metadata/harpoon-apes/3',
      opensea_url: `https://opensea.io/assets/ethereum/${APES}/3`,
      is_disabled: false,
      is_nsfw: false,
    });
    // traits come from the catalog
    const traits = (r['asset'] as { traits: { trait_type: string; value: unknown }[] }).traits;
    expect(traits).toEqual(
      catalog
        .traits('harpoon-apes', 3n)
        .map((t) => expect.objectContaining({ trait_type: t.trait_type, value: t.value })),
    );
  });

  it('item offer → order_type "item_offer" with the asset', () => {
    const r = rest(SAMPLE_EVENTS.item_offer);
    expect(r).toMatchObject({ event_type: 'order', order_type: 'item_offer', maker: BOB });
    expect(r['payment']).toMatchObject({ token_address: WETH, symbol: 'WETH' });
    expect((r['asset'] as { identifier: string }).identifier).toBe('4');
  });

  it('collection and trait offers → criteria instead of an asset', () => {
    const c = rest(SAMPLE_EVENTS.collection_offer);
    expect(c).toMatchObject({
      order_type: 'collection_offer',
      quantity: 2,
      criteria: {
        collection: { slug: 'harpoon-punks' },
        contract: { address: PUNKS },
        encoded_token_ids: '*',
      },
    });
    expect(c).not.toHaveProperty('asset');
    const t = rest(SAMPLE_EVENTS.trait_offer);
    expect(t).toMatchObject({
      order_type: 'trait_offer',
      criteria: { collection: { slug: 'harpoon-apes' }, traits: [{ type: 'Fur', value: 'Zombie' }] },
    });
  });

  it('sale → closing_date, seller, buyer, nft, transaction', () => {
    const r = rest(SAMPLE_EVENTS.sale);
    expect(r).toMatchObject({
      event_type: 'sale',
      closing_date: Math.floor(T0 / 1000),
      seller: ALICE,
      buyer: BOB,
      transaction: SAMPLE_EVENTS.sale.txHash,
      order_hash: SAMPLE_EVENTS.sale.orderHash,
      payment: { quantity: '1500000000000000000', symbol: 'ETH' },
      nft: { identifier: '3', contract: APES },
    });
    expect(r).not.toHaveProperty('maker');
  });

  it('transfer and mint → transfer_type, from_address, to_address, nft', () => {
    const t = rest(SAMPLE_EVENTS.transfer);
    expect(t).toMatchObject({
      event_type: 'transfer',
      transfer_type: 'transfer',
      from_address: ALICE,
      to_address: BOB,
      quantity: 4,
      nft: { identifier: '2', contract: ITEMS, token_standard: 'erc1155' },
    });
    const m = rest(SAMPLE_EVENTS.mint);
    expect(m).toMatchObject({
      event_type: 'mint',
      transfer_type: 'mint',
      from_address: ZERO,
      to_address: ALICE,
    });
  });

  it('kinds the REST endpoints do not serve render as undefined', () => {
    expect(renderEvent(recorded(SAMPLE_EVENTS.cancel), ctx)).toBeUndefined();
  });

  it('the schema check catches a broken record (the helper can fail)', () => {
    const r = { ...rest(SAMPLE_EVENTS.sale) };
    delete r['seller'];
    expect(() => expectValidResponse('GET', '/api/v2/events', 200, { asset_events: [r] })).toThrow(/seller/);
  });
});

// ── legacy ──────────────────────────────────────────────────────────────

const TX = { blockHash: `0x${'ab'.repeat(32)}`, transactionIndex: 5, from: BOB, to: SEAPORT };
const legacyCtx: RenderContext = { ...ctx, tx: () => TX, numSales: () => 2 };

function legacy(input: MarketEventInput): Record<string, unknown> {
  const r = renderLegacyEvent(recorded(input), legacyCtx);
  if (!r) throw new Error(`not rendered: ${input.kind}`);
  expect(Object.keys(r)).toEqual([...LEGACY_RECORD_FIELDS]);
  expect(r['dev_fee_payment_event']).toBeNull();
  expect(r['duration']).toBeNull();
  expect(r['offered_to']).toBeNull();
  expect(r['custom_event_name']).toBeNull();
  expect(r['asset_bundle']).toBeNull();
  expect(r['created_date']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
  expect(r['modified_date']).toBe(r['created_date']);
  expect(r['event_timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
  expect(typeof r['quantity']).toBe('string');
  expect(Number.isInteger(r['id'])).toBe(true);
  expect(Number.isInteger(r['collection'])).toBe(true);
  for (const f of ['starting_price', 'ending_price', 'bid_amount', 'total_price']) {
    const v = r[f];
    if (v !== null) expect(v).toMatch(/^\d+$/);
  }
  return r;
}

const ACCOUNT_KEYS = ['user', 'profile_img_url', 'address', 'config', 'discord_id'];
const PAYMENT_KEYS = ['id', 'symbol', 'address', 'image_url', 'name', 'decimals', 'eth_price', 'usd_price'];
const TX_KEYS = [
  'id',
  'from_account',
  'to_account',
  'created_date',
  'modified_date',
  'transaction_hash',
  'transaction_index',
  'block_number',
  'block_hash',
  'timestamp',
];

describe('renderLegacyEvent (GET /api/v1/events/ records)', () => {
  it('formats timestamps without zone (fraction of six digits or whole seconds) and ids as integers', () => {
    expect(legacyTimestamp(Date.UTC(2021, 0, 2, 3, 4, 5, 67))).toBe('2021-01-02T03:04:05.067000');
    expect(legacyTimestampSeconds(Date.UTC(2021, 0, 2, 3, 4, 5, 67))).toBe('2021-01-02T03:04:05');
    expect(numericId(`0x${'00'.repeat(5)}ff${'11'.repeat(26)}`)).toBe(255);
    expect(Number.isSafeInteger(numericId(`0x${'ff'.repeat(32)}`))).toBe(true);
  });

  it('created: sell_order, seller, auction_type, starting/ending price, payment_token; total_price null', () => {
    const r = legacy(SAMPLE_EVENTS.listing);
    expect(r['event_type']).toBe('created');
    expect(r['sell_order']).toBe(numericId(SAMPLE_EVENTS.listing.orderHash));
    expect(r['buy_order']).toBeNull();
    expect(r['seller']).toEqual({
      user: null,
      profile_img_url: expect.any(String),
      address: ALICE,
      config: '',
      discord_id: '',
    });
    expect(r['auction_type']).toBe('dutch');
    expect(r['starting_price']).toBe('1500000000000000000');
    expect(r['ending_price']).toBe('1500000000000000000');
    expect(r['total_price']).toBeNull();
    expect(r['transaction']).toBeNull();
    expect(Object.keys(r['payment_token'] as object)).toEqual(PAYMENT_KEYS);
    expect(r['payment_token']).toMatchObject({
      id: 1,
      symbol: 'ETH',
      address: ZERO,
      decimals: 18,
      name: 'Ether',
    });
    expect((r['payment_token'] as { eth_price: string }).eth_price).toMatch(/^\d+\.\d+$/);
    expect(r['contract_address']).toBe(APES);
    expect(r['collection_slug']).toBe('harpoon-apes');
    expect(r['created_date']).toBe('2025-03-04T05:06:07.089000');
    const asset = r['asset'] as Record<string, unknown>;
    expect(asset).toMatchObject({ token_id: '3', num_sales: 2, name: 'Harpoon Apes #3', decimals: 0 });
    expect(Number.isInteger(asset['id'])).toBe(true);
    expect(asset['owner']).toMatchObject({ address: ALICE });
    expect(asset['asset_contract']).toMatchObject({
      address: APES,
      schema_name: 'ERC721',
      dev_seller_fee_basis_points: 250,
      opensea_seller_fee_basis_points: 100,
      seller_fee_basis_points: 350,
      payout_address: OWNER,
    });
    expect(asset['collection']).toMatchObject({
      slug: 'harpoon-apes',
      dev_seller_fee_basis_points: '250',
      opensea_seller_fee_basis_points: '100',
      display_data: { card_display_style: expect.any(String) },
    });
  });

  it('offer_entered: buy_order and bid_amount set, seller null; collection offers have no asset', () => {
    const r = legacy(SAMPLE_EVENTS.item_offer);
    expect(r['event_type']).toBe('offer_entered');
    expect(r['buy_order']).toBe(numericId(SAMPLE_EVENTS.item_offer.orderHash));
    expect(r['bid_amount']).toBe('900000000000000000');
    expect(r['seller']).toBeNull();
    expect(r['sell_order']).toBeNull();
    expect(r['total_price']).toBeNull();
    expect(r['payment_token']).toMatchObject({ symbol: 'WETH', id: 2, name: 'Wrapped Ether' });
    const c = legacy(SAMPLE_EVENTS.collection_offer);
    expect(c['event_type']).toBe('offer_entered');
    expect(c['asset']).toBeNull();
    expect(c['contract_address']).toBe(PUNKS);
    expect(c['quantity']).toBe('2');
    expect(legacy(SAMPLE_EVENTS.trait_offer)['event_type']).toBe('offer_entered');
  });

  it('transfer (and mint): from/to account, log_index, transaction set; payment_token null', () => {
    const r = legacy(SAMPLE_EVENTS.transfer);
    expect(r['event_type']).toBe('transfer');
    expect(r['from_account']).toMatchObject({ address: ALICE });
    expect(Object.keys(r['from_account'] as object)).toEqual(ACCOUNT_KEYS);
    expect(r['to_account']).toMatchObject({ address: BOB });
    expect(r['log_index']).toBe('0');
    expect(r['payment_token']).toBeNull();
    expect(r['seller']).toBeNull();
    expect(r['relayer']).toBeNull();
    expect(r['quantity']).toBe('4');
    const tx = r['transaction'] as Record<string, unknown>;
    expect(Object.keys(tx)).toEqual(TX_KEYS);
    expect(tx).toMatchObject({
      transaction_hash: SAMPLE_EVENTS.transfer.txHash,
      transaction_index: '5',
      block_number: '43',
      block_hash: TX.blockHash,
      from_account: { address: BOB },
      to_account: { address: SEAPORT },
    });
    expect(r['event_timestamp']).toBe('2025-03-04T05:06:07');
    expect((r['asset'] as { asset_contract: { schema_name: string } }).asset_contract.schema_name).toBe(
      'ERC1155',
    );
    const m = legacy(SAMPLE_EVENTS.mint);
    expect(m['event_type']).toBe('transfer');
    expect(m['from_account']).toMatchObject({ address: ZERO });
    expect(m['log_index']).toBe('1');
  });

  it('successful: total_price, winner_account, seller, payment_token, transaction; from/to null', () => {
    const r = legacy(SAMPLE_EVENTS.sale);
    expect(r['event_type']).toBe('successful');
    expect(r['total_price']).toBe('1500000000000000000');
    expect(r['winner_account']).toMatchObject({ address: BOB });
    expect(r['seller']).toMatchObject({ address: ALICE });
    expect(r['payment_token']).toMatchObject({ symbol: 'ETH' });
    expect(r['transaction']).toMatchObject({
      transaction_hash: SAMPLE_EVENTS.sale.txHash,
      block_number: '42',
    });
    expect(r['from_account']).toBeNull();
    expect(r['to_account']).toBeNull();
    expect(r['bid_amount']).toBeNull();
    expect(r['starting_price']).toBeNull();
  });

  it('kinds the legacy endpoint does not serve render as undefined', () => {
    expect(renderLegacyEvent(recorded(SAMPLE_EVENTS.cancel), legacyCtx)).toBeUndefined();
  });

  it("fees are the collection's current ones: creator fees set by the owner count as dev fees", () => {
    const changed = sampleCatalog();
    const payee = `0x${'c4'.repeat(20)}`;
    changed.setCreatorFees('harpoon-apes', [{ recipient: payee, percent: 4 }]);
    const r = renderLegacyEvent(recorded(SAMPLE_EVENTS.listing), { ...legacyCtx, catalog: changed });
    const asset = (r as Record<string, unknown>)['asset'] as Record<string, unknown>;
    expect(asset['asset_contract']).toMatchObject({
      dev_seller_fee_basis_points: 400,
      opensea_seller_fee_basis_points: 100,
      seller_fee_basis_points: 500,
      payout_address: payee,
    });
    expect(asset['collection']).toMatchObject({
      dev_seller_fee_basis_points: '400',
      opensea_seller_fee_basis_points: '100',
      payout_address: payee,
    });
  });
});

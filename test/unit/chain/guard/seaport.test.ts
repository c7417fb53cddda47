import { ZeroAddress, ZeroHash } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  decodeStrict,
  fillOrderHash,
  lookupFunction,
  seaportFill,
} from '../../../../src/chain/guard/index.ts';
import {
  ATTACKER,
  advancedListing,
  basicListing,
  buyIntent,
  CONDUIT_KEY,
  COUNTER,
  CREATOR,
  dangerI,
  ETH,
  FEE,
  listingParams,
  ME,
  NFT,
  newGuard,
  offerIntent,
  offerParams,
  reasonOf,
  routerI,
  SEAPORT,
  SELLER,
  seaportI,
  tx,
  WETH,
} from './helpers.ts';

const g = newGuard();
const buy = (data: string, value = ETH, over = {}, intent = buyIntent()) =>
  g.check(tx(data, { value, ...over }), intent);

describe('buy_listing: the happy paths', () => {
  it('fulfillAdvancedOrder of the intended listing passes, with the price paid and the order hash', () => {
    const hash = fillOrderHash(
      seaportFill(decodeStrict(lookupFunction(advancedListing()), advancedListing(), [])),
      COUNTER,
    );
    const [out] = g.check(
      tx(advancedListing(), { value: ETH, orderCounter: COUNTER }),
      buyIntent({ orderHash: hash }),
    );
    expect(out).toMatchObject({
      step: 'fulfill_listing',
      to: SEAPORT.toLowerCase(),
      value: ETH,
      simulated: false,
    });
    expect(out?.facts['paid']).toBe(ETH.toString());
    expect(out?.facts['orderHash']).toBe(hash);
    expect(out?.function).toMatch(/^fulfillAdvancedOrder\(/);
  });

  it('both basic-order entry points pass', () => {
    expect(buy(basicListing())[0]?.facts['paid']).toBe(ETH.toString());
    expect(buy(basicListing({}, 'fulfillBasicOrder'))[0]?.step).toBe('fulfill_listing');
  });

  it('fulfillOrder passes (the recipient is the sender)', () => {
    const data = seaportI.encodeFunctionData('fulfillOrder', [
      { parameters: listingParams(), signature: '0x12' },
      ZeroHash,
    ]);
    expect(buy(data)[0]?.function).toMatch(/^fulfillOrder\(/);
  });

  it('the basic order and the advanced order of the same listing hash alike', () => {
    const h1 = fillOrderHash(
      seaportFill(decodeStrict(lookupFunction(basicListing()), basicListing(), [])),
      3n,
    );
    const h2 = fillOrderHash(
      seaportFill(decodeStrict(lookupFunction(advancedListing()), advancedListing(), [])),
      3n,
    );
    expect(h1).toBe(h2);
  });

  it('a WETH listing passes with value 0', () => {
    const params = listingParams({
      consideration: listingParams().consideration.map((c) => ({ ...c, itemType: 1, token: WETH })),
    });
    expect(buy(advancedListing(params), 0n, {}, buyIntent({ paymentToken: WETH }))[0]?.facts['paid']).toBe(
      ETH.toString(),
    );
  });
});

describe('buy_listing: every mismatch is refused', () => {
  const cases: [string, () => unknown, string][] = [
    [
      'recipient changed',
      () => buy(advancedListing(listingParams(), { recipient: ATTACKER })),
      'recipient_mismatch',
    ],
    ['value × 10', () => buy(advancedListing(), 10n * ETH), 'value_above_cap'],
    [
      'price above max',
      () => g.check(tx(advancedListing(), { value: ETH }), buyIntent({ maxPrice: ETH - 1n })),
      'price_above_max',
    ],
    ['target changed', () => buy(advancedListing(), ETH, { to: ATTACKER }), 'target_not_allowed'],
    ['wrong chain id (tx)', () => buy(advancedListing(), ETH, { chainId: 5 }), 'chain_mismatch'],
    [
      'wrong chain id (intent)',
      () => buy(advancedListing(), ETH, {}, buyIntent({ chainId: 5 })),
      'chain_mismatch',
    ],
    [
      'token id changed',
      () =>
        buy(
          advancedListing(
            listingParams({ offer: [{ ...listingParams().offer[0], identifierOrCriteria: 8n }] }),
          ),
        ),
      'nft_mismatch',
    ],
    [
      'NFT contract changed',
      () =>
        buy(advancedListing(listingParams({ offer: [{ ...listingParams().offer[0], token: ATTACKER }] }))),
      'nft_mismatch',
    ],
    [
      'item type ERC1155 where ERC721 is intended',
      () =>
        buy(
          advancedListing(listingParams({ offer: [{ ...listingParams().offer[0], itemType: 3 }] })),
          ETH,
          {},
          buyIntent({ nft: { contract: NFT, identifier: 7n, standard: 'erc721' } }),
        ),
      'nft_mismatch',
    ],
    [
      'criteria item in a listing',
      () => buy(advancedListing(listingParams({ offer: [{ ...listingParams().offer[0], itemType: 4 }] }))),
      'nft_mismatch',
    ],
    [
      'extra offer item',
      () =>
        buy(advancedListing(listingParams({ offer: [...listingParams().offer, listingParams().offer[0]] }))),
      'unexpected_offer_item',
    ],
    [
      'extra consideration to an unknown recipient (within the price)',
      () =>
        g.check(
          tx(
            advancedListing(
              listingParams({
                consideration: [
                  ...listingParams().consideration,
                  { ...listingParams().consideration[1], recipient: ATTACKER },
                ],
              }),
            ),
            { value: ETH },
          ),
          buyIntent({ maxPrice: 2n * ETH }),
        ),
      'unknown_consideration_recipient',
    ],
    [
      'extra consideration in the basic order (tip to the attacker)',
      () =>
        g.check(
          tx(
            basicListing({
              additionalRecipients: [
                { amount: 10n ** 16n, recipient: FEE },
                { amount: 5n * 10n ** 16n, recipient: CREATOR },
                { amount: 1n, recipient: ATTACKER },
              ],
            }),
            { value: ETH },
          ),
          buyIntent({ maxPrice: 2n * ETH }),
        ),
      'unknown_consideration_recipient',
    ],
    [
      'a consideration item asking for an NFT',
      () =>
        buy(
          advancedListing(
            listingParams({
              consideration: [
                ...listingParams().consideration,
                {
                  itemType: 2,
                  token: NFT,
                  identifierOrCriteria: 1n,
                  startAmount: 1n,
                  endAmount: 1n,
                  recipient: SELLER,
                },
              ],
            }),
          ),
        ),
      'unexpected_consideration_item',
    ],
    [
      'payment token mismatch',
      () => buy(advancedListing(), 0n, {}, buyIntent({ paymentToken: WETH })),
      'payment_token_mismatch',
    ],
    [
      'fulfiller conduit key not allowlisted',
      () => buy(advancedListing(listingParams(), { conduitKey: `0x${'ab'.repeat(32)}` })),
      'conduit_not_allowed',
    ],
    [
      'bad fraction',
      () => buy(advancedListing(listingParams(), { numerator: 2n, denominator: 1n })),
      'bad_fraction',
    ],
    [
      'zero denominator',
      () => buy(advancedListing(listingParams(), { numerator: 0n, denominator: 0n })),
      'bad_fraction',
    ],
    [
      'criteria resolver on a listing',
      () =>
        buy(
          advancedListing(listingParams(), {
            resolvers: [{ orderIndex: 0n, side: 0, index: 0n, identifier: 7n, criteriaProof: [] }],
          }),
        ),
      'criteria_mismatch',
    ],
    [
      'quantity: 2 units of an ERC1155 when 1 is intended',
      () =>
        buy(
          advancedListing(
            listingParams({
              offer: [{ ...listingParams().offer[0], itemType: 3, startAmount: 2n, endAmount: 2n }],
            }),
          ),
        ),
      'quantity_mismatch',
    ],
    [
      'order hash mismatch',
      () =>
        g.check(
          tx(advancedListing(), { value: ETH, orderCounter: 0n }),
          buyIntent({ orderHash: `0x${'11'.repeat(32)}` }),
        ),
      'order_hash_mismatch',
    ],
    [
      'order hash without a counter',
      () => g.check(tx(advancedListing(), { value: ETH }), buyIntent({ orderHash: `0x${'11'.repeat(32)}` })),
      'order_hash_mismatch',
    ],
    ['trailing bytes', () => buy(`${advancedListing()}deadbeef`), 'trailing_bytes'],
    ['one stray byte', () => buy(`${advancedListing()}00`), 'trailing_bytes'],
    [
      'non-canonical encoding (dirty address padding)',
      () => {
        const d = basicListing();
        // considerationToken is the first head word: dirty its high (padding) bytes
        return buy(`${d.slice(0, 10)}${d.slice(10, 74)}ff${'0'.repeat(22)}${d.slice(74 + 64 + 24)}`);
      },
      'non_canonical_calldata',
    ],
    ['truncated calldata', () => buy(advancedListing().slice(0, 300)), 'malformed_calldata'],
    [
      'approve substituted',
      () => buy(dangerI.encodeFunctionData('approve', [ATTACKER, 2n ** 256n - 1n])),
      'dangerous_call',
    ],
    [
      'setApprovalForAll substituted',
      () => buy(dangerI.encodeFunctionData('setApprovalForAll', [ATTACKER, true])),
      'dangerous_call',
    ],
    [
      'transferFrom substituted',
      () => buy(dangerI.encodeFunctionData('transferFrom', [ME, ATTACKER, 7n])),
      'dangerous_call',
    ],
    [
      'permit substituted',
      () =>
        buy(
          dangerI.encodeFunctionData('permit(address,address,uint256,uint256,uint8,bytes32,bytes32)', [
            ME,
            ATTACKER,
            1n,
            1n,
            27,
            ZeroHash,
            ZeroHash,
          ]),
        ),
      'dangerous_call',
    ],
    [
      'multicall substituted',
      () => buy(dangerI.encodeFunctionData('multicall(bytes[])', [[advancedListing()]])),
      'dangerous_call',
    ],
    [
      'Safe execTransaction (delegatecall) substituted',
      () =>
        buy(
          dangerI.encodeFunctionData('execTransaction', [
            ATTACKER,
            0n,
            '0x',
            1,
            0n,
            0n,
            0n,
            ZeroAddress,
            ZeroAddress,
            '0x',
          ]),
        ),
      'dangerous_call',
    ],
    [
      'function changed: matchAdvancedOrders',
      () => buy(seaportI.encodeFunctionData('matchAdvancedOrders', [[], [], [], ME])),
      'function_not_allowed',
    ],
    [
      'function changed: incrementCounter',
      () => buy(seaportI.encodeFunctionData('incrementCounter', [])),
      'function_not_allowed',
    ],
    [
      'function changed: a router swap on Seaport',
      () => buy(routerI.encodeFunctionData('swapExactETHForTokens', [0n, [WETH, NFT], ME, 1n])),
      'function_not_allowed',
    ],
    ['unknown selector', () => buy('0xdeadbeef'), 'unknown_function'],
    ['empty calldata', () => buy('0x'), 'empty_calldata'],
    [
      'wire function names another function',
      () => buy(advancedListing(), ETH, { functionSignature: 'fulfillOrder(x)' }),
      'function_mismatch',
    ],
    [
      'recipient not one of our wallets',
      () =>
        g.check(
          tx(advancedListing(listingParams(), { recipient: ATTACKER }), { value: ETH }),
          buyIntent({ recipient: ATTACKER }),
        ),
      'intent_invalid',
    ],
    [
      'two transactions',
      () =>
        g.check([tx(advancedListing(), { value: ETH }), tx(advancedListing(), { value: ETH })], buyIntent()),
      'unexpected_transaction',
    ],
  ];
  it.each(cases)('%s', (_name, f, reason) => {
    expect(reasonOf(f)).toBe(reason);
  });

  it('the creator fee needs the intent (or the options) to allow the creator', () => {
    expect(
      reasonOf(() => g.check(tx(advancedListing(), { value: ETH }), buyIntent({ feeRecipients: [] }))),
    ).toBe('unknown_consideration_recipient');
  });

  it('a zero recipient means the sender (Seaport semantics) and passes', () => {
    expect(buy(advancedListing(listingParams(), { recipient: ZeroAddress }))[0]?.step).toBe(
      'fulfill_listing',
    );
  });

  it('an allowed calldata suffix passes, and only that one', () => {
    const g2 = newGuard({ calldataSuffixes: ['0xcdb44011'] });
    expect(g2.check(tx(`${advancedListing()}cdb44011`, { value: ETH }), buyIntent())[0]?.data).toMatch(
      /cdb44011$/,
    );
    expect(reasonOf(() => g2.check(tx(`${advancedListing()}cdb44012`, { value: ETH }), buyIntent()))).toBe(
      'trailing_bytes',
    );
  });

  it('a partial fill of an ERC1155 listing: price and units scale with the fraction', () => {
    const p = listingParams({
      offer: [{ ...listingParams().offer[0], itemType: 3, startAmount: 4n, endAmount: 4n }],
    });
    const out = g.check(
      tx(advancedListing(p, { numerator: 1n, denominator: 4n }), { value: ETH / 4n }),
      buyIntent({ maxPrice: ETH / 4n }),
    );
    expect(out[0]?.facts['paid']).toBe((ETH / 4n).toString());
  });
});

describe('accept_offer', () => {
  const acceptData = (
    params = offerParams(),
    over: { recipient?: string; resolvers?: unknown[]; conduitKey?: string } = {},
  ) =>
    seaportI.encodeFunctionData('fulfillAdvancedOrder', [
      { parameters: params, numerator: 1n, denominator: 1n, signature: '0x12', extraData: '0x' },
      over.resolvers ?? [],
      over.conduitKey ?? CONDUIT_KEY,
      over.recipient ?? ME,
    ]);
  const accept = (data: string, intent = offerIntent(), value = 0n) => g.check(tx(data, { value }), intent);
  const criteria = (id: bigint, over: Record<string, unknown> = {}) =>
    acceptData(
      offerParams({
        consideration: [
          { ...offerParams().consideration[0], itemType: 4, identifierOrCriteria: 0n },
          ...offerParams().consideration.slice(1),
        ],
      }),
      { resolvers: [{ orderIndex: 0n, side: 1, index: 0n, identifier: id, criteriaProof: [] }], ...over },
    );

  it('an item offer passes with the proceeds after fees', () => {
    expect(accept(acceptData())[0]?.facts['proceeds']).toBe((94n * 10n ** 16n).toString());
  });

  it('a criteria offer passes when the resolver names our token', () => {
    expect(accept(criteria(7n))[0]?.step).toBe('fulfill_offer');
  });

  it('a basic ERC721_TO_ERC20 order passes', () => {
    const data = basicListing({
      considerationToken: NFT,
      considerationIdentifier: 7n,
      considerationAmount: 1n,
      offerToken: WETH,
      offerIdentifier: 0n,
      offerAmount: ETH,
      basicOrderType: 16 + 2,
    });
    expect(accept(data)[0]?.facts['proceeds']).toBe((94n * 10n ** 16n).toString());
  });

  const cases: [string, () => unknown, string][] = [
    [
      'proceeds recipient changed',
      () => accept(acceptData(offerParams(), { recipient: ATTACKER })),
      'recipient_mismatch',
    ],
    ['resolver names another token', () => accept(criteria(8n)), 'criteria_mismatch'],
    ['resolver missing', () => accept(criteria(7n, { resolvers: [] })), 'criteria_mismatch'],
    [
      'token id changed',
      () =>
        accept(
          acceptData(
            offerParams({
              consideration: [
                { ...offerParams().consideration[0], identifierOrCriteria: 9n },
                ...offerParams().consideration.slice(1),
              ],
            }),
          ),
        ),
      'nft_mismatch',
    ],
    [
      'the NFT goes to the attacker',
      () =>
        accept(
          acceptData(
            offerParams({
              consideration: [
                { ...offerParams().consideration[0], recipient: ATTACKER },
                ...offerParams().consideration.slice(1),
              ],
            }),
          ),
        ),
      'unknown_consideration_recipient',
    ],
    [
      'an extra WETH fee to the attacker',
      () =>
        accept(
          acceptData(
            offerParams({
              consideration: [
                ...offerParams().consideration,
                { ...offerParams().consideration[1], recipient: ATTACKER },
              ],
            }),
          ),
          offerIntent({ minProceeds: 0n }),
        ),
      'unknown_consideration_recipient',
    ],
    [
      'a second NFT asked for',
      () =>
        accept(
          acceptData(
            offerParams({
              consideration: [
                ...offerParams().consideration,
                { ...offerParams().consideration[0], identifierOrCriteria: 8n },
              ],
            }),
          ),
        ),
      'unexpected_consideration_item',
    ],
    [
      'proceeds below the minimum',
      () => accept(acceptData(), offerIntent({ minProceeds: ETH })),
      'proceeds_below_min',
    ],
    [
      'offer lowered',
      () =>
        accept(
          acceptData(
            offerParams({
              offer: [{ ...offerParams().offer[0], startAmount: ETH / 2n, endAmount: ETH / 2n }],
            }),
          ),
        ),
      'proceeds_below_min',
    ],
    [
      'offer in another token',
      () => accept(acceptData(offerParams({ offer: [{ ...offerParams().offer[0], token: ATTACKER }] }))),
      'payment_token_mismatch',
    ],
    [
      'an extra offer item',
      () => accept(acceptData(offerParams({ offer: [...offerParams().offer, offerParams().offer[0]] }))),
      'unexpected_offer_item',
    ],
    ['value attached', () => accept(acceptData(), offerIntent(), 1n), 'value_above_cap'],
    [
      'conduit key not allowlisted',
      () => accept(acceptData(offerParams(), { conduitKey: `0x${'ab'.repeat(32)}` })),
      'conduit_not_allowed',
    ],
  ];
  it.each(cases)('%s', (_name, f, reason) => {
    expect(reasonOf(f)).toBe(reason);
  });
});

// The intent an agent proposes to simulate_intent: a zod schema (amounts are decimal strings in
// the token's smallest unit, never JS numbers) and its translation into the strategy API's intent
// through the same builders strategies use.
import { z } from 'zod';
import type { ChainName } from '../domain/chains.ts';
import type { Address, OrderHash, TokenId } from '../domain/ids.ts';
import { RejectedError } from '../errors/index.ts';
import {
  acceptOffer,
  buyListing,
  cancelOrder,
  type Intent,
  mint,
  type OfferSpec,
  placeListing,
  placeOffer,
  swap,
} from '../strategy.ts';
import type { DaemonFacade } from './facade.ts';

const amount = z.string().regex(/^\d+$/, "an amount in the token's smallest unit, as a decimal string");
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte hex address');
const orderHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'a 0x-prefixed 32-byte hex order hash');
const units = z
  .string()
  .regex(/^[1-9]\d*$/, 'a positive whole number of units')
  .optional();
const nft = z.object({
  contract: address,
  identifier: z.string().regex(/^\d+$/, 'a token id in decimal'),
});
const minutes = z
  .number()
  .int()
  .positive()
  .max(60 * 24 * 30)
  .optional()
  .describe('expiry from now, minutes (default 60)');
const token = address.describe('payment token address (0x000…0 for ETH)');

export const intentInput = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('buy_listing'),
    order_hash: orderHash,
    collection: z.string().min(1),
    nft,
    max_price: amount.describe('most paid in total'),
    payment_token: token,
    quantity: units,
  }),
  z.object({
    kind: z.literal('place_offer'),
    collection: z.string().min(1),
    offer_type: z.enum(['collection', 'trait', 'item']),
    trait_type: z.string().optional(),
    trait_value: z.string().optional(),
    nft: nft.optional(),
    price: amount.describe('per unit'),
    payment_token: token,
    expires_in_minutes: minutes,
    quantity: units,
  }),
  z.object({
    kind: z.literal('place_listing'),
    collection: z.string().min(1),
    nft,
    price: amount.describe('per unit, what the buyer pays'),
    payment_token: token,
    expires_in_minutes: minutes,
    quantity: units,
  }),
  z.object({
    kind: z.literal('accept_offer'),
    order_hash: orderHash,
    collection: z.string().min(1),
    nft,
    offer_price: amount.describe('the offer amount for the units sold, before fees'),
    min_proceeds: amount.describe('least received after fees'),
    payment_token: token,
    quantity: units,
  }),
  z.object({ kind: z.literal('cancel_order'), order_hash: orderHash }),
  z.object({
    kind: z.literal('swap'),
    from_token: address,
    to_token: address,
    amount_in: amount,
    slippage_bps: z.number().int().min(0).max(5000),
  }),
  z.object({
    kind: z.literal('mint'),
    drop: z.string().min(1),
    quantity: z.string().regex(/^[1-9]\d*$/),
    max_price_per_token: amount,
    payment_token: token,
  }),
]);

export type IntentInput = z.infer<typeof intentInput>;

/** The strategy API's intent of a validated proposal (`reason` names the agent). */
export function intentOf(
  input: IntentInput,
  d: Pick<DaemonFacade, 'chain' | 'tokenOf'>,
  now: number,
): Intent {
  const reason = 'proposed by an agent (simulate_intent)';
  const ref = (n: { contract: string; identifier: string }) => ({
    chain: d.chain() as ChainName,
    contract: n.contract.toLowerCase() as Address,
    identifier: n.identifier as TokenId,
  });
  const qty = (q: string | undefined) => (q !== undefined ? { quantity: BigInt(q) } : {});
  /** Price, token, expiry, units and reason of an order we would sign (offer or listing). */
  const terms = (i: {
    price: string;
    payment_token: string;
    expires_in_minutes?: number | undefined;
    quantity?: string | undefined;
  }) => ({
    price: BigInt(i.price),
    paymentToken: d.tokenOf(i.payment_token),
    expiresAt: now + (i.expires_in_minutes ?? 60) * 60_000,
    ...qty(i.quantity),
    reason,
  });
  /** The order, NFT, token, units and reason of a fill (a buy, an accepted offer). */
  const fill = (i: {
    order_hash: string;
    collection: string;
    nft: { contract: string; identifier: string };
    payment_token: string;
    quantity?: string | undefined;
  }) => ({
    orderHash: i.order_hash.toLowerCase() as OrderHash,
    collection: i.collection,
    nft: ref(i.nft),
    paymentToken: d.tokenOf(i.payment_token),
    ...qty(i.quantity),
    reason,
  });
  switch (input.kind) {
    case 'buy_listing':
      return buyListing({ ...fill(input), maxPrice: BigInt(input.max_price) });
    case 'place_offer': {
      let offer: OfferSpec;
      if (input.offer_type === 'trait') {
        if (input.trait_type === undefined || input.trait_value === undefined)
          throw new RejectedError('intent_invalid', 'a trait offer needs trait_type and trait_value');
        offer = {
          type: 'trait',
          collection: input.collection,
          traitType: input.trait_type,
          value: input.trait_value,
        };
      } else if (input.offer_type === 'item') {
        if (input.nft === undefined) throw new RejectedError('intent_invalid', 'an item offer needs nft');
        offer = { type: 'item', collection: input.collection, nft: ref(input.nft) };
      } else offer = { type: 'collection', collection: input.collection };
      return placeOffer({ offer, ...terms(input) });
    }
    case 'place_listing':
      return placeListing({ collection: input.collection, nft: ref(input.nft), ...terms(input) });
    case 'accept_offer':
      return acceptOffer({
        ...fill(input),
        offerPrice: BigInt(input.offer_price),
        minProceeds: BigInt(input.min_proceeds),
      });
    case 'cancel_order':
      return cancelOrder({ orderHash: input.order_hash.toLowerCase() as OrderHash, reason });
    case 'swap':
      return swap({
        fromToken: d.tokenOf(input.from_token),
        toToken: d.tokenOf(input.to_token),
        amountIn: BigInt(input.amount_in),
        slippageBps: input.slippage_bps,
        reason,
      });
    case 'mint':
      return mint({
        drop: input.drop,
        quantity: BigInt(input.quantity),
        maxPricePerToken: BigInt(input.max_price_per_token),
        paymentToken: d.tokenOf(input.payment_token),
        reason,
      });
  }
}

// The intent-level guard of the config: only configured collections and known payment tokens
// reach an executor (the calldata guard checks the transactions themselves later).
import type { PaymentToken } from '../domain/events.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';
import { RejectedError } from '../errors/index.ts';
import type { IntentGuard } from './ports.ts';

export interface ConfigGuardOptions {
  readonly collections: readonly string[];
  /** Payment tokens of the config (ETH is always known). */
  readonly tokens: readonly PaymentToken[];
}

export function configIntentGuard(o: ConfigGuardOptions): IntentGuard {
  const known = (t: PaymentToken) =>
    t.address === ZERO_ADDRESS || o.tokens.some((x) => x.address.toLowerCase() === t.address.toLowerCase());
  return {
    check(intent) {
      const slug =
        intent.kind === 'place_offer'
          ? intent.offer.collection
          : intent.kind === 'buy_listing'
            ? intent.collection
            : null;
      if (slug !== null && !o.collections.includes(slug))
        throw new RejectedError(
          'intent_collection_not_configured',
          `collection ${slug} is not in the config`,
        );
      if (intent.kind === 'place_offer' && !known(intent.paymentToken))
        throw new RejectedError(
          'intent_token_unknown',
          `payment token ${intent.paymentToken.address} is not configured`,
        );
      if (intent.kind === 'swap' && (!known(intent.fromToken) || !known(intent.toToken)))
        throw new RejectedError('intent_token_unknown', 'a swap token is not configured');
    },
  };
}

/** Swap: token swap quotes with executable transaction data (ready to sign; never signed here). */
import type { SwapQuoteResponse } from '@opensea/api-types';
import type { CallOptions } from '../types.ts';
import { checkSlippage, optional, requireAddress, requireChain, requireQuantity } from '../validate.ts';
import { type EndpointContext, read, send } from './context.ts';

export interface SwapQuoteQuery {
  readonly from_chain: string;
  /** Token contract address being sold. */
  readonly from_address: string;
  readonly to_chain: string;
  readonly to_address: string;
  /** Amount in the token's smallest unit, as a decimal string (bigint accepted). */
  readonly quantity: string | bigint;
  /** Wallet executing the swap. */
  readonly address: string;
  /** 0.0 to 0.5; default 0.01 (always sent). */
  readonly slippage?: number;
  /** Defaults to the sender on the server. */
  readonly recipient?: string;
}

export function swapApi(ctx: EndpointContext) {
  return {
    /** `GET /api/v2/swap/quote` */
    async quote(query: SwapQuoteQuery, call?: CallOptions): Promise<SwapQuoteResponse> {
      const q = query ?? ({} as Partial<SwapQuoteQuery>);
      return send(
        ctx,
        read('/api/v2/swap/quote', {
          from_chain: requireChain('from_chain', q.from_chain),
          from_address: requireAddress('from_address', q.from_address),
          to_chain: requireChain('to_chain', q.to_chain),
          to_address: requireAddress('to_address', q.to_address),
          quantity: requireQuantity('quantity', q.quantity),
          address: requireAddress('address', q.address),
          slippage: checkSlippage('slippage', q.slippage),
          recipient: optional(q.recipient, (x) => requireAddress('recipient', x)),
        }),
        call,
      );
    },
  };
}

export type SwapApi = ReturnType<typeof swapApi>;

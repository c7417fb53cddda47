/** Order: look up and cancel individual orders by (chain, protocol address, order hash). */
import type { CancelRequest, CancelResponse, GetOrderResponse } from '@opensea/api-types';
import { Priority } from '../../ratelimit/types.ts';
import { path } from '../path.ts';
import type { AuthMode } from '../request.ts';
import type { CallOptions } from '../types.ts';
import {
  optional,
  requireAddress,
  requireChain,
  requireObject,
  requireOrderHash,
  requireString,
} from '../validate.ts';
import { type EndpointContext, read, send } from './context.ts';

function orderPath(chain: unknown, protocolAddress: unknown, orderHash: unknown): string {
  const c = requireChain('chain', chain);
  const a = requireAddress('protocol_address', protocolAddress);
  const h = requireOrderHash('order_hash', orderHash, c);
  return path`/api/v2/orders/chain/${c}/protocol/${a}/${h}`;
}

export function ordersApi(ctx: EndpointContext) {
  const cancel = (
    auth: AuthMode,
    chain: string,
    protocolAddress: string,
    orderHash: string,
    body: CancelRequest | undefined,
    call: CallOptions | undefined,
  ): Promise<CancelResponse> => {
    const p = `${orderPath(chain, protocolAddress, orderHash)}/cancel`;
    const checked = optional(body, (b) => {
      const o = requireObject('body', b);
      optional(o['offererSignature'], (s) =>
        requireString('body.offererSignature', s, 'an EIP-712 signature hex string'),
      );
      return b as CancelRequest;
    });
    return send(
      ctx,
      {
        method: 'POST',
        path: p,
        group: 'write',
        priority: Priority.cancel,
        auth,
        idempotent: false,
        ...(checked !== undefined ? { body: checked } : {}),
      },
      call,
    );
  };

  return {
    /** `GET /api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}` */
    async get(
      chain: string,
      protocolAddress: string,
      orderHash: string,
      call?: CallOptions,
    ): Promise<GetOrderResponse> {
      return send(ctx, read(orderPath(chain, protocolAddress, orderHash)), call);
    },

    /**
     * `POST …/{order_hash}/cancel` with the API key: off-chain cancel of a SignedZone-protected order.
     * `offererSignature` (EIP-712 over `OrderHash{orderHash}`) proves the maker. Not idempotent.
     */
    async cancel(
      chain: string,
      protocolAddress: string,
      orderHash: string,
      body?: CancelRequest,
      call?: CallOptions,
    ): Promise<CancelResponse> {
      return cancel('apiKey', chain, protocolAddress, orderHash, body, call);
    },

    /** Same cancel, authenticated with the API key plus a wallet JWT carrying `write:orders`. */
    async cancelWithWallet(
      chain: string,
      protocolAddress: string,
      orderHash: string,
      body?: CancelRequest,
      call?: CallOptions,
    ): Promise<CancelResponse> {
      return cancel('wallet', chain, protocolAddress, orderHash, body, call);
    },
  };
}

export type OrdersApi = ReturnType<typeof ordersApi>;

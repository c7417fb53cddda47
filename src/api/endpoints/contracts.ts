/** Contract: contract metadata and payment token details. */
import type { ContractResponse, PaymentToken } from '@opensea/api-types';
import { path } from '../path.ts';
import type { CallOptions } from '../types.ts';
import { requireAddress, requireChain } from '../validate.ts';
import { type EndpointContext, read, send } from './context.ts';

export function contractsApi(ctx: EndpointContext) {
  return {
    /** `GET /api/v2/chain/{chain}/contract/{address}` */
    async get(chain: string, address: string, call?: CallOptions): Promise<ContractResponse> {
      const c = requireChain('chain', chain);
      const a = requireAddress('address', address);
      return send(ctx, read(path`/api/v2/chain/${c}/contract/${a}`), call);
    },

    /** `GET /api/v2/chain/{chain}/payment_token/{address}` */
    async paymentToken(chain: string, address: string, call?: CallOptions): Promise<PaymentToken> {
      const c = requireChain('chain', chain);
      const a = requireAddress('address', address);
      return send(ctx, read(path`/api/v2/chain/${c}/payment_token/${a}`), call);
    },
  };
}

export type ContractsApi = ReturnType<typeof contractsApi>;

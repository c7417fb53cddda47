/** Chain: supported blockchains and their capabilities. */
import type { ChainListResponse } from '@opensea/api-types';
import type { CallOptions } from '../types.ts';
import { type EndpointContext, read, send } from './context.ts';

export function chainsApi(ctx: EndpointContext) {
  return {
    /** `GET /api/v2/chains` */
    async list(call?: CallOptions): Promise<ChainListResponse> {
      return send(ctx, read('/api/v2/chains'), call);
    },
  };
}

export type ChainsApi = ReturnType<typeof chainsApi>;

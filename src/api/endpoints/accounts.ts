/** Account: profiles and identifier resolution. */
import type { AccountResolveResponse, AccountResponse } from '@opensea/api-types';
import { path } from '../path.ts';
import type { CallOptions } from '../types.ts';
import { requireAccountIdentifier } from '../validate.ts';
import { type EndpointContext, read, send } from './context.ts';

export function accountsApi(ctx: EndpointContext) {
  return {
    /** `GET /api/v2/accounts/{address_or_username}` (an address is lower-cased). */
    async get(addressOrUsername: string, call?: CallOptions): Promise<AccountResponse> {
      const id = requireAccountIdentifier('address_or_username', addressOrUsername);
      return send(ctx, read(path`/api/v2/accounts/${id}`), call);
    },

    /** `GET /api/v2/accounts/resolve/{identifier}`: address, username or ENS name → account. */
    async resolve(identifier: string, call?: CallOptions): Promise<AccountResolveResponse> {
      const id = requireAccountIdentifier('identifier', identifier);
      return send(ctx, read(path`/api/v2/accounts/resolve/${id}`), call);
    },
  };
}

export type AccountsApi = ReturnType<typeof accountsApi>;

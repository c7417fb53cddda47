import {
  findAccount,
  namedAccounts,
  parseAccountIdentifier,
  renderAccount,
  renderResolved,
  type SandboxAccount,
} from '../../data/accounts.ts';
import type { MarketData } from '../../data/service.ts';
import { HttpError } from '../../errors.ts';
import type { Route, ServerState } from '../types.ts';

/**
 * Accounts (src/sandbox/data/accounts.ts): `GET /api/v2/accounts/{address_or_username}` (any
 * address; the sandbox's own wallets by username too) and `GET /api/v2/accounts/resolve/{identifier}`
 * (address or username → address and username; ENS names: 404). 400 for a malformed identifier.
 */

/** The sandbox's named accounts (operator and funded wallets). */
export async function sandboxAccounts(state: ServerState, data: MarketData): Promise<SandboxAccount[]> {
  const wallets = (state.fixture?.wallets ?? []).map((w) => w.address);
  return namedAccounts(await data.owner(), wallets);
}

export function accountRoutes(state: ServerState, data: MarketData): Route[] {
  async function lookup(raw: string | undefined, name: string): Promise<SandboxAccount> {
    const id = parseAccountIdentifier(raw, name);
    const a = findAccount(id, await sandboxAccounts(state, data));
    if (!a) {
      const what = id.kind === 'ens' ? `ENS name '${id.name}' (the sandbox chain has no ENS)` : `'${raw}'`;
      throw new HttpError(404, `Account not found: ${what}`);
    }
    return a;
  }

  return [
    {
      method: 'GET',
      pattern: '/api/v2/accounts/{address_or_username}',
      access: 'key',
      handler: async (ctx) => ({
        json: renderAccount(
          await lookup(ctx.params['address_or_username'], 'address_or_username'),
          state.createdAtMs,
        ),
      }),
    },
    {
      method: 'GET',
      pattern: '/api/v2/accounts/resolve/{identifier}',
      access: 'key',
      handler: async (ctx) => ({
        json: renderResolved(await lookup(ctx.params['identifier'], 'identifier')),
      }),
    },
  ];
}

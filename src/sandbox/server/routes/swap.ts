import type { MarketData } from '../../data/service.ts';
import { buildSwapQuote, parseSwapQuery } from '../../data/swap.ts';
import { HttpError } from '../../errors.ts';
import type { Route, ServerState } from '../types.ts';

/**
 * `GET /api/v2/swap/quote`: every parameter of the spec checked (400 with each problem), then a
 * quote on the sandbox's Uniswap v2 venue with ready-to-send transactions (src/sandbox/data/swap.ts).
 */
export function swapRoutes(state: ServerState, data: MarketData): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/api/v2/swap/quote',
      access: 'key',
      handler: async (ctx) => {
        const q = parseSwapQuery(ctx.query, state.chain, data.tokens());
        if (!state.fixture)
          throw new HttpError(503, 'The sandbox chain is not running (no chain fixture attached)');
        return { json: await buildSwapQuote(state.fixture, q, await data.prices()) };
      },
    },
  ];
}

import { isChainName } from '../../../domain/chains.ts';
import type { DropDeployment } from '../../chain/drops.ts';
import type { ChainFixture } from '../../chain/fixture.ts';
import {
  activityOf,
  buildMint,
  type DropState,
  dropEligibility,
  moveStage,
  parseMintRequest,
  readDropState,
  renderDrop,
  renderDropAdmin,
  setDropPaused,
} from '../../data/drops.ts';
import { pageOf } from '../../data/paging.ts';
import { HttpError } from '../../errors.ts';
import { enumParam, intParam, listParam, strParam } from '../http.ts';
import type { Route, ServerState } from '../types.ts';

/**
 * Drops: `GET /api/v2/drops` (type featured | upcoming | recently_minted, limit 1–100, chains,
 * cursor), `GET /api/v2/drops/{slug}`, `POST /api/v2/drops/{slug}/mint` and, wallet-scoped (API key
 * and a wallet JWT with `read:eligibility`), `GET /api/v2/drops/{slug}/eligibility`: each stage,
 * allowlist stages included, judged for the JWT's wallet (src/sandbox/data/drops.ts).
 *
 * List types: `featured` = every drop, minting first, then upcoming, paused, ended; `upcoming` =
 * drops not minting with a stage still ahead, soonest first; `recently_minted` = drops with at
 * least one token minted, most minted first.
 *
 * Admin (the drop owner's calls, on chain, under `/_sandbox/`; loopback only, no key):
 * `POST /_sandbox/drops/{slug}/pause`, `POST /_sandbox/drops/{slug}/resume`, and
 * `POST /_sandbox/drops/{slug}/stages/{index}` with `{start|startOffsetSec, end|endOffsetSec}`
 * (epoch seconds, or seconds from the chain's latest block time) to move a stage's window. Each
 * answers the drop's state after the change: `{slug, status, paused, now, stages, txHash}`.
 */

const ORDER: Record<string, number> = { active: 0, not_started: 1, paused: 2, ended: 3 };

export function dropRoutes(state: ServerState): Route[] {
  function fixture(): ChainFixture {
    if (!state.fixture)
      throw new HttpError(503, 'The sandbox chain is not running (no chain fixture attached)');
    return state.fixture;
  }

  function drop(slug: string): DropDeployment {
    const d = fixture().drops.find((x) => x.slug === slug);
    if (!d) throw new HttpError(404, `No drop found for collection '${slug}'`);
    return d;
  }

  return [
    {
      method: 'GET',
      pattern: '/api/v2/drops',
      access: 'key',
      handler: async (ctx) => {
        const q = ctx.query;
        const type = enumParam(q, 'type', ['featured', 'upcoming', 'recently_minted'] as const) ?? 'featured';
        const limit = intParam(q, 'limit', { min: 1, max: 100 }, 20) as number;
        const chains = listParam(q, 'chains');
        for (const c of chains)
          if (!isChainName(c)) throw new HttpError(400, `chains: '${c}' is not a chain identifier`);
        const cursor = strParam(q, 'cursor');
        const fx = fixture();
        let states: DropState[] =
          chains.length > 0 && !chains.includes(state.chain)
            ? []
            : await Promise.all(fx.drops.map((d) => readDropState(fx, d)));
        const index = (d: DropState) => fx.drops.findIndex((x) => x.slug === d.slug);
        if (type === 'featured') {
          states = states.sort(
            (a, b) => (ORDER[activityOf(a)] ?? 9) - (ORDER[activityOf(b)] ?? 9) || index(a) - index(b),
          );
        } else if (type === 'upcoming') {
          const nextStart = (d: DropState) =>
            Math.min(...d.stages.filter((s) => s.start > d.now).map((s) => s.start));
          states = states
            .filter((d) => activityOf(d) !== 'active' && d.stages.some((s) => s.start > d.now))
            .sort((a, b) => nextStart(a) - nextStart(b) || index(a) - index(b));
        } else {
          states = states
            .filter((d) => d.totalSupply > 0n)
            .sort((a, b) =>
              a.totalSupply > b.totalSupply ? -1 : a.totalSupply < b.totalSupply ? 1 : index(a) - index(b),
            );
        }
        const page = pageOf(states, `drops:${type}:${chains.join(',')}`, limit, cursor, 'cursor');
        return {
          json: {
            drops: page.items.map((d) => renderDrop(d, state.chain, false)),
            ...(page.next !== undefined ? { next: page.next } : {}),
          },
        };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/drops/{slug}',
      access: 'key',
      handler: async (ctx) => {
        const d = drop(ctx.params['slug'] as string);
        return { json: renderDrop(await readDropState(fixture(), d), state.chain, true) };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/drops/{slug}/eligibility',
      access: 'key',
      // The document's 403 of this operation is a DropEligibilityResponse: `stages` is required.
      wallet: { scope: 'read:eligibility', forbiddenBody: { stages: [] } },
      handler: async (ctx) => {
        const d = drop(ctx.params['slug'] as string);
        return { json: await dropEligibility(fixture(), d, (ctx.wallet as { address: string }).address) };
      },
    },
    {
      method: 'POST',
      pattern: '/_sandbox/drops/{slug}/pause',
      access: 'admin',
      handler: async (ctx) => {
        const r = await setDropPaused(fixture(), drop(ctx.params['slug'] as string), true);
        return { json: renderDropAdmin(r.state, r.txHash) };
      },
    },
    {
      method: 'POST',
      pattern: '/_sandbox/drops/{slug}/resume',
      access: 'admin',
      handler: async (ctx) => {
        const r = await setDropPaused(fixture(), drop(ctx.params['slug'] as string), false);
        return { json: renderDropAdmin(r.state, r.txHash) };
      },
    },
    {
      method: 'POST',
      pattern: '/_sandbox/drops/{slug}/stages/{index}',
      access: 'admin',
      handler: async (ctx) => {
        const d = drop(ctx.params['slug'] as string);
        const raw = ctx.params['index'] as string;
        if (!/^\d{1,4}$/.test(raw)) throw new HttpError(400, `index: '${raw}' is not a stage index`);
        const r = await moveStage(fixture(), d, Number(raw), await ctx.body());
        return { json: renderDropAdmin(r.state, r.txHash) };
      },
    },
    {
      method: 'POST',
      pattern: '/api/v2/drops/{slug}/mint',
      access: 'key',
      handler: async (ctx) => {
        // The body is validated first (400), then the slug (404), then the drop's state (409, 422).
        const req = parseMintRequest(await ctx.body());
        const d = drop(ctx.params['slug'] as string);
        return { json: await buildMint(fixture(), d, req, state.chain) };
      },
    },
  ];
}

// The smallest scope set a personal access token needs for a configuration: which intents the
// configured strategies emit, which wallet-scoped endpoints the daemon calls to carry them out, and
// which scopes of the server's registry (`GET /api/v2/auth/scopes`: each scope with its endpoints)
// cover those endpoints. Pure: the registry is passed in.
import type { ScopeInfo } from '../api/types.ts';
import type { StrategyConfig } from '../config/types.ts';
import { INTENT_KINDS, type IntentKind } from '../strategy.ts';

/** The intents each built-in strategy (strategies/<name>.ts, configured by its bare name) emits. */
export const BUILTIN_STRATEGY_INTENTS: Readonly<Record<string, readonly IntentKind[]>> = Object.freeze({
  sniper: ['buy_listing'],
  'collection-bidder': ['place_offer', 'replace_offer', 'cancel_order'],
  'trait-bidder': ['place_offer', 'replace_offer', 'cancel_order'],
  rebalancer: ['swap'],
  'drop-minter': ['mint'],
  seller: ['place_listing', 'replace_listing', 'accept_offer'],
});

const CANCEL = '/api/v2/orders/chain/{chain}/protocol/{protocol_address}/{order_hash}/cancel';
const ELIGIBILITY = '/api/v2/drops/{slug}/eligibility';

/**
 * The endpoints the daemon calls with a wallet JWT to carry out each intent kind. A placed offer
 * is cancelled later (replace, cancel, the kill switch), so placing needs the cancel endpoint too;
 * a mint first asks whether our wallet is eligible (allowlist stages). Buying (fulfillment) and
 * swapping need the API key only.
 */
export const INTENT_WALLET_ENDPOINTS: Readonly<Record<IntentKind, readonly string[]>> = Object.freeze({
  place_offer: [CANCEL],
  replace_offer: [CANCEL],
  cancel_order: [CANCEL],
  buy_listing: [],
  swap: [],
  mint: [ELIGIBILITY],
  // a listing is zone-protected: repricing and stopping cancel it off-chain
  place_listing: [CANCEL],
  replace_listing: [CANCEL],
  accept_offer: [],
});

/** The intents of one configured strategy, and whether they are known (a built-in) or assumed. */
export function strategyIntents(s: Pick<StrategyConfig, 'module'>): {
  readonly intents: readonly IntentKind[];
  readonly known: boolean;
} {
  const builtin = BUILTIN_STRATEGY_INTENTS[s.module];
  // a module of the user's own (a path) may emit any intent
  return builtin !== undefined ? { intents: builtin, known: true } : { intents: INTENT_KINDS, known: false };
}

/** One scope of the result and why: the strategies (by id) whose intents need it, and the endpoints. */
export interface ScopeNeed {
  readonly scope: string;
  readonly strategies: readonly string[];
  readonly endpoints: readonly string[];
}

export interface RequiredScopes {
  /** Sorted scope names; empty when no configured strategy calls a wallet-scoped endpoint. */
  readonly scopes: readonly string[];
  readonly needs: readonly ScopeNeed[];
  /** Strategy ids whose module is not a built-in: every intent is assumed (`--scopes` narrows). */
  readonly assumed: readonly string[];
  /** Endpoints the daemon needs that no scope of the registry names (the server changed). */
  readonly uncovered: readonly string[];
}

/** `{slug}` and `{collection_slug}` are the same segment: compare templates without parameter names. */
const shape = (endpoint: string): string => endpoint.replace(/\{[^}]*\}/g, '{}');

/** The scopes of `registry` that the configured strategies need (see the file comment). */
export function requiredScopes(
  strategies: readonly Pick<StrategyConfig, 'id' | 'module'>[],
  registry: readonly Pick<ScopeInfo, 'name' | 'endpoints'>[],
): RequiredScopes {
  const byEndpoint = new Map<string, Set<string>>();
  const assumed: string[] = [];
  for (const s of strategies) {
    const { intents, known } = strategyIntents(s);
    if (!known) assumed.push(s.id);
    for (const kind of intents) {
      for (const e of INTENT_WALLET_ENDPOINTS[kind]) {
        const ids = byEndpoint.get(e) ?? new Set<string>();
        ids.add(s.id);
        byEndpoint.set(e, ids);
      }
    }
  }
  const needs = new Map<string, { strategies: Set<string>; endpoints: Set<string> }>();
  const uncovered: string[] = [];
  for (const [endpoint, ids] of byEndpoint) {
    const covering = registry.filter((r) => (r.endpoints ?? []).some((e) => shape(e) === shape(endpoint)));
    if (covering.length === 0) uncovered.push(endpoint);
    for (const r of covering) {
      const n = needs.get(r.name) ?? { strategies: new Set<string>(), endpoints: new Set<string>() };
      for (const id of ids) n.strategies.add(id);
      n.endpoints.add(endpoint);
      needs.set(r.name, n);
    }
  }
  const scopes = [...needs.keys()].sort();
  return {
    scopes,
    needs: scopes.map((scope) => {
      const n = needs.get(scope) as { strategies: Set<string>; endpoints: Set<string> };
      return { scope, strategies: [...n.strategies].sort(), endpoints: [...n.endpoints].sort() };
    }),
    assumed,
    uncovered: uncovered.sort(),
  };
}

/** Splits a `--scopes` value (`a,b , c`) into distinct names, in order. */
export function parseScopeList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
}

/** Names of `requested` that the registry does not list. */
export function unknownScopes(
  requested: readonly string[],
  registry: readonly Pick<ScopeInfo, 'name'>[],
): string[] {
  const known = new Set(registry.map((r) => r.name));
  return requested.filter((s) => !known.has(s));
}

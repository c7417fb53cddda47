import { isChainName } from '../../../domain/chains.ts';
import { isAddress } from '../../../domain/ids.ts';
import { HttpError } from '../../errors.ts';
import type { EventFilter, EventLog, MarketEvent, MarketEventKind } from '../../events/log.ts';
import { intParam, listParam, strParam } from '../http.ts';
import {
  KINDS_OF_LEGACY_TYPE,
  KINDS_OF_REST_TYPE,
  LEGACY_EVENT_TYPES,
  LEGACY_KINDS,
  type LegacyEventType,
  REST_EVENT_TYPES,
  REST_KINDS,
  type RenderContext,
  type RestEventType,
  renderEvent,
  renderLegacyEvent,
  type TxInfo,
} from '../render-events.ts';
import type { RequestContext, Route, ServerState } from '../types.ts';

/** Default page size of the events endpoints (the maximum is 200). */
export const DEFAULT_EVENTS_LIMIT = 50;

// ── cursors ─────────────────────────────────────────────────────────────

/** Opaque cursor: the id of the last event served (the next page starts below it). */
export function encodeCursor(lastId: number): string {
  return Buffer.from(JSON.stringify({ before: lastId })).toString('base64url');
}

export function decodeCursor(raw: string, name: string): number {
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { before?: unknown };
    if (typeof v.before === 'number' && Number.isInteger(v.before) && v.before > 0) return v.before;
  } catch {
    // fall through
  }
  throw new HttpError(400, `${name}: invalid cursor "${raw}"`);
}

/**
 * One page of matching events, newest first: `limit` events and the cursor of the next page when
 * more exist. `keep` filters beyond what the log's query knows (e.g. traits).
 */
export function pageEvents(
  log: EventLog,
  filter: EventFilter,
  limit: number,
  beforeId: number | undefined,
  keep?: (e: MarketEvent) => boolean,
): { events: MarketEvent[]; next: string | undefined } {
  const out: MarketEvent[] = [];
  let cursor = beforeId;
  const batch = keep ? Math.max(limit + 1, 500) : limit + 1;
  for (;;) {
    const rows = log.query({ ...filter, ...(cursor !== undefined ? { beforeId: cursor } : {}) }, batch);
    for (const e of rows) {
      if (!keep || keep(e)) out.push(e);
      if (out.length > limit) break;
    }
    if (out.length > limit || rows.length < batch) break;
    cursor = (rows[rows.length - 1] as MarketEvent).id;
  }
  const more = out.length > limit;
  const events = out.slice(0, limit);
  const last = events[events.length - 1];
  return { events, next: more && last ? encodeCursor(last.id) : undefined };
}

// ── query parsing ───────────────────────────────────────────────────────

function epochSeconds(q: URLSearchParams, name: string): number | undefined {
  return intParam(q, name, { min: 0, max: 10 ** 11 });
}

/** The log kinds selected by repeatable `event_type` values (all REST kinds when absent). */
export function restKindsOf(q: URLSearchParams): readonly MarketEventKind[] {
  const types = listParam(q, 'event_type');
  if (types.length === 0) return REST_KINDS;
  const kinds: MarketEventKind[] = [];
  for (const t of types) {
    if (!(REST_EVENT_TYPES as readonly string[]).includes(t)) {
      throw new HttpError(400, `event_type: "${t}" is not one of ${REST_EVENT_TYPES.join(', ')}`);
    }
    kinds.push(...KINDS_OF_REST_TYPE[t as RestEventType]);
  }
  return kinds;
}

function restCommon(q: URLSearchParams): {
  filter: EventFilter;
  limit: number;
  beforeId: number | undefined;
} {
  const after = epochSeconds(q, 'after');
  const before = epochSeconds(q, 'before');
  const limit = intParam(q, 'limit', { min: 1, max: 200 }, DEFAULT_EVENTS_LIMIT) as number;
  const next = strParam(q, 'next');
  return {
    filter: {
      kinds: restKindsOf(q),
      ...(after !== undefined ? { after } : {}),
      ...(before !== undefined ? { before } : {}),
    },
    limit,
    beforeId: next === undefined ? undefined : decodeCursor(next, 'next'),
  };
}

function renderContext(state: ServerState): RenderContext {
  return {
    ...(state.catalog ? { catalog: state.catalog } : {}),
    metadataBaseUrl: `${state.publicUrl}/metadata`,
    createdAtMs: state.createdAtMs,
  };
}

function restPage(
  state: ServerState,
  q: URLSearchParams,
  extra: EventFilter,
  keep?: (e: MarketEvent) => boolean,
) {
  const { filter, limit, beforeId } = restCommon(q);
  const { events, next } = pageEvents(state.events, { ...filter, ...extra }, limit, beforeId, keep);
  const ctx = renderContext(state);
  const asset_events = events.map((e) => renderEvent(e, ctx)).filter((r) => r !== undefined);
  return { json: { asset_events, ...(next !== undefined ? { next } : {}) } };
}

/** `traits` of `/events/collection/{slug}`: JSON `[{"traitType","value"}]`, AND-combined. */
function traitsParam(q: URLSearchParams): { type: string; value: string }[] | undefined {
  const raw = strParam(q, 'traits');
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'traits: must be a JSON array of {"traitType": ..., "value": ...}');
  }
  if (!Array.isArray(parsed)) throw new HttpError(400, 'traits: must be a JSON array');
  return parsed.map((t: unknown, i) => {
    const o = t as { traitType?: unknown; trait_type?: unknown; value?: unknown };
    const type = o?.traitType ?? o?.trait_type;
    if (typeof type !== 'string' || (typeof o.value !== 'string' && typeof o.value !== 'number')) {
      throw new HttpError(400, `traits[${i}]: needs a string "traitType" and a "value"`);
    }
    return { type, value: String(o.value) };
  });
}

function requireAddress(value: string, name: string): string {
  if (!isAddress(value)) throw new HttpError(400, `${name}: "${value}" is not a 0x-prefixed 20-byte address`);
  return value.toLowerCase();
}

// ── legacy v1 ───────────────────────────────────────────────────────────

/** `occurred_after`/`occurred_before`: Unix seconds or an ISO 8601 date. */
function legacyTime(q: URLSearchParams, name: string): number | undefined {
  const raw = strParam(q, name);
  if (raw === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.floor(Number(raw));
  const ms = Date.parse(raw.endsWith('Z') || /[+-]\d\d:\d\d$/.test(raw) ? raw : `${raw}Z`);
  if (Number.isNaN(ms))
    throw new HttpError(400, `${name}: "${raw}" is neither Unix seconds nor an ISO 8601 date`);
  return Math.floor(ms / 1000);
}

async function legacyEvents(state: ServerState, ctx: RequestContext) {
  const q = ctx.query;
  const types = listParam(q, 'event_type');
  const kinds: MarketEventKind[] = [];
  for (const t of types) {
    if (!(LEGACY_EVENT_TYPES as readonly string[]).includes(t)) {
      throw new HttpError(400, `event_type: "${t}" is not one of ${LEGACY_EVENT_TYPES.join(', ')}`);
    }
    kinds.push(...KINDS_OF_LEGACY_TYPE[t as LegacyEventType]);
  }
  const contract = strParam(q, 'asset_contract_address');
  const tokenId = strParam(q, 'token_id');
  if (tokenId !== undefined && contract === undefined) {
    throw new HttpError(400, 'token_id: needs asset_contract_address');
  }
  if (tokenId !== undefined && !/^\d+$/.test(tokenId)) {
    throw new HttpError(400, `token_id: "${tokenId}" is not a decimal token id`);
  }
  const account = strParam(q, 'account_address');
  const slug = strParam(q, 'collection_slug');
  const after = legacyTime(q, 'occurred_after');
  const before = legacyTime(q, 'occurred_before');
  const limit = intParam(q, 'limit', { min: 1, max: 300 }, 20) as number;
  const cursor = strParam(q, 'cursor');
  const filter: EventFilter = {
    kinds: kinds.length > 0 ? kinds : LEGACY_KINDS,
    ...(slug !== undefined ? { collection: slug } : {}),
    ...(contract !== undefined ? { contract: requireAddress(contract, 'asset_contract_address') } : {}),
    ...(tokenId !== undefined ? { identifier: tokenId } : {}),
    ...(account !== undefined ? { account: requireAddress(account, 'account_address') } : {}),
    ...(after !== undefined ? { after } : {}),
    ...(before !== undefined ? { before } : {}),
  };
  const page = pageEvents(
    state.events,
    filter,
    limit,
    cursor === undefined ? undefined : decodeCursor(cursor, 'cursor'),
  );

  // Facts the log does not keep: the transactions' block hash/index/from/to, and sales per NFT.
  const txs = new Map<string, TxInfo>();
  if (state.txInfo) {
    const hashes = [...new Set(page.events.map((e) => e.txHash).filter((h) => h !== undefined))];
    const infos = await Promise.all(hashes.map((h) => (state.txInfo as NonNullable<typeof state.txInfo>)(h)));
    hashes.forEach((h, i) => {
      const info = infos[i];
      if (info) txs.set(h, info);
    });
  }
  const sales = new Map<string, number>();
  for (const e of state.events.all()) {
    if (e.kind === 'sale' && e.nft) {
      const k = `${e.nft.contract.toLowerCase()}:${e.nft.identifier}`;
      sales.set(k, (sales.get(k) ?? 0) + 1);
    }
  }
  const rctx: RenderContext = {
    ...renderContext(state),
    tx: (h) => txs.get(h),
    numSales: (c, id) => sales.get(`${c.toLowerCase()}:${id}`) ?? 0,
  };
  const asset_events = page.events.map((e) => renderLegacyEvent(e, rctx)).filter((r) => r !== undefined);
  return { json: { next: page.next ?? null, previous: null, asset_events } };
}

// ── routes ──────────────────────────────────────────────────────────────

export function eventRoutes(state: ServerState): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/api/v2/events',
      access: 'key',
      handler: ({ query }) => restPage(state, query, {}),
    },
    {
      method: 'GET',
      pattern: '/api/v2/events/collection/{slug}',
      access: 'key',
      handler: ({ query, params }) => {
        const slug = params['slug'] as string;
        if (state.catalog && !state.catalog.bySlug(slug)) {
          throw new HttpError(404, `Collection ${slug} not found`);
        }
        const traits = traitsParam(query);
        const catalog = state.catalog;
        const keep =
          traits && traits.length > 0
            ? (e: MarketEvent) =>
                e.nft !== undefined &&
                /^\d+$/.test(e.nft.identifier) &&
                (catalog?.matches(slug, BigInt(e.nft.identifier), traits) ?? false)
            : undefined;
        return restPage(state, query, { collection: slug }, keep);
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/events/chain/{chain}/contract/{address}/nfts/{identifier}',
      access: 'key',
      handler: ({ query, params }) => {
        const chain = params['chain'] as string;
        if (!isChainName(chain)) throw new HttpError(400, `chain: "${chain}" is not a supported chain`);
        const address = requireAddress(params['address'] as string, 'address');
        const identifier = params['identifier'] as string;
        if (!/^\d+$/.test(identifier)) {
          throw new HttpError(400, `identifier: "${identifier}" is not a decimal token id`);
        }
        if (chain === state.chain && state.catalog && !state.catalog.byContract(address)) {
          throw new HttpError(404, `Contract ${address} not found on ${chain}`);
        }
        return restPage(state, query, { contract: address, identifier }, (e) => e.chain === chain);
      },
    },
    {
      method: 'GET',
      pattern: '/api/v2/events/accounts/{address}',
      access: 'key',
      handler: ({ query, params }) => {
        const address = requireAddress(params['address'] as string, 'address');
        const chain = strParam(query, 'chain');
        if (chain !== undefined && !isChainName(chain)) {
          throw new HttpError(400, `chain: "${chain}" is not a supported chain`);
        }
        return restPage(
          state,
          query,
          { account: address },
          chain === undefined ? undefined : (e) => e.chain === chain,
        );
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/events',
      access: 'key',
      handler: (ctx) => legacyEvents(state, ctx),
    },
  ];
}

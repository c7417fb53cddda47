/** Validation shared by the listing, offer and order modules (order bodies and legacy list queries). */
import type { ChainName } from '../../domain/index.ts';
import { Priority } from '../../ratelimit/types.ts';
import type { QueryValue } from '../request.ts';
import type { OrderBy, OrderDirection } from '../types.ts';
import {
  checkLimit,
  checkOrderBy,
  checkOrderDirection,
  invalidInput,
  LIMITS,
  optional,
  requireAddress,
  requireBoolean,
  requireChain,
  requireCursor,
  requireIsoDate,
  requireObject,
  requireOrderHash,
  requirePositiveInt,
  requireString,
  requireTokenId,
} from '../validate.ts';
import type { Route } from './context.ts';

/** Query of the deprecated legacy order lists (wire names, including `cursor.value`). */
export interface LegacyOrdersQuery {
  readonly asset_contract_address?: string;
  /** Needs `asset_contract_address`. */
  readonly token_ids?: readonly string[];
  readonly maker?: string;
  readonly order_by?: OrderBy;
  readonly order_direction?: OrderDirection;
  /** ISO 8601 date-time or Date. */
  readonly listed_before?: string | Date;
  readonly listed_after?: string | Date;
  /** 1 to 200. */
  readonly limit?: number;
  readonly 'cursor.value'?: string;
}

export function legacyOrdersQuery(q: LegacyOrdersQuery = {}): Record<string, QueryValue> {
  const contract = optional(q.asset_contract_address, (x) => requireAddress('asset_contract_address', x));
  const tokenIds = optional(q.token_ids, (x) => {
    if (!Array.isArray(x) || x.length === 0)
      throw invalidInput('token_ids', x, 'a non-empty array of token ids');
    return x.map((id, i) => requireTokenId(`token_ids[${i}]`, id));
  });
  if (tokenIds !== undefined && contract === undefined) {
    throw invalidInput('asset_contract_address', undefined, 'a contract address whenever token_ids is given');
  }
  return {
    asset_contract_address: contract,
    token_ids: tokenIds,
    maker: optional(q.maker, (x) => requireAddress('maker', x)),
    order_by: optional(q.order_by, (x) => checkOrderBy('order_by', x)),
    order_direction: optional(q.order_direction, (x) => checkOrderDirection('order_direction', x)),
    listed_before: optional(q.listed_before, (x) => requireIsoDate('listed_before', x)),
    listed_after: optional(q.listed_after, (x) => requireIsoDate('listed_after', x)),
    limit: optional(q.limit, (x) => checkLimit('limit', x, LIMITS.legacyOrders)),
    'cursor.value': optional(q['cursor.value'], (x) => requireCursor('cursor.value', x)),
  };
}

/** Checks a create-order body (`SeaportRequest`): parameters, signature, protocol_address. */
export function checkSeaportRequest<T>(body: T): T {
  const o = requireObject('body', body);
  const params = requireObject('body.parameters', o['parameters']);
  requireAddress('body.parameters.offerer', params['offerer']);
  requireString('body.signature', o['signature'], 'a signature hex string');
  requireAddress('body.protocol_address', o['protocol_address']);
  return body;
}

/** The order reference of a fulfillment request (`listing` or `offer`): hash, chain, protocol address. */
function orderRef(
  param: string,
  value: unknown,
): { hash: string; chain: ChainName; protocol_address: string } {
  const o = requireObject(param, value);
  const chain = requireChain(`${param}.chain`, o['chain']);
  return {
    ...o,
    hash: requireOrderHash(`${param}.hash`, o['hash'], chain),
    chain,
    protocol_address: requireAddress(`${param}.protocol_address`, o['protocol_address']),
  };
}

/** Checks and normalizes a fulfillment-data body; `side` is `listing` or `offer`. */
export function checkFulfillmentRequest<T>(body: T, side: 'listing' | 'offer'): T {
  const o = requireObject('body', body);
  const fulfiller = requireObject('body.fulfiller', o['fulfiller']);
  const consideration = optional(o['consideration'], (x) => {
    const c = requireObject('body.consideration', x);
    return {
      ...c,
      asset_contract_address: requireAddress(
        'body.consideration.asset_contract_address',
        c['asset_contract_address'],
      ),
      token_id: requireTokenId('body.consideration.token_id', c['token_id']),
    };
  });
  const out: Record<string, unknown> = {
    ...o,
    [side]: orderRef(`body.${side}`, o[side]),
    fulfiller: { ...fulfiller, address: requireAddress('body.fulfiller.address', fulfiller['address']) },
  };
  if (consideration !== undefined) out['consideration'] = consideration;
  if (o['recipient'] !== undefined) out['recipient'] = requireAddress('body.recipient', o['recipient']);
  if (o['units_to_fill'] !== undefined)
    out['units_to_fill'] = requirePositiveInt('body.units_to_fill', o['units_to_fill']);
  if (o['include_optional_creator_fees'] !== undefined) {
    requireBoolean('body.include_optional_creator_fees', o['include_optional_creator_fees']);
  }
  return out as T;
}

/**
 * The request of `POST /api/v2/listings|offers/fulfillment_data`: body checked, group
 * `fulfillment`, snipe priority by default, safe to repeat (it creates nothing).
 */
export function fulfillmentRoute<T>(side: 'listing' | 'offer', body: T): Route {
  return {
    method: 'POST',
    path: side === 'listing' ? '/api/v2/listings/fulfillment_data' : '/api/v2/offers/fulfillment_data',
    group: 'fulfillment',
    priority: Priority.snipe,
    body: checkFulfillmentRequest(body, side),
    idempotent: true,
  };
}

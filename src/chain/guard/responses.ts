/**
 * API responses → proposed transactions, exactly as they would be signed. Fulfillment data comes
 * as a function signature plus `input_data` keyed by Solidity parameter names: it is encoded here
 * with the guard's own ABI (only functions the guard knows), then the calldata suffix, if any, is
 * appended. Swap quotes and mints carry raw calldata. Pure; every problem is a guard rejection.
 */
import { chainIdOf, isChainName } from '../../domain/chains.ts';
import { functionBySignature } from './abis.ts';
import { normAddress, parseAmount } from './calldata.ts';
import { encodeValues } from './codec.ts';
import { reject } from './reasons.ts';
import type { ProposedTx } from './types.ts';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A chain id from a numeric id, a numeric string or a chain name (`ethereum`). */
export function parseChain(v: unknown, what = 'chain'): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return Number(v);
    if (isChainName(v)) {
      const id = chainIdOf(v);
      if (id !== undefined) return id;
    }
  }
  return reject('malformed_response', `${what} ${JSON.stringify(v)} is not an EVM chain`, { field: what });
}

function parseTo(v: unknown, what: string): string {
  const a = normAddress(v);
  if (!a) return reject('malformed_response', `${what} is not an address`, { field: what });
  return a;
}

function parseValue(value: unknown, valueHex: unknown, what: string): bigint {
  const v = value === undefined || value === null ? (valueHex ?? '0') : value;
  const n = parseAmount(v, what);
  if (valueHex !== undefined && valueHex !== null && parseAmount(valueHex, `${what}_hex`) !== n) {
    reject('malformed_response', `${what} and ${what}_hex disagree`, { field: what });
  }
  return n;
}

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/**
 * `POST /api/v2/listings|offers/fulfillment_data` response → the transaction to sign.
 * The wire `function` must be a function the guard knows; its arguments come from `input_data`.
 */
export function fulfillmentProposal(response: unknown): ProposedTx {
  const fd = isRecord(response) ? response['fulfillment_data'] : undefined;
  const t = isRecord(fd) ? fd['transaction'] : undefined;
  if (!isRecord(fd) || !isRecord(t)) {
    return reject('malformed_response', 'the response has no fulfillment_data.transaction');
  }
  const fn = t['function'];
  if (typeof fn !== 'string') return reject('malformed_response', 'transaction.function is missing');
  const known = functionBySignature(fn);
  if (!known)
    return reject('unknown_function', `unknown function ${fn.slice(0, 120)}`, { function: fn.slice(0, 120) });
  const input = t['input_data'];
  if (!isRecord(input)) return reject('malformed_response', 'transaction.input_data is missing');
  let data: string;
  try {
    data = known.selector + encodeValues(known.inputs, input);
  } catch (e) {
    return reject(
      'malformed_response',
      `input_data does not encode as ${known.signature}: ${e instanceof Error ? e.message.slice(0, 200) : String(e)}`,
      {
        function: known.signature,
      },
    );
  }
  const suffix = t['calldata_suffix'];
  if (suffix !== undefined && suffix !== null && suffix !== '') {
    if (typeof suffix !== 'string' || !HEX_BYTES.test(suffix)) {
      reject('malformed_response', 'transaction.calldata_suffix is not hex bytes');
    }
    data += (suffix as string).slice(2).toLowerCase();
  }
  let orderCounter: bigint | undefined;
  const orders = fd['orders'];
  const params = Array.isArray(orders) && isRecord(orders[0]) ? orders[0]['parameters'] : undefined;
  if (isRecord(params) && params['counter'] !== undefined && params['counter'] !== null) {
    orderCounter = parseAmount(params['counter'], 'orders[0].parameters.counter');
  }
  return {
    chainId: parseChain(t['chain'], 'transaction.chain'),
    to: parseTo(t['to'], 'transaction.to'),
    data,
    value: parseValue(t['value'], t['value_hex'], 'transaction.value'),
    functionSignature: fn,
    ...(orderCounter !== undefined ? { orderCounter } : {}),
  };
}

function rawTx(t: unknown, what: string): ProposedTx {
  if (!isRecord(t)) return reject('malformed_response', `${what} is not an object`);
  const data = t['data'] ?? '0x';
  if (typeof data !== 'string' || !HEX_BYTES.test(data)) {
    return reject('malformed_response', `${what}.data is not hex bytes`, { field: `${what}.data` });
  }
  return {
    chainId: parseChain(t['chain'], `${what}.chain`),
    to: parseTo(t['to'], `${what}.to`),
    data: data.toLowerCase(),
    value: parseValue(t['value'], t['value_hex'], `${what}.value`),
  };
}

/** `GET /api/v2/swap/quote` response → its transactions, in order. */
export function swapQuoteProposals(response: unknown): ProposedTx[] {
  const txs = isRecord(response) ? response['transactions'] : undefined;
  if (!Array.isArray(txs) || txs.length === 0) {
    return reject('malformed_response', 'the swap quote has no transactions');
  }
  return txs.map((t, i) => rawTx(t, `transactions[${i}]`));
}

/** `POST /api/v2/drops/{slug}/mint` response → the mint transaction. */
export function mintProposal(response: unknown): ProposedTx {
  return rawTx(response, 'mint');
}

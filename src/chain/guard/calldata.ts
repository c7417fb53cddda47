/**
 * Pure calldata helpers: selector lookup, strict decoding (the calldata must be the canonical ABI
 * encoding of what it decodes to, followed at most by an allowed suffix), address and value
 * parsing.
 */
import { functionBySelector, type KnownFunction } from './abis.ts';
import { AbiCodecError, type AbiValue, decodeCanonical } from './codec.ts';
import { reject } from './reasons.ts';

const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Lower-case address; `undefined` when it is not a 20-byte hex address. */
export function normAddress(v: unknown): string | undefined {
  if (typeof v !== 'string' || !ADDRESS_RE.test(v)) return undefined;
  return v.toLowerCase();
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

export const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const ETH_PLACEHOLDER = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

/** The native coin: the zero address or 0xeeee…eeee. */
export const isNative = (token: string): boolean => {
  const t = token.toLowerCase();
  return t === ZERO_ADDRESS || t === ETH_PLACEHOLDER;
};

/** Looks up the selector; `empty_calldata` / `malformed_calldata` / `unknown_function` otherwise. */
export function lookupFunction(data: string): KnownFunction {
  if (typeof data !== 'string' || !HEX.test(data))
    reject('malformed_calldata', 'the calldata is not hex bytes');
  if (data.length === 2) reject('empty_calldata', 'the transaction has no calldata');
  if (data.length < 10) reject('malformed_calldata', 'the calldata is shorter than a 4-byte selector');
  const selector = data.slice(0, 10).toLowerCase();
  const known = functionBySelector(selector);
  if (!known) reject('unknown_function', `unknown function selector ${selector}`, { selector });
  return known;
}

export interface DecodedCall {
  readonly known: KnownFunction;
  /** Arguments keyed by parameter name: bigint, lower-case hex, boolean, arrays, objects. */
  readonly args: Readonly<Record<string, AbiValue>>;
  /** Bytes after the canonical encoding (`0x` when none): an allowed calldata suffix. */
  readonly suffix: string;
}

/**
 * Decodes `data` with `known`'s fragment and re-encodes it: the calldata must equal the canonical
 * encoding, optionally followed by one of `suffixes`; anything else is refused (hidden trailing
 * data, dirty padding, aliased offsets).
 */
export function decodeStrict(known: KnownFunction, data: string, suffixes: readonly string[]): DecodedCall {
  const buf = Buffer.from(data.slice(2), 'hex');
  let decoded: ReturnType<typeof decodeCanonical>;
  try {
    decoded = decodeCanonical(known.inputs, buf, 4);
  } catch (e) {
    if (e instanceof AbiCodecError && e.kind === 'non_canonical') {
      return reject(
        'non_canonical_calldata',
        `the calldata of ${known.signature} is not its canonical ABI encoding: ${e.message}`,
        {
          function: known.signature,
        },
      );
    }
    return reject('malformed_calldata', `the calldata does not decode as ${known.signature}`, {
      function: known.signature,
      error: e instanceof Error ? e.message.slice(0, 200) : String(e),
    });
  }
  const end = 4 + decoded.size;
  if (end === buf.length) return { known, args: decoded.args, suffix: '0x' };
  const suffix = `0x${buf.toString('hex', end)}`;
  if (!suffixes.some((s) => s.toLowerCase() === suffix)) {
    reject(
      'trailing_bytes',
      `${buf.length - end} unexpected byte(s) after the arguments of ${known.signature}`,
      {
        function: known.signature,
        trailingBytes: buf.length - end,
      },
    );
  }
  return { known, args: decoded.args, suffix };
}

/** A wei amount from a decimal or `0x` hex string, a bigint or a safe integer. */
export function parseAmount(v: unknown, what: string): bigint {
  if (typeof v === 'bigint' && v >= 0n) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return BigInt(v);
    if (/^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v);
  }
  return reject('malformed_response', `${what} is not a non-negative integer amount`, { field: what });
}

/** Addresses of an allowlist, lower-cased (bad entries are a programming error). */
export function addressSet(list: readonly string[] | undefined, what: string): ReadonlySet<string> {
  const out = new Set<string>();
  for (const a of list ?? []) {
    const n = normAddress(a);
    if (!n) throw new TypeError(`${what}: '${a}' is not an address`);
    out.add(n);
  }
  return out;
}

/**
 * A small, strict ABI codec for the guard's hot path (ethers' generic coder checksums every
 * address with keccak and costs milliseconds per Seaport order; this one costs microseconds).
 *
 * - `decodeCanonical` accepts only the canonical encoding: every dynamic offset must point exactly
 *   where the canonical encoder would put the tail, padding and high bits must be zero, `bool` is
 *   0 or 1; it returns plain values (bigint, lower-case hex strings, booleans, arrays, objects keyed
 *   by parameter name) and how many bytes it consumed, so trailing bytes are visible.
 * - `encodeValues` encodes plain JSON values (numbers, decimal or hex strings, hex bytes, objects
 *   keyed by name) — the API's `input_data` — with the same canonical layout.
 */
import type { ParamType } from 'ethers';

export type AbiValue = bigint | string | boolean | readonly AbiValue[] | { readonly [k: string]: AbiValue };

export type AbiNode =
  | { readonly k: 'uint'; readonly bits: number }
  | { readonly k: 'address' }
  | { readonly k: 'bool' }
  | { readonly k: 'fixedBytes'; readonly size: number }
  | { readonly k: 'bytes' }
  | { readonly k: 'array'; readonly child: AbiNode; readonly dynamic: true }
  | {
      readonly k: 'tuple';
      readonly names: readonly string[];
      readonly fields: readonly AbiNode[];
      readonly dynamic: boolean;
      /** Head size in bytes (static parts inline, 32 per dynamic part). */
      readonly head: number;
    };

export class AbiCodecError extends Error {
  constructor(
    readonly kind: 'malformed' | 'non_canonical',
    message: string,
  ) {
    super(message);
  }
}

const isDynamic = (n: AbiNode): boolean =>
  n.k === 'bytes' || n.k === 'array' || (n.k === 'tuple' && n.dynamic);
const staticSize = (n: AbiNode): number => (n.k === 'tuple' && !n.dynamic ? n.head : 32);

export function tupleNode(names: readonly string[], fields: readonly AbiNode[]): AbiNode {
  const dynamic = fields.some(isDynamic);
  const head = fields.reduce((s, f) => s + (isDynamic(f) ? 32 : staticSize(f)), 0);
  return { k: 'tuple', names, fields, dynamic, head };
}

/** Compiles an ethers ParamType (parsed once at load) into a codec node. */
export function nodeOf(p: ParamType): AbiNode {
  if (p.baseType === 'tuple') {
    const comps = p.components ?? [];
    return tupleNode(
      comps.map((c) => c.name),
      comps.map(nodeOf),
    );
  }
  if (p.baseType === 'array') {
    if (p.arrayLength !== -1 || !p.arrayChildren)
      throw new Error(`fixed-size arrays are not supported (${p.type})`);
    return { k: 'array', child: nodeOf(p.arrayChildren), dynamic: true };
  }
  if (p.baseType === 'address') return { k: 'address' };
  if (p.baseType === 'bool') return { k: 'bool' };
  if (p.baseType === 'bytes') return { k: 'bytes' };
  const u = /^uint(\d+)$/.exec(p.baseType);
  if (u) return { k: 'uint', bits: Number(u[1]) };
  const b = /^bytes(\d+)$/.exec(p.baseType);
  if (b) return { k: 'fixedBytes', size: Number(b[1]) };
  throw new Error(`unsupported ABI type ${p.type}`);
}

// ── decode ─────────────────────────────────────────────────────────────────────────────────

const MAX_LENGTH = 1 << 20;

class Reader {
  constructor(
    readonly b: Buffer,
    readonly end: number,
  ) {}

  word(pos: number): Buffer {
    if (pos < 0 || pos + 32 > this.end)
      throw new AbiCodecError('malformed', `read past the end at byte ${pos}`);
    return this.b.subarray(pos, pos + 32);
  }

  uint(pos: number): bigint {
    return BigInt(`0x${this.b.toString('hex', pos, pos + 32)}`);
  }

  /** A length or offset word that must fit comfortably in a number. */
  small(pos: number): number {
    const w = this.word(pos);
    for (let i = 0; i < 28; i++) {
      if (w[i] !== 0) throw new AbiCodecError('malformed', `length or offset at byte ${pos} is out of range`);
    }
    const v = w.readUInt32BE(28);
    if (v > MAX_LENGTH * 32)
      throw new AbiCodecError('malformed', `length or offset at byte ${pos} is out of range`);
    return v;
  }
}

function zeroRange(b: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}

function decodeStatic(n: AbiNode, r: Reader, pos: number): AbiValue {
  const w = r.word(pos);
  switch (n.k) {
    case 'uint': {
      const v = r.uint(pos);
      if (n.bits < 256 && v >> BigInt(n.bits) !== 0n) {
        throw new AbiCodecError('non_canonical', `uint${n.bits} at byte ${pos} has high bits set`);
      }
      return v;
    }
    case 'address':
      if (!zeroRange(w, 0, 12))
        throw new AbiCodecError('non_canonical', `address at byte ${pos} has dirty padding`);
      return `0x${r.b.toString('hex', pos + 12, pos + 32)}`;
    case 'bool':
      if (!zeroRange(w, 0, 31) || (w[31] as number) > 1) {
        throw new AbiCodecError('non_canonical', `bool at byte ${pos} is not 0 or 1`);
      }
      return w[31] === 1;
    case 'fixedBytes':
      if (!zeroRange(w, n.size, 32))
        throw new AbiCodecError('non_canonical', `bytes${n.size} at byte ${pos} has dirty padding`);
      return `0x${r.b.toString('hex', pos, pos + n.size)}`;
    case 'tuple':
      return decodeFrame(n, r, pos).value;
    default:
      throw new AbiCodecError('malformed', `dynamic type decoded as static at byte ${pos}`);
  }
}

/** Decodes a frame (a tuple's or an array's elements) starting at `start`; returns its size. */
function decodeFrameOf(
  fields: readonly AbiNode[],
  r: Reader,
  start: number,
  head: number,
): { values: AbiValue[]; size: number } {
  let h = start;
  let tail = start + head;
  if (tail > r.end) throw new AbiCodecError('malformed', `head at byte ${start} runs past the end`);
  const values: AbiValue[] = [];
  for (const f of fields) {
    if (isDynamic(f)) {
      const off = r.small(h);
      if (start + off !== tail) {
        throw new AbiCodecError('non_canonical', `offset at byte ${h} points to ${start + off}, not ${tail}`);
      }
      const d = decodeDynamic(f, r, tail);
      values.push(d.value);
      tail += d.size;
      h += 32;
    } else {
      values.push(decodeStatic(f, r, h));
      h += staticSize(f);
    }
  }
  return { values, size: tail - start };
}

function decodeFrame(
  n: AbiNode & { k: 'tuple' },
  r: Reader,
  start: number,
): { value: AbiValue; size: number } {
  const { values, size } = decodeFrameOf(n.fields, r, start, n.head);
  const obj: Record<string, AbiValue> = {};
  n.names.forEach((name, i) => {
    obj[name === '' ? String(i) : name] = values[i] as AbiValue;
  });
  return { value: obj, size };
}

function decodeDynamic(n: AbiNode, r: Reader, pos: number): { value: AbiValue; size: number } {
  if (n.k === 'bytes') {
    const len = r.small(pos);
    const padded = Math.ceil(len / 32) * 32;
    if (pos + 32 + padded > r.end)
      throw new AbiCodecError('malformed', `bytes at byte ${pos} run past the end`);
    if (!zeroRange(r.b, pos + 32 + len, pos + 32 + padded)) {
      throw new AbiCodecError('non_canonical', `bytes at byte ${pos} have dirty padding`);
    }
    return { value: `0x${r.b.toString('hex', pos + 32, pos + 32 + len)}`, size: 32 + padded };
  }
  if (n.k === 'array') {
    const count = r.small(pos);
    if (count > MAX_LENGTH) throw new AbiCodecError('malformed', `array at byte ${pos} is too long`);
    const elemHead = isDynamic(n.child) ? 32 : staticSize(n.child);
    if (pos + 32 + count * elemHead > r.end)
      throw new AbiCodecError('malformed', `array at byte ${pos} runs past the end`);
    const fields = new Array<AbiNode>(count).fill(n.child);
    const { values, size } = decodeFrameOf(fields, r, pos + 32, count * elemHead);
    return { value: values, size: 32 + size };
  }
  if (n.k === 'tuple') return decodeFrame(n, r, pos);
  throw new AbiCodecError('malformed', `static type decoded as dynamic at byte ${pos}`);
}

/**
 * Decodes the arguments (`inputs` tuple) from `data` starting at byte `offset` (4 for calldata);
 * returns the values keyed by name and the number of bytes consumed from `offset`.
 */
export function decodeCanonical(
  inputs: AbiNode & { k: 'tuple' },
  data: Buffer,
  offset: number,
): { args: Record<string, AbiValue>; size: number } {
  const r = new Reader(data, data.length);
  const { value, size } = decodeFrame(inputs, r, offset);
  return { args: value as Record<string, AbiValue>, size };
}

// ── encode ─────────────────────────────────────────────────────────────────────────────────

const U256 = (1n << 256n) - 1n;
const HEX_RE = /^0x(?:[0-9a-fA-F]{2})*$/;
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

function toUint(v: unknown, bits: number, path: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^(?:\d+|0x[0-9a-fA-F]+)$/.test(v)) n = BigInt(v);
  if (n === undefined || n < 0n || n > U256 || (bits < 256 && n >> BigInt(bits) !== 0n)) {
    throw new AbiCodecError('malformed', `${path}: not a uint${bits}`);
  }
  return n;
}

const word = (n: bigint): string => n.toString(16).padStart(64, '0');

function encodeStatic(n: AbiNode, v: unknown, path: string): string {
  switch (n.k) {
    case 'uint':
      return word(toUint(v, n.bits, path));
    case 'address':
      if (typeof v !== 'string' || !ADDRESS_RE.test(v))
        throw new AbiCodecError('malformed', `${path}: not an address`);
      return v.slice(2).toLowerCase().padStart(64, '0');
    case 'bool':
      if (typeof v !== 'boolean') throw new AbiCodecError('malformed', `${path}: not a boolean`);
      return word(v ? 1n : 0n);
    case 'fixedBytes':
      if (typeof v !== 'string' || !HEX_RE.test(v) || v.length !== 2 + 2 * n.size) {
        throw new AbiCodecError('malformed', `${path}: not bytes${n.size}`);
      }
      return v.slice(2).toLowerCase().padEnd(64, '0');
    case 'tuple':
      return encodeTuple(n, v, path);
    default:
      throw new AbiCodecError('malformed', `${path}: dynamic type in a static position`);
  }
}

function encodeFrame(
  fields: readonly AbiNode[],
  values: readonly unknown[],
  paths: readonly string[],
): string {
  const heads: string[] = [];
  const tails: string[] = [];
  let headSize = 0;
  for (const f of fields) headSize += isDynamic(f) ? 32 : staticSize(f);
  let tailSize = 0;
  fields.forEach((f, i) => {
    const v = values[i];
    const path = paths[i] as string;
    if (isDynamic(f)) {
      heads.push(word(BigInt(headSize + tailSize)));
      const t = encodeDynamic(f, v, path);
      tails.push(t);
      tailSize += t.length / 2;
    } else heads.push(encodeStatic(f, v, path));
  });
  return heads.join('') + tails.join('');
}

function encodeTuple(n: AbiNode & { k: 'tuple' }, v: unknown, path: string): string {
  let values: unknown[];
  if (Array.isArray(v)) values = v;
  else if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    values = n.names.map((name) => {
      if (!(name in o)) throw new AbiCodecError('malformed', `${path}: lacks '${name}'`);
      return o[name];
    });
  } else throw new AbiCodecError('malformed', `${path}: not a tuple`);
  if (values.length !== n.fields.length)
    throw new AbiCodecError('malformed', `${path}: wrong number of fields`);
  return encodeFrame(
    n.fields,
    values,
    n.names.map((name, i) => `${path}.${name || i}`),
  );
}

function encodeDynamic(n: AbiNode, v: unknown, path: string): string {
  if (n.k === 'bytes') {
    if (typeof v !== 'string' || !HEX_RE.test(v))
      throw new AbiCodecError('malformed', `${path}: not hex bytes`);
    const hex = v.slice(2).toLowerCase();
    const len = hex.length / 2;
    return word(BigInt(len)) + hex.padEnd(Math.ceil(len / 32) * 64, '0');
  }
  if (n.k === 'array') {
    if (!Array.isArray(v)) throw new AbiCodecError('malformed', `${path}: not an array`);
    return (
      word(BigInt(v.length)) +
      encodeFrame(
        new Array<AbiNode>(v.length).fill(n.child),
        v,
        v.map((_, i) => `${path}[${i}]`),
      )
    );
  }
  if (n.k === 'tuple') return encodeTuple(n, v, path);
  throw new AbiCodecError('malformed', `${path}: static type in a dynamic position`);
}

/** Encodes the arguments tuple from plain values (an object keyed by name, or positional). */
export function encodeValues(inputs: AbiNode & { k: 'tuple' }, values: unknown, path = 'input_data'): string {
  return encodeTuple(inputs, values, path);
}

// JSON text for values that hold bigints (intents, journal records, state): a bigint is written as
// {"$bigint":"<decimal>"} and read back as a bigint, so money never passes through a JS number.
import type { Intent } from '../strategy.ts';

export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $bigint: v.toString() } : v));
}

export function decodeJson<T = unknown>(text: string): T {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const b = o.$bigint;
      if (typeof b === 'string' && Object.keys(o).length === 1 && /^-?\d+$/.test(b)) return BigInt(b);
    }
    return v;
  }) as T;
}

export function encodeIntent(intent: Intent): string {
  return encodeJson(intent);
}

export function decodeIntent(text: string): Intent {
  return decodeJson<Intent>(text);
}

/** A JSON-able copy with bigints as decimal strings (status output). */
export function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v)]));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = plain(v);
    return out;
  }
  return value;
}

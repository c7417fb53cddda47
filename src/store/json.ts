/** JSON for payloads and strategy state: bigints survive a round trip as `{"$bigint":"123"}`. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $bigint: v.toString(10) } : v));
}

export function fromJson(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const big = (v as { $bigint?: unknown }).$bigint;
      if (keys.length === 1 && typeof big === 'string' && /^-?[0-9]+$/.test(big)) return BigInt(big);
    }
    return v;
  });
}

/**
 * Reads the API's `encoded_token_ids` (sorted ids as a comma list, runs as `a:b`, `*` = every id)
 * into a membership test: the tests' check of what the sandbox's encoder wrote.
 */
export function decodeTokenIds(encoded: string): (id: bigint) => boolean {
  if (encoded === '*') return () => true;
  const ranges: [bigint, bigint][] = [];
  for (const part of encoded.split(',')) {
    const m = /^([0-9]+)(?::([0-9]+))?$/.exec(part.trim());
    if (!m) throw new Error(`encoded token ids: bad element '${part}'`);
    const a = BigInt(m[1] as string);
    const b = m[2] === undefined ? a : BigInt(m[2]);
    if (b < a) throw new Error(`encoded token ids: range '${part}' is reversed`);
    ranges.push([a, b]);
  }
  return (id) => ranges.some(([a, b]) => id >= a && id <= b);
}

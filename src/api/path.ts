/**
 * Tagged template that percent-encodes every interpolated path segment:
 * path`/api/v2/collections/${slug}` never lets a slug add `/`, `?` or `..` to the URL.
 */
export function path(
  strings: TemplateStringsArray,
  ...values: ReadonlyArray<string | number | bigint>
): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    const raw = String(values[i]);
    if (raw === '' || raw === '.' || raw === '..') {
      throw new TypeError(`path segment ${i + 1} is empty or a dot segment: "${raw}"`);
    }
    out += encodeURIComponent(raw) + (strings[i + 1] ?? '');
  }
  return out;
}

/** Replaces every occurrence of each secret value (and its URL-encoded form) in `text`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (!s || s.length < 6) continue;
    for (const form of new Set([s, encodeURIComponent(s)])) {
      if (out.includes(form)) out = out.split(form).join('[REDACTED]');
    }
  }
  return out;
}

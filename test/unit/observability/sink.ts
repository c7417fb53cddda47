import { Writable } from 'node:stream';

/** An in-memory log destination: every chunk written, in order. */
export function memorySink(): { stream: NodeJS.WritableStream; text: () => string; lines: () => unknown[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    stream,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as unknown),
  };
}

/** Every encoding of `secret` a sink might hold: raw, URL-encoded, JSON-escaped, base64, hex. */
export function encodings(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    Buffer.from(secret).toString('hex'),
  ];
}

/** The canaries (in any encoding) found in `text`. */
export function canaryHits(text: string, canaries: readonly string[]): string[] {
  const hits: string[] = [];
  for (const c of canaries)
    for (const form of new Set(encodings(c))) if (text.includes(form)) hits.push(`${c} as ${form}`);
  return hits;
}

import type { IncomingMessage } from 'node:http';
import { encode } from '@toon-format/toon';

/**
 * The compact response encoding of the API (spec, "Additional surfaces"): a request sending
 * `Accept: text/markdown` gets its body TOON-encoded, errors included; without that header the
 * body is JSON. The answer is marked `Content-Type: text/markdown; charset=utf-8` (clients detect
 * TOON by a content type containing `text/markdown`, shared/reference/opensea-wire.md §3).
 *
 * The value encoded is the JSON body as a client would parse it (bigint amounts as decimal
 * strings), so decoding the TOON text gives the value `JSON.parse` gives for the JSON answer.
 */

export const TOON_MEDIA_TYPE = 'text/markdown';
export const TOON_CONTENT_TYPE = 'text/markdown; charset=utf-8';

interface Ranged {
  readonly type: string;
  readonly q: number;
  readonly index: number;
}

function ranges(accept: string): Ranged[] {
  return accept.split(',').map((part, index) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qp = params.find((p) => p.startsWith('q='));
    const q = qp === undefined ? 1 : Number(qp.slice(2));
    return { type, q: Number.isFinite(q) ? q : 0, index };
  });
}

/**
 * Whether an `Accept` header asks for TOON: `text/markdown` listed with q > 0 and preferred to
 * JSON (`application/json`, `application/*` or `*\/*`) — by a higher q, or at equal q by coming
 * first. `Accept: text/markdown, application/json` is TOON; `application/json, text/markdown` JSON.
 */
export function acceptsToon(accept: string | undefined): boolean {
  if (accept === undefined || !accept.toLowerCase().includes(TOON_MEDIA_TYPE)) return false;
  const rs = ranges(accept);
  const toon = rs.find((r) => r.type === TOON_MEDIA_TYPE && r.q > 0);
  if (!toon) return false;
  const json = rs
    .filter((r) => r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*')
    .filter((r) => r.q > 0);
  return json.every((j) => toon.q > j.q || (toon.q === j.q && toon.index < j.index));
}

/** Whether this request gets TOON: an `/api` request whose `Accept` prefers `text/markdown`. */
export function wantsToon(req: IncomingMessage | undefined): boolean {
  if (!req) return false;
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  if (path !== '/api' && !path.startsWith('/api/')) return false;
  const accept = req.headers.accept;
  return acceptsToon(Array.isArray(accept) ? accept.join(',') : accept);
}

/** The TOON text of a JSON text (the body exactly as JSON clients read it). */
export function toonOfJson(json: string): string {
  return encode(JSON.parse(json) as unknown);
}

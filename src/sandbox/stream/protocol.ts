/**
 * Phoenix Channels wire protocol as the stream server speaks it: serializer versions, frame
 * codecs and topic parsing. Pure functions, no I/O.
 *
 * - vsn 2.0.0: every frame is a JSON array `[join_ref, ref, topic, event, payload]`.
 * - vsn 1.0.0 (the default when the query has no `vsn`): a JSON object
 *   `{topic, event, payload, ref}` (clients may add `join_ref`).
 *
 * Refs are echoed exactly as the client sent them (phoenix.js sends strings, hand-written clients
 * such as OpenSea's skill script send numbers).
 */

export type Vsn = 1 | 2;

/** A ref as a client sent it: phoenix.js uses strings, hand-written clients often numbers. */
export type Ref = string | number | null;

export interface PhxFrame {
  readonly joinRef: Ref;
  readonly ref: Ref;
  readonly topic: string;
  readonly event: string;
  readonly payload: unknown;
}

export const PHX_JOIN = 'phx_join';
export const PHX_LEAVE = 'phx_leave';
export const PHX_REPLY = 'phx_reply';
export const PHX_CLOSE = 'phx_close';
export const PHX_ERROR = 'phx_error';
export const HEARTBEAT = 'heartbeat';
export const PHOENIX_TOPIC = 'phoenix';

export const WILDCARD_TOPIC = 'collection:*';
const COLLECTION_PREFIX = 'collection:';

/**
 * The serializer a connection asked for with `?vsn=`: absent or `1.x` → 1, `2.x` → 2, anything
 * else → null (Phoenix refuses the connection).
 */
export function parseVsn(value: string | null | undefined): Vsn | null {
  if (value === null || value === undefined || value === '') return 1;
  if (/^1\.\d+\.\d+$/.test(value)) return 1;
  if (/^2\.\d+\.\d+$/.test(value)) return 2;
  return null;
}

export type ParsedTopic =
  | { readonly kind: 'collection'; readonly slug: string }
  | { readonly kind: 'all' }
  | { readonly kind: 'phoenix' };

/**
 * `collection:<slug>` → one collection, `collection:*` → every collection, `phoenix` → the
 * socket's own topic (heartbeats). Anything else → null ("unmatched topic"). Any non-empty slug
 * is accepted, as OpenSea does: a slug that names no collection simply delivers nothing.
 */
export function parseTopic(topic: string): ParsedTopic | null {
  if (topic === PHOENIX_TOPIC) return { kind: 'phoenix' };
  if (!topic.startsWith(COLLECTION_PREFIX)) return null;
  const slug = topic.slice(COLLECTION_PREFIX.length);
  if (slug === '*') return { kind: 'all' };
  if (slug.length === 0 || /\s/.test(slug)) return null;
  return { kind: 'collection', slug };
}

/** The topic events of a collection are broadcast on (besides `collection:*`). */
export function collectionTopic(slug: string): string {
  return COLLECTION_PREFIX + slug;
}

function isRef(v: unknown): v is Ref {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

export type DecodeResult =
  | { readonly ok: true; readonly frame: PhxFrame }
  | { readonly ok: false; readonly reason: string };

/** Decodes one client text frame; never throws. */
export function decodeFrame(vsn: Vsn, text: string): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'invalid JSON' };
  }
  if (vsn === 2) {
    if (!Array.isArray(parsed) || parsed.length !== 5) {
      return { ok: false, reason: 'expected [join_ref, ref, topic, event, payload]' };
    }
    const [joinRef, ref, topic, event, payload] = parsed as unknown[];
    if (!isRef(joinRef) || !isRef(ref)) return { ok: false, reason: 'refs must be strings, numbers or null' };
    if (typeof topic !== 'string' || typeof event !== 'string') {
      return { ok: false, reason: 'topic and event must be strings' };
    }
    return { ok: true, frame: { joinRef, ref, topic, event, payload } };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, reason: 'expected {topic, event, payload, ref}' };
  }
  const o = parsed as Record<string, unknown>;
  const joinRef = o['join_ref'] ?? null;
  const ref = o['ref'] ?? null;
  if (!isRef(joinRef) || !isRef(ref)) return { ok: false, reason: 'refs must be strings, numbers or null' };
  if (typeof o['topic'] !== 'string' || typeof o['event'] !== 'string') {
    return { ok: false, reason: 'topic and event must be strings' };
  }
  return { ok: true, frame: { joinRef, ref, topic: o['topic'], event: o['event'], payload: o['payload'] } };
}

/** Encodes one server frame. */
export function encodeFrame(vsn: Vsn, frame: PhxFrame): string {
  if (vsn === 2) {
    return JSON.stringify([frame.joinRef, frame.ref, frame.topic, frame.event, frame.payload]);
  }
  return JSON.stringify({ topic: frame.topic, event: frame.event, payload: frame.payload, ref: frame.ref });
}

/**
 * Encodes a broadcast frame (`join_ref` and `ref` null, as Phoenix broadcasts are) around a
 * payload that is already JSON, without parsing or re-serializing it: the fan-out builds each
 * event's JSON once and wraps it per serializer and topic.
 */
export function encodeBroadcast(vsn: Vsn, topic: string, event: string, payloadJson: string): string {
  if (vsn === 2) {
    return `[null,null,${JSON.stringify(topic)},${JSON.stringify(event)},${payloadJson}]`;
  }
  return `{"topic":${JSON.stringify(topic)},"event":${JSON.stringify(event)},"payload":${payloadJson},"ref":null}`;
}

/** A `phx_reply` to a client frame, carrying its refs. */
export function replyFrame(
  request: Pick<PhxFrame, 'joinRef' | 'ref' | 'topic'>,
  status: 'ok' | 'error',
  response: Readonly<Record<string, unknown>> = {},
): PhxFrame {
  return {
    joinRef: request.joinRef,
    ref: request.ref,
    topic: request.topic,
    event: PHX_REPLY,
    payload: { status, response },
  };
}

/**
 * The `event_types` filter of a join payload: `null` = no filter (every event type). An absent
 * or empty list means no filter; anything that is not a list of strings is an error.
 */
export function parseEventTypesFilter(
  payload: unknown,
): { readonly ok: true; readonly filter: ReadonlySet<string> | null } | { readonly ok: false } {
  if (payload === undefined || payload === null) return { ok: true, filter: null };
  if (typeof payload !== 'object' || Array.isArray(payload)) return { ok: false };
  const list = (payload as Record<string, unknown>)['event_types'];
  if (list === undefined || list === null) return { ok: true, filter: null };
  if (!Array.isArray(list) || !list.every((t) => typeof t === 'string')) return { ok: false };
  if (list.length === 0) return { ok: true, filter: null };
  return { ok: true, filter: new Set(list as string[]) };
}

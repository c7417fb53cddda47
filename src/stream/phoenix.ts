/** Phoenix Channels v2 frames as the client sends them: `[join_ref, ref, topic, event, payload]`. */

export const PHOENIX_TOPIC = 'phoenix';
export const PHX_JOIN = 'phx_join';
export const PHX_LEAVE = 'phx_leave';
export const PHX_REPLY = 'phx_reply';
export const PHX_ERROR = 'phx_error';
export const PHX_CLOSE = 'phx_close';
export const HEARTBEAT = 'heartbeat';
export const WILDCARD = '*';

export function topicOf(key: string): string {
  return `collection:${key}`;
}

export function joinFrame(joinRef: string, topic: string, eventTypes: readonly string[] | undefined): string {
  return JSON.stringify([joinRef, joinRef, topic, PHX_JOIN, eventTypes ? { event_types: eventTypes } : {}]);
}

export function heartbeatFrame(ref: string): string {
  return JSON.stringify([null, ref, PHOENIX_TOPIC, HEARTBEAT, {}]);
}

/**
 * The socket URL: `<base>/websocket?token=<key>&vsn=2.0.0`. `safe` is the same with the token
 * replaced, for logs.
 */
export function socketUrl(base: string, token: string): { url: string; safe: string } {
  const root = base.replace(/\/+$/, '');
  const path = root.endsWith('/websocket') ? root : `${root}/websocket`;
  return {
    url: `${path}?token=${encodeURIComponent(token)}&vsn=2.0.0`,
    safe: `${path}?token=[REDACTED]&vsn=2.0.0`,
  };
}

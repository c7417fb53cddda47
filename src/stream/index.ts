/** Public surface of the stream layer: the Phoenix v2 client, its normalizers and watermarks. */
export { type Backoff, createBackoff } from './backoff.ts';
export { createStreamClient, loadWsFactory } from './client.ts';
export {
  cancelId,
  metadataId,
  orderEventId,
  orderValidityId,
  saleId,
  transferId,
} from './identity.ts';
export {
  isStreamEventType,
  MALFORMED_KINDS,
  MalformedEvent,
  type MalformedKind,
  type NormalizeContext,
  normalizeRestEvent,
  normalizeStreamMessage,
  parseIsoMs,
  REST_TYPES_OF_STREAM_TYPE,
  STREAM_EVENT_KIND,
  STREAM_EVENT_TYPES,
  type StreamEventType,
} from './normalize.ts';
export { socketUrl } from './phoenix.ts';
export type * from './types.ts';
export { type AddResult, SeenWindow, type Watermark } from './watermark.ts';

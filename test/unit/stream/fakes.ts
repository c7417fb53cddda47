import type { AssetEventsResponse } from '@opensea/api-types';
import {
  EventLog,
  type MarketEvent as LogEvent,
  type MarketEventInput,
} from '../../../src/sandbox/events/log.ts';
import { REST_KINDS, renderEvent } from '../../../src/sandbox/server/render-events.ts';
import { renderStreamEvent } from '../../../src/sandbox/stream/render.ts';
import type { SocketLike, StreamApi } from '../../../src/stream/index.ts';
import { testCatalog } from '../sandbox/stream/samples.ts';

/** A scripted socket: the test opens it, reads what the client sent, and pushes frames. */
export class FakeSocket implements SocketLike {
  readyState = 0;
  readonly sent: unknown[] = [];
  closed: { code?: number; reason?: string } | null = null;
  terminated = false;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { readonly data: unknown }) => void) | null = null;
  onclose: ((event: { readonly code: number; readonly reason: unknown }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;

  constructor(readonly url: string) {}

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(code?: number, reason?: string): void {
    this.closed = { ...(code !== undefined ? { code } : {}), ...(reason !== undefined ? { reason } : {}) };
    this.readyState = 3;
  }
  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
  }

  // ── test side ──
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  push(frame: unknown): void {
    this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }
  /** Server-side close (e.g. dropped connection). */
  drop(code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code, reason: '' });
  }
  /** Frames sent with this event. */
  sentOf(event: string): unknown[][] {
    return (this.sent as unknown[][]).filter((f) => f[3] === event);
  }
  /** Replies ok to every join not answered yet. */
  ackJoins(): void {
    for (const f of this.sentOf('phx_join')) {
      if ((f as { acked?: boolean }).acked) continue;
      (f as { acked?: boolean }).acked = true;
      this.push([f[0], f[1], f[2], 'phx_reply', { status: 'ok', response: {} }]);
    }
  }
  /** Replies ok to the last heartbeat. */
  ackHeartbeat(): void {
    const hb = this.sentOf('heartbeat').at(-1);
    if (hb) this.push([null, hb[1], 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
  }
}

export class SocketFactoryFake {
  readonly sockets: FakeSocket[] = [];
  /** When true, a new socket fails at once (closes without opening). */
  refuse = false;
  create = (url: string): SocketLike => {
    const s = new FakeSocket(url);
    this.sockets.push(s);
    if (this.refuse) queueMicrotask(() => s.drop(1006));
    return s;
  };
  get last(): FakeSocket {
    const s = this.sockets.at(-1);
    if (!s) throw new Error('no socket');
    return s;
  }
}

const catalog = testCatalog();

/**
 * A sandbox event log with its two renderings: stream frames, and an API fake that answers
 * `events.byCollection` / `events.list` from the same log like the sandbox does (newest first,
 * `after` inclusive in seconds, paged with `next`).
 */
export class FakeMarket {
  readonly log: EventLog;
  calls: { slug: string | undefined; after: number | undefined; next: string | undefined }[] = [];
  fail: unknown = undefined;

  constructor(readonly now: () => number) {
    this.log = new EventLog(now);
  }

  append(input: MarketEventInput): LogEvent {
    return this.log.append(input);
  }

  frame(e: LogEvent, topic = `collection:${e.collection}`): unknown[] {
    const msg = renderStreamEvent(e, { sentAtMs: this.now(), catalog });
    return [null, null, topic, msg.event_type, msg];
  }

  readonly api: StreamApi = {
    events: {
      list: async (q = {}) => this.#page(undefined, q),
      byCollection: async (slug: string, q = {}) => this.#page(slug, q),
    } as StreamApi['events'],
  };

  async #page(
    slug: string | undefined,
    q: { after?: number | Date; limit?: number; next?: string },
  ): Promise<AssetEventsResponse> {
    const after = typeof q.after === 'number' ? q.after : undefined;
    this.calls.push({ slug, after, next: q.next });
    if (this.fail !== undefined) throw this.fail;
    const limit = q.limit ?? 50;
    const start = q.next !== undefined ? Number(q.next) : Number.POSITIVE_INFINITY;
    const rows = this.log
      .all()
      .filter(
        (e) =>
          REST_KINDS.includes(e.kind) &&
          e.id < start &&
          (slug === undefined || e.collection === slug) &&
          (after === undefined || Math.floor(e.timestampMs / 1000) >= after),
      )
      .reverse();
    const page = rows.slice(0, limit);
    const asset_events = page.map((e) =>
      JSON.parse(JSON.stringify(renderEvent(e, { catalog, metadataBaseUrl: 'http://x', createdAtMs: 0 }))),
    );
    const last = page.at(-1);
    return {
      asset_events,
      ...(rows.length > limit && last ? { next: String(last.id) } : {}),
    } as unknown as AssetEventsResponse;
  }
}

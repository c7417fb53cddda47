/**
 * A recording fake of the `Transport` interface: it records every RequestSpec and answers from a
 * script. Statuses outside 2xx that the spec did not list in `acceptStatus` are thrown as a
 * `RejectedError` (`http_<status>`), as the real transport would.
 */
import type { ApiResponse, RequestSpec, Transport } from '../../../src/api/request.ts';
import { RejectedError } from '../../../src/errors/index.ts';

export interface FakeReply {
  readonly status?: number;
  readonly data?: unknown;
  readonly headers?: Record<string, string>;
}

export type Scripted = FakeReply | { readonly error: unknown } | ((spec: RequestSpec) => FakeReply);

export class RecordingTransport implements Transport {
  readonly calls: RequestSpec[] = [];
  readonly #queue: Scripted[] = [];
  #fallback: Scripted | undefined;

  /** Answers for the next calls, in order. */
  reply(...replies: Scripted[]): this {
    this.#queue.push(...replies);
    return this;
  }

  /** Answer used when the queue is empty (default: none, and such a call throws). */
  otherwise(reply: Scripted): this {
    this.#fallback = reply;
    return this;
  }

  get last(): RequestSpec {
    const spec = this.calls.at(-1);
    if (!spec) throw new Error('no request was made');
    return spec;
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    return (await this.requestRaw<T>(spec)).data;
  }

  async requestRaw<T>(spec: RequestSpec): Promise<ApiResponse<T>> {
    this.calls.push(spec);
    const next = this.#queue.shift() ?? this.#fallback;
    if (next === undefined)
      throw new Error(`fake transport: no scripted reply for ${spec.method} ${spec.path}`);
    if ('error' in next) throw next.error;
    const reply = typeof next === 'function' ? next(spec) : next;
    const status = reply.status ?? 200;
    const ok = (status >= 200 && status < 300) || (spec.acceptStatus?.includes(status) ?? false);
    if (!ok) throw new RejectedError(`http_${status}`, `HTTP ${status} for ${spec.method} ${spec.path}`);
    return { status, data: reply.data as T, headers: new Headers(reply.headers ?? {}) };
  }
}

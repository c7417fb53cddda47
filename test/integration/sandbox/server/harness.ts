import { EventLog } from '../../../../src/sandbox/events/log.ts';
import {
  createSandboxServer,
  type SandboxServer,
  type SandboxServerOptions,
} from '../../../../src/sandbox/server/index.ts';

/** Starts a sandbox server on a free port for one test; `call` speaks HTTP to it with fetch. */

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

export interface Harness {
  readonly server: SandboxServer;
  readonly url: string;
  readonly events: EventLog;
  call(
    method: string,
    path: string,
    init?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<Answer>;
  close(): Promise<void>;
}

export async function startHarness(options: Partial<SandboxServerOptions> = {}): Promise<Harness> {
  const events = options.events ?? new EventLog();
  const server = createSandboxServer({ ...options, events });
  const url = await server.listen();
  return {
    server,
    url,
    events,
    async call(method, path, init = {}) {
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      if (init.key !== undefined) headers['X-API-KEY'] = init.key;
      let body: string | undefined;
      if (init.rawBody !== undefined) body = init.rawBody;
      else if (init.body !== undefined) body = JSON.stringify(init.body);
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      const res = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    close: () => server.close(),
  };
}

export function manualClock(startWall = Date.UTC(2025, 0, 1)) {
  let mono = 0;
  let wall = startWall;
  return {
    now: () => mono,
    wallNow: () => wall,
    advance(ms: number) {
      mono += ms;
      wall += ms;
    },
  };
}

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One scripted answer. */
export interface ScriptedResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** A string is sent as is; anything else as JSON (with `content-type: application/json` unless set). */
  readonly body?: unknown;
  /** Wait this long (real ms) before answering. */
  readonly delayMs?: number;
  /** Never answer (the connection stays open until the client gives up or the server closes). */
  readonly hang?: boolean;
  /** Destroy the socket without answering (a reset after the request was received). */
  readonly destroy?: boolean;
  /** Send headers and part of the body, then destroy the socket. */
  readonly truncateAfter?: string;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path without query. */
  readonly path: string;
  /** The raw request target (path and query, as sent). */
  readonly url: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Real time (ms) the request was complete. */
  readonly receivedAt: number;
}

export type Responder =
  | ScriptedResponse
  | ((req: RecordedRequest) => ScriptedResponse | Promise<ScriptedResponse>);

/**
 * A real node:http server for transport tests. Routes are `METHOD /path` (no query) with a script
 * of responses used in order; the last one repeats. Every request is recorded with its headers.
 * Unknown routes answer 599 so a test notices.
 */
export class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  readonly #routes = new Map<string, { script: Responder[]; next: number }>();
  readonly #sockets = new Set<Socket>();
  readonly #server: Server;
  #url = '';

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = req.url ?? '/';
        const q = url.indexOf('?');
        const recorded: RecordedRequest = {
          method: req.method ?? 'GET',
          path: q === -1 ? url : url.slice(0, q),
          url,
          query: new URLSearchParams(q === -1 ? '' : url.slice(q + 1)),
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        this.requests.push(recorded);
        void this.#answer(recorded, res);
      });
    });
    this.#server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  static async start(): Promise<FakeHttpServer> {
    const f = new FakeHttpServer();
    await new Promise<void>((resolve) => f.#server.listen(0, '127.0.0.1', resolve));
    const { port } = f.#server.address() as AddressInfo;
    f.#url = `http://127.0.0.1:${port}`;
    return f;
  }

  get url(): string {
    return this.#url;
  }

  /** Scripts `METHOD path`; responses are used in order and the last one repeats. */
  route(method: string, path: string, ...script: Responder[]): this {
    if (script.length === 0) throw new Error('route needs at least one response');
    this.#routes.set(`${method.toUpperCase()} ${path}`, { script, next: 0 });
    return this;
  }

  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method.toUpperCase() && r.path === path);
  }

  reset(): void {
    this.requests.length = 0;
    this.#routes.clear();
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #answer(req: RecordedRequest, res: ServerResponse): Promise<void> {
    const route = this.#routes.get(`${req.method} ${req.path}`);
    if (!route) {
      res.writeHead(599, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [`fake server: no route for ${req.method} ${req.path}`] }));
      return;
    }
    const step = route.script[Math.min(route.next, route.script.length - 1)] as Responder;
    route.next++;
    const r = typeof step === 'function' ? await step(req) : step;
    if (r.delayMs) await new Promise((x) => setTimeout(x, r.delayMs));
    if (r.hang) return;
    if (r.destroy) {
      res.socket?.destroy();
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(r.headers ?? {}))
      headers[k.toLowerCase()] = typeof v === 'string' ? v : [...v];
    let body = '';
    if (typeof r.body === 'string') body = r.body;
    else if (r.body !== undefined) {
      body = JSON.stringify(r.body);
      headers['content-type'] ??= 'application/json';
    }
    if (res.destroyed) return;
    if (r.truncateAfter !== undefined) {
      headers['content-length'] = String(Buffer.byteLength(body) + 100);
      res.writeHead(r.status ?? 200, headers);
      res.write(r.truncateAfter);
      setTimeout(() => res.socket?.destroy(), 10);
      return;
    }
    res.writeHead(r.status ?? 200, headers);
    res.end(body);
  }
}

/** JSON response shorthand. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): ScriptedResponse {
  return { status, body, headers };
}

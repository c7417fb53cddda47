import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { EventLog } from '../../../../src/sandbox/events/log.ts';
import {
  attachStreamServer,
  type StreamServer,
  type StreamServerOptions,
} from '../../../../src/sandbox/stream/server.ts';
import { testCatalog } from '../../../unit/sandbox/stream/samples.ts';

/**
 * A plain HTTP server on 127.0.0.1:0 with the stream attached and an event log the tests append
 * to directly (no chain), plus a raw `ws` client that records every frame it receives.
 */

export const API_KEY = 'sandbox-stream-test-key';

export interface StreamHarness {
  readonly http: Server;
  readonly log: EventLog;
  readonly stream: StreamServer;
  readonly port: number;
  /** Base URL as the official clients take it (`ws://127.0.0.1:<port>/socket`). */
  readonly baseUrl: string;
  /** Full socket URL with the key and the given vsn (omitted when `null`). */
  socketUrl(vsn?: string | null, token?: string): string;
  close(): Promise<void>;
}

export async function startStream(
  options: Partial<Omit<StreamServerOptions, 'events'>> = {},
): Promise<StreamHarness> {
  const http = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const log = new EventLog();
  const stream = attachStreamServer(http, {
    authenticate: (token) => token === API_KEY,
    catalog: testCatalog(),
    ...options,
    events: log,
  });
  const baseUrl = `ws://127.0.0.1:${port}/socket`;
  return {
    http,
    log,
    stream,
    port,
    baseUrl,
    socketUrl(vsn: string | null = '2.0.0', token = API_KEY) {
      const q = new URLSearchParams({ token });
      if (vsn !== null) q.set('vsn', vsn);
      return `${baseUrl}/websocket?${q.toString()}`;
    },
    async close() {
      await stream.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export type Received = { readonly text: string; readonly json: unknown; readonly valid: boolean };

/** A raw WebSocket client: sends frames, records every received frame, waits for matches. */
export class RawClient {
  readonly ws: WebSocket;
  readonly received: Received[] = [];
  #consumed = new Set<number>();
  #wake: (() => void)[] = [];
  closed: { code: number; reason: string } | null = null;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data) => {
      const text = String(data);
      let json: unknown;
      let valid = true;
      try {
        json = JSON.parse(text);
      } catch {
        valid = false;
      }
      this.received.push({ text, json, valid });
      this.#notify();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.#notify();
    });
  }

  static async connect(url: string): Promise<RawClient> {
    const ws = new WebSocket(url);
    const client = new RawClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const w of wake) w();
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Resolves with the first not-yet-taken frame matching `pred` (and marks it taken). */
  async take(pred: (json: unknown, r: Received) => boolean, timeoutMs = 3000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (let i = 0; i < this.received.length; i++) {
        const r = this.received[i] as Received;
        if (!this.#consumed.has(i) && pred(r.json, r)) {
          this.#consumed.add(i);
          return r.json;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `no matching frame within ${timeoutMs} ms; received: ${this.received.map((r) => r.text.slice(0, 200)).join('\n')}`,
        );
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#wake.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Frames received so far that match `pred` (taken or not). */
  all(pred: (json: unknown, r: Received) => boolean = () => true): unknown[] {
    return this.received.filter((r) => pred(r.json, r)).map((r) => r.json);
  }

  async waitClosed(timeoutMs = 3000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('socket did not close');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#wake.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.closed;
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)
      this.ws.terminate();
  }
}

/** Upgrade attempt that is expected to be refused: the HTTP status and body. */
export function refusedUpgrade(url: string): Promise<{ status: number; body: string; contentType: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, contentType: String(res.headers['content-type']) }),
      );
    });
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('upgrade was accepted'));
    });
    ws.on('error', () => {
      // 'unexpected-response' carries the answer
    });
  });
}

export const isArrayFrame =
  (topic: string, event: string) =>
  (j: unknown): boolean =>
    Array.isArray(j) && j[2] === topic && j[3] === event;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until `check()` is true (polling), or throws after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

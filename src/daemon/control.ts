// The daemon's control endpoint: `/health`, `/status` (JSON) and `/metrics` (Prometheus text).
// Bound to loopback by default; read-only: nothing here changes what the daemon does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { ConfigError } from '../errors/index.ts';

export interface HealthReport {
  /** `ok`: trading normally; `degraded`: running but something is stale, paused or disabled; `down`: stopping or stopped. */
  readonly state: 'ok' | 'degraded' | 'down';
  readonly reasons: readonly string[];
}

export interface ControlServerOptions {
  readonly host?: string;
  /** 0 = a free port. */
  readonly port?: number;
  /** Returns the status document; bigints are written as decimal strings. */
  readonly status: () => unknown;
  readonly health: () => HealthReport;
  readonly metrics: Registry;
  /**
   * Switches served as `POST /<name>` (kill, pause, resume). A request must carry the header
   * `x-harpoon-control: 1`: a web page cannot send it without a CORS preflight, which this server
   * never answers, so a browser on this machine cannot pull a switch. Absent = read-only.
   */
  readonly actions?: Readonly<Record<string, (query: URLSearchParams) => Promise<unknown> | unknown>>;
}

export const CONTROL_HEADER = 'x-harpoon-control';

export interface ControlServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** JSON with bigint as decimal strings (money is bigint everywhere in the daemon). */
export function toJson(value: unknown, space?: number): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), space);
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

async function handle(req: IncomingMessage, res: ServerResponse, o: ControlServerOptions): Promise<void> {
  const [path, search] = (req.url ?? '/').split('?') as [string, string | undefined];
  const action = o.actions?.[path.replace(/^\//, '')];
  if (req.method === 'POST' && action !== undefined) {
    if (req.headers[CONTROL_HEADER] !== '1') {
      send(
        res,
        403,
        'application/json',
        toJson({ error: `send the header ${CONTROL_HEADER}: 1 to use a switch` }),
      );
      return;
    }
    try {
      const result = await action(new URLSearchParams(search ?? ''));
      send(res, 200, 'application/json', toJson({ ok: true, result: result ?? null }));
    } catch (e) {
      send(
        res,
        500,
        'application/json',
        toJson({ ok: false, error: e instanceof Error ? e.message : String(e) }),
      );
    }
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(
      res,
      405,
      'application/json',
      toJson({ error: 'method not allowed: the control endpoint is read-only' }),
    );
    return;
  }
  switch (path) {
    case '/health': {
      const h = o.health();
      send(res, h.state === 'down' ? 503 : 200, 'application/json', toJson(h));
      return;
    }
    case '/status':
      send(res, 200, 'application/json', toJson(o.status(), 2));
      return;
    case '/metrics':
      send(res, 200, o.metrics.contentType, await o.metrics.metrics());
      return;
    default:
      send(
        res,
        404,
        'application/json',
        toJson({ error: `no such path: ${path ?? ''}`, paths: ['/health', '/status', '/metrics'] }),
      );
  }
}

/**
 * Starts the control server. A host other than loopback is refused: the status names wallets,
 * budgets and open orders, which is nobody else's business.
 */
export async function startControlServer(o: ControlServerOptions): Promise<ControlServer> {
  const host = o.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    throw new ConfigError(`control.host must be a loopback address, got ${host}`, {
      details: { fix: 'use 127.0.0.1 (put a reverse proxy with authentication in front if needed)' },
    });
  }
  const server: Server = createServer((req, res) => {
    handle(req, res, o).catch((err: unknown) => {
      if (!res.headersSent) {
        send(res, 500, 'application/json', toJson({ error: err instanceof Error ? err.message : 'error' }));
      } else {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new ConfigError(`control port ${o.port ?? 0} on ${host} is already in use`, {
              details: { fix: 'choose another control.port, or stop the other daemon' },
            })
          : err,
      );
    });
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

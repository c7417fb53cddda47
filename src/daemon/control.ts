// The daemon's control endpoint: `/health`, `/status` (JSON), `/metrics` (Prometheus text), the
// operator's dashboard (`/`, `/assets/*`, `/api/*`, live `/events`), the switches and the agent
// tools (`/mcp`), behind a control token.
//
// Who may do what:
// - the token (per run, or configured) goes in `Authorization: Bearer <token>`; a browser never
//   adds that header by itself, so a page on another origin cannot borrow the operator's access;
// - a request whose `Origin` is not this server's own is refused, whatever it asks;
// - bound to loopback, the Host header must name loopback too (a DNS-rebound name is refused);
// - `/health`, `/status` and `/metrics` are open on loopback (harpoon status, Prometheus), need the
//   token when bound beyond it; the dashboard's page and assets are public (they hold no data);
// - a switch (POST) needs the token, a same-origin or absent Origin, and a JSON body.
import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Registry } from 'prom-client';
import { ConfigError } from '../errors/index.ts';
import type { Console } from './console.ts';
import { CONTROL_MCP, CONTROL_READS, type ControlSwitch } from './paths.ts';

export interface HealthReport {
  /** `ok`: trading normally; `degraded`: running but something is stale, paused or disabled; `down`: stopping or stopped. */
  readonly state: 'ok' | 'degraded' | 'down';
  readonly reasons: readonly string[];
}

export { CONTROL_SWITCHES, type ControlSwitch } from './paths.ts';

/** A switch: the JSON body (an object, maybe empty) and the path's parameters (`:id`, `:hash`). */
export type ControlAction = (
  body: Readonly<Record<string, unknown>>,
  params: Readonly<Record<string, string>>,
) => Promise<unknown> | unknown;

export interface ControlServerOptions {
  readonly host?: string;
  /** 0 = a free port. */
  readonly port?: number;
  /** Needed for every switch and the dashboard's data (and for everything beyond loopback). */
  readonly token: string;
  /** Returns the status document; bigints are written as decimal strings. */
  readonly status: () => unknown;
  readonly health: () => HealthReport;
  readonly metrics: Registry;
  /**
   * Switches served as `POST /<pattern>`; a pattern may hold `:name` parameters
   * (`strategies/:id/pause`). Absent = none.
   */
  readonly actions?: Readonly<Partial<Record<ControlSwitch, ControlAction>>>;
  /** The dashboard's data and live events. */
  readonly console?: Console;
  /** The agent tools (Streamable HTTP), served at `/mcp` behind the token. */
  readonly mcp?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

export interface ControlServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
export const isLoopback = (host: string) => LOOPBACK.has(host) || /^127\./.test(host);

/** The dashboard's files, shipped in the package. */
export const ASSETS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), 'console/assets');
const require = createRequire(import.meta.url);
const VENDOR: Readonly<Record<string, string>> = {
  'uplot.min.js': 'uplot/dist/uPlot.iife.min.js',
  'uplot.min.css': 'uplot/dist/uPlot.min.css',
};
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};
/** The page may load only its own scripts and styles and talk only to this server. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** JSON with bigint as decimal strings (money is bigint everywhere in the daemon). */
export function toJson(value: unknown, space?: number): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), space);
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    'x-content-type-options': 'nosniff',
    ...extra,
  });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) =>
  send(res, status, 'application/json', toJson(value, 2));

function tokenMatches(req: IncomingMessage, token: string): boolean {
  const h = req.headers.authorization;
  if (typeof h !== 'string' || !h.startsWith('Bearer ')) return false;
  const given = Buffer.from(h.slice(7).trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** The host name of a Host header (`[::1]:80` → `::1`, `localhost:8457` → `localhost`). */
function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  return host.replace(/:\d+$/, '');
}

async function readBody(req: IncomingMessage, limit = 16 * 1024): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new RequestError(413, 'request body too large');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new RequestError(400, 'the body is not JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new RequestError(400, 'the body must be a JSON object');
  return v as Record<string, unknown>;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const a = path.split('/');
  if (p.length !== a.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const seg = p[i] as string;
    const got = a[i] as string;
    if (seg.startsWith(':')) {
      if (got === '') return null;
      params[seg.slice(1)] = decodeURIComponent(got);
    } else if (seg !== got) return null;
  }
  return params;
}

async function asset(res: ServerResponse, name: string, head: boolean): Promise<void> {
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) {
    json(res, 404, { error: 'no such asset' });
    return;
  }
  const vendor = VENDOR[name];
  let file: string;
  try {
    file = vendor !== undefined ? require.resolve(vendor) : join(ASSETS_DIR, name);
  } catch {
    json(res, 404, { error: 'no such asset' });
    return;
  }
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    json(res, 404, { error: 'no such asset' });
    return;
  }
  const ext = name.slice(name.lastIndexOf('.'));
  const type = TYPES[ext] ?? 'application/octet-stream';
  if (head) {
    res.writeHead(200, { 'content-type': type, 'content-length': body.length });
    res.end();
    return;
  }
  send(res, 200, type, body, PAGE_HEADERS);
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  o: ControlServerOptions,
  self: { readonly loopback: boolean },
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://control.invalid');
  const path = url.pathname;
  const method = req.method ?? 'GET';
  const host = req.headers.host ?? '';
  // a rebound DNS name pointing at 127.0.0.1 is not this server's name
  if (self.loopback && !isLoopback(hostName(host))) {
    json(res, 403, { error: 'this endpoint answers only to a loopback host name' });
    return;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
    json(res, 403, { error: 'requests from another origin are refused' });
    return;
  }
  const authed = tokenMatches(req, o.token);

  if (method === 'POST') {
    if (path === `/${CONTROL_MCP}` && o.mcp !== undefined) {
      if (!authed) return refuse(res);
      await o.mcp(req, res);
      return;
    }
    const rel = path.replace(/^\//, '');
    for (const [pattern, action] of Object.entries(o.actions ?? {})) {
      const params = match(pattern, rel);
      if (params === null) continue;
      if (!authed) return refuse(res);
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
        json(res, 415, { ok: false, error: 'send the switch as JSON (content-type: application/json)' });
        return;
      }
      try {
        const body = await readBody(req);
        const result = await action(body, params);
        json(res, 200, { ok: true, result: result ?? null });
      } catch (e) {
        const status = e instanceof RequestError ? e.status : 400;
        json(res, status, { ok: false, error: e instanceof Error ? e.message : String(e) });
      }
      return;
    }
    json(res, 404, { ok: false, error: `no such switch: ${path}` });
    return;
  }
  if ((method === 'GET' || method === 'DELETE') && path === `/${CONTROL_MCP}` && o.mcp !== undefined) {
    if (!authed) return refuse(res);
    await o.mcp(req, res);
    return;
  }
  if (method !== 'GET' && method !== 'HEAD') {
    json(res, 405, { error: `method ${method} not allowed` });
    return;
  }
  const head = method === 'HEAD';
  if (path === '/' || path === '/index.html') return asset(res, 'index.html', head);
  if (path.startsWith('/assets/')) return asset(res, path.slice('/assets/'.length), head);

  const open = self.loopback && (path === '/health' || path === '/status' || path === '/metrics');
  if (!open && !authed) return refuse(res);
  switch (path) {
    case '/health': {
      const h = o.health();
      json(res, h.state === 'down' ? 503 : 200, h);
      return;
    }
    case '/status':
      json(res, 200, o.status());
      return;
    case '/metrics':
      send(res, 200, o.metrics.contentType, await o.metrics.metrics());
      return;
    case '/api/snapshot':
      if (o.console === undefined) break;
      send(res, 200, 'application/json', toJson(o.console.snapshot()));
      return;
    case '/api/fills': {
      if (o.console === undefined) break;
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const before = url.searchParams.get('before');
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
        json(res, 400, { error: 'limit must be a whole number from 1 to 500' });
        return;
      }
      if (before !== null && !/^\d+$/.test(before)) {
        json(res, 400, { error: 'before must be a fill id' });
        return;
      }
      send(
        res,
        200,
        'application/json',
        toJson(o.console.fills({ limit, ...(before !== null ? { beforeId: Number(before) } : {}) })),
      );
      return;
    }
    case '/events':
      if (o.console === undefined) break;
      o.console.events(req, res);
      return;
    default:
      break;
  }
  json(res, 404, {
    error: `no such path: ${path}`,
    paths: ['/', ...CONTROL_READS.map((p) => `/${p}`)],
  });
}

function refuse(res: ServerResponse): void {
  json(res, 401, {
    error:
      'the control token is needed: send Authorization: Bearer <token> (printed when the daemon started)',
  });
}

/**
 * Starts the control server. Beyond loopback every read needs the token too; put TLS in front
 * (a reverse proxy) when it leaves the machine.
 */
export async function startControlServer(o: ControlServerOptions): Promise<ControlServer> {
  const host = o.host ?? '127.0.0.1';
  if (o.token.length < 16)
    throw new ConfigError('control.token must be at least 16 characters', {
      details: { fix: 'leave control.token unset for a random one per run, or set a long random value' },
    });
  const loopback = isLoopback(host);
  const self = { loopback };
  const server: Server = createServer((req, res) => {
    handle(req, res, o, self).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: err instanceof Error ? err.message : 'error' });
      else res.destroy();
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
  o.console?.start();
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        o.console?.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

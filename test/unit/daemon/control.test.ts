import { request } from 'node:http';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Console } from '../../../src/daemon/console.ts';
import { type ControlServer, startControlServer, toJson } from '../../../src/daemon/control.ts';
import { ConfigError } from '../../../src/errors/index.ts';

const TOKEN = 'test-control-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** A raw request (fetch cannot set Host or Origin). */
function raw(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

function fakeConsole(): Console & { started: number; stopped: number } {
  const c = {
    started: 0,
    stopped: 0,
    clients: 0,
    start() {
      c.started++;
    },
    stop() {
      c.stopped++;
    },
    snapshot: () => ({ marker: 'snapshot' }) as never,
    fills: (q: { limit: number; beforeId?: number }) => ({ total: 7, rows: [q as never] }),
    events(_req: unknown, res: import('node:http').ServerResponse) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: status\ndata: {}\n\n');
    },
    outcome() {},
    alert() {},
    orderChanged() {},
  };
  return c;
}

describe('control server', () => {
  let server: ControlServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function registry(): Registry {
    const r = new Registry();
    const c = new Counter({ name: 'harpoon_test_total', help: 'a test counter', registers: [r] });
    c.inc(3);
    return r;
  }

  const base = {
    token: TOKEN,
    status: () => ({ spend: 10n ** 18n, strategies: [{ id: 'sniper', state: 'running' }] }),
    health: () => ({ state: 'ok' as const, reasons: [] }),
  };

  it('serves health, status with bigints as strings, and Prometheus metrics (open on loopback)', async () => {
    let state: 'ok' | 'degraded' | 'down' = 'ok';
    server = await startControlServer({
      ...base,
      health: () => ({ state, reasons: state === 'ok' ? [] : ['stopping'] }),
      metrics: registry(),
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ state: 'ok', reasons: [] });
    const status = await fetch(`${server.url}/status`);
    expect(status.headers.get('content-type')).toBe('application/json');
    expect(await status.json()).toEqual({
      spend: '1000000000000000000',
      strategies: [{ id: 'sniper', state: 'running' }],
    });
    const metrics = await fetch(`${server.url}/metrics`);
    expect(await metrics.text()).toContain('harpoon_test_total 3');
    state = 'down';
    const down = await fetch(`${server.url}/health`);
    expect(down.status).toBe(503);
  });

  it('the dashboard data needs the token; the page and its assets are public and carry a strict CSP', async () => {
    const con = fakeConsole();
    server = await startControlServer({ ...base, metrics: registry(), console: con });
    expect(con.started).toBe(1);
    for (const path of ['/api/snapshot', '/api/fills', '/events']) {
      const r = await fetch(`${server.url}${path}`);
      expect(r.status, path).toBe(401);
      expect(await r.text()).not.toContain(TOKEN);
      const wrong = await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status, path).toBe(401);
    }
    expect(await (await fetch(`${server.url}/api/snapshot`, { headers: auth })).json()).toEqual({
      marker: 'snapshot',
    });
    const fills = await fetch(`${server.url}/api/fills?limit=5&before=99`, { headers: auth });
    expect(await fills.json()).toEqual({ total: 7, rows: [{ limit: 5, beforeId: 99 }] });
    expect((await fetch(`${server.url}/api/fills?limit=0`, { headers: auth })).status).toBe(400);
    expect((await fetch(`${server.url}/api/fills?before=x`, { headers: auth })).status).toBe(400);
    const ev = await fetch(`${server.url}/events`, { headers: auth });
    expect(ev.headers.get('content-type')).toBe('text/event-stream');
    expect(await ev.text()).toContain('event: status');
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const uplot = await fetch(`${server.url}/assets/uplot.min.js`);
    expect(uplot.status).toBe(200);
    expect(uplot.headers.get('content-type')).toContain('javascript');
    for (const bad of ['/assets/..%2Fcontrol.ts', '/assets/.hidden', '/assets/nope.js'])
      expect((await fetch(`${server.url}${bad}`)).status, bad).toBe(404);
    await server.close();
    server = undefined;
    expect(con.stopped).toBe(1);
  });

  it('refuses another origin and a rebound host name, even with the token', async () => {
    server = await startControlServer({ ...base, metrics: registry(), console: fakeConsole() });
    const { port } = server;
    const other = await raw(`${server.url}/status`, { headers: { origin: 'http://evil.example' } });
    expect(other.status).toBe(403);
    const rebound = await raw(`${server.url}/status`, { headers: { host: `evil.example:${port}` } });
    expect(rebound.status).toBe(403);
    const withToken = await raw(`${server.url}/api/snapshot`, {
      headers: { ...auth, origin: 'http://127.0.0.1:1' },
    });
    expect(withToken.status).toBe(403);
    const same = await raw(`${server.url}/api/snapshot`, {
      headers: { ...auth, origin: `http://127.0.0.1:${port}` },
    });
    expect(same.status).toBe(200);
    const localhost = await raw(`${server.url}/status`, { headers: { host: `localhost:${port}` } });
    expect(localhost.status).toBe(200);
  });

  it('switches need the token, JSON and the same origin; parameters come from the path', async () => {
    const pulled: string[] = [];
    server = await startControlServer({
      ...base,
      metrics: registry(),
      actions: {
        kill: (body) => {
          pulled.push(`kill:${String(body.reason)}`);
          return { killed: true };
        },
        'strategies/:id/pause': (_b, p) => {
          pulled.push(`pause:${p.id}`);
          return { paused: p.id };
        },
        resume: () => {
          throw new Error('not running');
        },
      },
    });
    const url = server.url;
    const json = { ...auth, 'content-type': 'application/json' };
    // no token; a form post (the only kind another origin can send without a preflight)
    expect((await fetch(`${url}/kill`, { method: 'POST', body: '{}' })).status).toBe(401);
    const form = await fetch(`${url}/kill`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'reason=x',
    });
    expect(form.status).toBe(415);
    const foreign = await raw(`${url}/kill`, {
      method: 'POST',
      headers: { ...json, origin: 'http://evil.example' },
      body: '{"reason":"x"}',
    });
    expect(foreign.status).toBe(403);
    expect(pulled).toEqual([]);
    const ok = await fetch(`${url}/kill`, { method: 'POST', headers: json, body: '{"reason":"x"}' });
    expect(await ok.json()).toEqual({ ok: true, result: { killed: true } });
    const p = await fetch(`${url}/strategies/sniper%201/pause`, { method: 'POST', headers: json });
    expect(await p.json()).toEqual({ ok: true, result: { paused: 'sniper 1' } });
    expect(pulled).toEqual(['kill:x', 'pause:sniper 1']);
    const notJson = await fetch(`${url}/kill`, { method: 'POST', headers: json, body: '[1]' });
    expect(notJson.status).toBe(400);
    const failed = await fetch(`${url}/resume`, { method: 'POST', headers: json });
    expect(failed.status).toBe(400);
    expect(await failed.json()).toEqual({ ok: false, error: 'not running' });
    expect((await fetch(`${url}/nope`, { method: 'POST', headers: json })).status).toBe(404);
    expect((await fetch(`${url}/kill`)).status).toBe(401);
    expect((await fetch(`${url}/status`, { method: 'PUT' })).status).toBe(405);
  });

  it('beyond loopback every read needs the token', async () => {
    server = await startControlServer({ ...base, host: '0.0.0.0', metrics: registry() });
    const url = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${url}/status`)).status).toBe(401);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect((await fetch(`${url}/status`, { headers: auth })).status).toBe(200);
  });

  it('refuses a short token and a port in use with a ConfigError', async () => {
    await expect(
      startControlServer({ ...base, token: 'short', metrics: new Registry() }),
    ).rejects.toBeInstanceOf(ConfigError);
    server = await startControlServer({ ...base, metrics: new Registry() });
    await expect(startControlServer({ ...base, port: server.port, metrics: new Registry() })).rejects.toThrow(
      /already in use/,
    );
  });

  it('writes bigints as decimal strings', () => {
    expect(toJson({ a: 2n ** 70n, b: [1n] })).toBe('{"a":"1180591620717411303424","b":["1"]}');
  });
});

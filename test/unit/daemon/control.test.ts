import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONTROL_HEADER,
  type ControlServer,
  startControlServer,
  toJson,
} from '../../../src/daemon/control.ts';
import { ConfigError } from '../../../src/errors/index.ts';

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

  it('serves health, status with bigints as strings, and Prometheus metrics', async () => {
    let state: 'ok' | 'degraded' | 'down' = 'ok';
    server = await startControlServer({
      status: () => ({ spend: 10n ** 18n, strategies: [{ id: 'sniper', state: 'running' }] }),
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
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('harpoon_test_total 3');

    state = 'down';
    const down = await fetch(`${server.url}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ state: 'down', reasons: ['stopping'] });
  });

  it('is read-only and names its paths on a 404', async () => {
    server = await startControlServer({
      status: () => ({}),
      health: () => ({ state: 'ok', reasons: [] }),
      metrics: new Registry(),
    });
    const post = await fetch(`${server.url}/status`, { method: 'POST' });
    expect(post.status).toBe(405);
    const missing = await fetch(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ paths: ['/health', '/status', '/metrics'] });
  });

  it('refuses a non-loopback host and a port in use with a ConfigError', async () => {
    await expect(
      startControlServer({
        host: '0.0.0.0',
        status: () => ({}),
        health: () => ({ state: 'ok', reasons: [] }),
        metrics: new Registry(),
      }),
    ).rejects.toBeInstanceOf(ConfigError);
    server = await startControlServer({
      status: () => ({}),
      health: () => ({ state: 'ok', reasons: [] }),
      metrics: new Registry(),
    });
    await expect(
      startControlServer({
        port: server.port,
        status: () => ({}),
        health: () => ({ state: 'ok', reasons: [] }),
        metrics: new Registry(),
      }),
    ).rejects.toThrow(/already in use/);
  });

  it('writes bigints as decimal strings', () => {
    expect(toJson({ a: 2n ** 70n, b: [1n] })).toBe('{"a":"1180591620717411303424","b":["1"]}');
  });

  it('serves switches as POST /<name> only with the control header (a web page cannot send it)', async () => {
    const pulled: string[] = [];
    server = await startControlServer({
      status: () => ({}),
      health: () => ({ state: 'ok', reasons: [] }),
      metrics: registry(),
      actions: {
        kill: (q) => {
          pulled.push(`kill:${q.get('reason')}`);
          return { killed: true };
        },
        fail: () => {
          throw new Error('not running');
        },
      },
    });
    const refused = await fetch(`${server.url}/kill?reason=x`, { method: 'POST' });
    expect(refused.status).toBe(403);
    expect(pulled).toEqual([]);
    const ok = await fetch(`${server.url}/kill?reason=x`, {
      method: 'POST',
      headers: { [CONTROL_HEADER]: '1' },
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, result: { killed: true } });
    expect(pulled).toEqual(['kill:x']);
    const failed = await fetch(`${server.url}/fail`, { method: 'POST', headers: { [CONTROL_HEADER]: '1' } });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ ok: false, error: 'not running' });
    // GET of a switch is not a switch
    expect((await fetch(`${server.url}/kill`)).status).toBe(404);
    // unknown POST paths stay refused as before
    expect(
      (await fetch(`${server.url}/status`, { method: 'POST', headers: { [CONTROL_HEADER]: '1' } })).status,
    ).toBe(405);
  });
});

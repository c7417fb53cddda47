/**
 * A web page cannot abuse the daemon's control endpoint, and no secret reaches a page or an event.
 * Against the real demo (sandbox + daemon on config/demo.yaml), in headless Chromium:
 * - a page served by another local origin (a second node:http server on another port) tries to read
 *   /status, /api/snapshot and /events (fetch, no-cors fetch, EventSource) and to pull /kill and
 *   /pause (no-cors fetch, a form post into a frame, sendBeacon): it reads nothing, and the daemon
 *   is neither killed nor paused (its status says so);
 * - a request naming a foreign Host (DNS rebinding) or Origin is refused;
 * - no secret — the sandbox's API key, any wallet's private key, a PAT or a JWT, the control token —
 *   is in the page's HTML or assets, its DOM, /api/snapshot, /api/fills or the events stream's text.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './browser.ts';
import { type DemoRun, startDemo, until } from './demo-daemon.ts';

let run: DemoRun;
let browser: Browser;
let evil: Server;
let evilUrl = '';
/** What the other origin's page reports back to its own server. */
let report: Record<string, string> | undefined;

/** The other origin's page: every attempt, its outcome as the page could see it. */
function attackerPage(daemon: string): string {
  return `<!doctype html><html><body><h1>a page on another origin</h1>
<iframe name="sink" style="display:none"></iframe>
<script>
const D = ${JSON.stringify(daemon)};
const results = {};
const attempt = async (name, fn) => {
  try { results[name] = String(await fn()); } catch (e) { results[name] = 'error: ' + (e && e.name); }
};
const readBody = async (r) => { const t = await r.text(); return r.type + ' ' + r.status + ' ' + t.length + ' ' + t.slice(0, 80); };
const post = (path, enctype, fields) => new Promise((done) => {
  const f = document.createElement('form');
  f.method = 'POST'; f.action = D + path; f.target = 'sink'; f.enctype = enctype;
  for (const [k, v] of Object.entries(fields)) { const i = document.createElement('input'); i.name = k; i.value = v; f.append(i); }
  document.body.append(f);
  const frame = document.querySelector('iframe');
  frame.addEventListener('load', () => done('submitted'), { once: true });
  f.submit();
  setTimeout(() => done('submitted (no load event)'), 3000);
});
(async () => {
  await attempt('fetch /status', async () => readBody(await fetch(D + '/status')));
  await attempt('fetch /api/snapshot', async () => readBody(await fetch(D + '/api/snapshot')));
  await attempt('fetch /events', async () => {
    const r = await fetch(D + '/events');
    const { value } = await r.body.getReader().read();
    return 'read ' + new TextDecoder().decode(value);
  });
  await attempt('no-cors /status', async () => readBody(await fetch(D + '/status', { mode: 'no-cors' })));
  await attempt('no-cors /api/snapshot', async () => readBody(await fetch(D + '/api/snapshot', { mode: 'no-cors' })));
  await attempt('EventSource /events', () => new Promise((done) => {
    const es = new EventSource(D + '/events');
    es.onmessage = (e) => { es.close(); done('read ' + e.data); };
    es.onerror = () => { es.close(); done('error: EventSource'); };
  }));
  await attempt('no-cors POST /kill', async () => readBody(await fetch(D + '/kill', {
    method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ reason: 'pwned' }),
  })));
  await attempt('no-cors POST /kill as JSON', async () => readBody(await fetch(D + '/kill', {
    method: 'POST', mode: 'no-cors', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'pwned' }),
  })));
  await attempt('cors POST /kill as JSON', async () => readBody(await fetch(D + '/kill', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'pwned' }),
  })));
  await attempt('form POST /kill (text/plain, JSON-shaped)', () => post('/kill', 'text/plain', { '{"reason":"pwned","x":"': '"}' }));
  await attempt('form POST /pause (urlencoded)', () => post('/pause', 'application/x-www-form-urlencoded', { reason: 'pwned' }));
  await attempt('sendBeacon /kill', () => navigator.sendBeacon(D + '/kill', new Blob([JSON.stringify({ reason: 'pwned' })], { type: 'text/plain' })));
  await attempt('sendBeacon /kill as JSON', () => navigator.sendBeacon(D + '/kill', new Blob([JSON.stringify({ reason: 'pwned' })], { type: 'application/json' })));
  await attempt('sendBeacon /pause', () => navigator.sendBeacon(D + '/pause', '{}'));
  await fetch('/report', { method: 'POST', body: JSON.stringify(results) });
})();
</script></body></html>`;
}

beforeAll(async () => {
  browser = await launchChromium();
  run = await startDemo(23);
  evil = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/report') {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        report = JSON.parse(body) as Record<string, string>;
        res.end('ok');
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(attackerPage(run.url));
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (evil ? evil.close(() => r()) : r()));
  await run?.close();
});

/** A GET to the daemon with the given Host and Origin headers (what a rebinding or foreign page sends). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const u = new URL(run.url);
  return new Promise((done, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('a page on another origin', () => {
  it('reads nothing and pulls no switch: the daemon is neither killed nor paused', async () => {
    expect(new URL(evilUrl).origin).not.toBe(new URL(run.url).origin);
    const page = await browser.newPage();
    await page.goto(evilUrl);
    await until('the other page reported every attempt', () => report !== undefined, 60_000);
    const r = report as Record<string, string>;
    expect(Object.keys(r)).toHaveLength(14);
    // reads: a CORS failure, an opaque empty answer, or an EventSource error — never data
    for (const name of ['fetch /status', 'fetch /api/snapshot', 'fetch /events', 'cors POST /kill as JSON'])
      expect(r[name], name).toMatch(/^error: TypeError$/);
    for (const name of [
      'no-cors /status',
      'no-cors /api/snapshot',
      'no-cors POST /kill',
      'no-cors POST /kill as JSON',
    ])
      expect(r[name], name).toBe('opaque 0 0 ');
    expect(r['EventSource /events']).toBe('error: EventSource');
    for (const [name, outcome] of Object.entries(r))
      expect(outcome, name).not.toMatch(/^read|running|wallet/);
    // give any switch that got through the time to act, then ask the daemon itself
    await new Promise((res) => setTimeout(res, 2000));
    const s = run.daemon.status();
    expect(s.state).toBe('running');
    expect(s.risk.killed).toBe(false);
    expect(s.risk.paused).toBe(false);
    expect(s.strategies.every((x) => x.state !== 'paused')).toBe(true);
    await page.close();
  }, 120_000);

  it('a foreign Host (DNS rebinding) or Origin is refused even for the open reads', async () => {
    const port = new URL(run.url).port;
    const ok = await rawGet('/status', { host: `127.0.0.1:${port}` });
    expect(ok.status).toBe(200);
    for (const headers of [
      { host: `attacker.example:${port}` },
      { host: `127.0.0.1:${port}`, origin: evilUrl },
      { host: `127.0.0.1:${port}`, origin: 'null' },
    ])
      for (const path of ['/status', '/metrics', '/api/snapshot']) {
        const r = await rawGet(path, headers);
        expect(r.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(r.body).not.toMatch(/wallet|harpoon_/);
      }
  });
});

describe('no secret reaches a page or an event', () => {
  it('the HTML, the assets, the DOM, the snapshot, the fills and the event stream hold no key, token or JWT', async () => {
    const secrets: [string, string][] = [
      ['the sandbox API key', run.sandbox.apiKey],
      ['the control token', run.token],
      ...run.sandbox.wallets.map((w, i): [string, string] => [
        `wallet ${i}'s private key`,
        w.privateKey.replace(/^0x/, ''),
      ]),
    ];
    const patterns: [string, RegExp][] = [
      ['a PAT', /pat_[0-9a-f]{48}/],
      ['a JWT', /eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*/],
    ];
    const texts: [string, string][] = [];
    for (const path of [
      '/',
      '/assets/app.js',
      '/assets/app.css',
      '/assets/uplot.min.js',
      '/assets/uplot.min.css',
    ]) {
      const res = await fetch(`${run.url}${path}`);
      expect(res.status, path).toBe(200);
      texts.push([path, await res.text()]);
    }
    const auth = { authorization: `Bearer ${run.token}` };
    for (const path of ['/api/snapshot', '/api/fills?limit=500', '/status']) {
      const res = await fetch(`${run.url}${path}`, { headers: auth });
      expect(res.status, path).toBe(200);
      texts.push([path, await res.text()]);
    }
    // the page itself, every view drawn: its DOM (the token lives in sessionStorage only)
    const page = await browser.newPage();
    await page.goto(run.dashboardUrl);
    await page.waitForSelector('[data-testid="connection"][data-state="live"]', { timeout: 15_000 });
    for (const view of ['overview', 'strategies', 'orders', 'fills', 'market', 'alerts']) {
      await page.click(`[data-testid="tab-${view}"]`);
      await page.waitForTimeout(200);
    }
    texts.push(['the page DOM', await page.content()]);
    texts.push(['the page address', page.url()]);
    expect(await page.evaluate("sessionStorage.getItem('harpoon.controlToken')")).toBe(run.token);
    await page.close();
    // the events stream for 12 s: statuses every second, samples every 5 s, orders and fills as they come
    const ctrl = new AbortController();
    const res = await fetch(`${run.url}/events`, { headers: auth, signal: ctrl.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    let events = '';
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const end = Date.now() + 12_000;
    while (Date.now() < end) {
      const chunk = await Promise.race([
        reader.read(),
        new Promise<{ done: true; value: undefined }>((r) =>
          setTimeout(() => r({ done: true, value: undefined }), end - Date.now()),
        ),
      ]);
      if (chunk.done) break;
      events += decoder.decode(chunk.value, { stream: true });
    }
    ctrl.abort();
    expect(events).toMatch(/event: status\n/);
    expect(events).toMatch(/event: sample\n/);
    texts.push(['/events', events]);

    for (const [where, text] of texts) {
      const lower = text.toLowerCase();
      for (const [what, value] of secrets)
        expect(lower.includes(value.toLowerCase()), `${what} in ${where}`).toBe(false);
      for (const [what, re] of patterns) expect(re.test(text), `${what} in ${where}`).toBe(false);
    }
    // the scan saw real content: the wallet's address is public, and it is there
    expect(texts.find(([w]) => w === '/events')?.[1].toLowerCase()).toContain(run.wallet);
  }, 120_000);
});

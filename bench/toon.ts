/**
 * TOON benchmark (issue 12): the bytes `api.toon: true` saves on the daemon's own call mix, and
 * what decoding TOON costs beside JSON.parse.
 *
 *   npm run bench -- toon                 # two daemon runs of 40 s each (live, demo config)
 *   npm run bench -- toon --seconds 20    # shorter runs
 *   npm run bench -- toon --paper         # paper mode (no orders, no transactions)
 *
 * One sandbox (seed 1, simulated activity 3 actions/s, as the demo). The daemon runs on the demo
 * config twice for the same time — first with `api.toon: false`, then `true` (its own wallet and
 * store each time: wallet 0, then wallet 1) — with its API base URL pointed at a counting HTTP
 * proxy in front of the sandbox's API. The stream (websocket) is not proxied: it is not REST.
 * The proxy records per request: method, path class (ids, slugs, addresses, hashes, the chain
 * replaced by placeholders), status, response body bytes (headers not counted), content type and
 * the Accept the client sent.
 *
 * Every GET the proxy forwards it re-asks at once in the other format ("shadow" requests, on an
 * API key of their own account so the daemon's rate budget is untouched; never seen by the
 * daemon), so each GET has its answer in both formats from the same moment.
 *
 * bytesSavedPct = (json − toon) / json · 100 over the JSON run's call mix: per path class the
 * average body bytes per answer in each format — from those same-request pairs — weighted by the
 * JSON run's call counts (a different number of calls in the other run does not bias it).
 * Positive = TOON is smaller. Non-GET classes ask JSON in both runs and count as unchanged.
 * twoRunBytesSavedPct is the same weighting over each run's own answers (JSON run vs TOON run):
 * it is confounded by the market moving between the runs (the simulator's books grow, so the
 * later run's order pages are longer), reported beside it so the difference is visible.
 *
 * Decode time, on the distinct pairs: JSON.parse of the JSON text vs decodeToon (src/api/toon.ts,
 * what the transport runs) of the TOON text, the median of repeated batches per answer; µs per KB
 * of each format's own text, and p50 per answer.
 *
 * Fails loudly if the TOON run received no TOON answers, or the JSON run any.
 * Progress on stderr; one JSON object as the last stdout line.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { encode } from '@toon-format/toon';
import { decodeToon, isToonContentType, TOON_ACCEPT } from '../src/api/toon.ts';
import { demoDaemonOptions, wrapEth } from '../src/cli/commands/demo.ts';
import { createDaemon } from '../src/daemon/index.ts';
import { silentLogger } from '../src/observability/index.ts';
import { createSandbox } from '../src/sandbox/index.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '40' },
    paper: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
const SECONDS = Number(values.seconds);
if (!Number.isFinite(SECONDS) || SECONDS <= 0) throw new Error(`--seconds must be a positive number`);
const PAPER = values.paper === true;
/** Shadow requests at once, and at most per run (a bound on the extra load). */
const SHADOW_CONCURRENCY = 4;
const SHADOW_MAX_PER_RUN = 1500;
/** Decode timing: at most this many distinct answers, spread over the classes. */
const DECODE_SAMPLES = 240;
const log = (msg: string) => process.stderr.write(`${msg}\n`);
const round = (n: number, d = 2) => (Number.isFinite(n) ? Math.round(n * 10 ** d) / 10 ** d : null);

type Format = 'json' | 'toon';

interface CallRecord {
  readonly method: string;
  readonly cls: string;
  readonly status: number;
  readonly bytes: number;
  readonly contentType: string;
  readonly accept: string;
}

interface Pair {
  readonly cls: string;
  readonly json: string;
  readonly toon: string;
}

// -------------------------------------------------------------------------------------------------
// path classes

function classifier(facts: { slugs: readonly string[]; chain: string }) {
  const slugs = new Set(facts.slugs);
  return (method: string, url: string): string => {
    const path = url.split('?', 1)[0] ?? '/';
    const segs = path.split('/').map((raw) => {
      let s = raw;
      try {
        s = decodeURIComponent(raw);
      } catch {
        // keep the raw segment
      }
      if (/^0x[0-9a-fA-F]{40}$/.test(s)) return '{address}';
      if (/^0x[0-9a-fA-F]{64}$/.test(s)) return '{hash}';
      if (/^0x[0-9a-fA-F]+$/.test(s)) return '{hex}';
      if (/^\d+$/.test(s)) return '{id}';
      if (slugs.has(s)) return '{slug}';
      if (s === facts.chain) return '{chain}';
      return s;
    });
    return `${method} ${segs.join('/')}`;
  };
}

// -------------------------------------------------------------------------------------------------
// the counting proxy

interface Proxy {
  readonly url: string;
  readonly records: CallRecord[];
  readonly pairs: Pair[];
  shadowStats(): { sent: number; paired: number; skipped: number };
  /** Waits for the shadow requests in flight. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te']);

function forwardHeaders(h: IncomingHttpHeaders, host: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  out['host'] = host;
  return out;
}

function send(
  agent: Agent,
  target: URL,
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body: Buffer | undefined,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, method, path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function startProxy(
  targetUrl: string,
  classify: (method: string, url: string) => string,
  shadowKey: string,
): Promise<Proxy> {
  const target = new URL(targetUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const records: CallRecord[] = [];
  const pairs: Pair[] = [];
  const stats = { sent: 0, paired: 0, skipped: 0 };
  const queue: (() => Promise<void>)[] = [];
  let active = 0;
  let idle: (() => void)[] = [];
  const pump = () => {
    while (active < SHADOW_CONCURRENCY && queue.length > 0) {
      const job = queue.shift() as () => Promise<void>;
      active++;
      void job().finally(() => {
        active--;
        pump();
      });
    }
    if (active === 0 && queue.length === 0) {
      for (const f of idle) f();
      idle = [];
    }
  };

  /** Re-asks a GET in the other format (own key), pairs the two bodies when both are the same status. */
  function shadow(
    path: string,
    headers: Record<string, string | string[]>,
    got: { status: number; body: Buffer; toon: boolean },
    cls: string,
  ) {
    if (stats.sent >= SHADOW_MAX_PER_RUN) {
      stats.skipped++;
      return;
    }
    stats.sent++;
    queue.push(async () => {
      const h = { ...headers, accept: got.toon ? 'application/json' : TOON_ACCEPT, 'x-api-key': shadowKey };
      const r = await send(agent, target, 'GET', path, h, undefined).catch(() => undefined);
      const otherToon = isToonContentType(String(r?.headers['content-type'] ?? ''));
      if (!r || r.status !== got.status || otherToon === got.toon) {
        stats.skipped++;
        return;
      }
      stats.paired++;
      const a = got.body.toString('utf8');
      const b = r.body.toString('utf8');
      pairs.push({ cls, json: got.toon ? b : a, toon: got.toon ? a : b });
    });
    pump();
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const headers = forwardHeaders(req.headers, target.host);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      send(agent, target, method, url, headers, body).then(
        (up) => {
          const out = forwardHeaders(up.headers, target.host);
          delete out['host'];
          out['content-length'] = String(up.body.length);
          res.writeHead(up.status, out);
          res.end(up.body);
          const contentType = String(up.headers['content-type'] ?? '').split(';', 1)[0] ?? '';
          const cls = classify(method, url);
          records.push({
            method,
            cls,
            status: up.status,
            bytes: up.body.length,
            contentType: contentType || '(none)',
            accept: String(req.headers.accept ?? '(none)'),
          });
          const isApi = url.startsWith('/api/');
          const toon = isToonContentType(contentType);
          if (method === 'GET' && isApi && (toon || contentType.includes('json')))
            shadow(url, headers, { status: up.status, body: up.body, toon }, cls);
        },
        () => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end('bench proxy: upstream failed');
        },
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, '')}`,
    records,
    pairs,
    shadowStats: () => ({ ...stats }),
    drain: () =>
      new Promise<void>((r) => {
        if (active === 0 && queue.length === 0) r();
        else idle.push(r);
      }),
    async close() {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      agent.destroy();
    },
  };
}

// -------------------------------------------------------------------------------------------------
// statistics

function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s[Math.max(0, Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1))] as number;
}

interface ClassBytes {
  calls: number;
  bytes: number;
}

function byClass(records: readonly CallRecord[]): Map<string, ClassBytes> {
  const m = new Map<string, ClassBytes>();
  for (const r of records) {
    const c = m.get(r.cls) ?? { calls: 0, bytes: 0 };
    c.calls++;
    c.bytes += r.bytes;
    m.set(r.cls, c);
  }
  return m;
}

function countBy<T>(xs: readonly T[], key: (x: T) => string): Record<string, number> {
  const o: Record<string, number> = {};
  for (const x of xs) o[key(x)] = (o[key(x)] ?? 0) + 1;
  return o;
}

/** Where two values differ (up to 3 paths), to tell a moved market from a lossy encoding. */
function diffPaths(a: unknown, b: unknown, at = '$', out: string[] = []): string[] {
  if (out.length >= 3 || isDeepStrictEqual(a, b)) return out;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys)
      diffPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`, out);
  } else out.push(at);
  return out;
}

/** Median µs per call of `fn` over repeated batches (each batch at least ~0.3 ms). */
function timeUs(fn: () => unknown, reps: number): number {
  for (let i = 0; i < 3; i++) fn();
  let n = 1;
  for (;;) {
    const t = performance.now();
    for (let i = 0; i < n; i++) fn();
    if (performance.now() - t >= 0.3 || n >= 4096) break;
    n *= 2;
  }
  const per: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) fn();
    per.push(((performance.now() - t) * 1000) / n);
  }
  return percentile(per, 50);
}

// -------------------------------------------------------------------------------------------------

const sandbox = await createSandbox({ seed: 1, activity: 3, onProgress: log });
const dirs: string[] = [];
try {
  const info = sandbox.info();
  const classify = classifier({
    slugs: [...info.collections.map((c) => c.slug), ...info.drops],
    chain: info.chain,
  });

  async function runDaemon(format: Format, wallet: number) {
    const dir = mkdtempSync(join(tmpdir(), `helper-toon-${format}-`));
    dirs.push(dir);
    const w = sandbox.wallets[wallet];
    if (!w) throw new Error(`the sandbox handed out no wallet ${wallet}`);
    if (!PAPER) await wrapEth(sandbox, w.privateKey, 2n * 10n ** 18n);
    // the shadow requests' own key, of their own account: the daemon's rate budget is untouched
    const shadowKey = sandbox.server.keys.issue(`bench-toon-shadow-${format}`).apiKey;
    const proxy = await startProxy(sandbox.apiUrl, classify, shadowKey);
    const base = await demoDaemonOptions(sandbox, { paper: PAPER, dir, wallet });
    const options = { ...base, api: { ...base.api, baseUrl: proxy.url, toon: format === 'toon' } };
    const daemon = createDaemon(options, { logger: silentLogger() });
    const t0 = performance.now();
    try {
      await daemon.start();
      log(`${format} run: daemon ready in ${Math.round(performance.now() - t0)} ms; trading ${SECONDS} s`);
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const s = daemon.status();
      log(
        `${format} run: events ${s.events.total}, intents ${s.intents.emitted}, orders ${s.orders.placed}, fills ${s.fills.total}`,
      );
    } finally {
      await daemon.stop();
      await proxy.drain();
      await proxy.close();
    }
    const sh = proxy.shadowStats();
    log(
      `${format} run: ${proxy.records.length} REST calls, ${proxy.records.reduce((a, r) => a + r.bytes, 0)} body bytes; ` +
        `shadow GETs ${sh.sent} (${sh.paired} paired, ${sh.skipped} skipped)`,
    );
    return { records: proxy.records, pairs: proxy.pairs, shadow: sh };
  }

  const json = await runDaemon('json', 0);
  const toon = await runDaemon('toon', 1);

  // ---- the formats really were what they claim
  const ctJson = countBy(json.records, (r) => r.contentType);
  const ctToon = countBy(toon.records, (r) => r.contentType);
  const acceptToon = countBy(toon.records, (r) => `${r.method} ${r.accept}`);
  log(`content types, json run: ${JSON.stringify(ctJson)}`);
  log(`content types, toon run: ${JSON.stringify(ctToon)}`);
  log(`accept by method, toon run: ${JSON.stringify(acceptToon)}`);
  const toonAnswers = toon.records.filter((r) => isToonContentType(r.contentType)).length;
  if (toonAnswers === 0)
    throw new Error('FAIL: the toon run received no TOON answer (no text/markdown content type)');
  if (json.records.some((r) => isToonContentType(r.contentType)))
    throw new Error('FAIL: the json run received TOON answers');
  if (json.records.some((r) => r.accept.includes('markdown')))
    throw new Error('FAIL: the json run asked for TOON');
  const notHonoured = toon.records.filter(
    (r) => r.accept === TOON_ACCEPT && r.status < 300 && !isToonContentType(r.contentType),
  );
  if (notHonoured.length > 0)
    log(
      `WARNING: ${notHonoured.length} TOON requests answered otherwise: ${JSON.stringify(countBy(notHonoured, (r) => `${r.cls} ${r.contentType}`))}`,
    );
  const postsAskingToon = toon.records.filter((r) => r.method !== 'GET' && r.accept.includes('markdown'));
  if (postsAskingToon.length > 0)
    throw new Error(`FAIL: ${postsAskingToon.length} non-GET requests asked for TOON`);

  // ---- bytes over the JSON run's call mix
  const cj = byClass(json.records);
  const ct = byClass(toon.records);
  const pairsByClass = new Map<string, { json: number; toon: number; n: number }>();
  for (const p of [...json.pairs, ...toon.pairs]) {
    const c = pairsByClass.get(p.cls) ?? { json: 0, toon: 0, n: 0 };
    c.json += Buffer.byteLength(p.json);
    c.toon += Buffer.byteLength(p.toon);
    c.n++;
    pairsByClass.set(p.cls, c);
  }
  const sums = { json: 0, toon: 0, getJson: 0, getToon: 0, twoRunJson: 0, twoRunToon: 0 };
  const missing: string[] = [];
  const rows: {
    class: string;
    calls: number;
    jsonBytesPerAnswer: number;
    toonBytesPerAnswer: number;
    savedPct: number | null;
    pairs: number;
    twoRun: { json: number; toon: number; savedPct: number | null };
  }[] = [];
  for (const [cls, j] of cj) {
    const n = j.calls;
    const jAvg = j.bytes / n;
    const t = ct.get(cls);
    const pc = pairsByClass.get(cls);
    // paired: both formats of the same requests; a class without pairs (not a GET: JSON in both
    // runs) counts as unchanged
    const pJ = pc ? pc.json / pc.n : jAvg;
    const pT = pc ? pc.toon / pc.n : jAvg;
    sums.json += n * pJ;
    sums.toon += n * pT;
    if (cls.startsWith('GET ')) {
      sums.getJson += n * pJ;
      sums.getToon += n * pT;
    }
    // two runs: each run's own answers (a class the toon run never called: the paired ratio)
    let tAvg = t ? t.bytes / t.calls : undefined;
    if (tAvg === undefined) {
      missing.push(cls);
      tAvg = (jAvg * pT) / pJ;
    }
    sums.twoRunJson += n * jAvg;
    sums.twoRunToon += n * tAvg;
    rows.push({
      class: cls,
      calls: n,
      jsonBytesPerAnswer: Math.round(pJ),
      toonBytesPerAnswer: Math.round(pT),
      savedPct: round(((pJ - pT) / pJ) * 100, 1),
      pairs: pc?.n ?? 0,
      twoRun: {
        json: Math.round(jAvg),
        toon: Math.round(tAvg),
        savedPct: round(((jAvg - tAvg) / jAvg) * 100, 1),
      },
    });
  }
  rows.sort((a, b) => b.calls * b.jsonBytesPerAnswer - a.calls * a.jsonBytesPerAnswer);
  const pct = (a: number, b: number) => (a > 0 ? ((a - b) / a) * 100 : Number.NaN);
  const bytesSavedPct = pct(sums.json, sums.toon);
  const getBytesSavedPct = pct(sums.getJson, sums.getToon);
  const twoRunBytesSavedPct = pct(sums.twoRunJson, sums.twoRunToon);

  log('');
  log(
    `${'class (calls in the json run)'.padEnd(62)} calls  json B/ans  toon B/ans   saved | two runs: json   toon   saved`,
  );
  for (const r of rows.slice(0, 20))
    log(
      `${r.class.padEnd(62)} ${String(r.calls).padStart(5)} ${String(r.jsonBytesPerAnswer).padStart(11)} ` +
        `${String(r.toonBytesPerAnswer).padStart(11)} ${String(r.savedPct ?? '-').padStart(6)}% | ` +
        `${String(r.twoRun.json).padStart(14)} ${String(r.twoRun.toon).padStart(6)} ${String(r.twoRun.savedPct ?? '-').padStart(6)}%`,
    );
  if (missing.length > 0)
    log(
      `classes the toon run never called (paired ratio used for the two-run figure): ${missing.join(', ')}`,
    );
  log(
    `bytes over the json run's call mix, same requests in both formats: json ${Math.round(sums.json)}, ` +
      `toon ${Math.round(sums.toon)} → saved ${round(bytesSavedPct)} % (GETs only ${round(getBytesSavedPct)} %)`,
  );
  log(
    `two runs compared (each run's own answers, market moved in between): json ${Math.round(sums.twoRunJson)}, ` +
      `toon ${Math.round(sums.twoRunToon)} → saved ${round(twoRunBytesSavedPct)} %`,
  );

  // ---- decode time on the paired answers
  const seen = new Set<string>();
  const perClass = new Map<string, Pair[]>();
  let lossless = 0;
  const differ: string[] = [];
  const lossy: string[] = [];
  for (const p of [...json.pairs, ...toon.pairs]) {
    const h = createHash('sha1').update(p.json).digest('hex');
    if (seen.has(h)) continue;
    seen.add(h);
    const value = JSON.parse(p.json) as unknown;
    // the encoding itself: this JSON answer through TOON and back (what the sandbox serves)
    const back = decodeToon(encode(value));
    if (!isDeepStrictEqual(back, value)) lossy.push(`${p.cls} at ${diffPaths(back, value).join(', ')}`);
    // the pair: the same request answered twice a few ms apart; the market may have moved
    if (isDeepStrictEqual(decodeToon(p.toon), value)) lossless++;
    else differ.push(`${p.cls} at ${diffPaths(decodeToon(p.toon), value).join(', ')}`);
    const l = perClass.get(p.cls) ?? [];
    l.push(p);
    perClass.set(p.cls, l);
  }
  if (lossy.length > 0)
    throw new Error(
      `FAIL: TOON is not lossless for ${lossy.length} answers: ${lossy.slice(0, 5).join('; ')}`,
    );
  const samples: Pair[] = [];
  const lists = [...perClass.values()];
  for (let i = 0; samples.length < DECODE_SAMPLES && lists.some((l) => l.length > i); i++)
    for (const l of lists) if (l[i] && samples.length < DECODE_SAMPLES) samples.push(l[i] as Pair);
  if (samples.length === 0) throw new Error('FAIL: no paired answers to time the decoding on');
  log(
    `decode timing on ${samples.length} distinct answers (every JSON answer survives JSON → TOON → value unchanged; ${lossless} pairs decode to the same value, ${differ.length} differ — fetched ms apart)`,
  );
  if (differ.length > 0) log(`  pairs that differ, by class: ${JSON.stringify(countBy(differ, (c) => c))}`);
  const usJson: number[] = [];
  const usToon: number[] = [];
  let kbJson = 0;
  let kbToon = 0;
  for (const p of samples) {
    usJson.push(timeUs(() => JSON.parse(p.json), 9));
    usToon.push(timeUs(() => decodeToon(p.toon), 9));
    kbJson += Buffer.byteLength(p.json) / 1024;
    kbToon += Buffer.byteLength(p.toon) / 1024;
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const decodeUsPerKbJson = sum(usJson) / kbJson;
  const decodeUsPerKbToon = sum(usToon) / kbToon;
  log(
    `decode: JSON.parse ${round(decodeUsPerKbJson)} µs/KB (p50 ${round(percentile(usJson, 50))} µs/answer), ` +
      `decodeToon ${round(decodeUsPerKbToon)} µs/KB (p50 ${round(percentile(usToon, 50))} µs/answer); ` +
      `TOON takes ${round(sum(usToon) / sum(usJson), 1)}× the time of JSON for the same answers`,
  );

  const calls: Record<string, { json: number; toon: number }> = {};
  for (const cls of new Set([...cj.keys(), ...ct.keys()]))
    calls[cls] = { json: cj.get(cls)?.calls ?? 0, toon: ct.get(cls)?.calls ?? 0 };
  const out = {
    bytesSavedPct: round(bytesSavedPct),
    jsonBytes: Math.round(sums.json),
    toonBytes: Math.round(sums.toon),
    getBytesSavedPct: round(getBytesSavedPct),
    twoRunBytesSavedPct: round(twoRunBytesSavedPct),
    twoRunJsonBytes: Math.round(sums.twoRunJson),
    twoRunToonBytes: Math.round(sums.twoRunToon),
    seconds: SECONDS,
    mode: PAPER ? 'paper' : 'live',
    callsJsonRun: json.records.length,
    callsToonRun: toon.records.length,
    calls,
    contentTypes: { json: ctJson, toon: ctToon },
    decodeUsPerKbJson: round(decodeUsPerKbJson),
    decodeUsPerKbToon: round(decodeUsPerKbToon),
    decodeUsP50Json: round(percentile(usJson, 50)),
    decodeUsP50Toon: round(percentile(usToon, 50)),
    decodeToonVsJsonTime: round(sum(usToon) / sum(usJson), 2),
    decodeSamples: samples.length,
    pairs: { distinct: lossless + differ.length, sameValue: lossless },
    byClass: rows.slice(0, 10),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await sandbox.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

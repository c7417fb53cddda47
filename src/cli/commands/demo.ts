import { setMaxListeners } from 'node:events';
import { createApiClient } from '../../api/client.ts';
import { createTransport } from '../../api/transport.ts';
import { Secret } from '../../domain/secret.ts';
import { ConfigError, isBaseError } from '../../errors/index.ts';
import { silentLogger } from '../../observability/logger.ts';
import { formatRate, parseGroupRates } from '../../ratelimit/rates.ts';
import { createScheduler } from '../../ratelimit/scheduler.ts';
import { Priority, RATE_GROUPS, type RateGroup } from '../../ratelimit/types.ts';
import { createRateLimitServer } from '../../sandbox/ratelimit/server.ts';
import { ExitCode } from '../exit.ts';
import { packageVersion } from '../package-info.ts';
import type { CommandContext } from '../spec.ts';

/** What the live run enforces (the server) and what the key advertises (25 % more for `read`). */
const ENFORCED = {
  read: { capacity: 8, windowMs: 1_000 },
  write: { capacity: 2, windowMs: 1_000 },
  fulfillment: { capacity: 1, windowMs: 1_000 },
};
const ADVERTISED = { read: '10/s', write: '2/s', fulfillment: '1/s' };
const DEMAND_FACTOR = 3;

const SEAPORT = '0x0000000000000068f116a894984e2db1123eb395';
const FAKE_HASH = `0x${'ab'.repeat(32)}`;
const FULFILLER = `0x${'12'.repeat(20)}`;

/**
 * `harpoon demo` (what `npm start` runs). Today: a live run of the typed API client and the
 * rate-limit scheduler against the sandbox's token-bucket server, then what is built and what is not.
 */
export async function runDemo(ctx: CommandContext): Promise<number> {
  const out = (line = '') => ctx.io.stdout(`${line}\n`);
  const secondsFlag = ctx.flags['seconds'];
  const seconds = secondsFlag === undefined ? 10 : Number(secondsFlag);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600) {
    throw new ConfigError(
      `--seconds: "${String(secondsFlag)}" is not a whole number of seconds from 1 to 600`,
    );
  }

  out(`harpoon ${packageVersion()} - unattended NFT trading daemon for the OpenSea API v2`);
  out();
  out('harpoon snipes underpriced listings, keeps collection and trait offers at the top of the');
  out('book, rebalances holdings and mints drops, unattended. Strategies return intents; the engine');
  out('checks them against risk limits and a calldata guard before anything is signed.');
  out();
  out(`Live run (${seconds} s): the typed API client and the rate-limit scheduler against a local`);
  out('server that meters like the marketplace (token bucket per account and group, X-RateLimit-*');
  out('headers, 429 + Retry-After). Its key advertises read 10/s but enforces 8/s: the scheduler must');
  out(`learn that from the headers. Demand is ${DEMAND_FACTOR}x what the server allows, in every group.`);
  out();

  const server = createRateLimitServer({ limits: ENFORCED, advertised: ADVERTISED });
  await server.listen();
  const scheduler = createScheduler({ logger: silentLogger() });
  const transport = createTransport({ baseUrl: server.url, scheduler, logger: silentLogger() });
  const api = createApiClient(transport);
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // every queued request listens to it
  const onStop = () => abort.abort();
  ctx.io.signal.addEventListener('abort', onStop, { once: true });
  try {
    const key = await api.auth.createInstantKey();
    transport.credentials.setApiKey(new Secret(key.api_key, 'api key'));
    const rates = parseGroupRates(key.rate_limits);
    for (const g of RATE_GROUPS) scheduler.setRate(g, rates[g]);
    out(
      `instant key created (${key.name}); advertised rate_limits: ${RATE_GROUPS.map((g) => `${g} ${formatRate(rates[g])}`).join(', ')}`,
    );

    const started = Date.now();
    const startServerMs = performance.now();
    const deadline = started + seconds * 1000;
    const failures: Record<string, number> = {};
    const inFlight = new Set<Promise<unknown>>();
    const call: Record<RateGroup, () => Promise<unknown>> = {
      read: () => api.collections.stats('harpoon-apes', { signal: abort.signal }),
      write: () =>
        api.orders.cancel('ethereum', SEAPORT, FAKE_HASH, undefined, {
          signal: abort.signal,
          priority: Priority.cancel,
        }),
      fulfillment: () =>
        api.listings.fulfillmentData(
          {
            listing: { hash: FAKE_HASH, chain: 'ethereum', protocol_address: SEAPORT },
            fulfiller: { address: FULFILLER },
          },
          { signal: abort.signal },
        ),
    };
    const fire = (g: RateGroup) => {
      const p = call[g]()
        .catch((e: unknown) => {
          if (abort.signal.aborted) return;
          const code = isBaseError(e) ? e.code : e instanceof Error ? e.message : 'error';
          failures[`${g}:${code}`] = (failures[`${g}:${code}`] ?? 0) + 1;
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };
    // Offer DEMAND_FACTOR x the enforced rate, spread over each second.
    const ticker = setInterval(() => {
      if (Date.now() >= deadline || abort.signal.aborted) return;
      for (const g of RATE_GROUPS) {
        const perTick = (ENFORCED[g].capacity * DEMAND_FACTOR) / 10;
        const n = Math.floor(perTick) + (Math.random() < perTick % 1 ? 1 : 0);
        for (let i = 0; i < n; i++) fire(g);
      }
    }, 100);
    const report = setInterval(() => {
      const st = scheduler.status();
      const parts = st.groups.map(
        (s) => `${s.group} ${s.served} served, ${s.queued} queued, limit ${s.limit}, 429s ${s.http429}`,
      );
      out(`  t+${Math.round((Date.now() - started) / 1000)}s  ${parts.join(' | ')}`);
    }, 1000);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, seconds * 1000);
      abort.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
    clearInterval(ticker);
    clearInterval(report);
    const endServerMs = performance.now();
    await scheduler.stop();
    await Promise.allSettled([...inFlight]);

    out();
    out("Result (the server's own count):");
    const counts = server.counts();
    for (const g of RATE_GROUPS) {
      const allowed = server.allowance(g, startServerMs, endServerMs);
      const c = counts[g];
      out(
        `  ${g.padEnd(11)} served ${String(c.served).padStart(4)} of ${Math.floor(allowed)} allowed (${Math.round((100 * c.served) / allowed)} %), 429s: ${c.throttled}`,
      );
    }
    const shed = Object.entries(failures).filter(
      ([k]) => !k.endsWith(':scheduler_stopped') && !k.endsWith(':superseded'),
    );
    if (shed.length > 0) out(`  other outcomes: ${shed.map(([k, n]) => `${k} x${n}`).join(', ')}`);
    out(
      '  (demand beyond the budget waits in the scheduler queue; what is still queued at the end is dropped)',
    );
  } finally {
    ctx.io.signal.removeEventListener('abort', onStop);
    await scheduler.stop().catch(() => undefined);
    await transport.close();
    await server.close();
  }

  out();
  out('Built:');
  out(
    '  [x] typed API client (src/api): every endpoint of the spec, one transport, errors classed by reaction',
  );
  out('  [x] rate-limit scheduler (src/ratelimit): read/write/fulfillment buckets corrected from headers,');
  out('      priorities, coalescing, 429 pauses, a Redis-shared bucket across instances');
  out('  [x] configuration (src/config): YAML/JSON + HARPOON_* env, secrets only from env/keystore');
  out(
    '  [x] sandbox chain fixture (src/sandbox/chain): anvil + real Seaport 1.6, WETH, collections, signed zone',
  );
  out();
  out('Not built yet:');
  out('  [ ] sandbox marketplace API and stream on that chain');
  out('  [ ] stream client (Phoenix websocket with backfill) and market view');
  out('  [ ] signer and execution (keystore signer, calldata guard, nonce ledger)');
  out('  [ ] engine and strategies (intents, risk, paper/live executors) - then this demo trades');
  out();
  out('Try: harpoon --help | harpoon config example > harpoon.yaml | npm test | npm run bench -- ratelimit');
  return abortedExit(ctx) ?? ExitCode.ok;
}

function abortedExit(ctx: CommandContext): number | undefined {
  return ctx.io.signal.aborted ? 130 : undefined;
}

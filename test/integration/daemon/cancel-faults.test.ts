/**
 * An offer counts until it is really gone, end to end: a live daemon (collection and trait
 * bidders that replace often) on the real sandbox, with each cancel fault of `/_sandbox/faults`
 * on in turn — cancels refused with 400, 403 and 500, cancels left unanswered, and cancels
 * accepted while a fulfillment signature is out (a trader fills inside the window). Sampled every
 * second from the sandbox's own book:
 * - the worst case of all our offers ACTIVE there never exceeds `risk.maxOpenOffersTotal`;
 * - the daemon's store never says an order is gone while the book says it is active (beyond one
 *   sample: the two are read a moment apart);
 * - fills inside the signature window are recorded in the store and charged to the spend ledger;
 * - after the faults stop, the open offers converge to what the strategies want (nothing left
 *   being cancelled, every offer the book holds known to the store as standing).
 */
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { demoDaemonOptions, wrapEth } from '../../../src/cli/commands/demo.ts';
import { createDaemon, type Daemon } from '../../../src/daemon/index.ts';
import { parseUnits } from '../../../src/domain/money.ts';
import { createLogger, silentLogger } from '../../../src/observability/index.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { roomyLimits, roomyRates } from '../limits.ts';
import { activeOffers as bookOffers, readStore, resetFaults, setFaults } from './book.ts';
import { postBargain } from './risk-helpers.ts';

const COLLECTIONS = ['harpoon-apes', 'harpoon-punks'] as const;
const CAP = parseUnits('0.08', 18);
const eth = (v: string) => parseUnits(v, 18);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GONE = new Set(['cancelled', 'expired', 'failed', 'filled']);
/** Phases last `seconds × HARPOON_FAULT_PHASE_SCALE` (CI: 1; a longer soak: e.g. 5). */
const SCALE = Math.max(1, Number(process.env.HARPOON_FAULT_PHASE_SCALE ?? '1') || 1);

let sb: Sandbox;
let dir: string;
let daemon: Daemon | undefined;

const faults = (body: unknown) => setFaults(sb, body);

async function stats(): Promise<{ faultCounts?: { cancel?: Record<string, unknown> } }> {
  const res = await fetch(`${sb.apiUrl}/_sandbox/stats`);
  return (await res.json()) as never;
}

/** Our offers ACTIVE in the sandbox's book: hash → worst case. */
async function activeOffers(wallet: string): Promise<Map<string, bigint>> {
  const book = await bookOffers(sb, wallet, COLLECTIONS);
  return new Map([...book].map(([h, o]) => [h, o.amount]));
}

/** A listing 8 % under the floor of each collection: the bidders reprice (replace = cancel + post). */
async function nudgeFloors(): Promise<void> {
  for (const c of COLLECTIONS) {
    const res = await fetch(`${sb.apiUrl}/api/v2/collections/${c}/stats`, {
      headers: { 'x-api-key': sb.apiKey },
    });
    const floor = ((await res.json()) as { total?: { floor_price?: number } }).total?.floor_price;
    if (typeof floor !== 'number' || !(floor > 0)) continue;
    await postBargain(sb, c, (parseUnits(floor.toFixed(6), 18) * 92n) / 100n).catch(() => undefined);
  }
}

/** The daemon store's view of its orders (read beside the writer; WAL). */
function storeOrders(): Map<string, string> {
  return readStore(dir, (db) => {
    const rows = db.prepare('SELECT hash, status FROM orders').all() as { hash: string; status: string }[];
    return new Map(rows.map((r) => [r.hash.toLowerCase(), r.status]));
  });
}

function storeFills(): { orderFills: Set<string>; fillSpend: number } {
  return readStore(dir, (db) => ({
    orderFills: new Set(
      (db.prepare('SELECT order_hash FROM order_fills').all() as { order_hash: string }[]).map((r) =>
        r.order_hash.toLowerCase(),
      ),
    ),
    fillSpend: (
      db.prepare("SELECT COUNT(*) AS n FROM spend WHERE kind LIKE 'ledger:fill:%'").get() as { n: number }
    ).n,
  }));
}

beforeAll(async () => {
  sb = await createSandbox({
    seed: 23,
    activity: 3,
    limits: roomyLimits(1_000_000),
  });
  const w = sb.wallets[1] as { privateKey: string };
  await wrapEth(sb, w.privateKey, eth('2'));
}, 240_000);

afterAll(async () => {
  await resetFaults(sb).catch(() => undefined);
  await daemon?.stop().catch(() => undefined);
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const weth = () => ({ address: sb.weth.toLowerCase(), symbol: 'WETH', decimals: 18 });

describe('cancels refused, unanswered or not assured: our offers stay counted until really gone', () => {
  it(
    'the book never holds more than the exposure cap of our offers; the store never calls an active offer gone; window fills are charged; it converges after',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'harpoon-cancel-faults-'));
      const wallet = (sb.wallets[1] as { address: string }).address.toLowerCase();
      const file = join(dir, 'config.yaml');
      writeFileSync(
        file,
        stringify({
          mode: 'live',
          log: { level: 'warn' },
          api: { timeoutMs: 2000 },
          collections: [...COLLECTIONS],
          strategies: [
            {
              id: 'collection-bidder',
              module: 'collection-bidder',
              params: {
                collection: 'harpoon-apes',
                paymentToken: weth(),
                distanceBps: 500,
                minDistanceBps: 100,
                maxPrice: '0.05',
                repriceBps: 50,
                expiryMinutes: 30,
                tickCron: '*/2 * * * * *',
              },
            },
            {
              id: 'trait-bidder',
              module: 'trait-bidder',
              params: {
                collection: 'harpoon-punks',
                paymentToken: weth(),
                traits: 'all',
                distanceBps: 1000,
                minDistanceBps: 300,
                maxPrice: '0.05',
                repriceBps: 100,
                maxOffers: 6,
                expiryMinutes: 30,
                tickCron: '*/2 * * * * *',
              },
            },
          ],
          risk: {
            maxFeePerGasGwei: '200',
            maxPricePerItem: '0.05',
            maxOpenOffersTotal: '0.08',
            maxSpendPerDay: '1',
            maxPriceVsFloorBps: 15000,
          },
          engine: { hookTimeoutMs: 2000, queueTtlMs: 60000 },
          control: { host: '127.0.0.1', port: 0 },
        }),
      );
      const options = {
        ...(await demoDaemonOptions(sb, { paper: false, dir, wallet: 1, configFile: file })),
        rates: roomyRates(1_000_000),
      };
      const logFile = process.env.HARPOON_TEST_LOG;
      daemon = createDaemon(options, {
        logger:
          logFile !== undefined
            ? createLogger({ level: 'info', name: 'cancel-faults', destination: createWriteStream(logFile) })
            : silentLogger(),
      });
      await daemon.start();
      const d = daemon;

      let samples = 0;
      let maxSeen = 0n;
      let overCap = 0;
      let lagging = new Set<string>();
      const wrongTwice: string[] = [];
      const sample = async () => {
        const book = await activeOffers(wallet);
        const store = storeOrders();
        let total = 0n;
        for (const v of book.values()) total += v;
        samples++;
        if (total > maxSeen) maxSeen = total;
        if (total > CAP) overCap++;
        const now = new Set<string>();
        for (const h of book.keys()) {
          const s = store.get(h);
          if (s !== undefined && GONE.has(s)) {
            if (lagging.has(h)) wrongTwice.push(`${h.slice(0, 10)} ${s}`);
            now.add(h);
          }
        }
        lagging = now;
      };
      const phase = async (name: string, body: unknown, seconds: number) => {
        await faults(body);
        const end = Date.now() + seconds * SCALE * 1000;
        while (Date.now() < end) {
          await sample();
          // every 12 s a bargain under the floor: the bidders reprice, so cancels keep being sent
          if (samples % 12 === 0) await nudgeFloors();
          await sleep(1000);
        }
        void name;
      };

      await phase('no faults', {}, 8);
      await phase('400', { cancel: { refuseRate: 0.8, refuseStatus: 400 } }, 25);
      await phase('403', { cancel: { refuseRate: 0.8, refuseStatus: 403 } }, 20);
      await phase('500', { cancel: { refuseRate: 0.8, refuseStatus: 500 } }, 20);
      await phase('timeout', { cancel: { refuseRate: 0.8, refuseStatus: 'timeout' } }, 25);
      await phase(
        'signature window',
        { cancel: { refuseRate: 0, signatureWindowSec: 20, fillInWindowRate: 0.5 } },
        40,
      );
      const counts = (await stats()).faultCounts?.cancel ?? {};
      await resetFaults(sb);
      // after the faults: windows pass, cancels settle, the bidders converge
      let converged = false;
      const end = Date.now() + 60_000;
      while (Date.now() < end) {
        await sample();
        const st = d.status();
        const book = await activeOffers(wallet);
        const store = storeOrders();
        const cancelling = st.orders.open.filter((o) => o.state === 'cancelling').length;
        const unknownToStore = [...book.keys()].filter((h) => {
          const s = store.get(h);
          return s === undefined || GONE.has(s);
        });
        if (
          cancelling === 0 &&
          unknownToStore.length === 0 &&
          book.size > 0 &&
          book.size === st.orders.open.length
        ) {
          converged = true;
          break;
        }
        await sleep(1000);
      }
      process.stderr.write(
        `cancel faults: ${samples} samples, max ${maxSeen} wei of our offers active in the book (cap ${CAP}), ` +
          `${overCap} samples over; store behind the book twice: ${wrongTwice.length}; fault counts ${JSON.stringify(counts)}\n`,
      );
      expect(samples).toBeGreaterThan(100);
      expect(wrongTwice, [...new Set(wrongTwice)].join(', ')).toEqual([]);
      expect(overCap, `max ${maxSeen} > cap ${CAP}`).toBe(0);
      expect(Number(counts.refused ?? 0)).toBeGreaterThan(0);
      expect(Number(counts.windowed ?? 0)).toBeGreaterThan(0);
      // every fill inside a window is recorded and charged
      const filled = Number(counts.filledInWindow ?? 0);
      const fills = storeFills();
      if (filled > 0) {
        expect(fills.orderFills.size).toBeGreaterThanOrEqual(1);
        expect(fills.fillSpend).toBeGreaterThanOrEqual(1);
      }
      expect(converged, 'open offers converged after the faults stopped').toBe(true);

      // a stop without the kill switch leaves the offers standing, and says so, order by order
      const standing = d.status().orders.open.map((o) => o.orderHash);
      await d.stop();
      const live = d.status().orders.liveAtStop ?? [];
      expect(live.map((o) => o.orderHash).sort()).toEqual([...standing].sort());
      for (const o of live) expect(o.reason).toMatch(/left standing|not answered|window/);
      const rows = storeOrders();
      for (const h of standing)
        expect(['open', 'partly_filled', 'posted', 'cancelling']).toContain(rows.get(h));

      // the next start on the same store resumes them; the kill switch then cancels every one
      const again = createDaemon(options, { logger: silentLogger() });
      daemon = again;
      await again.start();
      const resumed = new Set(again.status().orders.open.map((o) => o.orderHash));
      for (const h of standing) if ((await activeOffers(wallet)).has(h)) expect(resumed.has(h)).toBe(true);
      await again.kill('test over');
      const stopEnd = Date.now() + 90_000;
      while (again.status().orders.open.length > 0 && Date.now() < stopEnd) await sleep(250);
      await again.stop();
      expect(again.status().orders.liveAtStop ?? []).toEqual([]);
      expect([...(await activeOffers(wallet)).keys()]).toEqual([]);
    },
    600_000 * SCALE,
  );
});

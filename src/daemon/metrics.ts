// Prometheus metrics of one daemon (its own Registry, no global default registry): counters follow
// the daemon's running totals, gauges are read from the status at scrape time; beside them the
// process's own (memory, CPU, event-loop delay, GC), by their usual names.
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { formatUnits } from '../domain/money.ts';

/** The numbers the metrics are read from at each scrape. */
export interface MetricsSource {
  events(): number;
  intents(): Readonly<Record<string, number>>;
  ordersPlaced(): number;
  fills(): number;
  guardRejections(): Readonly<Record<string, number>>;
  rateGroups(): readonly { readonly group: string; readonly available: number; readonly limit: number }[];
  streamAges(): readonly { readonly key: string; readonly ageMs: number; readonly stale: boolean }[];
  spend(): readonly {
    readonly account: string;
    readonly spentToday: bigint;
    readonly exposure: bigint;
    /** The token's decimals (the gauges are in whole tokens). */
    readonly decimals: number;
  }[];
  /** Profit and loss per strategy (optional: paper and live both give it once they hold NFTs). */
  pnl?(): readonly {
    readonly strategy: string;
    readonly symbol: string;
    readonly decimals: number;
    readonly realized: bigint;
    readonly unrealizedAtFloor: bigint | null;
  }[];
}

/** A counter that follows a running total (increments by the difference at each scrape). */
function following(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: () => Readonly<Record<string, number>>,
): void {
  const last = new Map<string, number>();
  new Counter({
    name,
    help,
    labelNames: [...labelNames],
    registers: [registry],
    collect() {
      for (const [key, total] of Object.entries(read())) {
        const prev = last.get(key) ?? 0;
        if (total > prev) {
          if (labelNames.length === 0) this.inc(total - prev);
          else this.inc({ [labelNames[0] as string]: key }, total - prev);
          last.set(key, total);
        }
      }
    },
  });
}

export function createDaemonMetrics(source: MetricsSource): Registry {
  const registry = new Registry();
  following(registry, 'harpoon_events_total', 'Market events received (stream, backfill, poll)', [], () => ({
    all: source.events(),
  }));
  following(registry, 'harpoon_intents_total', 'Intents by outcome', ['outcome'], source.intents);
  following(registry, 'harpoon_orders_placed_total', 'Offers signed and posted (or simulated)', [], () => ({
    all: source.ordersPlaced(),
  }));
  following(registry, 'harpoon_fills_total', 'Fills: listings bought, own offers filled, mints', [], () => ({
    all: source.fills(),
  }));
  following(
    registry,
    'harpoon_guard_rejections_total',
    'Transactions the calldata guard refused, by reason',
    ['reason'],
    source.guardRejections,
  );
  new Gauge({
    name: 'harpoon_rate_budget_available',
    help: 'Requests the rate-limit bucket can serve now, per group',
    labelNames: ['group'],
    registers: [registry],
    collect() {
      for (const g of source.rateGroups()) this.set({ group: g.group }, g.available);
    },
  });
  new Gauge({
    name: 'harpoon_rate_budget_limit',
    help: 'Bucket size of each rate-limit group',
    labelNames: ['group'],
    registers: [registry],
    collect() {
      for (const g of source.rateGroups()) this.set({ group: g.group }, g.limit);
    },
  });
  new Gauge({
    name: 'harpoon_stream_age_seconds',
    help: 'Seconds since the newest stream information, per channel',
    labelNames: ['channel'],
    registers: [registry],
    collect() {
      for (const c of source.streamAges()) this.set({ channel: c.key }, c.ageMs / 1000);
    },
  });
  new Gauge({
    name: 'harpoon_stream_stale',
    help: '1 while a stream channel is stale (no trading on it)',
    labelNames: ['channel'],
    registers: [registry],
    collect() {
      for (const c of source.streamAges()) this.set({ channel: c.key }, c.stale ? 1 : 0);
    },
  });
  new Gauge({
    name: 'harpoon_spent_today',
    help: 'Spend in the last 24 h per budget account (whole tokens, approximate)',
    labelNames: ['account'],
    registers: [registry],
    collect() {
      for (const s of source.spend())
        this.set({ account: s.account }, Number(formatUnits(s.spentToday, s.decimals)));
    },
  });
  new Gauge({
    name: 'harpoon_open_offer_exposure',
    help: 'Worst case of every open offer filling at once per budget account (whole tokens, approximate)',
    labelNames: ['account'],
    registers: [registry],
    collect() {
      for (const s of source.spend())
        this.set({ account: s.account }, Number(formatUnits(s.exposure, s.decimals)));
    },
  });
  new Gauge({
    name: 'harpoon_pnl_realized',
    help: 'Realized profit (negative: loss) per strategy and token: proceeds − fees − cost basis − gas (whole tokens, approximate)',
    labelNames: ['strategy', 'token'],
    registers: [registry],
    collect() {
      for (const l of source.pnl?.() ?? [])
        this.set({ strategy: l.strategy, token: l.symbol }, Number(formatUnits(l.realized, l.decimals)));
    },
  });
  new Gauge({
    name: 'harpoon_pnl_unrealized_at_floor',
    help: 'What the NFTs held would earn at the fresh floor, minus their cost basis, per strategy and token (whole tokens)',
    labelNames: ['strategy', 'token'],
    registers: [registry],
    collect() {
      for (const l of source.pnl?.() ?? [])
        if (l.unrealizedAtFloor !== null)
          this.set(
            { strategy: l.strategy, token: l.symbol },
            Number(formatUnits(l.unrealizedAtFloor, l.decimals)),
          );
    },
  });
  return Registry.merge([registry, processMetrics()]);
}

let processRegistry: Registry | undefined;

/**
 * The process's metrics — resident memory and heap (`process_resident_memory_bytes`,
 * `nodejs_heap_size_used_bytes`: a daemon left alone for weeks that grows shows it here), CPU,
 * event-loop delay (`nodejs_eventloop_lag_seconds`: what a slow hook costs every other one),
 * GC, open handles. One set a process (its event-loop and GC observers are never undone), shared by
 * the registry of every daemon in it.
 */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

// The operator's console: what the dashboard shows (a snapshot, then live Server-Sent Events) and
// the history it draws (samples every few seconds, kept in memory; realized PnL from the store).
// It reads what the daemon already has (status, the store's fills, the order ledger, the market
// view, holdings) and invents nothing; the control server serves it behind the control token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PaymentToken } from '../domain/events.ts';
import { formatUnits } from '../domain/money.ts';
import type { IntentOutcome } from '../engine/index.ts';
import type { Holdings, LedgerOrder, OrderLedger } from '../ledger/index.ts';
import { type MarketSnapshot, traitKey } from '../market/index.ts';
import type { FillRecord, Store } from '../store/index.ts';
import { fillOrigin } from './fill-origin.ts';
import type { DaemonStatus } from './status.ts';

export interface FillRow {
  readonly id: string;
  readonly at: number;
  readonly strategy: string;
  readonly kind: string;
  readonly side: 'buy' | 'sell';
  readonly collection: string | null;
  readonly tokenId: string | null;
  readonly quantity: string;
  readonly price: string;
  readonly fees: string;
  readonly gas: string;
  readonly symbol: string;
  readonly txHash: string | null;
  readonly realized: string | null;
}

export interface OrderRow {
  readonly orderHash: string;
  readonly strategy: string;
  readonly side: 'offer' | 'listing';
  readonly target: string;
  readonly collection: string;
  readonly tokenId: string | null;
  readonly price: string;
  readonly quantity: string;
  readonly symbol: string;
  readonly state: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly bestCompeting: string | null;
  /** 1: ours is the best order on its target; 2: another order beats it; null: nothing to compare. */
  readonly rank: number | null;
}

export interface MarketRow {
  readonly collection: string;
  readonly floor: string | null;
  readonly bestOffer: string | null;
  readonly symbol: string | null;
  readonly traitFloors: readonly {
    readonly trait: string;
    readonly floor: string | null;
    /** A trait has one floor per payment token. */
    readonly symbol: string;
  }[];
}

export interface DecisionRow {
  readonly at: number;
  readonly strategy: string;
  readonly kind: string;
  readonly target: string;
  readonly outcome: 'done' | 'failed' | 'unknown' | 'refused' | 'skipped';
  readonly reason: string | null;
}

export interface AlertRow {
  readonly at: number;
  readonly kind: string;
  readonly severity: 'info' | 'warn' | 'critical';
  readonly title: string;
  readonly text: string;
}

export interface Sample {
  readonly at: number;
  readonly pnl: readonly {
    readonly symbol: string;
    readonly realized: string;
    readonly unrealized: string;
  }[];
  readonly spend: readonly {
    readonly account: string;
    readonly symbol: string;
    readonly spentToday: string;
    readonly exposure: string;
    readonly budget: string | null;
    readonly maxExposure: string | null;
  }[];
  readonly rate: readonly { readonly group: string; readonly available: number; readonly limit: number }[];
  readonly streamAgeMs: number | null;
  readonly floors: readonly {
    readonly collection: string;
    readonly floor: string | null;
    readonly bestOffer: string | null;
  }[];
  /** Floors of the traits our open trait offers bid on (what those offers are drawn against). */
  readonly traitFloors: readonly {
    readonly collection: string;
    readonly trait: string;
    readonly floor: string | null;
    readonly symbol: string | null;
  }[];
  /** The wallet's balances (native token and the configured tokens), whole tokens. */
  readonly balances: readonly { readonly symbol: string; readonly amount: string }[];
}

export interface ConsoleSnapshot {
  readonly status: DaemonStatus;
  readonly series: readonly Sample[];
  /** Cumulative realized PnL after each sale, from the store (all time, oldest first). */
  readonly pnlHistory: readonly { readonly at: number; readonly symbol: string; readonly realized: string }[];
  readonly fills: { readonly total: number; readonly rows: readonly FillRow[] };
  readonly orders: readonly OrderRow[];
  readonly market: readonly MarketRow[];
  readonly decisions: readonly DecisionRow[];
  readonly alerts: readonly AlertRow[];
}

/** What the console reads; every part may be absent while the daemon starts or stops. */
export interface ConsoleSource {
  now(): number;
  status(): DaemonStatus;
  store(): Store | undefined;
  ledger(): OrderLedger | undefined;
  holdings(): Holdings | undefined;
  market(): MarketSnapshot | undefined;
  tokenOf(address: string): PaymentToken;
  wallet(): string;
  /** The wallet's balances by lower-case token address (zero address = native), when read. */
  balances(): ReadonlyMap<string, bigint> | undefined;
}

export interface ConsoleOptions {
  /** Status pushed to each client this often (ms); default 1000. */
  readonly statusEveryMs?: number;
  /** A history sample this often (ms); default 5000. */
  readonly sampleEveryMs?: number;
  /** History kept (ms); default 2 h. */
  readonly keepMs?: number;
  /** New fills looked for this often (ms); default 200. */
  readonly fillPollMs?: number;
  /** Clients at once; default 16. */
  readonly maxClients?: number;
  /** Each fill once, as soon as the store has it (the alerts' fill events). Must not throw. */
  readonly onFill?: (fill: FillRecord, about: FillFacts) => void;
}

/** What the console works out about a fill of the store. */
export interface FillFacts {
  readonly strategy: string;
  readonly kind: string;
  readonly token: PaymentToken;
  /** Gas of its intent (native token, wei). */
  readonly gas: bigint;
  /** A sale's realized profit or loss (null: not a sale). */
  readonly realized: bigint | null;
}

export interface Console {
  start(): void;
  stop(): void;
  snapshot(): ConsoleSnapshot;
  fills(query: { readonly limit: number; readonly beforeId?: number }): {
    readonly total: number;
    readonly rows: readonly FillRow[];
  };
  /** Serves `/events` (the caller has checked the token). */
  events(req: IncomingMessage, res: ServerResponse): void;
  /** Engine outcomes (decisions) as they happen. */
  outcome(o: IntentOutcome): void;
  alert(a: AlertRow): void;
  /** An order of ours changed (from the ledger's listener). */
  orderChanged(o: LedgerOrder): void;
  readonly clients: number;
}

const RING = 200;
const push = <T>(ring: T[], v: T, max = RING) => {
  ring.unshift(v);
  if (ring.length > max) ring.length = max;
};

/**
 * The status as the live stream sends it every second: without the list of open offers (they come
 * as `order` events and in the snapshot; with 1,000 open offers the list is ~250 KB a second).
 */
function live(status: DaemonStatus): DaemonStatus {
  return { ...status, orders: { ...status.orders, open: [] } };
}

function sse(event: string, data: unknown): string {
  const json = JSON.stringify(data, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return `event: ${event}\ndata: ${json}\n\n`;
}

export function createConsole(src: ConsoleSource, o: ConsoleOptions = {}): Console {
  const statusEveryMs = o.statusEveryMs ?? 1000;
  const sampleEveryMs = o.sampleEveryMs ?? 5000;
  const keepMs = o.keepMs ?? 2 * 3600_000;
  const fillPollMs = o.fillPollMs ?? 200;
  const maxClients = o.maxClients ?? 16;
  const series: Sample[] = [];
  const decisions: DecisionRow[] = [];
  const alerts: AlertRow[] = [];
  const clients = new Set<ServerResponse>();
  const timers: ReturnType<typeof setInterval>[] = [];
  let lastFillId = -1;

  const fmt = (v: bigint | null | undefined, t: PaymentToken) =>
    v === null || v === undefined ? null : formatUnits(v, t.decimals);

  function fillFacts(records: readonly FillRecord[]): FillFacts[] {
    const h = src.holdings();
    const realized = new Map<number, bigint>();
    if (h !== undefined) for (const s of h.realized()) realized.set(s.fillId, s.realized);
    return records.map((f) => ({
      ...fillOrigin(f, src.store()?.intents, src.ledger()),
      token: src.tokenOf(f.token),
      gas: h?.gasOf(f.intentId) ?? 0n,
      realized: realized.get(f.id) ?? null,
    }));
  }

  function fillRows(records: readonly FillRecord[], facts = fillFacts(records)): FillRow[] {
    return records.map((f, i) => {
      const { strategy, kind, token: t, gas, realized: r } = facts[i] as FillFacts;
      return {
        id: String(f.id),
        at: f.filledAt,
        strategy,
        kind,
        side: f.side,
        collection: f.collection,
        tokenId: f.tokenId,
        quantity: f.quantity.toString(),
        price: formatUnits(f.price, t.decimals),
        fees: formatUnits(f.fees, t.decimals),
        gas: formatUnits(gas, 18),
        symbol: t.symbol,
        txHash: f.txHash ?? null,
        realized: r === null ? null : formatUnits(r, t.decimals),
      };
    });
  }

  function orderRow(l: LedgerOrder, market: MarketSnapshot | undefined): OrderRow {
    const t = l.paymentToken;
    const c = market?.collection(l.collection);
    const me = src.wallet().toLowerCase();
    let best: { price: bigint; maker: string | null; orderHash: string | null } | null = null;
    if (l.side === 'listing') best = c?.floor?.value ?? null;
    else if (l.side === 'collection_offer') best = c?.bestCollectionOffer?.value ?? null;
    else if (l.side === 'trait_offer' && l.trait !== null)
      best = c?.bestTraitOffers.get(traitKey(l.trait.type, l.trait.value))?.value ?? null;
    const competing =
      best !== null && best.orderHash !== l.orderHash && best.maker?.toLowerCase() !== me ? best : null;
    const rank =
      competing === null
        ? best !== null
          ? 1
          : null
        : l.side === 'listing'
          ? l.price <= competing.price
            ? 1
            : 2
          : l.price >= competing.price
            ? 1
            : 2;
    return {
      orderHash: l.orderHash,
      strategy: l.strategyId ?? 'unknown',
      side: l.side === 'listing' ? 'listing' : 'offer',
      target:
        l.trait !== null
          ? `${l.collection} ${l.trait.type}: ${l.trait.value}`
          : l.tokenId !== null
            ? `${l.collection} #${l.tokenId}`
            : l.collection,
      collection: l.collection,
      tokenId: l.tokenId,
      price: formatUnits(l.price, t.decimals),
      quantity: (l.quantity - l.filled).toString(),
      symbol: t.symbol,
      state: l.state,
      createdAt: l.createdAt,
      expiresAt: l.expiresAt,
      bestCompeting: competing === null ? null : formatUnits(competing.price, t.decimals),
      rank,
    };
  }

  function orders(): OrderRow[] {
    const m = src.market();
    return (src.ledger()?.counting() ?? []).map((l) => orderRow(l, m));
  }

  function market(): MarketRow[] {
    const m = src.market();
    if (m === undefined) return [];
    return m.collections.flatMap((slug) => {
      const c = m.collection(slug);
      if (c === undefined) return [];
      const t = c.floor?.value.paymentToken ?? c.bestCollectionOffer?.value.paymentToken ?? null;
      return [
        {
          collection: slug,
          floor: c.floor === null ? null : fmt(c.floor.value.price, c.floor.value.paymentToken),
          bestOffer:
            c.bestCollectionOffer === null
              ? null
              : fmt(c.bestCollectionOffer.value.price, c.bestCollectionOffer.value.paymentToken),
          symbol: t?.symbol ?? null,
          traitFloors: (c.traitFloors?.value ?? []).slice(0, 50).map((f) => ({
            trait: `${f.traitType}: ${f.value}`,
            floor: fmt(f.price, f.paymentToken),
            symbol: f.paymentToken.symbol,
          })),
        },
      ];
    });
  }

  function sample(status: DaemonStatus): Sample {
    const bySymbol = new Map<string, { realized: bigint; unrealized: bigint; decimals: number }>();
    const h = src.holdings();
    const m = src.market();
    if (h !== undefined)
      for (const l of h.pnl(m).byStrategy) {
        const e = bySymbol.get(l.token.symbol) ?? {
          realized: 0n,
          unrealized: 0n,
          decimals: l.token.decimals,
        };
        e.realized += l.realized;
        e.unrealized += l.unrealizedAtFloor ?? 0n;
        bySymbol.set(l.token.symbol, e);
      }
    // the stream's freshness: the oldest channel's age (what makes a collection stale)
    const ages = status.stream.channels.map((c) => c.ageMs).filter((a) => Number.isFinite(a));
    return {
      at: src.now(),
      pnl: [...bySymbol].map(([symbol, e]) => ({
        symbol,
        realized: formatUnits(e.realized, e.decimals),
        unrealized: formatUnits(e.unrealized, e.decimals),
      })),
      spend: status.spend.map((s) => ({
        account: s.account,
        symbol: s.symbol,
        spentToday: s.spentToday,
        exposure: s.exposure,
        budget: s.maxSpendPerDay ?? s.budget,
        maxExposure: s.maxExposure,
      })),
      rate: status.rateBudget.map((g) => ({ group: g.group, available: g.available, limit: g.limit })),
      streamAgeMs: ages.length > 0 ? Math.max(...ages) : null,
      floors: market().map((r) => ({ collection: r.collection, floor: r.floor, bestOffer: r.bestOffer })),
      traitFloors: traitFloorsOfOurOffers(m),
      balances: [...(src.balances() ?? new Map<string, bigint>())].map(([address, amount]) => {
        const t = src.tokenOf(address);
        return { symbol: t.symbol, amount: formatUnits(amount, t.decimals) };
      }),
    };
  }

  function traitFloorsOfOurOffers(m: MarketSnapshot | undefined): Sample['traitFloors'] {
    const out = new Map<string, Sample['traitFloors'][number]>();
    for (const l of src.ledger()?.counting() ?? []) {
      if (l.side !== 'trait_offer' || l.trait === null) continue;
      const key = `${l.collection}\u0000${traitKey(l.trait.type, l.trait.value)}`;
      if (out.has(key)) continue;
      const f = m
        ?.collection(l.collection)
        ?.traitFloorsByTrait.get(traitKey(l.trait.type, l.trait.value))?.[0];
      out.set(key, {
        collection: l.collection,
        trait: `${l.trait.type}: ${l.trait.value}`,
        floor: f === undefined ? null : formatUnits(f.price, f.paymentToken.decimals),
        symbol: f?.paymentToken.symbol ?? null,
      });
    }
    return [...out.values()];
  }

  function pnlHistory(): ConsoleSnapshot['pnlHistory'] {
    const h = src.holdings();
    if (h === undefined) return [];
    const total = new Map<string, bigint>();
    return h.realized().map((s) => {
      const v = (total.get(s.token.symbol) ?? 0n) + s.realized;
      total.set(s.token.symbol, v);
      return { at: s.at, symbol: s.token.symbol, realized: formatUnits(v, s.token.decimals) };
    });
  }

  function broadcast(event: string, data: unknown): void {
    if (clients.size === 0) return;
    const frame = sse(event, data);
    for (const res of clients) {
      // a client that does not read (its buffer keeps growing) is dropped, never waited for
      if (res.writableLength > 4 * 1024 * 1024) {
        res.destroy();
        clients.delete(res);
        continue;
      }
      res.write(frame);
    }
  }

  function takeSample(): void {
    try {
      const s = sample(src.status());
      series.push(s);
      while (series.length > 0 && (series[0]?.at ?? 0) < s.at - keepMs) series.shift();
      broadcast('sample', s);
    } catch {
      // a sample missed while the daemon starts or stops is only a gap in a chart
    }
  }

  function pollFills(): void {
    const st = src.store();
    if (st === undefined) return;
    try {
      if (lastFillId < 0) {
        lastFillId = st.fills.page({ limit: 1 })[0]?.id ?? 0;
        return;
      }
      const fresh = st.fills.after(lastFillId, 100);
      if (fresh.length === 0) return;
      lastFillId = fresh[fresh.length - 1]?.id ?? lastFillId;
      src.holdings()?.refresh();
      const facts = fillFacts(fresh);
      for (const row of fillRows(fresh, facts)) broadcast('fill', row);
      if (o.onFill !== undefined)
        for (const [i, f] of fresh.entries())
          try {
            o.onFill(f, facts[i] as FillFacts);
          } catch {
            // a listener's failure is its own
          }
    } catch {
      // the store closed under us (stopping): nothing to show
    }
  }

  return {
    start() {
      takeSample();
      pollFills();
      timers.push(setInterval(takeSample, sampleEveryMs));
      timers.push(setInterval(pollFills, fillPollMs));
      timers.push(
        setInterval(() => {
          if (clients.size === 0) return;
          try {
            broadcast('status', live(src.status()));
          } catch {
            // status unavailable for a moment (stopping)
          }
        }, statusEveryMs),
      );
      timers.push(
        setInterval(() => {
          for (const res of clients) res.write(': ping\n\n');
        }, 15_000),
      );
      for (const t of timers) t.unref?.();
    },
    stop() {
      for (const t of timers) clearInterval(t);
      timers.length = 0;
      for (const res of clients) res.end();
      clients.clear();
    },
    snapshot() {
      const st = src.store();
      return {
        status: src.status(),
        series: [...series],
        pnlHistory: pnlHistory(),
        fills:
          st === undefined
            ? { total: 0, rows: [] }
            : { total: st.fills.count(), rows: fillRows(st.fills.page({ limit: RING })) },
        orders: orders(),
        market: market(),
        decisions: [...decisions],
        alerts: [...alerts],
      };
    },
    fills({ limit, beforeId }) {
      const st = src.store();
      if (st === undefined) return { total: 0, rows: [] };
      return {
        total: st.fills.count(),
        rows: fillRows(st.fills.page({ limit, ...(beforeId !== undefined ? { beforeId } : {}) })),
      };
    },
    events(req, res) {
      if (clients.size >= maxClients) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `too many dashboard clients (at most ${maxClients})` }));
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(': connected\n\n');
      clients.add(res);
      try {
        res.write(sse('status', live(src.status())));
      } catch {
        // the first status comes with the next tick
      }
      const drop = () => clients.delete(res);
      req.on('close', drop);
      res.on('close', drop);
    },
    outcome(x) {
      const row: DecisionRow = {
        at: x.at,
        strategy: x.strategyId,
        kind: x.kind,
        target: x.target,
        outcome: x.status === 'rejected' ? 'refused' : x.status,
        reason: x.code === null ? null : x.message !== null ? `${x.code}: ${x.message}` : x.code,
      };
      push(decisions, row);
      broadcast('decision', row);
    },
    alert(a) {
      push(alerts, a, 100);
      broadcast('alert', a);
    },
    orderChanged(l) {
      const counting =
        src
          .ledger()
          ?.counting()
          .some((x) => x.orderHash === l.orderHash) ?? false;
      broadcast('order', counting ? orderRow(l, src.market()) : { orderHash: l.orderHash, state: 'gone' });
    },
    get clients() {
      return clients.size;
    },
  };
}

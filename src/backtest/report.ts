/**
 * The backtest report: per strategy and per collection, realized and unrealized profit and loss
 * (bigint as decimal strings, in the token's smallest unit), fills, win rate (share of sales that
 * made money), maximum drawdown of equity (realized + unrealized at the floor) and the capital tied
 * in offers — and the time series behind the charts (equity, exposure, floors, fills). Nothing in
 * it depends on the wall clock or the machine: same tape and setup, same bytes.
 */
import { basename } from 'node:path';
import type { Engine } from '../engine/index.ts';
import type { PaperExecutor, PaperFill } from '../execution/paper.ts';
import type { Holdings, OrderLedger, PnlLine } from '../ledger/index.ts';
import type { MarketView } from '../market/index.ts';
import type { Comparison } from './compare.ts';
import type { BacktestSetup } from './setup.ts';
import type { TapeSource } from './tape-source.ts';
import type { VirtualTime } from './time.ts';

export interface ReportLine {
  /** Strategy id or collection slug. */
  readonly key: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly fills: number;
  readonly buys: number;
  readonly offerFills: number;
  readonly sells: number;
  /** Sales with a realized result (units sold that had a cost basis). */
  readonly sales: number;
  readonly wins: number;
  /** wins / sales, 4 decimals; null without sales. */
  readonly winRate: number | null;
  readonly realized: string;
  /** Held units at the floor minus their cost; null when no floor is known. */
  readonly unrealized: string | null;
  readonly held: number;
  /** Largest fall of equity from a peak (≥ 0). */
  readonly maxDrawdown: string;
  /** Most capital tied in open offers at once (sampled). */
  readonly peakOfferCapital: string;
}

export interface BacktestFill {
  readonly at: number;
  readonly strategy: string;
  readonly kind: PaperFill['kind'];
  readonly collection: string | null;
  readonly item: string | null;
  readonly price: string;
  readonly fees: string;
  readonly gas: string;
  readonly symbol: string;
  readonly decimals: number;
}

export interface SeriesOf {
  /** Realized + unrealized at the floor (ETH-valued tokens, wei). */
  readonly equity: readonly string[];
  readonly realized: readonly string[];
  /** Capital tied in open offers (wei). */
  readonly offers: readonly string[];
  /** Cost of what is held (wei). */
  readonly held: readonly string[];
}

export interface BacktestReport {
  readonly kind: 'harpoon-backtest';
  readonly version: 1;
  readonly tape: {
    readonly file: string;
    readonly source: string;
    readonly chain: string;
    readonly collections: readonly string[];
    readonly firstAt: number;
    readonly lastAt: number;
    readonly events: number;
    /** The tape had bytes past its last whole block (unreadBytes of them): a crash's cut, or damage. */
    readonly torn: boolean;
    /** Those bytes are damage with more of the tape after it, not a crash's cut. */
    readonly damaged: boolean;
    readonly unreadBytes: number;
  };
  readonly window: {
    readonly from: number;
    readonly to: number;
    /** Where the market view began to warm up, when a warm-up window was asked for (--warmup). */
    readonly warmupFrom?: number;
    readonly latencyMs: number;
    readonly sampleMs: number;
    /** The wallet the backtest traded as: its orders on the tape were ours (see walletForTape). */
    readonly wallet: string;
  };
  readonly strategies: readonly { readonly id: string; readonly module: string; readonly params: unknown }[];
  readonly events: number;
  /** Stopped (Ctrl-C) before the window's end: the report covers the replay up to window.to. */
  readonly interrupted: boolean;
  readonly intents: Readonly<Record<string, number>>;
  readonly skipped: Readonly<Record<string, number>>;
  readonly refused: Readonly<Record<string, number>>;
  /**
   * Strategies that read what the tape does not hold (the wallet's balances; a token's price as
   * `price of SYMBOL` and a drop as `drop SLUG`, when never held while the backtest ran): they
   * decided without it — a rebalancer never trades, a drop-minter never mints — unlike a live run.
   */
  readonly notOnTape: readonly { readonly strategy: string; readonly reads: readonly string[] }[];
  /**
   * Costs a fill needed that the tape did not hold, so were not charged (a recording whose reads of
   * them failed): the collections whose fees, whether the gas price. The PnL is better than it was.
   */
  readonly costsNotOnTape: { readonly fees: readonly string[]; readonly gasPrice: boolean };
  /**
   * The simulated wallet (`paper.balances`), per token: its balance at the start and at the end
   * (smallest units; spent below zero reads 0), and what it was worth then in wei (ETH and WETH
   * one for one, another token at its price on the tape then; null when the tape has none by
   * then); empty when the config names no start.
   */
  readonly wallet: readonly {
    readonly token: string;
    readonly symbol: string;
    readonly decimals: number;
    readonly start: string;
    readonly end: string;
    readonly startValue: string | null;
    readonly endValue: string | null;
  }[];
  /** Our orders (offers and listings) by their last state; `open` includes partly filled ones. */
  readonly orders: {
    readonly placed: number;
    readonly filled: number;
    readonly cancelled: number;
    readonly expired: number;
    readonly failed: number;
    readonly open: number;
  };
  readonly total: ReportLine;
  readonly byStrategy: readonly ReportLine[];
  readonly byCollection: readonly ReportLine[];
  readonly fills: readonly BacktestFill[];
  readonly series: {
    readonly at: readonly number[];
    readonly total: SeriesOf;
    readonly strategies: Readonly<Record<string, SeriesOf>>;
    readonly collections: Readonly<Record<string, SeriesOf & { readonly floor: readonly (string | null)[] }>>;
  };
  /** The paper run it was compared with (harpoon backtest --compare), when it was. */
  readonly comparison?: Comparison;
}

/**
 * The simulated wallet's worth in wei (decimal text) at the start or the end: the sum of its
 * tokens' worth then; null when a token held then has no price on the tape (its worth unknown).
 */
export function walletWorth(wallet: BacktestReport['wallet'], at: 'startValue' | 'endValue'): string | null {
  let sum = 0n;
  for (const w of wallet) {
    const held = BigInt(at === 'startValue' ? w.start : w.end);
    const v = w[at];
    if (v === null) {
      if (held !== 0n) return null;
    } else sum += BigInt(v);
  }
  return sum.toString();
}

/** What fills needed and the tape did not hold (see BacktestReport.costsNotOnTape), said. */
export function costsWarnings(r: Pick<BacktestReport, 'costsNotOnTape'>): string[] {
  const out: string[] = [];
  const { fees, gasPrice } = r.costsNotOnTape;
  if (fees.length > 0)
    out.push(
      `the tape holds no fees of ${fees.join(', ')} when fills needed them (the recording could not read them then): those fills were charged no fees, so the PnL is better than it was`,
    );
  if (gasPrice)
    out.push(
      'the tape holds no gas price when transactions needed one (the recording could not read it then): they were charged no gas, so the PnL is better than it was',
    );
  return out;
}

/** ETH and WETH (18 decimals) are summed in the series and totals; other tokens stay in their lines. */
export const ethValued = (symbol: string) => /^w?eth$/i.test(symbol);

interface Acc {
  equity: bigint[];
  realized: bigint[];
  offers: bigint[];
  held: bigint[];
  floor: (bigint | null)[];
}
const acc = (): Acc => ({ equity: [], realized: [], offers: [], held: [], floor: [] });

function maxDrawdown(xs: readonly bigint[]): bigint {
  let peak: bigint | null = null;
  let worst = 0n;
  for (const x of xs) {
    if (peak === null || x > peak) peak = x;
    if (peak - x > worst) worst = peak - x;
  }
  return worst;
}

const maxOf = (xs: readonly bigint[]): bigint => xs.reduce((m, x) => (x > m ? x : m), 0n);
/** A time of the tape to the minute, in UTC, as a person reads it: `2026-01-05 12:00`. */
export const utcMinute = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

const str = (xs: readonly bigint[]) => xs.map((x) => x.toString());

/** The report's series sample every minute of the tape by default. */
export const DEFAULT_SAMPLE_MS = 60_000;
/** A window longer than this many default samples (~35 days) samples less often by default. */
export const DEFAULT_MAX_SAMPLES = 50_000;
/**
 * The most samples a report may hold (asked for with a sample spacing): each adds a value to
 * every series (~35 for two collections and five strategies). A year sampled every minute
 * (525,600) took 1.4 GB to hold and write.
 */
export const MAX_SAMPLES = 200_000;

/** The report would hold more samples than MAX_SAMPLES: the spacing asked for is too fine for the window. */
export class TooManySamplesError extends RangeError {
  constructor(
    readonly askedMs: number,
    readonly samples: number,
    /** The finest spacing in whole seconds (as ms) that stays within MAX_SAMPLES. */
    readonly leastMs: number,
  ) {
    super(
      `a sample every ${askedMs / 1000} s gives ${samples.toLocaleString('en-US')} samples over this window; a report holds at most ${MAX_SAMPLES.toLocaleString('en-US')} (every ${leastMs / 1000} s or more)`,
    );
    this.name = 'TooManySamplesError';
  }
}

/**
 * How far apart the report's samples are over a window of `windowMs`: `askedMs` when given (a
 * TooManySamplesError when that gives more than MAX_SAMPLES), else a minute, or for a window of
 * more than DEFAULT_MAX_SAMPLES - 1 minutes the whole number of minutes that keeps it within them (a
 * year: 11 minutes). The totals (drawdown, capital in offers) are read from these samples.
 */
export function sampleSpacing(windowMs: number, askedMs?: number): number {
  // the collector samples at the start, every `every` before the end, and at the end
  const count = (every: number) => Math.ceil(Math.max(0, windowMs) / every) + 1;
  if (askedMs !== undefined) {
    if (!(askedMs > 0) || !Number.isFinite(askedMs))
      throw new RangeError(`a sample spacing must be > 0 ms, got ${askedMs}`);
    if (count(askedMs) > MAX_SAMPLES)
      throw new TooManySamplesError(
        askedMs,
        count(askedMs),
        Math.ceil(windowMs / (MAX_SAMPLES - 1) / 1000) * 1000,
      );
    return askedMs;
  }
  const minutes = Math.max(1, Math.ceil(windowMs / (DEFAULT_MAX_SAMPLES - 1) / DEFAULT_SAMPLE_MS));
  return minutes * DEFAULT_SAMPLE_MS;
}

export interface CollectorParts {
  readonly setup: BacktestSetup;
  readonly tape: TapeSource;
  readonly start: number;
  readonly end: number;
  readonly warmupFrom?: number;
  readonly latencyMs: number;
  readonly sampleMs: number;
  readonly paper: PaperExecutor;
  /** The report's own holdings (brought up to date when it samples: it reads only new fills). */
  readonly holdings: Holdings;
  readonly ledger: OrderLedger;
  readonly view: MarketView;
  readonly engine: Engine;
  /** What strategies read that the tape does not hold (see BacktestReport.notOnTape). */
  readonly notOnTape: () => BacktestReport['notOnTape'];
  /** What fills needed that the tape does not hold (see BacktestReport.costsNotOnTape). */
  readonly costsNotOnTape: () => BacktestReport['costsNotOnTape'];
  /** The simulated wallet at the end (see BacktestReport.wallet). */
  readonly wallet: () => BacktestReport['wallet'];
}

/**
 * The intents' outcome in words: done, refused by risk or the guard, failed in the simulated
 * execution (with the paper executor's reasons, most first) — a summary line and the page say the same.
 */
export function intentsText(r: BacktestReport): string {
  const failed = r.intents.failed ?? 0;
  const reasons = Object.entries(r.refused)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([code, n]) => `${code} ${n}`);
  return (
    `${r.intents.emitted ?? 0} emitted, ${r.intents.done ?? 0} done, ${r.intents.rejected ?? 0} refused by risk or the guard, ` +
    `${failed} failed in the simulated execution${reasons.length > 0 ? ` (${reasons.join(', ')})` : ''}`
  );
}

export class ReportCollector {
  private readonly at: number[] = [];
  private readonly strategies = new Map<string, Acc>();
  private readonly collections = new Map<string, Acc>();
  private readonly total = acc();

  /** The last state of every order of ours (the ledger forgets gone orders after an hour). */
  private readonly orderStates = new Map<string, string>();

  constructor(private readonly p: CollectorParts) {
    for (const s of p.setup.strategies) this.strategies.set(s.id, acc());
    for (const c of p.setup.collections) this.collections.set(c, acc());
    p.ledger.onChange((c) => {
      this.orderStates.set(c.order.orderHash, c.order.state);
    });
  }

  private orderCounts(): BacktestReport['orders'] {
    const n = { placed: 0, filled: 0, cancelled: 0, expired: 0, failed: 0, open: 0 };
    for (const state of this.orderStates.values()) {
      n.placed++;
      if (state === 'filled') n.filled++;
      else if (state === 'cancelled') n.cancelled++;
      else if (state === 'expired') n.expired++;
      else if (state === 'failed') n.failed++;
      else n.open++;
    }
    return n;
  }

  /** Samples now and every sampleMs of virtual time. */
  begin(time: VirtualTime): void {
    this.sample(time.now());
    const arm = () =>
      time.setTimeout(() => {
        if (time.now() < this.p.end) this.sample(time.now());
        arm();
      }, this.p.sampleMs);
    arm();
  }

  private sample(at: number): void {
    const { holdings, ledger, view } = this.p;
    holdings.refresh();
    const snap = view.snapshot();
    const pnl = holdings.pnl(snap);
    const eq = (lines: readonly PnlLine[], key: string): [bigint, bigint] => {
      let e = 0n;
      let r = 0n;
      for (const l of lines)
        if (l.key === key && ethValued(l.token.symbol)) {
          r += l.realized;
          e += l.realized + (l.unrealizedAtFloor ?? 0n);
        }
      return [e, r];
    };
    const offersBy = new Map<string, bigint>();
    const offersCol = new Map<string, bigint>();
    let offersTotal = 0n;
    for (const o of ledger.counting()) {
      if (o.side === 'listing' || !ethValued(o.paymentToken.symbol)) continue;
      const v = o.price * (o.quantity - o.filled);
      const s = o.strategyId ?? 'unknown';
      offersBy.set(s, (offersBy.get(s) ?? 0n) + v);
      offersCol.set(o.collection, (offersCol.get(o.collection) ?? 0n) + v);
      offersTotal += v;
    }
    const heldBy = new Map<string, bigint>();
    const heldCol = new Map<string, bigint>();
    let heldTotal = 0n;
    for (const h of holdings.all()) {
      if (!ethValued(h.costToken.symbol)) continue;
      const s = h.strategyId ?? 'unknown';
      heldBy.set(s, (heldBy.get(s) ?? 0n) + h.costBasis);
      heldCol.set(h.collection, (heldCol.get(h.collection) ?? 0n) + h.costBasis);
      heldTotal += h.costBasis;
    }
    this.at.push(at);
    let te = 0n;
    let tr = 0n;
    for (const [id, a] of this.strategies) {
      const [e, r] = eq(pnl.byStrategy, id);
      a.equity.push(e);
      a.realized.push(r);
      a.offers.push(offersBy.get(id) ?? 0n);
      a.held.push(heldBy.get(id) ?? 0n);
      te += e;
      tr += r;
    }
    for (const [slug, a] of this.collections) {
      const [e, r] = eq(pnl.byCollection, slug);
      a.equity.push(e);
      a.realized.push(r);
      a.offers.push(offersCol.get(slug) ?? 0n);
      a.held.push(heldCol.get(slug) ?? 0n);
      const f = snap.collection(slug)?.floor?.value;
      a.floor.push(f !== undefined && f !== null && ethValued(f.paymentToken.symbol) ? f.price : null);
    }
    this.total.equity.push(te);
    this.total.realized.push(tr);
    this.total.offers.push(offersTotal);
    this.total.held.push(heldTotal);
  }

  /** The report as of `at`: the window's end, or earlier when the replay was interrupted. */
  finish(at: number, events: number, interrupted = false): BacktestReport {
    const { paper, holdings, engine, setup, tape } = this.p;
    this.sample(at);
    const pr = paper.report();
    const fills = pr.fills;
    const sales = holdings.realized();
    const pnl = holdings.pnl(this.p.view.snapshot());
    const es = engine.status();

    const line = (
      key: string,
      symbol: string,
      decimals: number,
      ownFills: readonly PaperFill[],
      ownSales: readonly { realized: bigint }[],
      pnlLines: readonly PnlLine[],
      a: Acc | undefined,
    ): ReportLine => {
      const wins = ownSales.filter((s) => s.realized > 0n).length;
      let realized = 0n;
      let unrealized: bigint | null = null;
      let held = 0;
      for (const l of pnlLines) {
        realized += l.realized;
        held += l.held;
        if (l.unrealizedAtFloor !== null) unrealized = (unrealized ?? 0n) + l.unrealizedAtFloor;
      }
      return {
        key,
        symbol,
        decimals,
        fills: ownFills.length,
        buys: ownFills.filter((f) => f.kind === 'buy').length,
        offerFills: ownFills.filter((f) => f.kind === 'offer_filled').length,
        sells: ownFills.filter((f) => f.kind === 'listing_sold' || f.kind === 'offer_accepted').length,
        sales: ownSales.length,
        wins,
        winRate: ownSales.length > 0 ? Math.round((wins / ownSales.length) * 10_000) / 10_000 : null,
        realized: realized.toString(),
        unrealized: unrealized === null ? null : unrealized.toString(),
        held,
        maxDrawdown: maxDrawdown(a?.equity ?? []).toString(),
        peakOfferCapital: maxOf(a?.offers ?? []).toString(),
      };
    };
    const eth = (l: PnlLine) => ethValued(l.token.symbol);
    const ethFill = (f: PaperFill) => ethValued(f.symbol);
    const soldBy = (s: (typeof sales)[number]) => s.soldBy ?? s.acquiredBy ?? 'unknown';
    const byStrategy = setup.strategies.map((s) =>
      line(
        s.id,
        'ETH',
        18,
        fills.filter((f) => f.strategyId === s.id && ethFill(f)),
        sales.filter((x) => soldBy(x) === s.id && ethValued(x.token.symbol)),
        pnl.byStrategy.filter((l) => l.key === s.id && eth(l)),
        this.strategies.get(s.id),
      ),
    );
    const byCollection = setup.collections.map((c) =>
      line(
        c,
        'ETH',
        18,
        fills.filter((f) => f.collection === c && ethFill(f)),
        sales.filter((x) => x.collection === c && ethValued(x.token.symbol)),
        pnl.byCollection.filter((l) => l.key === c && eth(l)),
        this.collections.get(c),
      ),
    );
    const total = line(
      'total',
      'ETH',
      18,
      fills.filter(ethFill),
      sales.filter((x) => ethValued(x.token.symbol)),
      pnl.byStrategy.filter(eth),
      this.total,
    );
    const series = (a: Acc): SeriesOf => ({
      equity: str(a.equity),
      realized: str(a.realized),
      offers: str(a.offers),
      held: str(a.held),
    });
    return {
      kind: 'harpoon-backtest',
      version: 1,
      tape: {
        file: basename(tape.path),
        source: tape.header.source,
        chain: tape.header.chain,
        collections: tape.header.collections,
        firstAt: tape.firstAt,
        lastAt: tape.lastAt,
        events: tape.events,
        torn: tape.torn,
        damaged: tape.damaged,
        unreadBytes: tape.unreadBytes,
      },
      window: {
        from: this.p.start,
        to: Math.min(at, this.p.end),
        ...(this.p.warmupFrom !== undefined ? { warmupFrom: this.p.warmupFrom } : {}),
        latencyMs: this.p.latencyMs,
        sampleMs: this.p.sampleMs,
        wallet: setup.wallet,
      },
      strategies: setup.strategies.map((s) => ({ id: s.id, module: s.module, params: s.params })),
      events,
      interrupted,
      intents: {
        emitted: es.intents.emitted,
        done: es.intents.done,
        failed: es.intents.failed,
        rejected: es.intents.rejected,
        unknown: es.intents.unknown,
      },
      skipped: { ...es.skipped.byReason },
      refused: { ...pr.rejected },
      notOnTape: this.p.notOnTape(),
      costsNotOnTape: this.p.costsNotOnTape(),
      wallet: this.p.wallet(),
      orders: this.orderCounts(),
      total,
      byStrategy,
      byCollection,
      fills: fills.map((f) => ({
        at: f.at,
        strategy: f.strategyId,
        kind: f.kind,
        collection: f.collection,
        item: f.item,
        price: f.price.toString(),
        fees: f.fees.toString(),
        gas: f.gas.toString(),
        symbol: f.symbol,
        decimals: f.decimals,
      })),
      series: {
        at: [...this.at],
        total: series(this.total),
        strategies: Object.fromEntries([...this.strategies].map(([k, a]) => [k, series(a)])),
        collections: Object.fromEntries(
          [...this.collections].map(([k, a]) => [
            k,
            { ...series(a), floor: a.floor.map((x) => (x === null ? null : x.toString())) },
          ]),
        ),
      },
    };
  }
}

/** The report as JSON (stable: same report, same bytes). For a report of any size: reportJsonChunks. */
export function reportJson(r: BacktestReport): string {
  return reportJsonChunks(r).join('');
}

/** Amounts (bigint) as text in the report's JSON. */
const amountsAsText = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);

/** Whole elements of an array stringified in one call (see reportJsonChunks). */
const LEAVES_AT_ONCE = 1000;

/** How long a piece of a report's JSON grows before the next one starts. */
const CHUNK_CHARS = 1 << 20;

/**
 * The report's JSON (as `JSON.stringify(r, amounts as text, 2)` and a newline, the same bytes) in
 * pieces of about a MB, to be written one after another: a long backtest's fills (a year of a busy
 * market is over a million) make a text longer than the longest string Node can hold, and one
 * string would throw at the end of the replay, with nothing saved. Objects and arrays are taken
 * apart down to `depth` levels; what is below is one JSON.stringify each (a fill, a sample).
 */
export function reportJsonChunks(r: unknown, chunkChars = CHUNK_CHARS, depth = 2): string[] {
  const chunks: string[] = [];
  let cur = '';
  const put = (s: string) => {
    cur += s;
    if (cur.length >= chunkChars) {
      chunks.push(cur);
      cur = '';
    }
  };
  const pad = (n: number) => '  '.repeat(n);
  /** Writes `v` (not undefined: the caller skips or nulls those) at indent `n`. */
  const value = (key: string, v: unknown, n: number, levels: number): void => {
    const x = amountsAsText(key, v);
    const plain =
      x !== null &&
      typeof x === 'object' &&
      typeof (x as { toJSON?: unknown }).toJSON !== 'function' &&
      levels > 0;
    if (!plain) {
      const text = JSON.stringify(x, amountsAsText, 2) ?? 'null';
      put(n === 0 ? text : text.replaceAll('\n', `\n${pad(n)}`));
      return;
    }
    if (Array.isArray(x)) {
      if (x.length === 0) {
        put('[]');
        return;
      }
      if (levels === 1) {
        // its elements are whole: stringified a thousand at a time (one call each is 3 times
        // slower), inside n arrays so that JSON.stringify indents them to this depth itself; the
        // brackets around them are cut off
        let open = '';
        let close = '';
        for (let k = 0; k <= n; k++) {
          open += `[\n${pad(k + 1)}`;
          close = `\n${pad(k)}]${close}`;
        }
        const from = open.length - 2 * (n + 1);
        for (let i = 0; i < x.length; i += LEAVES_AT_ONCE) {
          let run: unknown = x.slice(i, i + LEAVES_AT_ONCE);
          for (let k = 0; k < n; k++) run = [run];
          const text = JSON.stringify(run, amountsAsText, 2);
          put(`${i === 0 ? '[' : ','}\n${text.slice(from, text.length - close.length)}`);
        }
        put(`\n${pad(n)}]`);
        return;
      }
      put('[');
      for (let i = 0; i < x.length; i++) {
        put(`${i === 0 ? '' : ','}\n${pad(n + 1)}`);
        const el: unknown = x[i];
        // as JSON.stringify: what JSON has no value for is null in an array
        if (el === undefined || typeof el === 'function' || typeof el === 'symbol') put('null');
        else value(String(i), el, n + 1, levels - 1);
      }
      put(`\n${pad(n)}]`);
      return;
    }
    let first = true;
    for (const k of Object.keys(x)) {
      const el = (x as Record<string, unknown>)[k];
      // and is left out of an object
      if (el === undefined || typeof el === 'function' || typeof el === 'symbol') continue;
      put(`${first ? '{' : ','}\n${pad(n + 1)}${JSON.stringify(k)}: `);
      first = false;
      value(k, el, n + 1, levels - 1);
    }
    put(first ? '{}' : `\n${pad(n)}}`);
  };
  value('', r, 0, depth);
  put('\n');
  if (cur.length > 0) chunks.push(cur);
  return chunks;
}

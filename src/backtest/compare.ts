/**
 * A backtest compared with the paper run that recorded its tape (`harpoon backtest --compare
 * harpoon-paper-report.json`): fill by fill, and the realized profit and loss per strategy. The
 * two share the market view, the engine, the strategies, risk and the fill model; what may still
 * differ, each with its cause:
 *
 * - a fill's time: the backtest acts at the event's receive time, paper a few milliseconds later;
 * - the gas of a fill: paper reads the RPC as it executes, the tape holds the gas price as the
 *   recorder sampled it (every 12 s);
 * - a swap sized on the wallet: the wallets' ETH differs by the gas paid before it;
 * - a sale decided within a moment of the NFT's purchase: the backtest may take another best offer
 *   (it acts before paper's store has the buy);
 * - a strategy's realized PnL: by such a sale, or by the gas that differed (a cost basis holds its
 *   buy's gas, a sale its own).
 *
 * Anything else is a difference without a known cause: a fill only in one of them, or at another
 * price. Freqtrade's users complain most when backtest and dry run disagree; this says where.
 *
 * A live run (its run-report.json) adds what only live trading has: the gas a transaction paid
 * (gas used at its effective price, against paper's estimate), and offers a seller accepted — the
 * fill model fills ours on a listing or sale at or below them, a counterfactual, so an offer filled
 * in one of them only is said as such (and the realized PnL that follows from it), not taken for a
 * fault of the replay.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseUnits } from '../domain/money.ts';
import { type BacktestReport, ethValued } from './report.ts';

/** A fill on either side, as compared. */
export interface ComparedFill {
  readonly at: number;
  readonly strategy: string;
  readonly kind: string;
  readonly item: string | null;
  /** What was paid or received, fees included (the token's smallest unit). */
  readonly price: bigint;
  /** The fees in the price; null where the run does not know them (a live run's purchases). */
  readonly fees: bigint | null;
  readonly gas: bigint;
  readonly symbol: string;
  /** Of `symbol` (price and fees); gas is in wei. */
  readonly decimals: number;
}

/** One side's fill of a difference: amounts in smallest units (price and fees of `symbol`, gas in wei). */
export interface FillSide {
  readonly at: number;
  readonly price: string;
  /** Null: not known (see ComparedFill.fees). */
  readonly fees: string | null;
  readonly gas: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** A difference between the run and the backtest: `cause` null when none is known. */
export interface FillDifference {
  /** Strategy, kind and item. */
  readonly what: string;
  /** The paper run's fill (absent: not in the run). */
  readonly run?: FillSide;
  readonly backtest?: FillSide;
  readonly cause: string | null;
}

/** A purchase, sale, mint or swap a run tried and did not get (a live run's report). */
export interface RunAttempt {
  readonly at: number;
  readonly strategy: string;
  readonly kind: string;
  readonly item: string | null;
  /** Why not. */
  readonly error: string;
}

/** A strategy's realized PnL in ETH and WETH (as the backtest reports it), in wei. */
export interface RealizedComparison {
  readonly strategy: string;
  readonly run: string;
  readonly backtest: string;
  /** Null when the same; else why (null cause: unknown). */
  readonly differs: { readonly cause: string | null } | null;
}

export interface Comparison {
  /** The run's report compared with (its file name), whether it traded on paper or live, and its span. */
  readonly run: {
    readonly file: string;
    readonly mode: 'paper' | 'live';
    readonly from: number;
    readonly to: number;
    readonly fills: number;
  };
  /** Fills the same in both (strategy, kind, item, price and fees). */
  readonly same: number;
  /** The most two same fills are apart in time (ms). */
  readonly maxShiftMs: number;
  /** Every difference, explained ones first (in the run's order), then those without a cause. */
  readonly differences: readonly FillDifference[];
  readonly realized: readonly RealizedComparison[];
  /** No difference without a known cause. */
  readonly agree: boolean;
}

/** How soon after its purchase a sale may be decided differently (see the top of this file). */
export const SALE_AFTER_BUY_MS = 1_500;

const isSale = (kind: string) => kind === 'offer_accepted' || kind === 'listing_sold';
const whatOf = (f: ComparedFill) => `${f.strategy} ${f.kind}${f.item !== null ? ` ${f.item}` : ''}`;
const side = (f: ComparedFill): FillSide => ({
  at: f.at,
  price: f.price.toString(),
  fees: f.fees === null ? null : f.fees.toString(),
  gas: f.gas.toString(),
  symbol: f.symbol,
  decimals: f.decimals,
});
const apart = (a: bigint, b: bigint) => (a > b ? a - b : b - a);

/**
 * Fills of the run matched with the backtest's, in the run's order: the same strategy, kind, item,
 * price and fees (the earliest such backtest fill not matched yet), else one of the differences
 * with a known cause, else a difference without one; backtest fills left over are differences
 * without a cause too. `realized`: per strategy, in ETH and WETH (wei).
 */
export function compareFills(
  run: readonly ComparedFill[],
  backtest: readonly ComparedFill[],
  realized: {
    readonly run: ReadonlyMap<string, bigint>;
    readonly backtest: ReadonlyMap<string, bigint>;
  },
  about: Comparison['run'],
  /** What the run tried and did not get (a live run's report says). */
  tried: readonly RunAttempt[] = [],
): Comparison {
  const left = [...backtest];
  const explained: FillDifference[] = [];
  const unexplained: FillDifference[] = [];
  let same = 0;
  let maxShiftMs = 0;
  /** How far apart the gas paid so far is: the simulated wallets' ETH differs by as much. */
  let gasApart = 0n;
  const take = (i: number): ComparedFill => {
    const [b] = left.splice(i, 1);
    return b as ComparedFill;
  };
  /** Strategies with a sale taken differently: their realized PnL differs by as much. */
  const salesApart = new Set<string>();
  /** An offer filled in one of them only (a live run: the fill model against its sellers). */
  let offersApart = false;
  const live = about.mode === 'live';
  for (const f of run) {
    const what = whatOf(f);
    const i = left.findIndex(
      (b) =>
        whatOf(b) === what &&
        b.price === f.price &&
        (f.fees === null || b.fees === null || b.fees === f.fees),
    );
    if (i >= 0) {
      const b = take(i);
      same++;
      maxShiftMs = Math.max(maxShiftMs, Math.abs(b.at - f.at));
      if (b.gas !== f.gas) {
        gasApart += apart(b.gas, f.gas);
        explained.push({
          what: `gas of ${what}`,
          run: side(f),
          backtest: side(b),
          cause:
            about.mode === 'live'
              ? "the run's transaction paid its gas used at its effective price; the backtest charges paper's estimate of the gas at the price the tape sampled"
              : 'paper read the gas price from the chain as it executed; the tape holds it as the recorder sampled it',
        });
      }
      continue;
    }
    const s =
      f.kind === 'swap'
        ? left.findIndex((b) => whatOf(b) === what && apart(b.price, f.price) <= gasApart)
        : -1;
    if (s >= 0) {
      const b = take(s);
      maxShiftMs = Math.max(maxShiftMs, Math.abs(b.at - f.at));
      explained.push({
        what,
        run: side(f),
        backtest: side(b),
        cause: `a swap sized on the wallet, whose ETH differed by the ${gasApart} wei the gas paid before it did`,
      });
      continue;
    }
    const boughtAt = isSale(f.kind) ? lastBuy(run, f) : undefined;
    const j =
      boughtAt !== undefined && f.at - boughtAt < SALE_AFTER_BUY_MS
        ? left.findIndex((b) => whatOf(b) === what)
        : -1;
    if (j >= 0 && boughtAt !== undefined) {
      const b = take(j);
      salesApart.add(f.strategy);
      explained.push({
        what,
        run: side(f),
        backtest: side(b),
        cause: live
          ? `a sale decided within a moment of the purchase (the run ${f.at - boughtAt} ms after it, the backtest ${b.at - boughtAt} ms): the two may take different best offers then`
          : `a sale decided within a moment of the purchase (paper ${f.at - boughtAt} ms after it, the backtest ${b.at - boughtAt} ms): the backtest acts before paper's store has the buy and may take another best offer`,
      });
      continue;
    }
    if (live && f.kind === 'offer_filled') {
      offersApart = true;
      explained.push({
        what,
        run: side(f),
        cause:
          "a seller accepted the run's offer (the sale is on the tape); the backtest had no offer of its own standing at that price then — the fill model fills an offer on a listing or sale at or below it, which may come earlier or on another item, and the run's own offers on the tape are not the backtest's",
      });
      continue;
    }
    unexplained.push({ what, run: side(f), cause: null });
  }
  /** The run's attempts not yet taken to explain a backtest fill. */
  const attempts = [...tried];
  for (const b of left) {
    const a = attempts.findIndex((t) => t.strategy === b.strategy && t.kind === b.kind && t.item === b.item);
    if (a >= 0) {
      const [t] = attempts.splice(a, 1) as [RunAttempt];
      explained.push({
        what: whatOf(b),
        backtest: side(b),
        cause: `the run tried it too and did not get it (${t.error}): the backtest's fill model knows no other buyer first, no revert`,
      });
      continue;
    }
    if (live && b.kind === 'offer_filled') {
      offersApart = true;
      explained.push({
        what: whatOf(b),
        backtest: side(b),
        cause:
          "the fill model filled the backtest's offer on a listing or sale at or below it on the tape; live, a seller has to accept an offer, and none accepted the run's then",
      });
      continue;
    }
    unexplained.push({ what: whatOf(b), backtest: side(b), cause: null });
  }
  const keys = [...new Set([...realized.run.keys(), ...realized.backtest.keys()])].sort();
  const pnl: RealizedComparison[] = [];
  for (const k of keys) {
    const r = realized.run.get(k) ?? 0n;
    const b = realized.backtest.get(k) ?? 0n;
    if (r === 0n && b === 0n) continue;
    pnl.push({
      strategy: k,
      run: r.toString(),
      backtest: b.toString(),
      differs:
        r === b
          ? null
          : {
              cause: salesApart.has(k)
                ? 'a sale above was taken at another price'
                : apart(r, b) <= gasApart
                  ? `the gas paid above differs (${gasApart} wei in all): a cost basis holds its buy's gas, a sale its own`
                  : offersApart
                    ? 'offers above were filled differently (the fill model against live sellers), and so was what was sold of them'
                    : null,
            },
    });
  }
  return {
    run: about,
    same,
    maxShiftMs,
    differences: [...explained, ...unexplained],
    realized: pnl,
    agree: unexplained.length === 0 && pnl.every((p) => p.differs === null || p.differs.cause !== null),
  };
}

/** When the run last bought the item a sale sold, up to the sale. */
function lastBuy(run: readonly ComparedFill[], sale: ComparedFill): number | undefined {
  let at: number | undefined;
  for (const f of run)
    if (!isSale(f.kind) && f.item === sale.item && f.at <= sale.at && (at === undefined || f.at > at))
      at = f.at;
  return at;
}

// ── the run's report (harpoon run --paper writes it as it stops; a live daemon too) ─────

const whole = z.union([z.string().regex(/^-?\d{1,78}$/), z.number().int()]).transform((v) => BigInt(v));
const RunReportFile = z.object({
  mode: z.enum(['paper', 'live']),
  startedAt: z.number().int(),
  endedAt: z.number().int(),
  /** When the engine started (the strategies' first decisions); older reports have none. */
  tradingFrom: z.number().int().optional(),
  wallet: z.string(),
  strategies: z.array(z.object({ id: z.string(), module: z.string(), params: z.unknown() })).optional(),
  walletAtStart: z
    .array(
      z.object({
        token: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
        symbol: z.string(),
        amount: whole,
        decimals: z.number().int().min(0).max(77),
      }),
    )
    .optional(),
  fills: z.array(
    z.object({
      at: z.number().int(),
      strategyId: z.string(),
      kind: z.string(),
      item: z.string().nullable(),
      price: whole,
      // a live run does not know the fees of what it bought (null)
      fees: whole.nullable(),
      gas: whole,
      symbol: z.string(),
      decimals: z.number().int().min(0).max(77),
    }),
  ),
  pnl: z
    .object({
      byStrategy: z.array(z.object({ key: z.string(), symbol: z.string(), realized: z.string() })),
    })
    .optional(),
  tried: z
    .array(
      z.object({
        at: z.number().int(),
        strategyId: z.string(),
        kind: z.string(),
        item: z.string().nullable(),
        error: z.string(),
      }),
    )
    .optional(),
});

/** A paper or live run's report as a comparison reads it. */
export interface ComparedRun {
  readonly file: string;
  /** A paper run's report (harpoon run --paper) or a live run's (run-report.json next to its store). */
  readonly mode: 'paper' | 'live';
  readonly startedAt: number;
  readonly endedAt: number;
  /** When its strategies began (the engine's start), else its start. */
  readonly tradingFrom: number;
  readonly wallet: string;
  /** The strategies it traded with, as configured; undefined: an older report says none. */
  readonly strategies: readonly StrategyAsConfigured[] | undefined;
  /** The simulated wallet as its strategies began (token addresses in lower case, smallest units). */
  readonly walletAtStart:
    | readonly {
        readonly token: string;
        readonly symbol: string;
        readonly amount: bigint;
        readonly decimals: number;
      }[]
    | undefined;
  readonly fills: readonly ComparedFill[];
  /** What it tried and did not get (a live run's report; none from paper). */
  readonly tried: readonly RunAttempt[];
  /** Realized PnL per strategy in ETH and WETH (wei); undefined: the report has none. */
  readonly realized: ReadonlyMap<string, bigint> | undefined;
}

/** A file that is not a run's report: says what is wrong with it. */
export class RunReportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunReportError';
  }
}

/**
 * Reads the report a run writes as it stops: `harpoon run --paper`'s (harpoon-paper-report.json) or
 * a live daemon's (run-report.json next to its store: daemon/run-report.ts).
 */
export function readRun(path: string, file = path): ComparedRun {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new RunReportError(
      (e as NodeJS.ErrnoException).code === 'ENOENT'
        ? `no file at ${file}`
        : (e as NodeJS.ErrnoException).code === 'EISDIR'
          ? `${file} is a folder, not a run's report`
          : `${file} is not JSON: ${(e as Error).message}`,
    );
  }
  return runOf(json, file);
}

/** A run's report (its JSON, parsed) as a comparison reads it; `file` names it in errors. */
export function runOf(json: unknown, file: string): ComparedRun {
  const parsed = RunReportFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the file';
    throw new RunReportError(
      `${file} is not the report of a paper or live run (${where}: ${issue?.message ?? 'invalid'})`,
    );
  }
  const r = parsed.data;
  let realized: Map<string, bigint> | undefined;
  if (r.pnl !== undefined) {
    realized = new Map();
    // the backtest reports ETH and WETH together, as ETH
    for (const l of r.pnl.byStrategy) {
      if (!ethValued(l.symbol)) continue;
      let wei: bigint;
      try {
        wei = parseUnits(l.realized, 18);
      } catch {
        throw new RunReportError(`${file}: the realized PnL of ${l.key} is not an amount: ${l.realized}`);
      }
      realized.set(l.key, (realized.get(l.key) ?? 0n) + wei);
    }
  }
  return {
    file,
    mode: r.mode,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    tradingFrom: r.tradingFrom ?? r.startedAt,
    wallet: r.wallet.toLowerCase(),
    strategies: r.strategies?.map((x) => ({ id: x.id, module: x.module, params: x.params })),
    walletAtStart: r.walletAtStart?.map((b) => ({ ...b, token: b.token.toLowerCase() })),
    fills: r.fills.map((f) => ({
      at: f.at,
      strategy: f.strategyId,
      kind: f.kind,
      item: f.item,
      price: f.price,
      fees: f.fees,
      gas: f.gas,
      symbol: f.symbol,
      decimals: f.decimals,
    })),
    tried: (r.tried ?? []).map((t) => ({
      at: t.at,
      strategy: t.strategyId,
      kind: t.kind,
      item: t.item,
      error: t.error,
    })),
    realized,
  };
}

/** A strategy as a config names it. */
export interface StrategyAsConfigured {
  readonly id: string;
  readonly module: string;
  readonly params: unknown;
}

/** JSON with the keys of every object sorted: the same params written in another order are the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * How the strategies of a backtest differ from those the paper run traded with, one line each
 * (empty: the same): a strategy in one of them only, another module, a parameter set otherwise.
 */
export function strategyDifferences(
  run: readonly StrategyAsConfigured[],
  backtest: readonly StrategyAsConfigured[],
): string[] {
  const out: string[] = [];
  const here = new Map(backtest.map((s) => [s.id, s]));
  for (const r of run) {
    const b = here.get(r.id);
    if (b === undefined) {
      out.push(`${r.id}: traded by the run, not in this config`);
      continue;
    }
    if (r.module !== b.module) out.push(`${r.id}: module ${r.module} in the run, ${b.module} here`);
    const rp = (r.params ?? {}) as Record<string, unknown>;
    const bp = (b.params ?? {}) as Record<string, unknown>;
    for (const k of [...new Set([...Object.keys(rp), ...Object.keys(bp)])].sort()) {
      const x = k in rp ? canonical(rp[k]) : undefined;
      const y = k in bp ? canonical(bp[k]) : undefined;
      if (x !== y) out.push(`${r.id}.${k}: ${x ?? 'not set'} in the run, ${y ?? 'not set'} here`);
    }
  }
  const ran = new Set(run.map((s) => s.id));
  for (const b of backtest) if (!ran.has(b.id)) out.push(`${b.id}: in this config, not traded by the run`);
  return out;
}

/** The backtest's fills and realized PnL as compared. */
export function backtestSide(r: BacktestReport): {
  fills: ComparedFill[];
  realized: Map<string, bigint>;
} {
  const realized = new Map<string, bigint>();
  for (const l of r.byStrategy) realized.set(l.key, BigInt(l.realized));
  return {
    fills: r.fills.map((f) => ({
      at: f.at,
      strategy: f.strategy,
      kind: f.kind,
      item: f.item,
      price: BigInt(f.price),
      fees: BigInt(f.fees),
      gas: BigInt(f.gas),
      symbol: f.symbol,
      decimals: f.decimals,
    })),
    realized,
  };
}

/** The backtest compared with the paper run, over the backtest's window (the run's fills in it). */
export function compareWithRun(run: ComparedRun, report: BacktestReport): Comparison {
  const { from, to } = report.window;
  const inWindow = run.fills.filter((f) => f.at >= from && f.at <= to);
  const back = backtestSide(report);
  return compareFills(
    inWindow,
    back.fills,
    // a report without PnL (no holdings): compared as none realized
    { run: run.realized ?? new Map(), backtest: back.realized },
    { file: run.file, mode: run.mode, from: run.startedAt, to: run.endedAt, fills: inWindow.length },
    run.tried.filter((t) => t.at >= from && t.at <= to),
  );
}

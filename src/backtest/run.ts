/**
 * A backtest: a tape replayed through the same parts the daemon trades with — the market view, the
 * engine with the strategies and risk, the order ledger and holdings — with the paper executor
 * (the one fill model of simulated execution) as the executor, in virtual time taken from the
 * tape. Nothing in it reads the wall clock or the network, so the same tape and setup give the
 * same report, byte for byte.
 *
 * The replay, per event of the tape (in tape order): the clock moves to the event's time, firing
 * on the way every timer (market view refreshes, answered from the tape as of then) and cron tick
 * due, each at its own time (those of one moment together, then settled); then, as the daemon
 * does, the view applies the event, the ledger sees it, the paper executor checks it against our
 * simulated orders, the engine hands it to the strategies; everything they start is awaited
 * before the next step. The tape is not loaded: it is
 * read as the clock reaches it, with a bounded look-ahead (tape-source.ts).
 */

import { nativePricesView, nativeTokenTest, wrapAmountOut } from '../daemon/views.ts';
import { type MarketEvent, nftKey, type PaymentToken } from '../domain/events.ts';
import { ZERO_ADDRESS } from '../domain/ids.ts';
import {
  configIntentGuard,
  createEngine,
  type Engine,
  type LoadedStrategy,
  loadStrategy,
  type StrategyEntry,
} from '../engine/index.ts';
import { MemoryJournal, MemorySpendLedger, MemoryStateStore } from '../engine/memory.ts';
import { feeBps } from '../execution/fill-model.ts';
import { createPaperExecutor, type PaperExecutor, type PaperFill } from '../execution/paper.ts';
import { createPaperWallet } from '../execution/paper-wallet.ts';
import { createHoldings, createOrderLedger, type Holdings, storeLedger } from '../ledger/index.ts';
import { createMarketView, type MarketView } from '../market/index.ts';
import { createLogger } from '../observability/index.ts';
import { openStore, type Store } from '../store/index.ts';
import type { PricesView } from '../strategy.ts';
import { type BacktestReport, ReportCollector, sampleSpacing } from './report.ts';
import type { BacktestSetup } from './setup.ts';
import { GAP_MS, LOOK_AHEAD_MS, type Silence, type TapeReplay, type TapeSource } from './tape-source.ts';
import { VirtualTime } from './time.ts';

export interface BacktestOptions {
  readonly tape: TapeSource;
  readonly setup: BacktestSetup;
  /** Start trading at (epoch ms); events before it only warm the market view up. Default: the tape's start. */
  readonly from?: number;
  /** Stop at (epoch ms). Default: the tape's last record. */
  readonly to?: number;
  /**
   * How long before `from` the market view warms up (ms): the replay begins there, as a daemon
   * started then would — the view's first reads answered by the tape as of then, the events
   * before it not applied (read and let go). Default: the whole tape before `from`, every event.
   */
  readonly warmupMs?: number;
  /** Our buy lands this long after the decision; the listing must still stand then. Default 0. */
  readonly latencyMs?: number;
  /**
   * Spacing of the report's samples (ms). Default a minute, more for a window of over ~35 days
   * (see sampleSpacing); a spacing giving more than MAX_SAMPLES is a TooManySamplesError.
   */
  readonly sampleMs?: number;
  /** Where built-in strategies live (the package's strategies/). */
  readonly builtinStrategiesDir: string;
  /**
   * Tells progress as trading begins (0 replayed) and every `progressEvery` events: events
   * replayed since, the tape's events, and the tape's time then.
   */
  readonly onProgress?: (replayed: number, total: number, at: number) => void;
  /** Tells progress of the warm-up before `from` every `progressEvery` events: events read, the tape's time. */
  readonly onWarmup?: (read: number, at: number) => void;
  /** How often progress is told (events). Default 50,000. */
  readonly progressEvery?: number;
  /**
   * Stops the replay (a Ctrl-C): at the next event once trading started — the report then covers
   * the replay up to there (`interrupted`) — or with a BacktestInterrupted while the view warms up.
   */
  readonly signal?: AbortSignal;
}

/** A backtest stopped (`signal`) before its trading window began: nothing to report. */
export class BacktestInterrupted extends Error {
  constructor() {
    super('the backtest was interrupted while the market view warmed up (before --from): nothing to report');
    this.name = 'BacktestInterrupted';
  }
}

/**
 * With a signal, the process's own events (a Ctrl-C) get a turn every this many events: the
 * replay otherwise runs on promises alone and never lets them in. Nothing of a replay runs on the
 * process's timers (its clock and timers are the tape's), so these turns change nothing of it.
 */
const YIELD_EVERY = 2048;

/** Progress is told every this many events (warm-up and trading), unless told otherwise. */
const PROGRESS_EVERY = 50_000;

/** How far into a silence of the recording the clock runs before it skips (the view goes stale). */
const SILENCE_LEAD_MS = 2 * GAP_MS;
/** How long before a silence ends the skip lands (no record written late can be earlier). */
const SILENCE_TAIL_MS = GAP_MS + LOOK_AHEAD_MS;

export interface BacktestRun {
  readonly report: BacktestReport;
  /** Events replayed (between from and to). */
  readonly events: number;
  /** The most tape records the replay held at once (it streams the tape: see tape-source.ts). */
  readonly heldMax: number;
  /** Stopped by the signal: the report ends where the replay did. */
  readonly interrupted: boolean;
}

/**
 * The collections (sorted) of which a fill was charged no fees because the tape held none: a fill
 * in the collection at a time its fees were asked for in vain. Fees asked for by what charges
 * nothing (a listing posted, an offer accepted and then refused) name no collection.
 */
export function feesNotCharged(
  missedAt: ReadonlyMap<string, ReadonlySet<number>>,
  fills: readonly Pick<PaperFill, 'at' | 'collection'>[],
): string[] {
  const out = new Set<string>();
  if (missedAt.size > 0)
    for (const f of fills)
      if (f.collection !== null && missedAt.get(f.collection)?.has(f.at)) out.add(f.collection);
  return [...out].sort();
}

/** A configured strategy as the loader takes it. */
export function strategyEntry(s: BacktestSetup['strategies'][number]): StrategyEntry {
  return { id: s.id, module: s.module, params: s.params as Readonly<Record<string, unknown>> };
}

/** Loads (imports and validates) the setup's strategies, in order. */
export async function loadAll(setup: BacktestSetup, builtin: string): Promise<LoadedStrategy[]> {
  const out: LoadedStrategy[] = [];
  for (const s of setup.strategies)
    out.push(
      await loadStrategy(strategyEntry(s), {
        strategiesDir: setup.strategiesDir ?? builtin,
        ...(setup.baseDir !== undefined ? { baseDir: setup.baseDir } : {}),
      }),
    );
  return out;
}

/** Where a replay begins: the tape's start, or a warm-up window before `from` (BacktestOptions.warmupMs). */
export function replayBegins(o: Pick<BacktestOptions, 'tape' | 'from' | 'warmupMs'>): number {
  const first = o.tape.firstAt;
  if (o.warmupMs === undefined) return first;
  return Math.max(first, Math.max(first, o.from ?? first) - Math.max(0, o.warmupMs));
}

export async function runBacktest(o: BacktestOptions): Promise<BacktestRun> {
  const begins = replayBegins(o);
  const time = new VirtualTime(begins);
  // the tape, read as the clock reaches it (with a warm-up window, its events from there on)
  const replay = o.tape.replay(() => time.now(), begins > o.tape.firstAt ? { eventsFrom: begins } : {});
  try {
    return await replayTape(o, time, replay, begins);
  } finally {
    replay.close();
  }
}

async function replayTape(
  o: BacktestOptions,
  time: VirtualTime,
  tape: TapeReplay,
  /** Where the replay begins (replayBegins): the clock's start. */
  begins: number,
): Promise<BacktestRun> {
  const { setup } = o;
  const source = o.tape;
  const chain = source.header.chain;
  const start = Math.max(source.firstAt, o.from ?? source.firstAt);
  const end = Math.min(source.lastAt, o.to ?? source.lastAt);
  if (end < start) throw new RangeError('nothing to replay: --to is before --from (or outside the tape)');
  const sampleMs = sampleSpacing(end - start, o.sampleMs);
  const latencyMs = o.latencyMs ?? 0;
  const progressEvery = Math.max(1, Math.floor(o.progressEvery ?? PROGRESS_EVERY));
  const silent = createLogger({ level: 'silent' });

  const tokens = new Map<string, PaymentToken>();
  for (const t of [...source.header.paymentTokens, ...setup.tokens])
    if (t.address !== ZERO_ADDRESS)
      tokens.set(t.address.toLowerCase(), {
        ...t,
        address: t.address.toLowerCase() as PaymentToken['address'],
      });
  const tokenList = [...tokens.values()];
  const tokenOf = (addr: string): PaymentToken => {
    const a = addr.toLowerCase();
    if (a === ZERO_ADDRESS) return { address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 };
    return (
      tokens.get(a) ?? { address: a as PaymentToken['address'], symbol: `${a.slice(0, 8)}…`, decimals: 18 }
    );
  };

  const isNative = nativeTokenTest(setup.weth);
  const nativePrices: PricesView = nativePricesView(isNative, time);
  /** ETH and WETH at 1e18, any other token at its price on the tape by then (see TapeReplay.price). */
  const priceOf = (token: string) => nativePrices.get(token) ?? tape.price(token);
  /**
   * What `amount` of `t` is worth in wei now (decimal text), at the price `priceOf` gives; null
   * without one (nothing is worth 0 whatever the price).
   */
  const worthOf = (t: PaymentToken, amount: bigint): string | null => {
    if (amount === 0n) return '0';
    const p = priceOf(t.address)?.value.priceIn;
    return p === undefined ? null : ((amount * p) / 10n ** BigInt(t.decimals)).toString();
  };
  /**
   * A swap as a backtest fills it: all of it between ETH and WETH, else at the tokens' prices on
   * the tape (one whole token's quote, so without the pool's impact of a larger amount); undefined
   * when the tape has no price of one of them (refused as `swap_no_reference`, as a live swap
   * without a quote is).
   */
  const swapAmountOut = (from: PaymentToken, to: PaymentToken, amountIn: bigint): bigint | undefined => {
    const wrap = wrapAmountOut(isNative, from.address, to.address, amountIn);
    if (wrap !== undefined) return wrap;
    const pf = priceOf(from.address)?.value.priceIn;
    const pt = priceOf(to.address)?.value.priceIn;
    if (pf === undefined || pt === undefined || pt <= 0n) return undefined;
    return (amountIn * pf * 10n ** BigInt(to.decimals)) / (10n ** BigInt(from.decimals) * pt);
  };

  const store: Store = openStore(':memory:', { now: () => time.now() });
  /** Each fees record's bps, made once (records are kept, not copied: see tape-source.ts). */
  const feeBpsOf = new WeakMap<object, bigint>();
  // orders live in the ledger alone (a backtest never restarts from its store); fills are recorded
  const ledger = createOrderLedger({
    clock: time,
    chain,
    store: storeLedger(store, () => time.now(), { orders: false }),
  });
  const view: MarketView = createMarketView({
    api: tape.api,
    clock: time,
    timers: time,
    logger: silent,
    collections: setup.collections,
    staleAfterMs: setup.market.staleAfterMs,
    readsPerHour: setup.market.readsPerHour,
    paymentTokens: [{ address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 }, ...tokenList],
    streamFreshness: (slug) => tape.freshness(slug),
    // the fees a sale pays, as the daemon tells its strategies once it read them
    sellerFeeBps: (slug) => {
      const fees = tape.knownFees(slug);
      if (fees === undefined) return undefined;
      let bps = feeBpsOf.get(fees);
      if (bps === undefined) {
        bps = feeBps(fees);
        feeBpsOf.set(fees, bps);
      }
      return bps;
    },
    ownOrders: ledger,
  });
  // the simulated wallet, from the config's start (none: strategies read no balances)
  const startBalances = setup.balances;
  /** Per token of the start, what it was worth as trading began (wei; null: no price then). */
  const startValues = new Map<string, string | null>();
  const wallet =
    startBalances === undefined
      ? undefined
      : createPaperWallet({
          start: () => ({ value: startBalances, learnedAt: time.now(), from: 'own' }),
        });
  const paper: PaperExecutor = createPaperExecutor({
    clock: time,
    wallet: setup.wallet,
    chain,
    market: view,
    ledger,
    store,
    fees: async (slug) => tape.fees(slug),
    gasPrice: async () => tape.gasPrice(),
    traitsOf: async (nft) => tape.traits(nft),
    // the events after the one being replayed, up to the latency
    standsAfterLatency: (orderHash, nft, at) =>
      latencyMs <= 0 || tape.standsUntil(orderHash, nft, at + latencyMs),
    holds: (nft) => {
      holdings.refresh();
      return holdings.get(nftKey(nft)) !== undefined;
    },
    // a tape does not say which contracts are ERC-1155: every NFT is taken as one of a kind
    unique: () => true,
    swapOut: async (i) => swapAmountOut(i.fromToken, i.toToken, i.amountIn),
    // a mint pays the drop's price as recorded by then (none: the intent's cap, as paper does)
    dropPrice: (drop) => tape.drop(drop)?.value.pricePerToken,
    ...(wallet !== undefined ? { onFill: (f: PaperFill) => wallet.record(f) } : {}),
  });
  // Holdings are brought up to date whenever a hook or risk asks, as the daemon does (each refresh
  // reads only the fills recorded since the last); the report keeps its own (its reading them must
  // not make the strategies' fresher).
  // the journal of intents in memory (nothing restarts from a backtest), finished ones let go: the
  // holdings learn who bought or sold from it
  const journal = new MemoryJournal({ keepFinished: false });
  const strategyOfIntent = (id: string) => journal.strategyOf(id);
  const holdings: Holdings = createHoldings({ store, ledger, chain, tokenOf, strategyOfIntent });
  const reported: Holdings = createHoldings({ store, ledger, chain, tokenOf, strategyOfIntent });
  const strategies = await loadAll(setup, o.builtinStrategiesDir);
  /**
   * `strategy id \0 what` a strategy read in vain at some time (the wallet's balances, a token's
   * price, a drop), and what was found when read: the report names a strategy for what the
   * backtest never had while it ran.
   */
  const readInVain = new Set<string>();
  const found = new Set<string>();
  const lookedUp = <T>(id: string, what: string, v: T | undefined): T | undefined => {
    if (v === undefined) readInVain.add(`${id}\u0000${what}`);
    else found.add(what);
    return v;
  };
  const engine: Engine = createEngine({
    strategies,
    market: {
      snapshot: () => view.snapshot(),
      changeStamp: (slug, mask) => view.changeStamp(slug, mask),
      holdings: () => {
        holdings.refresh();
        return holdings;
      },
      // the simulated wallet's (paper.balances); without them, not on a tape: a strategy that
      // reads them decides without them (the report says who)
      balances: (id) => lookedUp(id, 'wallet balances', wallet?.balances() ?? undefined) ?? null,
      // ETH and WETH are worth 1e18 by definition, other tokens what the recording daemon read
      prices: (id) => ({
        get: (token) => lookedUp(id, `price of ${tokenOf(token).symbol}`, priceOf(token)),
      }),
      // the drops' status as the recording daemon read it (its mint pays that price)
      drops: (id) => ({ get: (slug) => lookedUp(id, `drop ${slug}`, tape.drop(slug)) }),
      // as the daemon learned them (market/nft-traits.ts), when it learned them
      nfts: () => tape.nftTraits,
    },
    executor: paper,
    orders: ledger,
    journal,
    // strategy state and risk's spend entries only matter across restarts: in memory
    stateStore: new MemoryStateStore(),
    spendLedger: new MemorySpendLedger(),
    risk: setup.risk,
    guard: configIntentGuard({ collections: setup.collections, tokens: tokenList }),
    clock: time,
    cron: time.cron,
    logger: silent,
    wallet: setup.wallet,
    ...setup.timing,
    // no write budget in a backtest: the engine's retry timer (real time) never arms
    retryIntervalMs: 0,
  });

  /** Nothing running, queued or due now: settling would change nothing. */
  const quiet = (): boolean => view.settled() && engine.settled && time.nextDue() > time.now();
  const settleAll = async (): Promise<void> => {
    for (let i = 0; i < 100; i++) {
      if (quiet()) return;
      await view.whenIdle();
      await engine.idle();
      if (time.nextDue() > time.now()) return;
      await time.advanceTo(time.now(), () => undefined);
    }
  };
  /** Waits for what is running, queued or due now; nothing (no promise) when that is nothing. */
  const settle = (): Promise<void> | undefined => (quiet() ? undefined : settleAll());

  const collector = new ReportCollector({
    setup,
    tape: source,
    start,
    end,
    ...(o.warmupMs !== undefined ? { warmupFrom: begins } : {}),
    latencyMs,
    sampleMs,
    paper,
    holdings: reported,
    ledger,
    view,
    engine,
    notOnTape: () => {
      const by = new Map<string, string[]>();
      const never = [...readInVain].filter((k) => !found.has(k.slice(k.indexOf('\u0000') + 1)));
      for (const k of never.sort()) {
        const [strategy, what] = k.split('\u0000') as [string, string];
        by.set(strategy, [...(by.get(strategy) ?? []), what]);
      }
      return [...by].map(([strategy, reads]) => ({ strategy, reads }));
    },
    wallet: () => {
      const end = wallet?.balances()?.value;
      if (startBalances === undefined || end === undefined) return [];
      const tokensOf = [...new Set([...startBalances.keys(), ...end.keys()])].sort();
      return tokensOf.map((address) => {
        const t = tokenOf(address);
        const endAmount = end.get(address) ?? 0n;
        return {
          token: address,
          symbol: t.symbol,
          decimals: t.decimals,
          start: (startBalances.get(address) ?? 0n).toString(),
          end: endAmount.toString(),
          // a token the start does not hold was worth nothing then
          startValue: startValues.get(address) ?? '0',
          endValue: worthOf(t, endAmount),
        };
      });
    },
    costsNotOnTape: () => ({
      fees: feesNotCharged(tape.costsNotOnTape.feesMissedAt, paper.fills()),
      gasPrice: tape.costsNotOnTape.gasPrice,
    }),
  });

  // the daemon's poll: expiries settle, holdings are read again
  const poll = () => {
    ledger.tick();
    holdings.refresh();
  };
  let pollTimer: unknown;
  const armPoll = () => {
    pollTimer = time.setTimeout(() => {
      poll();
      armPoll();
    }, setup.pollIntervalMs);
  };

  let replayed = 0;
  const signal = o.signal;
  let sinceTurn = 0;
  /** Whether the process's events are due a turn (with a signal: every YIELD_EVERY events). */
  const turnDue = (): boolean => {
    if (++sinceTurn < YIELD_EVERY) return false;
    sinceTurn = 0;
    return true;
  };
  const turn = () => new Promise<void>((done) => setImmediate(done));
  /** Whether the signal stopped the replay (a function: it changes across awaits). */
  const aborted = (): boolean => signal?.aborted === true;
  /** With a signal, the clock's firings are a place to stop too (see VirtualTime.advanceTo). */
  const stop =
    signal === undefined ? undefined : { turn: () => (turnDue() ? turn() : undefined), stopped: aborted };
  /** The end of a replay, whole or interrupted: engine, view and store stopped. */
  const stopAll = async (): Promise<void> => {
    await engine.stop();
    await view.stop();
    store.close();
  };
  /**
   * A silence of the recording before `at` (see TapeReplay.silence) is skipped: the clock runs into
   * it as far as the market view going stale there takes (SILENCE_LEAD_MS), then moves at once to
   * SILENCE_TAIL_MS before its end (or to `at`, when that comes first) — what was due on the way
   * comes once, there (VirtualTime.skipTo) — and runs on from there as anywhere else. Returns what to
   * await, if anything (nothing: no silence).
   */
  const skipSilence = (at: number): Promise<void> | undefined => {
    const s = tape.silence(at);
    return s === undefined ? undefined : skip(s, at);
  };
  const skip = async (s: Silence, at: number): Promise<void> => {
    const from = s.from + SILENCE_LEAD_MS;
    const to = Math.min(s.to - SILENCE_TAIL_MS, at);
    if (to <= from || to <= time.now()) return;
    if (from > time.now()) await time.advanceTo(from, settle, stop);
    if (!aborted()) time.skipTo(to);
  };
  const applyEvent = (e: MarketEvent) => {
    view.apply(e);
    ledger.apply(e);
  };
  // warm-up: the market view learns the market up to `start`
  await view.start();
  await settleAll();
  // an event is taken before the clock moves to it: the look-ahead of a buy decided on the way
  // starts after it
  let warmed = 0;
  for (let r = tape.peek(); r !== undefined && r.at < start; r = tape.peek()) {
    if (signal !== undefined && turnDue()) await turn();
    if (aborted()) {
      await stopAll();
      throw new BacktestInterrupted();
    }
    tape.shift();
    await skipSilence(r.at);
    if (!aborted()) await time.advanceTo(r.at, settle, stop);
    if (aborted()) break;
    applyEvent(r.event);
    if (o.onWarmup !== undefined && ++warmed % progressEvery === 0) o.onWarmup(warmed, r.at);
  }
  if (!aborted()) await skipSilence(start);
  if (!aborted()) await time.advanceTo(start, settle, stop);
  if (aborted()) {
    await stopAll();
    throw new BacktestInterrupted();
  }
  await engine.start();
  await settleAll();
  armPoll();
  collector.begin(time);
  // the simulated wallet's worth as trading begins (see BacktestReport.wallet)
  if (startBalances !== undefined)
    for (const [address, amount] of startBalances)
      startValues.set(address, worthOf(tokenOf(address), amount));
  o.onProgress?.(0, source.events, time.now());
  let interrupted = false;
  for (let r = tape.peek(); r !== undefined && r.at <= end; r = tape.peek()) {
    if (signal !== undefined && turnDue()) await turn();
    if (aborted()) {
      interrupted = true;
      break;
    }
    tape.shift();
    const e = r.event;
    // the common case needs no await: nothing due before the event (or only what leaves all quiet,
    // see settle), no fill, no strategy reached
    if (!time.moveIfQuiet(r.at)) {
      const skipping = skipSilence(r.at);
      if (skipping !== undefined) await skipping;
      const moving = aborted() ? undefined : time.advanceTo(r.at, settle, stop);
      if (moving !== undefined) await moving;
      if (aborted()) {
        interrupted = true;
        break;
      }
    }
    applyEvent(e);
    const filling = paper.observe(e);
    if (filling !== undefined) await filling;
    // as the daemon awaits the paper executor before the engine hears the event: what is under way
    // (a floor relearned after the event) moves on first
    else if (!view.settled() || !engine.settled) await undefined;
    const hooks = engine.onEvent(e);
    if (hooks !== undefined) await hooks;
    const settling = settle();
    if (settling !== undefined) await settling;
    replayed++;
    if (o.onProgress !== undefined && replayed % progressEvery === 0)
      o.onProgress(replayed, source.events, time.now());
  }
  if (!interrupted) {
    await skipSilence(end);
    if (!aborted()) await time.advanceTo(end, settle, stop);
    interrupted = aborted();
  }
  poll();
  const report = collector.finish(time.now(), replayed, interrupted);
  if (pollTimer !== undefined) time.clearTimeout(pollTimer as never);
  await stopAll();
  return { report, events: replayed, heldMax: tape.heldMax, interrupted };
}

// The composition root: the only place that wires concrete adapters together.
//
// Start-up order (nothing is spent before step 6 is done):
//   1. logger, store (exclusive lock; paper mode has its own database)
//   2. signer (live), RPC and the chain-id check
//   3. rate-limit scheduler → API transport and client
//   4. tx sender reconcile (every written-ahead transaction resolved), Seaport orders/approvals,
//      calldata guard, execution reconcile (every open buy/swap/mint resolved)
//   5. market view (first load), balances and drops, stream client (watermarks from the store)
//   6. engine built: strategies loaded
// build() stops there (state `built`: every adapter connected and reconciled, nothing trading,
// nothing listening); listen() goes on:
//   7. engine started: journal replayed, intents of unknown outcome settled, init hooks, cron
//   8. stream → view → paper book → engine; poll timer; control endpoint serving
// start() is build() then listen().
// stop(): no new intents, executions in flight finish (or time out), stream closed, watermarks and
// the paper report saved, store closed. Idempotent.

import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonRpcProvider } from 'ethers';
import {
  type AlertDetector,
  type AlertEvent,
  alertOfFatal,
  alertOfFeeChange,
  alertOfFill,
  alertOfGuardRefusal,
  alertOfKill,
  alertOfPause,
  alertOfResume,
  createAlerts,
  isFillKind,
  type Notifier,
} from '../alerts/index.ts';
import {
  type ApiClient,
  createApiClient,
  createCredentials,
  createTransport,
  type HttpTransport,
  warnDeprecatedField,
} from '../api/index.ts';
import {
  type CredentialKeeper,
  createCredentialKeeper,
  describeCredentials,
  storedPatOf,
} from '../auth/index.ts';
import { type CalldataGuard, createCalldataGuard, simulateWith } from '../chain/guard/index.ts';
import {
  type ChainRpc,
  createEthersRpc,
  createTxSender,
  type LocalSigner,
  loadSigner,
  signerFromPrivateKey,
  type TxSender,
  verifyChain,
} from '../chain/index.ts';
import { outFileProblem } from '../config/load.ts';
import type { ChainName } from '../domain/chains.ts';
import { type MarketEvent, nftKey, type PaymentToken } from '../domain/events.ts';
import { type Address, isHash32, ZERO_ADDRESS } from '../domain/ids.ts';
import { formatUnits } from '../domain/money.ts';
import type { Secret } from '../domain/secret.ts';
import {
  configIntentGuard,
  createEngine,
  type Engine,
  type LoadedStrategy,
  loadStrategy,
  writeBudgetFromScheduler,
} from '../engine/index.ts';
import { BaseError, ConfigError, FatalError } from '../errors/index.ts';
import {
  type Executor as ChainExecutor,
  type CollectionInfo,
  createCollectionInfoCache,
  createExecutionReconciler,
  createExecutor,
  createLiveExecutor,
  createOrderDesk,
  createPaperExecutor,
  createPaperWallet,
  type LiveExecutor,
  type OrderDesk,
  offerTokenOf,
  type PaperExecutor,
  type PaperReport,
  type PaperWallet,
  sweepOrphans,
} from '../execution/index.ts';
import {
  createHoldings,
  createOrderLedger,
  type LedgerChange,
  type OrderLedger,
  storeLedger,
} from '../ledger/index.ts';
import { createMarketView, createNftTraits, type MarketView, type NftTraits } from '../market/index.ts';
import { createDaemonFacade, createMcpHttpHandler } from '../mcp/index.ts';
import { createLogger, type Logger } from '../observability/index.ts';
import { createScheduler, type Scheduler } from '../ratelimit/index.ts';
import { Priority } from '../ratelimit/types.ts';
import {
  createApprovals,
  createEthersSeaportReader,
  createSeaportOrders,
  latestBlockClock,
  type SeaportOrders,
} from '../seaport/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { writePrivateFile } from '../store/private-file.ts';
import type { Balances, Intent } from '../strategy.ts';
import { createStreamClient, type StreamClient, type Watermark } from '../stream/index.ts';
import { createDaemonRecorder } from '../tape/daemon.ts';
import type { TapeRecorder } from '../tape/recorder.ts';
import { type Console, createConsole } from './console.ts';
import {
  type ControlAction,
  type ControlServer,
  type ControlSwitch,
  type HealthReport,
  startControlServer,
  toJson,
} from './control.ts';
import { createDaemonMetrics } from './metrics.ts';
import type { DaemonOptions } from './options.ts';
import { storeJournal, storeSpendLedger, storeStrategyState } from './persistence.ts';
import { routerAmountOut } from './router.ts';
import { type LiveRunReport, liveRunFills, liveRunTried, TRIED_KINDS } from './run-report.ts';
import { buildStatus, type DaemonStatus, liveAtStopLine, type TapeStatus } from './status.ts';
import {
  createBalancesReader,
  createDropsReader,
  createPricesReader,
  dropReadings,
  nativeTokenTest,
  nftBalanceReader,
  type PricesReader,
  priceReadings,
  wrapAmountOut,
} from './views.ts';
import { adapterOptions } from './wiring.ts';

export { renderPaperReport } from '../execution/index.ts';
export type { DaemonOptions } from './options.ts';
export { daemonOptionsFromConfig, paperPathOf } from './options.ts';
export type { DaemonStatus } from './status.ts';
export { describeTape, renderStatus } from './status.ts';

/** Where the paper store keeps the simulated wallet (an id no strategy can have: see the config's ids). */
const PAPER_WALLET_ID = '_paper_wallet';
/** How often a live run's report is saved while it runs (see daemon/run-report.ts). */
const RUN_REPORT_EVERY_MS = 60_000;

/** The built-in strategies of the package (`strategies/` next to `src/`). */
export const BUILTIN_STRATEGIES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../strategies');

export interface DaemonDeps {
  /** Default: pino to stderr at options.log.level. */
  readonly logger?: Logger;
  readonly clock?: { now(): number };
  /** Called with progress lines during start (the CLI prints them). */
  readonly onProgress?: (line: string) => void;
  /**
   * Called once the control endpoint serves, with the dashboard's address: the control token is
   * in its fragment (`#token=…`, never sent to a server). Print it for the operator; never log it.
   */
  readonly onDashboard?: (url: string) => void;
}

export interface Daemon {
  /** Opens, connects and reconciles every adapter and builds the engine; trades nothing, serves nothing. */
  build(): Promise<void>;
  /** Builds if not built, then starts the engine, the poll timer and the control endpoint. */
  listen(): Promise<void>;
  /** build() then listen(). */
  start(): Promise<void>;
  /**
   * Settles when a credential was refused for good (revoked PAT, rejected key, an instant key
   * that could not be renewed): trading has stopped; the error says what to do.
   */
  readonly whenFatal: Promise<FatalError>;
  stop(): Promise<void>;
  status(): DaemonStatus;
  health(): HealthReport;
  /** The control endpoint's URL once started. */
  readonly url: string | undefined;
  /** Paper mode: what it would have done (undefined in live mode). */
  paperReport(): PaperReport | undefined;
  /**
   * Live mode: what it traded since its engine started, as a paper report gives it (undefined in
   * paper mode, and before the engine started); after stop, as saved then.
   */
  runReport(): LiveRunReport | undefined;
  /** The engine, once started (tests). */
  readonly engine: Engine | undefined;
  /** Kill switch: no new intents, every open offer cancelled; latched (also across restarts) until resume(). */
  kill(reason?: string): Promise<void>;
  /** No hooks, no new intents; open orders and all state stay (also across restarts) until resume(). */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

type State = 'new' | 'starting' | 'built' | 'running' | 'stopping' | 'stopped' | 'failed';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

function storeWatermarks(store: Store): Record<string, Watermark> {
  const out: Record<string, Watermark> = {};
  for (const w of store.watermarks.all()) {
    let sinceSec = Math.floor(w.eventAt / 1000);
    let ids: string[] = [];
    if (w.cursor !== undefined) {
      try {
        const c = JSON.parse(w.cursor) as { sinceSec?: number; ids?: string[] };
        if (typeof c.sinceSec === 'number') sinceSec = c.sinceSec;
        if (Array.isArray(c.ids)) ids = c.ids.filter((x) => typeof x === 'string');
      } catch {
        // an unreadable cursor only costs a wider backfill
      }
    }
    out[w.collection] = { newestMs: w.eventAt, sinceSec, ids };
  }
  return out;
}

export function createDaemon(options: DaemonOptions, deps: DaemonDeps = {}): Daemon {
  const clock = deps.clock ?? { now: () => Date.now() };
  const log: Logger =
    deps.logger ?? createLogger({ level: options.log.level, name: 'harpoon', destination: process.stderr });
  // progress lines go to the caller (the CLI prints them for a person), else to the log
  const progress = (line: string) => {
    if (deps.onProgress !== undefined) deps.onProgress(line);
    else log.info(line);
  };
  const paper = options.mode === 'paper';

  let state: State = 'new';
  let failure: string | null = null;
  let startedAt = 0;
  let readyAt = 0;
  let buildPromise: Promise<void> | null = null;
  let listenPromise: Promise<void> | null = null;
  let stopPromise: Promise<void> | null = null;

  // adapters, created by start()
  let store: Store | undefined;
  let rpc: ChainRpc | undefined;
  let provider: JsonRpcProvider | undefined;
  let scheduler: Scheduler | undefined;
  let transport: HttpTransport | undefined;
  let api: ApiClient | undefined;
  let signer: LocalSigner | undefined;
  let sender: TxSender | undefined;
  let guard: CalldataGuard | undefined;
  let execution: ChainExecutor | undefined;
  /** The live executor (none on paper): the agent tools' simulate_intent checks fills through it. */
  let liveExecutor: LiveExecutor | undefined;
  let view: MarketView | undefined;
  /** market.record: the tape the market view's market is recorded to. */
  let recorder: TapeRecorder | undefined;
  /** NFT traits as strategies read them (ctx.nfts), learned from listings and metadata updates. */
  let nftTraits: NftTraits | undefined;
  let stream: StreamClient | undefined;
  let engine: Engine | undefined;
  let engineStarted = false;
  /** When the engine started (its strategies' first decisions): a paper report says it. */
  let tradingFrom: number | undefined;
  /**
   * The wallet then (paper mode: the simulated one; live: as read): a backtest compared with this
   * run starts from it.
   */
  let walletAtStart: ReadonlyMap<string, bigint> | undefined;
  /** Live mode: the run report as saved at stop (the store is closed after). */
  let finalRunReport: LiveRunReport | undefined;
  /** When the run report was last saved while running (live). */
  let reportSavedAt = 0;
  /** What we hold and what selling earned (cost basis, realized and unrealized PnL). */
  let holdings: ReturnType<typeof createHoldings> | undefined;
  let holdingsCheckedAt = 0;
  let keeper: CredentialKeeper | undefined;
  let fatal: FatalError | undefined;
  let onFatal: ((e: FatalError) => void) | undefined;
  const fatalOnce = new Promise<FatalError>((resolve) => {
    onFatal = resolve;
  });
  let ledger: OrderLedger | undefined;
  let desk: OrderDesk | undefined;
  let paperExec: PaperExecutor | undefined;
  /** Orders still live on the marketplace when the daemon stopped, and why. */
  let liveAtStop: { orderHash: string; state: string; reason: string | null }[] = [];
  let control: ControlServer | undefined;
  /** The operator's console (dashboard data and live events), served by the control endpoint. */
  let consoleView: Console | undefined;
  /** Alerts: one notifier (webhook, Telegram, Discord), fed by the events below and the detector. */
  let notifier: Notifier | undefined;
  let detector: AlertDetector | undefined;
  const alert = (e: AlertEvent): void => {
    notifier?.notify(e);
    consoleView?.alert({ at: e.at, kind: e.kind, severity: e.severity, title: e.title, text: e.text });
  };
  let pollTimer: ReturnType<typeof setInterval> | undefined;
  let wallet: Address = ZERO_ADDRESS;
  /** Every adapter's options from the config, once the wallet is known (build). */
  let ao: ReturnType<typeof adapterOptions> = adapterOptions(options, ZERO_ADDRESS);
  const reconcileSummary: Record<string, number> = {};
  let finalStatus: DaemonStatus | undefined;

  // running totals for status and metrics
  let eventsTotal = 0;
  const eventsByKind: Record<string, number> = {};
  let ordersPlaced = 0;
  let fillsTotal = 0;
  const recentFills: {
    at: number;
    strategy: string;
    kind: string;
    collection: string | null;
    price: string;
    symbol: string;
  }[] = [];
  const guardRejections: Record<string, number> = {};
  let balances: ReturnType<typeof createBalancesReader> | undefined;
  /** Paper mode: the simulated wallet (its start, and the paper fills since). */
  let paperWallet: PaperWallet | undefined;
  /** The wallet's balances as strategies and the console see them: paper mode's simulated ones. */
  const walletBalances = (): Balances | null => paperWallet?.balances() ?? balances?.get() ?? null;
  let drops: ReturnType<typeof createDropsReader> | undefined;
  let prices: PricesReader | undefined;
  /**
   * Each collection's fees and contract, read again as they age and after a refused order: what
   * orders carry, paper charges, the tape keeps and the market view tells strategies a sale nets.
   */
  const collections = createCollectionInfoCache({
    read: async (slug) => {
      const c = await (api as ApiClient).collections.get(slug);
      return {
        fees: c.fees.map((f) => ({ fee: f.fee, recipient: f.recipient, required: f.required })),
        ...(c.contracts[0]?.address !== undefined ? { contract: c.contracts[0].address.toLowerCase() } : {}),
      };
    },
    clock,
    logger: log.child({ part: 'collections' }),
    maxAgeMs: options.market.feesMaxAgeMs,
    // the recipients read before a restart stay payable (an order signed before a fee change)
    remembered: {
      of: (slug) => store?.feeRecipients.of(slug) ?? [],
      add: (slug, recipients) => store?.feeRecipients.add(slug, recipients),
    },
    onChange: (c) => {
      // a change is on the tape at once (the recorder also asks every 12 s)
      recorder?.fees(c.slug, c.info.fees);
      if (c.before !== undefined)
        alert(
          alertOfFeeChange({
            at: clock.now(),
            collection: c.slug,
            beforeBps: c.before.sellerFeeBps ?? null,
            nowBps: c.sellerFeeBps ?? null,
            fees: c.info.fees,
          }),
        );
    },
  });
  const collection = (slug: string): Promise<CollectionInfo> => collections.get(slug);

  /** A fill of one of our orders (live or paper), from the ledger (which records it in the store): shown. */
  function onOrderChange(c: LedgerChange): void {
    if (c.news.kind === 'posted') ordersPlaced++;
    consoleView?.orderChanged(c.order);
    if (c.filledUnits <= 0n) return;
    holdings?.refresh(); // a sale or a purchase through one of our orders: PnL and holdings change
    const o = c.order;
    pushFill({
      at: clock.now(),
      strategy: o.strategyId ?? 'unknown',
      kind: o.side === 'listing' ? 'listing_sold' : 'offer_filled',
      collection: o.collection,
      price: formatUnits(c.filledAmount, o.paymentToken.decimals),
      symbol: o.paymentToken.symbol,
    });
  }

  const pushFill = (f: (typeof recentFills)[number]) => {
    fillsTotal++;
    recentFills.push(f);
    if (recentFills.length > 20) recentFills.shift();
  };

  /** ERC-721 or ERC-1155 of an NFT contract, from the API (cached; erc721 when unknown). */
  const standards = new Map<string, Promise<'erc721' | 'erc1155'>>();
  function standardOf(contract: string): Promise<'erc721' | 'erc1155'> {
    const key = contract.toLowerCase();
    let p = standards.get(key);
    if (p === undefined) {
      p = (api as ApiClient).contracts
        .get(options.chain.name, key)
        .then((c) => (String(c.contract_standard).toLowerCase() === 'erc1155' ? 'erc1155' : 'erc721'));
      p.catch(() => standards.delete(key));
      standards.set(key, p);
    }
    return p;
  }

  const tokens: PaymentToken[] = [...options.tokens];
  /** A payment token's symbol and decimals by address (zero address = ETH; unknown: 18 decimals). */
  const tokenInfo = (addr: string): PaymentToken => {
    const a = addr.toLowerCase();
    if (a === ZERO_ADDRESS) return { address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 };
    return (
      tokens.find((t) => t.address.toLowerCase() === a) ?? {
        address: a as Address,
        symbol: `${a.slice(0, 8)}…`,
        decimals: 18,
      }
    );
  };
  const tokenSymbol = (addr: string): string => tokenInfo(addr).symbol;
  /** ETH or WETH (one is the other, wrapped: 1:1). */
  const isNativeToken = nativeTokenTest(options.chain.weth);
  /**
   * What `amountIn` of `from` buys of `to` by our own reference: between ETH and WETH all of it (a
   * wrap or an unwrap), else the first router's reserves — what a live swap's slippage floor is set
   * from, and what a paper swap receives; undefined when there is none.
   */
  const referenceAmountOut = async (
    from: string,
    to: string,
    amountIn: bigint,
  ): Promise<bigint | undefined> => {
    if (isNativeToken(from) && isNativeToken(to)) return wrapAmountOut(isNativeToken, from, to, amountIn);
    const router = options.chain.routers[0];
    if (router === undefined || rpc === undefined) return undefined;
    try {
      return await routerAmountOut({ rpc, router, weth: options.chain.weth }, from, to, amountIn);
    } catch (err) {
      log.warn({ err }, 'router reference price unavailable');
      return undefined;
    }
  };

  const intentGuard = configIntentGuard({ collections: options.collections, tokens });

  async function loadStrategies(): Promise<LoadedStrategy[]> {
    const out: LoadedStrategy[] = [];
    for (const s of options.strategies)
      out.push(
        await loadStrategy(
          { id: s.id, module: s.module, params: s.params },
          {
            strategiesDir: options.strategiesDir ?? BUILTIN_STRATEGIES_DIR,
            ...(options.baseDir !== undefined ? { baseDir: options.baseDir } : {}),
          },
        ),
      );
    return out;
  }

  function onEvent(event: MarketEvent): void {
    eventsTotal++;
    eventsByKind[event.kind] = (eventsByKind[event.kind] ?? 0) + 1;
    recorder?.event(event);
    view?.apply(event);
    nftTraits?.observe(event);
    // our orders: fills, cancels and validity, whatever the daemon's state
    ledger?.apply(event);
    // while stopping, the market view still learns but no strategy hears of it (no new intents)
    if (state !== 'running' && state !== 'starting') return;
    const work = async () => {
      if (paperExec !== undefined) await paperExec.observe(event);
      await engine?.onEvent(event);
    };
    void work().catch((err: unknown) => log.error({ err }, 'event handling failed'));
  }

  function persistWatermarks(): void {
    if (stream === undefined || store === undefined) return;
    try {
      const s = store;
      const marks = stream.getWatermarks();
      s.transaction(
        () => {
          for (const [key, w] of Object.entries(marks))
            s.watermarks.advance(
              key,
              w.newestMs,
              JSON.stringify({ sinceSec: w.sinceSec, ids: w.ids.slice(-500) }),
            );
        },
        { durable: false },
      );
    } catch (err) {
      log.warn({ err }, 'saving stream watermarks failed');
    }
  }

  async function poll(): Promise<void> {
    await Promise.all([
      balances?.refresh().catch((err: unknown) => log.warn({ err }, 'balances unavailable')),
      drops?.refresh(),
      prices?.refresh().catch((err: unknown) => log.warn({ err }, 'token prices unavailable')),
      // posts and cancels whose answer was lost are read back; passed windows and expiries settle
      desk?.reconcile().catch((err: unknown) => log.warn({ err }, 'reading back unsure orders failed')),
      // the collections' fees, read again once they are feesMaxAgeMs old (or never read yet);
      // a failing read keeps the fees known (the cache tells it)
      ...options.collections.map((slug) => collections.get(slug).catch(() => undefined)),
    ]);
    ledger?.tick();
    holdings?.refresh();
    // the prices and drops just read, on the tape when it records (a backtest learns them as now)
    recorder?.views();
    // state edges worth an alert: stream stale too long, a budget at its warning level, a strategy
    // disabled, a credential not renewed
    if (detector !== undefined && state === 'running')
      try {
        for (const a of detector.observe(status(), clock.now())) alert(a);
      } catch (err) {
        log.warn({ err }, 'alert detection failed');
      }
    // what we hold, checked against the chain at most every 30 s (units moved out by hand); not on
    // paper: what paper holds was never the wallet's (checked, it was let go within 30 s of a fill)
    if (
      paperExec === undefined &&
      holdings !== undefined &&
      rpc !== undefined &&
      clock.now() - holdingsCheckedAt >= 30_000
    ) {
      holdingsCheckedAt = clock.now();
      const balanceOf = nftBalanceReader({ rpc, wallet, standardOf });
      await holdings
        .verify((nft) => balanceOf(nft), clock.now())
        .catch((err: unknown) => log.warn({ err }, 'checking holdings against the chain failed'));
    }
    // live: what it traded, saved every minute too (a run killed outright leaves its last minute's)
    if (
      paperExec === undefined &&
      state === 'running' &&
      clock.now() - reportSavedAt >= RUN_REPORT_EVERY_MS
    ) {
      reportSavedAt = clock.now();
      saveReport();
    }
    persistWatermarks();
  }

  async function doBuild(): Promise<void> {
    state = 'starting';
    startedAt = clock.now();
    // 1. store
    const storePath = paper ? options.paperStorePath : options.storePath;
    const storeProblem = storePath === ':memory:' ? undefined : outFileProblem(storePath);
    if (storeProblem !== undefined)
      throw new ConfigError(
        `store.path: the database cannot be written: ${storeProblem} (give a path in a folder that exists and is writable)`,
      );
    store = openStore(storePath, { exclusive: true, now: () => clock.now() });
    progress(`store open: ${storePath}${paper ? ' (paper database)' : ''}`);
    // the one ledger of our orders, read back from the store
    ledger = createOrderLedger({
      clock,
      chain: options.chain.name,
      store: storeLedger(store, () => clock.now()),
      onListenerError: (err) => log.error({ err }, 'an order-ledger listener failed'),
    });
    ledger.onChange(onOrderChange);
    ledger.tick();
    ({ notifier, detector } = createAlerts(options.alerts, { logger: log.child({ part: 'alerts' }) }));
    consoleView = createConsole(
      {
        now: () => clock.now(),
        status: () => status(),
        store: () => (state === 'stopped' ? undefined : store),
        ledger: () => ledger,
        holdings: () => holdings,
        market: () => view?.snapshot(),
        tokenOf: tokenInfo,
        wallet: () => wallet,
        balances: () => walletBalances()?.value,
      },
      {
        // every fill once, as the store books it (live and paper alike)
        onFill: (f, about) =>
          alert(
            alertOfFill({
              id: String(f.id),
              at: f.filledAt,
              mode: options.mode,
              strategy: about.strategy,
              kind: isFillKind(about.kind) ? about.kind : f.side,
              collection: f.collection,
              tokenId: f.tokenId,
              quantity: f.quantity,
              price: f.price,
              decimals: about.token.decimals,
              symbol: about.token.symbol,
              fees: f.fees,
              gasWei: about.gas,
              realizedPnl: about.realized,
              txHash: f.txHash ?? null,
            }),
          ),
      },
    );

    // 2. signer, RPC, chain id
    const w = options.wallet;
    if (w.source === 'secret') signer = signerFromPrivateKey(w.privateKey, 'the wallet key');
    else if (w.source === 'env') signer = signerFromPrivateKey(w.privateKey, `$${w.privateKeyEnv}`);
    else if (w.source === 'keystore')
      signer = await loadSigner({
        source: { kind: 'keystore', path: w.keystorePath, passwordEnv: w.passwordEnv },
        env: { [w.passwordEnv]: w.password.reveal() },
        ...(w.address !== undefined ? { expectedAddress: w.address } : {}),
      });
    if (signer !== undefined) wallet = signer.address.toLowerCase() as Address;
    if (
      signer !== undefined &&
      w.source !== 'secret' &&
      w.address !== undefined &&
      w.address.toLowerCase() !== wallet
    )
      throw new FatalError(
        'wallet_mismatch',
        `the wallet key is for ${wallet}, but wallet.address says ${w.address}: fix the key or the address`,
      );
    else if (w.source === 'none' && w.address !== undefined) wallet = w.address.toLowerCase() as Address;
    if (signer === undefined && !paper)
      throw new FatalError(
        'wallet_missing',
        'live mode needs a wallet key (HARPOON_PRIVATE_KEY or wallet.keystore)',
      );
    if (wallet === ZERO_ADDRESS)
      throw new FatalError('wallet_missing', 'no wallet: set wallet.address (paper) or a wallet key');
    ao = adapterOptions(options, wallet);
    const rpcUrl = options.chain.rpcUrl?.reveal() as string;
    rpc = createEthersRpc({ url: rpcUrl, ...ao.rpc });
    await verifyChain(rpc);
    provider = new JsonRpcProvider(rpcUrl, options.chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
    progress(`wallet ${wallet} on chain ${options.chain.name} (${options.chain.chainId})`);

    // 3. scheduler, API, credentials (an instant key, the first wallet JWT)
    scheduler = createScheduler({ ...ao.scheduler, logger: log.child({ part: 'ratelimit' }) });
    await scheduler.ready?.(); // cluster mode: Redis answers, else a ConfigError naming host and fix
    const sch = scheduler;
    const credentials = createCredentials({
      ...ao.credentials,
      // a 401 asks the keeper: it renews what it can, else stops trading with the fix
      refreshApiKey: () => (keeper as CredentialKeeper).refreshApiKey(),
      refreshWalletJwt: () => (keeper as CredentialKeeper).refreshWalletJwt(),
    });
    const apiLog = log.child({ part: 'api' });
    transport = createTransport({
      ...ao.transport,
      credentials,
      scheduler,
      logger: apiLog,
    });
    api = createApiClient(transport, {
      // an answer in a deprecated shape still works; the operator hears of it once per field
      onDeprecatedField: (e) => warnDeprecatedField(apiLog, e.field, e.replacement),
    });
    const { patFile, ...keeperOptions } = ao.keeper;
    const storedPat = patFile !== undefined ? storedPatOf(patFile, wallet) : undefined;
    keeper = createCredentialKeeper({
      ...keeperOptions,
      ...(storedPat !== undefined ? { pat: storedPat } : {}),
      auth: {
        exchange: (pat) => (api as ApiClient).auth.exchange(pat),
        createInstantKey: () => (api as ApiClient).auth.createInstantKey(),
      },
      credentials,
      clock,
      logger: log.child({ part: 'auth' }),
      // a new instant key's limits re-size the buckets (rates set in the config win)
      onRates: (rates) => {
        for (const g of ['read', 'write', 'fulfillment'] as const)
          if (options.rates[g] === undefined) sch.setRate(g, rates[g]);
      },
      onFatal: (e) => void fatalStop(e),
    });
    await keeper.start();
    if (keeper.status().walletJwt.source !== 'none' || keeper.status().apiKey.source === 'instant')
      progress(describeCredentials(keeper.status()));

    // 4. sender reconcile, seaport, guard, execution reconcile (before any spend)
    balances = createBalancesReader({ rpc, wallet, tokens, clock, logger: log });
    // the payment tokens at the market: the first router's quote, else the API's USD prices
    const router = options.chain.routers[0];
    prices = createPricesReader({
      tokens,
      weth: options.chain.weth,
      chain: options.chain.name,
      rpc,
      ...(router !== undefined ? { router } : {}),
      api,
      clock,
      logger: log.child({ part: 'prices' }),
    });
    const k = keeper;
    drops = createDropsReader({
      api,
      slugs: options.drops,
      clock,
      logger: log,
      walletCredential: () => k.hasWalletCredential,
    });
    if (!paper && signer !== undefined) {
      sender = createTxSender({
        signer,
        rpc,
        store,
        ...ao.sender,
        logger: log.child({ part: 'sender' }),
        clock,
      });
      const rep = await sender.reconcile();
      reconcileSummary.transactions = Object.keys(rep).length;
      guard = createCalldataGuard({
        ...ao.guard,
        call: simulateWith({ call: (tx) => (rpc as ChainRpc).call(tx) }),
        logger: log.child({ part: 'guard' }),
        onRejected: (reason) => {
          guardRejections[reason] = (guardRejections[reason] ?? 0) + 1;
        },
      });
      const reader = createEthersSeaportReader(provider, options.chain.seaport);
      execution = createExecutor({
        api,
        guard,
        sender,
        rpc,
        store,
        ...ao.executor,
        approvals: createApprovals(ao.approvals, reader),
        orders: reader,
        now: () => clock.now(),
        logger: log.child({ part: 'execution' }),
      });
      const er = await execution.reconcile();
      reconcileSummary.executionIntents = er.intents.length;
      progress(`reconciled: ${er.intents.length} open execution intent(s), transactions resolved`);
    }

    // 5. market view, balances, drops, stream
    const paymentTokens: PaymentToken[] = [
      { address: ZERO_ADDRESS, symbol: 'ETH', decimals: 18 },
      ...tokens.filter((t) => t.address !== ZERO_ADDRESS),
    ];
    stream = createStreamClient({
      ...ao.stream,
      apiKey: credentials.apiKey() !== undefined ? () => credentials.apiKey() as Secret : await missingKey(),
      api,
      logger: log.child({ part: 'stream' }),
      initialWatermarks: storeWatermarks(store),
    });
    const s = stream;
    const reader = api;
    const traitsLog = log.child({ part: 'nft-traits' });
    nftTraits = createNftTraits({
      clock,
      // a tape keeps the traits of every NFT listed (a backtest's strategies may ask for any)
      readListed: options.market.record !== undefined,
      // the lowest read priority: trading reads go first
      read: async (nft) => {
        const res = await reader.nfts.get(options.chain.name, nft.contract, String(nft.identifier), {
          priority: Priority.analytics,
        });
        return (res.nft.traits ?? []).map((t) => ({ type: String(t.trait_type), value: String(t.value) }));
      },
      onError: (err, nft) =>
        traitsLog.debug({ err, nft: nftKey(nft) }, 'reading the traits of an NFT failed'),
    });
    if (options.market.record !== undefined)
      recorder = createDaemonRecorder({
        path: options.market.record,
        chain: options.chain.name,
        collections: options.collections,
        paymentTokens,
        clock,
        nftTraits,
        rpc,
        fees: async (slug) => (await collection(slug)).fees,
        freshness: (slug) => s.freshness(slug),
        prices: () => (prices === undefined ? [] : priceReadings(prices, tokens)),
        drops: () => dropReadings(drops, options.drops),
        logger: log.child({ part: 'tape' }),
        // a daemon that trades names its wallet (its orders on the tape are its own); one that
        // only records (harpoon record) names none
        ...(options.strategies.length > 0 ? { wallet } : {}),
      });
    view = createMarketView({
      api: recorder?.wrapApi(api) ?? api,
      clock,
      logger: log.child({ part: 'market' }),
      ...ao.view,
      paymentTokens,
      streamFreshness: (slug) => s.freshness(slug),
      sellerFeeBps: (slug) => collections.sellerFeeBps(slug),
      ownOrders: ledger,
    });
    stream.subscribe(onEvent);
    stream.onFreshness((f) => view?.setStreamStatus(f.key, { stale: f.stale }));
    // Cancels, metadata updates and order (in)validations are not served by the events endpoint:
    // after a gap the book they change is read again over REST instead of backfilled.
    stream.onGap((g) => {
      if (!g.streamOnlyMayBeMissing) return;
      for (const slug of g.key === '*' ? options.collections : [g.key]) view?.requestRefresh(slug);
    });
    stream.start();
    // the collections' fees too (the sellers' net proceeds follow them): a read that fails leaves
    // the strategies on their own fee params until a later read (the next poll's) succeeds
    const feesRead = Promise.all(
      options.collections.map((slug) =>
        collection(slug).catch((err: unknown) =>
          log.warn(
            { err, collection: slug },
            'reading the fees of a collection failed: strategies use their fee params until a read succeeds (tried again at every poll)',
          ),
        ),
      ),
    );
    await Promise.all([view.start(), poll(), subscribed(stream), feesRead]);
    progress(
      `market loaded: ${options.collections.join(', ') || 'no collections'}; stream ${stream.status().state}`,
    );

    // 5b. offers of ours on the marketplace that the store does not know (posted, then the process
    // died before it recorded them) are cancelled before any strategy runs: never an orphan.
    let seaportOrders: SeaportOrders | undefined;
    if (!paper && signer !== undefined) {
      seaportOrders = createSeaportOrders(ao.seaport, {
        signer,
        counters: createEthersSeaportReader(provider, options.chain.seaport),
        clock: latestBlockClock(provider),
      });
      desk = createOrderDesk({
        api,
        orders: seaportOrders,
        sender: sender as TxSender,
        ledger,
        approvals: createApprovals(ao.approvals, createEthersSeaportReader(provider, options.chain.seaport)),
        ...ao.desk,
        clock,
        collection,
        onRefused: (slug) => collections.doubt(slug),
        standardOf,
        cancelWithWallet: () => (keeper as CredentialKeeper).hasScope('write:orders'),
        // what approvals and on-chain cancels cost: spend rows of the intent (PnL reads them)
        onGas: (intentId, kind, amount) => {
          const s = store as Store;
          try {
            s.spend.record({
              strategy: s.intents.get(intentId)?.strategy ?? 'system',
              intentId,
              kind,
              token: ZERO_ADDRESS,
              amount,
            });
          } catch (err) {
            log.warn({ err, intentId, kind }, 'recording the gas of a transaction failed');
          }
        },
        logger: log.child({ part: 'orders' }),
      });
      const rec = await desk.reconcile();
      reconcileSummary.ordersChecked = rec.checked;
      reconcileSummary.ordersSettled = rec.settled;
      const orphans = await sweepOrphans({
        api,
        ledger,
        desk,
        wallet,
        collections: options.collections,
        offerToken: offerTokenOf(options.chain.weth),
        protocolAddress: options.chain.seaport,
        now: () => clock.now(),
        logger: log.child({ part: 'orphans' }),
      });
      reconcileSummary.orphansCancelled = orphans.cancelled;
      if (orphans.adopted > 0)
        progress(
          `${orphans.adopted} offer(s) of ours the store did not know (orphans): ${orphans.cancelled} cancelled, ${orphans.failed} still counted`,
        );
    }

    // 6. engine
    const strategies = await loadStrategies();
    const v = view;
    const traits = nftTraits;
    if (paper) {
      const r = rpc;
      const start = options.paperBalances;
      const st = store;
      const simulated = createPaperWallet({
        start: () =>
          start !== undefined
            ? { value: start, learnedAt: clock.now(), from: 'own' }
            : (balances?.get() ?? null),
        // what paper fills moved is kept in the paper store: a restart goes on from there
        ...(st !== undefined
          ? {
              keeper: {
                load: () => {
                  const kept = st.strategyState.get(PAPER_WALLET_ID) as Record<string, bigint> | undefined;
                  return kept === undefined ? undefined : new Map(Object.entries(kept));
                },
                save: (moved) => st.strategyState.set(PAPER_WALLET_ID, Object.fromEntries(moved)),
              },
            }
          : {}),
        onKeeperError: (err, what) =>
          log.warn(
            { err },
            what === 'load'
              ? 'the simulated wallet kept by the last run could not be read: it starts again from its start'
              : 'the simulated wallet could not be kept: a restart would start it again from its start',
          ),
      });
      paperWallet = simulated;
      paperExec = createPaperExecutor({
        clock,
        wallet,
        chain: options.chain.name,
        market: v,
        fees: async (slug) => (await collection(slug)).fees,
        gasPrice: async () => (await r.baseFee()) + (await r.maxPriorityFee()),
        // the traits the strategies read (one read per NFT; a failed read is no traits)
        traitsOf: (nft) => traits.load(nft),
        dropPrice: (slug) => drops?.get(slug)?.value.pricePerToken,
        // what we hold on paper; an ERC-721 (or a contract whose standard cannot be read) is one of a kind
        holds: (nft) => {
          const h = holdings;
          if (h === undefined) return true;
          h.refresh();
          return h.get(nftKey(nft)) !== undefined;
        },
        unique: async (nft) => (await standardOf(nft.contract).catch(() => 'erc721' as const)) === 'erc721',
        // what a swap receives, by the reference the live executor swaps by
        swapOut: (i) => referenceAmountOut(i.fromToken.address, i.toToken.address, i.amountIn),
        store,
        ledger,
        logger: log.child({ part: 'paper' }),
        onFill: (f) => simulated.record(f),
      });
    }
    const executor =
      paperExec ??
      createLiveExecutor({
        desk: desk as OrderDesk,
        execution: execution as ChainExecutor,
        collection,
        doubtCollection: (slug) => collections.doubt(slug),
        standardOf,
        dropContract: (slug) => drops?.contract(slug),
        onExecution: (kind, out, strategyId, what, token) => {
          if (out.state !== 'done') return undefined;
          pushFill({
            at: clock.now(),
            strategy: strategyId,
            kind,
            collection: what,
            price: formatUnits((kind === 'sell' ? out.proceeds : out.spent) ?? 0n, token.decimals),
            symbol: token.symbol,
          });
          // the wallet's balances moved: read them again before the strategies decide on them (a
          // rebalancer running again before the next poll swapped the same surplus twice)
          return balances?.refresh().catch((err: unknown) => log.warn({ err }, 'balances unavailable'));
        },
        expectedAmountOut: referenceAmountOut,
      });
    liveExecutor = paperExec === undefined ? (executor as LiveExecutor) : undefined;
    const st = store;
    // what we hold, from our fills and the ledger's listings: brought up to date whenever a hook
    // or risk asks (it reads only what was recorded since), so an NFT just sold is not sold twice
    const holdingsOf = createHoldings({ store: st, ledger, chain: options.chain.name, tokenOf: tokenInfo });
    holdings = holdingsOf;
    engine = createEngine({
      strategies,
      market: {
        snapshot: () => v.snapshot(),
        changeStamp: (slug, mask) => v.changeStamp(slug, mask),
        holdings: () => {
          holdingsOf.refresh();
          return holdingsOf;
        },
        balances: () => walletBalances(),
        drops: () => drops ?? { get: () => undefined },
        prices: () => prices ?? { get: () => undefined },
        nfts: () => traits.view,
      },
      executor,
      orders: ledger,
      journal: storeJournal(st),
      stateStore: storeStrategyState(st),
      spendLedger: storeSpendLedger(st),
      risk: ao.engine.risk,
      guard: intentGuard,
      // what the write group can serve now: less what already waits there, none while a 429 pauses it
      writeBudget: writeBudgetFromScheduler(sch),
      clock,
      logger: log.child({ part: 'engine' }),
      wallet,
      onOutcome: (x) => {
        consoleView?.outcome(x);
        // the calldata guard refused what the API returned: nothing was signed; said at once
        if (x.code?.startsWith('guard_'))
          alert(
            alertOfGuardRefusal({
              at: x.at,
              strategy: x.strategyId,
              intent: x.kind,
              reason: x.code.slice('guard_'.length),
              message: x.message ?? x.code,
            }),
          );
      },
      reconciler: createExecutionReconciler({
        ledger,
        ...(execution !== undefined ? { execution } : {}),
        logger: log.child({ part: 'reconcile' }),
        counts: reconcileSummary,
      }),
      ...ao.engine.timing,
    });
    state = 'built';
    progress(`built in ${clock.now() - startedAt} ms: ${strategies.length} strategy(ies), ${executor.mode}`);
  }

  async function doListen(): Promise<void> {
    state = 'starting';
    // 7. engine: journal replayed, unknown outcomes settled, init hooks, cron
    const e = engine as Engine;
    engineStarted = true;
    tradingFrom = clock.now();
    // paper: the simulated wallet (none without paper.balances); live: the balances as read
    walletAtStart = paperExec !== undefined ? paperWallet?.balances()?.value : walletBalances()?.value;
    await e.start();
    progress(
      `engine started: ${
        e
          .status()
          .strategies.map((x) => x.id)
          .join(', ') || 'no strategies'
      }`,
    );

    // 8. poll timer and control endpoint
    pollTimer = setInterval(() => void poll(), options.pollIntervalMs);
    pollTimer.unref?.();
    const registry = createDaemonMetrics({
      events: () => eventsTotal,
      intents: () => {
        const i = engine?.status().intents;
        return i
          ? { done: i.done, failed: i.failed, rejected: i.rejected, unknown: i.unknown, accepted: i.accepted }
          : {};
      },
      ordersPlaced: () => ordersPlaced,
      fills: () =>
        fillsTotal + (paperExec ? paperExec.fills().filter((f) => f.kind !== 'offer_filled').length : 0),
      guardRejections: () => guardRejections,
      rateGroups: () => scheduler?.status().groups ?? [],
      streamAges: () => stream?.status().channels ?? [],
      pnl: () =>
        (holdings?.pnl(view?.snapshot()).byStrategy ?? []).map((l) => ({
          strategy: l.key,
          symbol: l.token.symbol,
          decimals: l.token.decimals,
          realized: l.realized,
          unrealizedAtFloor: l.unrealizedAtFloor,
        })),
      spend: () =>
        (engine?.status().risk.tokens ?? []).map((t) => ({
          account: t.symbol ?? t.token,
          spentToday: t.spentToday,
          exposure: t.exposure,
          decimals: t.decimals,
        })),
    });
    // the control token: configured, else a fresh one per run; kept 0600 beside the store for the
    // CLI's switches (harpoon kill/pause/resume), removed at stop
    const token = options.control.token?.reveal() ?? randomBytes(24).toString('base64url');
    if (options.controlTokenPath !== undefined) {
      rmSync(options.controlTokenPath, { force: true });
      writePrivateFile(options.controlTokenPath, `${token}\n`);
    }
    const text = (v: unknown, what: string): string => {
      if (typeof v !== 'string' || v.trim() === '') throw new Error(`${what} must be a non-empty string`);
      return v.trim().slice(0, 200);
    };
    const strategyId = (id: string): string => {
      if (!(engine?.status().strategies ?? []).some((x) => x.id === id))
        throw new Error(`no strategy "${id}" (see the strategies in status)`);
      return id;
    };
    control = await startControlServer({
      ...ao.control,
      token,
      status: () => status(),
      health: () => health(),
      metrics: registry,
      ...(consoleView !== undefined ? { console: consoleView } : {}),
      mcp: createMcpHttpHandler(agentFacade(), { allowControl: options.mcp?.allowControl === true }),
      actions: {
        kill: async (b) => {
          await switches.kill(
            b.reason === undefined ? 'kill switch (control endpoint)' : text(b.reason, 'reason'),
          );
          return { killed: true };
        },
        pause: async () => {
          await switches.pause();
          return { paused: true };
        },
        resume: async () => {
          await switches.resume();
          return { paused: false, killed: false };
        },
        'strategies/:id/pause': async (_b, p) => {
          const id = strategyId(p.id as string);
          log.warn({ strategy: id }, 'strategy paused by the operator');
          await running().pauseStrategy(id);
          return { strategy: id, paused: true };
        },
        'strategies/:id/resume': async (_b, p) => {
          const id = strategyId(p.id as string);
          log.warn({ strategy: id }, 'strategy resumed by the operator');
          const e = running();
          await e.resumeStrategy(id);
          e.enable(id); // a strategy disabled for errors comes back too
          return { strategy: id, paused: false };
        },
        'orders/:hash/cancel': async (_b, p) => {
          const hash = p.hash as string;
          if (!isHash32(hash)) throw new Error('not an order hash');
          log.warn({ orderHash: hash }, 'cancel asked by the operator');
          if (!running().cancelOrder(hash.toLowerCase(), 'operator'))
            throw new Error('no such order of ours is open (it may be gone already)');
          return { orderHash: hash, cancelling: true };
        },
      } satisfies Record<ControlSwitch, ControlAction>,
    });
    readyAt = clock.now();
    state = 'running';
    progress(
      `ready in ${readyAt - startedAt} ms; control endpoint ${control.url}; dashboard ${control.url}/${
        options.controlTokenPath !== undefined ? ` (control token in ${options.controlTokenPath})` : ''
      }`,
    );
    deps.onDashboard?.(`${control.url}/#token=${token}`);
  }

  /** Resolves once every channel is joined (or after subscribeTimeoutMs: the client keeps trying). */
  async function subscribed(st: StreamClient): Promise<void> {
    const end = clock.now() + 10_000;
    for (;;) {
      const chs = st.status().channels;
      if (chs.length > 0 && chs.every((c) => c.joined)) return;
      if (clock.now() > end) {
        log.warn({ state: st.status().state }, 'stream not subscribed yet; continuing (it keeps retrying)');
        return;
      }
      await sleep(10);
    }
  }

  async function missingKey(): Promise<never> {
    throw new FatalError(
      'api_key_missing',
      'no API key: set OPENSEA_API_KEY (or HARPOON_API_KEY), or api.instantKey: true for a free-tier key',
    );
  }

  /**
   * A credential was refused and cannot be renewed: trading stops (no 401 storm, no crash loop);
   * the message says what to do. `harpoon run` exits 3.
   */
  async function fatalStop(e: FatalError): Promise<void> {
    if (fatal !== undefined) return;
    fatal = e;
    failure = e.shortMessage;
    progress(`fatal: ${e.shortMessage}`);
    alert(alertOfFatal({ at: clock.now(), code: e.code, message: e.shortMessage }));
    onFatal?.(e);
    // a start still under way fails on its own (the keeper's start rethrows)
    if (state === 'running' || state === 'built') {
      await doStop().catch((err: unknown) => log.error({ err }, 'stop after a fatal error failed'));
      state = 'failed';
      if (finalStatus !== undefined) finalStatus = { ...finalStatus, state: 'failed', error: failure };
    }
  }

  async function doStop(): Promise<void> {
    if (state === 'new') {
      state = 'stopped';
      return;
    }
    state = 'stopping';
    if (pollTimer) clearInterval(pollTimer);
    if (engine !== undefined && engineStarted) {
      const e = engine;
      const done = e.stop().then(() => true);
      const timedOut = await Promise.race([done, sleep(options.stopTimeoutMs).then(() => false)]);
      if (!timedOut)
        log.warn({ ms: options.stopTimeoutMs }, 'stop: executions in flight did not finish in time');
    }
    // What still stands on the marketplace (a cancel refused, unanswered or not sent) is said
    // plainly, and stays in the store's ledger for the next start.
    if (ledger !== undefined && !paper) {
      ledger.tick();
      liveAtStop = ledger.counting().map((o) => ({
        orderHash: o.orderHash as string,
        state: o.state as string,
        reason:
          o.state === 'open' || o.state === 'partly_filled'
            ? 'left standing: the daemon stops without cancelling them; resumed at the next start, cancelled by the kill switch'
            : o.state === 'posted'
              ? 'its post was not answered: read back at the next start'
              : (o.reason ?? o.state),
      }));
      if (liveAtStop.length > 0) {
        log.warn({ orders: liveAtStop }, 'stopping with orders still live on the marketplace');
        progress(liveAtStopLine(liveAtStop));
      }
    }
    persistWatermarks();
    await stream?.stop().catch((err: unknown) => log.warn({ err }, 'stream stop failed'));
    await view?.stop().catch((err: unknown) => log.warn({ err }, 'market view stop failed'));
    await recorder?.close().catch((err: unknown) => log.warn({ err }, 'closing the market tape failed'));
    if (paperExec !== undefined) {
      try {
        writePrivateFile(options.paperReportPath, `${toJson(paperReport(), 2)}\n`);
        progress(`paper report saved: ${options.paperReportPath}`);
      } catch (err) {
        log.warn({ err }, 'saving the paper report failed');
      }
    } else {
      // the store closes below: the report is made now, and kept
      finalRunReport = runReport();
      if (saveReport()) progress(`run report saved: ${options.runReportPath}`);
    }
    keeper?.stop();
    // what alerts are queued get a few seconds (a fatal stop's own alert among them)
    await notifier?.close(3_000).catch(() => undefined);
    await control?.close().catch(() => undefined);
    if (control !== undefined && options.controlTokenPath !== undefined)
      rmSync(options.controlTokenPath, { force: true });
    finalStatus = { ...status(), state: 'stopped' };
    await scheduler?.stop().catch(() => undefined);
    await transport?.close().catch(() => undefined);
    rpc?.destroy();
    provider?.destroy();
    store?.close();
    state = 'stopped';
    progress('stopped');
  }

  /** What paper trading would have done, with its profit and loss (from the paper store). */
  function paperReport(): PaperReport | undefined {
    if (paperExec === undefined) return undefined;
    const report = paperExec.report();
    const st = status();
    const held = walletBalances()?.value;
    return {
      ...report,
      ...runFacts(st),
      ...(held === undefined
        ? {}
        : {
            walletBalances: [...held].map(([address, amount]) => {
              const t = tokenInfo(address);
              return { symbol: t.symbol, amount, decimals: t.decimals };
            }),
          }),
    };
  }

  /**
   * Live: saves the run report (runReportPath), as it stands; false when there is none to save or
   * the write failed (warned: the run goes on).
   */
  function saveReport(): boolean {
    const path = options.runReportPath;
    const report = path === undefined ? undefined : runReport();
    if (path === undefined || report === undefined) return false;
    try {
      writePrivateFile(path, `${toJson(report, 2)}\n`);
      return true;
    } catch (err) {
      log.warn({ err }, 'saving the run report failed');
      return false;
    }
  }

  /** What the live run traded since its engine started (see Daemon.runReport). */
  function runReport(): LiveRunReport | undefined {
    if (finalRunReport !== undefined) return finalRunReport;
    if (paperExec !== undefined || store === undefined || tradingFrom === undefined) return undefined;
    const st = status();
    return {
      mode: 'live',
      startedAt,
      endedAt: clock.now(),
      wallet,
      ...runFacts(st),
      fills: liveRunFills({
        store,
        ledger,
        holdings,
        // the swaps and mints done since (not the run's every offer: this is read every minute)
        journal: storeJournal(store).listSince({
          states: ['done'],
          kinds: ['swap', 'mint'],
          since: tradingFrom,
        }),
        tokenOf: tokenInfo,
        chain: options.chain.name as ChainName,
        since: tradingFrom,
      }),
      // what it tried to buy, sell, mint or swap and did not: a backtest that did is told why
      tried: liveRunTried(
        storeJournal(store).listSince({ states: ['failed'], kinds: TRIED_KINDS, since: tradingFrom }),
      ),
    };
  }

  /**
   * What a run's report (paper or live) says of the run besides its fills: when its engine
   * started, the strategies it traded with (as configured: a backtest compared with it checks its
   * own), its wallet then, and its PnL.
   */
  function runFacts(
    st: DaemonStatus,
  ): Pick<LiveRunReport, 'tradingFrom' | 'strategies' | 'walletAtStart' | 'pnl'> {
    return {
      ...(tradingFrom !== undefined ? { tradingFrom } : {}),
      strategies: options.strategies.map((x) => ({ id: x.id, module: x.module, params: x.params })),
      ...(walletAtStart === undefined
        ? {}
        : {
            walletAtStart: [...walletAtStart].map(([address, amount]) => {
              const t = tokenInfo(address);
              return { token: address, symbol: t.symbol, amount, decimals: t.decimals };
            }),
          }),
      ...(st.pnl === undefined
        ? {}
        : {
            pnl: {
              byStrategy: st.pnl.byStrategy.map(({ unrealizedAtBestOffer: _o, ...r }) => r),
              byCollection: st.pnl.byCollection.map(({ unrealizedAtBestOffer: _o, ...r }) => r),
            },
          }),
    };
  }

  function health(): HealthReport {
    const reasons: string[] = [];
    if (state !== 'running') {
      reasons.push(`daemon ${state}${failure ? `: ${failure}` : ''}`);
      return { state: 'down', reasons };
    }
    const ss = stream?.status();
    if (ss?.stale) reasons.push('stream stale: no trading on stale collections');
    const es = engine?.status();
    if (es?.killed) reasons.push('kill switch engaged');
    if (es?.paused) reasons.push('paused');
    for (const s of es?.strategies ?? [])
      if (s.state === 'disabled') reasons.push(`strategy ${s.id} ${s.state}`);
    if ((es?.unresolved.length ?? 0) > 0)
      reasons.push(`${es?.unresolved.length} intent(s) of unknown outcome`);
    return { state: reasons.length === 0 ? 'ok' : 'degraded', reasons };
  }

  function tapeStatus(r: TapeRecorder): TapeStatus {
    const t = r.stats();
    return {
      path: r.path,
      records: t.records,
      events: t.events,
      snapshots: t.snapshots,
      bytes: t.bytes,
      held: t.held,
      dropped: t.dropped,
    };
  }

  function status(): DaemonStatus {
    if (finalStatus !== undefined) return finalStatus;
    return buildStatus({
      now: clock.now(),
      state,
      mode: options.mode,
      wallet,
      chain: { name: options.chain.name, chainId: options.chain.chainId },
      startedAt,
      readyAt,
      failure,
      events: { total: eventsTotal, byKind: eventsByKind },
      engine: engine?.status(),
      stream: stream?.status(),
      rateGroups: scheduler?.status().groups ?? [],
      ledger,
      ordersPlaced,
      liveAtStop: liveAtStop.length > 0 || state === 'stopped' ? liveAtStop : undefined,
      fills: { total: fillsTotal, recent: recentFills },
      paper: paperExec !== undefined ? { fills: paperExec.fills(), report: paperExec.report() } : undefined,
      tokenSymbol,
      guardRejections,
      reconcile: reconcileSummary,
      credentials: keeper?.status(),
      ...(notifier !== undefined ? { alerts: notifier.status() } : {}),
      ...(holdings !== undefined ? { pnl: holdings.pnl(view?.snapshot()) } : {}),
      ...(nftTraits !== undefined ? { nftTraits: nftTraits.stats() } : {}),
      ...(recorder !== undefined ? { tape: tapeStatus(recorder) } : {}),
      drops: options.drops.flatMap((slug) => {
        const d = drops?.get(slug)?.value;
        return d !== undefined ? [{ slug, stage: d.stage, eligible: d.eligible }] : [];
      }),
    });
  }

  /** What the agent tools (`/mcp` on the control endpoint, src/mcp) see of this daemon. */
  function agentFacade() {
    return createDaemonFacade({
      status: () => status(),
      config: () => options.mcp?.config ?? {},
      collections: options.collections,
      chain: options.chain.name,
      tokenOf: tokenInfo,
      now: () => clock.now(),
      market: () => view?.snapshot(),
      about: async (slug) => {
        const c = await (api as ApiClient).collections.get(slug, { priority: Priority.analytics });
        return { name: c.name, description: c.description ?? null };
      },
      holdings: () => holdings,
      risk: () => engine?.risk,
      orders: () => ledger,
      intentGuard,
      decisions: () => consoleView?.snapshot().decisions ?? [],
      // paper mode has no transaction to check: that stage is said not to apply
      ...(paper
        ? {}
        : {
            calldata: async (i: Intent) => {
              if (i.kind === 'buy_listing' || i.kind === 'accept_offer')
                await (liveExecutor as LiveExecutor).checkFill(i);
            },
          }),
      pause: () => switches.pause(),
      resume: () => switches.resume(),
      kill: (reason) => switches.kill(reason),
    });
  }

  const running = (): Engine => {
    if (engine === undefined || state !== 'running')
      throw new FatalError('not_running', `the daemon is ${state}`);
    return engine;
  };
  const switches = {
    async kill(reason = 'kill switch') {
      log.warn({ reason }, 'kill switch engaged');
      const e = running();
      const openOffers = ledger?.counting().filter((o) => o.side !== 'listing').length ?? 0;
      await e.kill(reason);
      alert(alertOfKill({ at: clock.now(), reason, openOffers }));
    },
    async pause() {
      log.warn('paused');
      await running().pause();
      alert(alertOfPause({ at: clock.now() }));
    },
    async resume() {
      log.warn('resumed');
      await running().resume();
      alert(alertOfResume({ at: clock.now() }));
    },
  };

  /** A failed build or listen: said once, everything opened so far closed, state `failed`. */
  async function failed(e: unknown): Promise<never> {
    failure = e instanceof BaseError ? e.shortMessage : e instanceof Error ? e.message : String(e);
    // a config error is the operator's to fix, not a bug: its message, without a stack trace
    if (e instanceof ConfigError) log.error({ code: e.code, reason: e.shortMessage }, 'start failed');
    else log.error({ err: e }, 'start failed');
    await doStop().catch(() => undefined);
    state = 'failed';
    if (finalStatus !== undefined) finalStatus = { ...finalStatus, state: 'failed', error: failure };
    throw e;
  }
  /** A step of start that a fatal credential failure interrupts (whatever the step was waiting for). */
  function orFatal(step: Promise<void>): Promise<void> {
    step.catch(() => undefined); // once interrupted, its own end is of no interest
    return Promise.race([
      step,
      fatalOnce.then((e) => {
        throw e;
      }),
    ]);
  }
  function build(): Promise<void> {
    if (stopPromise !== null && buildPromise === null)
      return Promise.reject(new FatalError('not_running', 'the daemon was stopped before it was built'));
    buildPromise ??= orFatal(doBuild()).catch(failed);
    return buildPromise;
  }
  function listen(): Promise<void> {
    listenPromise ??= build().then(() => {
      if (stopPromise !== null)
        throw new FatalError('not_running', 'the daemon was stopped before it listened');
      return orFatal(doListen()).catch(failed);
    });
    return listenPromise;
  }

  return {
    ...switches,
    build,
    listen,
    start: listen,
    whenFatal: fatalOnce,
    stop() {
      if (stopPromise !== null) return stopPromise;
      stopPromise = (async () => {
        const pending = listenPromise ?? buildPromise;
        if (pending !== null) await pending.catch(() => undefined);
        if (state === 'stopped' || state === 'failed') return;
        await doStop();
      })();
      return stopPromise;
    },
    status,
    health,
    get url() {
      return control?.url;
    },
    paperReport,
    runReport,
    get engine() {
      return engine;
    },
  };
}

export const formatAmount = (v: bigint, decimals = 18) => formatUnits(v, decimals);

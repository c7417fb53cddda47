// The daemon's status (served as JSON on /status) and its rendering for a person: `harpoon status`
// and the demo's live summary print the same text from the same object.
import type { NotifierStatus } from '../alerts/index.ts';
import { type CredentialStatus, describeCredentials } from '../auth/index.ts';
import { formatUnits } from '../domain/money.ts';
import type { EngineStatus } from '../engine/index.ts';
import type { PaperFill, PaperReport } from '../execution/index.ts';
import type { OrderLedger, PnlLine } from '../ledger/index.ts';
import type { NftTraitsStats } from '../market/nft-traits.ts';
import type { StreamStatus } from '../stream/index.ts';

/** One rate-limit group as the status shows it. */
export interface RateGroupStatus {
  readonly group: string;
  readonly available: number;
  readonly limit: number;
  readonly windowMs: number;
  readonly queued: number;
  readonly served: number;
  readonly http429: number;
}

export interface PnlRow {
  readonly key: string;
  readonly symbol: string;
  readonly sales: number;
  readonly held: number;
  readonly realized: string;
  readonly unrealizedAtFloor: string | null;
  readonly unrealizedAtBestOffer: string | null;
}

export interface DaemonStatus {
  readonly state: string;
  readonly mode: 'paper' | 'live';
  readonly wallet: string;
  readonly chain: { readonly name: string; readonly chainId: number };
  readonly startedAt: number;
  readonly uptimeMs: number;
  readonly readyMs: number | null;
  readonly error?: string;
  readonly events: { readonly total: number; readonly byKind: Readonly<Record<string, number>> };
  readonly strategies: readonly {
    readonly id: string;
    readonly module: string;
    readonly version: string;
    readonly state: string;
    readonly hooksRun: number;
    readonly intents: number;
    readonly errors: number;
    readonly lastError: string | null;
  }[];
  readonly intents: {
    readonly emitted: number;
    readonly accepted: number;
    readonly done: number;
    readonly failed: number;
    readonly unknown: number;
    readonly rejected: number;
    readonly queued: number;
    readonly inFlight: number;
    readonly unresolved: number;
  };
  readonly skipped: { readonly total: number; readonly byReason: Readonly<Record<string, number>> };
  readonly orders: {
    readonly placed: number;
    /** Our offers that still count (open, partly filled, being cancelled, invalid), from the ledger. */
    readonly open: readonly {
      readonly orderHash: string;
      readonly strategy: string;
      readonly side: string;
      /** The ledger's state: posted, open, partly_filled, cancelling, invalid. */
      readonly state: string;
      readonly collection: string;
      /** Per unit, whole tokens (the token's own decimals). */
      readonly price: string;
      /** Units still open. */
      readonly quantity: string;
      readonly symbol: string;
      readonly expiresAt: number;
      /** An accepted off-chain cancel: still counted until then (epoch ms). */
      readonly countedUntil?: number;
    }[];
    /** After stop: orders still live on the marketplace, and why. */
    readonly liveAtStop?: readonly {
      readonly orderHash: string;
      readonly state: string;
      readonly reason: string | null;
    }[];
  };
  readonly fills: {
    readonly total: number;
    readonly recent: readonly {
      readonly at: number;
      readonly strategy: string;
      readonly kind: string;
      readonly collection: string | null;
      readonly price: string;
      readonly symbol: string;
    }[];
  };
  /** Spend against budgets per budget account (`eth-like` = ETH and WETH together), whole tokens. */
  readonly spend: readonly {
    readonly account: string;
    readonly symbol: string;
    readonly spentToday: string;
    readonly spentTotal: string;
    readonly exposure: string;
    readonly maxSpendPerDay: string | null;
    readonly maxExposure: string | null;
    readonly budget: string | null;
  }[];
  readonly risk: {
    readonly killed: boolean;
    readonly paused: boolean;
    readonly openOffers: number;
    readonly refusals: Readonly<Record<string, number>>;
  };
  readonly rateBudget: readonly RateGroupStatus[];
  readonly stream: {
    readonly state: string;
    readonly stale: boolean;
    readonly channels: readonly {
      readonly key: string;
      readonly joined: boolean;
      readonly ageMs: number;
      readonly stale: boolean;
    }[];
    readonly events: number;
    readonly reconnects: number;
  };
  readonly guardRejections: Readonly<Record<string, number>>;
  readonly reconcile: Readonly<Record<string, number>>;
  /** Where the API key and the wallet JWT come from, when they expire, renewals (never a value). */
  readonly credentials?: CredentialStatus;
  /** Alerts: what each sink delivered, gave up or dropped (never a sink's secret). */
  readonly alerts?: NotifierStatus;
  /**
   * Profit and loss (each amount in its token's decimals): realized = proceeds − fees − cost basis
   * − gas; unrealized values what is held at the fresh floor and at the best collection offer.
   */
  readonly pnl?: {
    readonly byStrategy: readonly PnlRow[];
    readonly byCollection: readonly PnlRow[];
  };
  /** NFT traits learned for the strategies (ctx.nfts): known, read so far, failed reads, reads waiting. */
  readonly nftTraits?: NftTraitsStats;
  /** market.record: the tape the market is recorded to, and what it holds so far. */
  readonly tape?: TapeStatus;
  /** The configured drops: stage and whether our wallet may mint (null: not known without a wallet JWT). */
  readonly drops?: readonly {
    readonly slug: string;
    readonly stage: string;
    readonly eligible: boolean | null;
  }[];
  readonly paper?: {
    readonly orders: Readonly<Record<string, number>>;
    readonly fills: number;
    readonly gas: string;
    readonly totals: Readonly<
      Record<string, { readonly spent: string; readonly fees: string; readonly count: number }>
    >;
  };
}

export interface TapeStatus {
  readonly path: string;
  /** Records written (the header included), of them market events and REST answers. */
  readonly records: number;
  readonly events: number;
  readonly snapshots: number;
  /** Bytes of the tape on disk (what has been written). */
  readonly bytes: number;
  /** Records waiting to be written: writing the tape fails (disk full, file too large), they are written when it works again. */
  readonly held: number;
  /** Records lost: writing failed for longer than the recorder could hold them. */
  readonly dropped: number;
}

/** What a tape being recorded holds so far (`done`: once closed), as a person reads it. */
export function describeTape(t: TapeStatus, done = false): string {
  const what = `${t.events.toLocaleString('en-US')} events and ${t.snapshots.toLocaleString('en-US')} REST answers`;
  const mb = `${(t.bytes / 1e6).toFixed(1)} MB`;
  // a recording that cannot write (disk full) says so: the size alone would only stop growing
  const trouble = [
    ...(t.held > 0
      ? [
          `${t.held.toLocaleString('en-US')} records not written${done ? '' : ' yet'} (writing the tape fails)`,
        ]
      : []),
    ...(t.dropped > 0 ? [`${t.dropped.toLocaleString('en-US')} records lost`] : []),
  ];
  const also = trouble.length > 0 ? `; ${trouble.join(', ')}` : '';
  return done
    ? `recorded to ${t.path}: ${what}, ${mb}${also}`
    : `recording to ${t.path}: ${what} so far, ${mb}${also}`;
}

function window(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}

function age(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'never';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

function trim(amount: string): string {
  if (!amount.includes('.')) return amount;
  const [i, f = ''] = amount.split('.');
  const t = f.slice(0, 5).replace(/0+$/, '');
  return t === '' ? (i as string) : `${i}.${t}`;
}

function counts(rec: Readonly<Record<string, number>>): string {
  const e = Object.entries(rec).filter(([, n]) => n > 0);
  return e.length === 0 ? 'none' : e.map(([k, n]) => `${k} ${n}`).join(', ');
}

/** A summary a newcomer can read: what the daemon saw, decided, did, and how much room it has left. */
export function renderStatus(s: DaemonStatus, options: { readonly title?: string } = {}): string {
  const L: string[] = [];
  const up = Math.round(s.uptimeMs / 1000);
  L.push(
    `${options.title ?? 'harpoon'} — ${s.state}, ${s.mode === 'paper' ? 'PAPER (simulated, nothing is sent)' : 'LIVE'}, up ${up} s${s.readyMs !== null ? ` (ready in ${s.readyMs} ms)` : ''}`,
  );
  L.push(`  wallet ${s.wallet} on ${s.chain.name} (chain id ${s.chain.chainId})`);
  if (s.error) L.push(`  error: ${s.error}`);
  if (s.credentials !== undefined)
    L.push(
      `  ${describeCredentials(s.credentials)}${s.credentials.lastError ? ` — last problem: ${s.credentials.lastError}` : ''}`,
    );
  L.push(`  market events seen: ${s.events.total}  (${counts(s.events.byKind)})`);
  if (s.tape !== undefined) L.push(`  ${describeTape(s.tape)}`);
  const st = s.stream;
  const ages = st.channels.map((c) => `${c.key} ${age(c.ageMs)}${c.stale ? ' STALE' : ''}`).join(', ');
  L.push(
    `  stream: ${st.state}${st.stale ? ' (stale: no trading)' : ', fresh'}; newest info per collection: ${ages || '—'}`,
  );
  const i = s.intents;
  L.push(
    `  intents: ${i.emitted} proposed by strategies → ${i.accepted} passed risk → ${i.done} done, ${i.failed} failed, ${i.rejected} refused by risk, ${i.queued} waiting${i.unresolved > 0 ? `, ${i.unresolved} unknown (reconciling)` : ''}`,
  );
  if (s.skipped.total > 0) L.push(`  skipped (coalesced or no budget): ${counts(s.skipped.byReason)}`);
  const cancelling = s.orders.open.filter((o) => o.state === 'cancelling').length;
  L.push(
    `  orders placed: ${s.orders.placed}; open offers: ${s.orders.open.length}${cancelling > 0 ? ` (${cancelling} being cancelled, still counted)` : ''}`,
  );
  for (const o of s.orders.open.slice(0, 6))
    L.push(
      `    ${o.strategy.padEnd(18)} ${o.side.padEnd(10)} ${o.collection.padEnd(16)} ${trim(o.price)} ${o.symbol}${o.quantity !== '1' ? ` ×${o.quantity}` : ''}${o.state !== 'open' ? ` [${o.state}]` : ''}`,
    );
  // each reason once, then its orders (whole hashes: the operator may look them up)
  for (const [reason, list] of byReason(s.orders.liveAtStop ?? [])) {
    L.push(`  STILL LIVE on the marketplace: ${list.length} order(s)${reason ? `, ${reason}` : ''}`);
    for (const o of list) L.push(`    ${o.orderHash} ${o.state}`);
  }
  for (const d of s.drops ?? [])
    L.push(
      `  drop ${d.slug}: ${d.stage}, ${d.eligible === null ? 'eligibility unknown (no wallet JWT: public stages only)' : d.eligible ? 'eligible' : 'not eligible'}`,
    );
  for (const [title, rows] of [
    ['strategy', s.pnl?.byStrategy ?? []],
    ['collection', s.pnl?.byCollection ?? []],
  ] as const)
    for (const r of rows)
      L.push(
        `  PnL ${title} ${r.key}: realized ${trim(r.realized)} ${r.symbol} over ${r.sales} sale(s); ${r.held} held${
          r.held > 0
            ? r.unrealizedAtFloor === null && r.unrealizedAtBestOffer === null
              ? ', unrealized not known (the market view knows no floor and no offer for them)'
              : `, unrealized ${r.unrealizedAtFloor !== null ? trim(r.unrealizedAtFloor) : 'not known'} at the floor / ${r.unrealizedAtBestOffer !== null ? trim(r.unrealizedAtBestOffer) : 'not known'} at the best offer`
            : ''
        }`,
      );
  const shown = s.fills.recent.slice(-6);
  L.push(`  fills: ${s.fills.total}${shown.length < s.fills.total ? ` (the last ${shown.length})` : ''}`);
  for (const f of shown)
    L.push(
      `    ${new Date(f.at).toISOString().slice(11, 19)} ${f.strategy.padEnd(18)} ${f.kind.padEnd(12)} ${(f.collection ?? '').padEnd(16)} ${trim(f.price)} ${f.symbol}`,
    );
  L.push('  strategies:');
  for (const x of s.strategies)
    L.push(
      `    ${x.id.padEnd(18)} ${x.state.padEnd(9)} hooks ${String(x.hooksRun).padStart(4)}  intents ${String(x.intents).padStart(3)}  errors ${x.errors}${x.lastError ? ` (${x.lastError})` : ''}`,
    );
  L.push('  spend against budgets (last 24 h):');
  if (s.spend.length === 0) L.push('    nothing spent or committed yet');
  for (const b of s.spend)
    L.push(
      `    ${b.symbol.padEnd(9)} spent ${trim(b.spentToday)}${b.maxSpendPerDay !== null ? ` of ${trim(b.maxSpendPerDay)}/day` : ''}; open offers ${trim(b.exposure)}${b.maxExposure !== null ? ` of ${trim(b.maxExposure)}` : ''}${b.budget !== null ? `; budget ${trim(b.budget)}` : ''}`,
    );
  if (s.risk.killed || (s.risk.paused && s.state === 'running'))
    L.push(`  risk: ${s.risk.killed ? 'KILL SWITCH ENGAGED' : 'paused'}`);
  if (Object.keys(s.risk.refusals).length > 0) L.push(`  risk refusals: ${counts(s.risk.refusals)}`);
  L.push(
    `  rate budget left: ${s.rateBudget.map((g) => `${g.group} ${g.available}/${g.limit} per ${window(g.windowMs)}${g.queued > 0 ? ` (${g.queued} queued)` : ''}${g.http429 > 0 ? ` [${g.http429}×429]` : ''}`).join(', ')}`,
  );
  if (Object.keys(s.guardRejections).length > 0)
    L.push(`  calldata guard refused: ${counts(s.guardRejections)}`);
  if (s.paper)
    L.push(
      `  paper: ${s.paper.fills} simulated fill(s); gas a live run would pay ${trim(s.paper.gas)} ETH; ${Object.entries(
        s.paper.totals,
      )
        .map(([k, t]) => `${k} ${trim(t.spent)} (fees ${trim(t.fees)})`)
        .join(', ')}`,
    );
  return `${L.join('\n')}\n`;
}

/** What the status is built from: the daemon's adapters and counters, read once. */
export interface StatusSources {
  readonly now: number;
  readonly state: DaemonStatus['state'];
  readonly mode: DaemonStatus['mode'];
  readonly wallet: string;
  readonly chain: DaemonStatus['chain'];
  readonly startedAt: number;
  readonly readyAt: number;
  readonly failure: string | null;
  readonly events: { readonly total: number; readonly byKind: Readonly<Record<string, number>> };
  readonly engine: EngineStatus | undefined;
  readonly stream: StreamStatus | undefined;
  readonly rateGroups: readonly RateGroupStatus[];
  readonly ledger: OrderLedger | undefined;
  readonly ordersPlaced: number;
  readonly liveAtStop: DaemonStatus['orders']['liveAtStop'] | undefined;
  readonly fills: { readonly total: number; readonly recent: DaemonStatus['fills']['recent'] };
  readonly paper: { readonly fills: readonly PaperFill[]; readonly report: PaperReport } | undefined;
  readonly tokenSymbol: (address: string) => string;
  readonly guardRejections: Readonly<Record<string, number>>;
  readonly reconcile: Readonly<Record<string, number>>;
  readonly credentials: CredentialStatus | undefined;
  readonly alerts?: NotifierStatus;
  readonly drops?: DaemonStatus['drops'];
  readonly nftTraits?: NftTraitsStats;
  readonly tape?: TapeStatus;
  readonly pnl?: { readonly byStrategy: readonly PnlLine[]; readonly byCollection: readonly PnlLine[] };
}

function pnlRow(l: PnlLine): PnlRow {
  const f = (v: bigint | null) => (v === null ? null : formatUnits(v, l.token.decimals));
  return {
    key: l.key,
    symbol: l.token.symbol,
    sales: l.sales,
    held: l.held,
    realized: formatUnits(l.realized, l.token.decimals),
    unrealizedAtFloor: f(l.unrealizedAtFloor),
    unrealizedAtBestOffer: f(l.unrealizedAtBestOffer),
  };
}

type LiveAtStop = NonNullable<DaemonStatus['orders']['liveAtStop']>;

/** Orders still live at the stop, grouped by why they stand (reasons in the order first met). */
function byReason(orders: LiveAtStop): [string | null, LiveAtStop[number][]][] {
  const groups = new Map<string | null, LiveAtStop[number][]>();
  for (const o of orders) {
    const list = groups.get(o.reason);
    if (list === undefined) groups.set(o.reason, [o]);
    else list.push(o);
  }
  return [...groups];
}

/**
 * The line said as the daemon stops with orders of ours still live on the marketplace: the first
 * ten, grouped by why they stand, each reason said once.
 */
export function liveAtStopLine(orders: LiveAtStop): string {
  const groups = byReason(orders.slice(0, 10)).map(
    ([reason, list]) =>
      `${list.map((o) => `${o.orderHash.slice(0, 10)}… ${o.state}`).join(', ')}${reason ? ` (${reason})` : ''}`,
  );
  return `${orders.length} order(s) of ours still live on the marketplace (kept in the store): ${groups.join('; ')}${orders.length > 10 ? '; …' : ''}`;
}

/** The daemon's status: every amount in its own token's decimals. */
export function buildStatus(s: StatusSources): DaemonStatus {
  const es = s.engine;
  const ss = s.stream;
  const open = (s.ledger?.counting() ?? [])
    .filter((o) => o.side !== 'listing')
    .map((o) => ({
      orderHash: o.orderHash as string,
      strategy: o.strategyId ?? 'unknown',
      side: o.side.replace('_offer', ''),
      state: o.state,
      collection: o.collection,
      price: formatUnits(o.price, o.paymentToken.decimals),
      quantity: (o.quantity - o.filled).toString(),
      symbol: o.paymentToken.symbol,
      expiresAt: o.expiresAt,
      ...(o.cancelValidUntil !== null ? { countedUntil: o.cancelValidUntil } : {}),
    }));
  const paperFills = s.paper?.fills ?? [];
  const recent = s.paper
    ? paperFills.slice(-20).map((f) => ({
        at: f.at,
        strategy: f.strategyId,
        kind: f.kind,
        collection: f.collection,
        price: formatUnits(f.price, f.decimals),
        symbol: f.symbol,
      }))
    : [...s.fills.recent];
  const amount = (v: bigint | null, decimals: number) => (v === null ? null : formatUnits(v, decimals));
  return {
    state: s.state,
    mode: s.mode,
    wallet: s.wallet,
    chain: s.chain,
    startedAt: s.startedAt,
    uptimeMs: s.startedAt > 0 ? s.now - s.startedAt : 0,
    readyMs: s.readyAt > 0 ? s.readyAt - s.startedAt : null,
    ...(s.failure !== null ? { error: s.failure } : {}),
    events: { total: s.events.total, byKind: { ...s.events.byKind } },
    strategies: (es?.strategies ?? []).map((x) => ({
      id: x.id,
      module: x.module,
      version: x.version,
      state: x.state,
      hooksRun: x.hooksRun,
      intents: x.intents,
      errors: x.errors,
      lastError: x.lastError?.message ?? null,
    })),
    intents: es
      ? { ...es.intents, unresolved: es.unresolved.length }
      : {
          emitted: 0,
          accepted: 0,
          done: 0,
          failed: 0,
          unknown: 0,
          rejected: 0,
          queued: 0,
          inFlight: 0,
          unresolved: 0,
        },
    skipped: es ? { total: es.skipped.total, byReason: es.skipped.byReason } : { total: 0, byReason: {} },
    orders: {
      placed: s.ordersPlaced,
      open,
      ...(s.liveAtStop !== undefined ? { liveAtStop: s.liveAtStop } : {}),
    },
    fills: { total: s.paper ? paperFills.length : s.fills.total, recent },
    spend: (es?.risk.tokens ?? []).map((t) => ({
      account: t.token,
      symbol: t.token === 'eth-like' ? 'ETH+WETH' : (t.symbol ?? s.tokenSymbol(t.token)),
      spentToday: formatUnits(t.spentToday, t.decimals),
      spentTotal: formatUnits(t.spentTotal, t.decimals),
      exposure: formatUnits(t.exposure, t.decimals),
      maxSpendPerDay: amount(t.maxSpendPerDay, t.decimals),
      maxExposure: amount(t.maxExposure, t.decimals),
      budget: amount(t.budget, t.decimals),
    })),
    risk: es
      ? {
          killed: es.risk.killed,
          paused: es.risk.paused,
          openOffers: es.risk.openOffers,
          refusals: es.risk.refusals,
        }
      : { killed: false, paused: false, openOffers: 0, refusals: {} },
    rateBudget: s.rateGroups.map(({ group, available, limit, windowMs, queued, served, http429 }) => ({
      group,
      available,
      limit,
      windowMs,
      queued,
      served,
      http429,
    })),
    stream: {
      state: ss?.state ?? 'idle',
      stale: ss?.stale ?? true,
      channels: (ss?.channels ?? []).map((c) => ({
        key: c.key,
        joined: c.joined,
        ageMs: c.ageMs,
        stale: c.stale,
      })),
      events: ss?.counters.events ?? 0,
      reconnects: ss?.counters.reconnects ?? 0,
    },
    guardRejections: { ...s.guardRejections },
    reconcile: { ...s.reconcile },
    ...(s.credentials !== undefined ? { credentials: s.credentials } : {}),
    ...(s.alerts !== undefined ? { alerts: s.alerts } : {}),
    ...(s.drops !== undefined && s.drops.length > 0 ? { drops: s.drops } : {}),
    ...(s.nftTraits !== undefined ? { nftTraits: { ...s.nftTraits } } : {}),
    ...(s.tape !== undefined ? { tape: { ...s.tape } } : {}),
    ...(s.pnl !== undefined && (s.pnl.byStrategy.length > 0 || s.pnl.byCollection.length > 0)
      ? { pnl: { byStrategy: s.pnl.byStrategy.map(pnlRow), byCollection: s.pnl.byCollection.map(pnlRow) } }
      : {}),
    ...(s.paper ? { paper: paperSummary(s.paper.report) } : {}),
  };
}

function paperSummary(r: PaperReport): NonNullable<DaemonStatus['paper']> {
  return {
    orders: r.orders,
    fills: r.fills.length,
    gas: formatUnits(r.gas, 18),
    totals: Object.fromEntries(
      Object.entries(r.totals).map(([k, t]) => [
        k,
        { spent: formatUnits(t.spent, t.decimals), fees: formatUnits(t.fees, t.decimals), count: t.count },
      ]),
    ),
  };
}

// Pure builders of the alerts the daemon pushes when something happens (a fill, a refusal, the
// switches, a fatal stop) and of those the detector derives from the status. Plain fields in, one
// AlertEvent out: short lines a person reads on a phone, amounts in the token's own decimals.
import { formatUnits } from '../domain/money.ts';
import { clip, formatAmount, formatDuration, shortHex } from './format.ts';
import type { AlertEvent, AlertValue } from './types.ts';

/** What a fill was, as the store (`buy`, `sell`) or paper mode (the other kinds) names it. */
export const FILL_KINDS = [
  'buy',
  'sell',
  'offer_filled',
  'mint',
  'swap',
  'listing_sold',
  'offer_accepted',
] as const;

export type FillKind = (typeof FILL_KINDS)[number];

/** True for a kind alertOfFill knows (a paper fill's `kind`, a stored fill's `side`). */
export function isFillKind(kind: string): kind is FillKind {
  return (FILL_KINDS as readonly string[]).includes(kind);
}

const FILL_VERB: Readonly<Record<FillKind, string>> = {
  buy: 'Bought',
  offer_filled: 'Bought (our offer filled)',
  mint: 'Minted',
  swap: 'Swapped',
  sell: 'Sold',
  listing_sold: 'Sold (our listing)',
  offer_accepted: 'Sold (offer accepted)',
};

export interface FillAlertInput {
  /** Unique per fill (the store's fill id, or tx hash and token id): two alerts of one fill are one. */
  readonly id: string;
  readonly at: number;
  readonly mode: 'paper' | 'live';
  readonly strategy: string;
  readonly kind: FillKind;
  readonly collection: string | null;
  readonly tokenId?: string | null;
  /** Units (ERC-1155); default 1. */
  readonly quantity?: bigint;
  /** For all the units, in the payment token's smallest unit. */
  readonly price: bigint;
  readonly decimals: number;
  readonly symbol: string;
  /** Marketplace fee and royalties within the price, same token. */
  readonly fees?: bigint;
  /** Gas paid, wei of the native token. */
  readonly gasWei?: bigint;
  /** Realized profit or loss of a sale, same token as the price. */
  readonly realizedPnl?: bigint | null;
  readonly txHash?: string | null;
}

function paper(mode: 'paper' | 'live'): string {
  return mode === 'paper' ? '[paper] ' : '';
}

function lines(...parts: (string | false | null | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join('\n');
}

export function alertOfFill(f: FillAlertInput): AlertEvent {
  const qty = f.quantity ?? 1n;
  const item = `${f.collection ?? 'token'}${f.tokenId != null ? ` #${clip(f.tokenId, 24)}` : ''}${qty !== 1n ? ` ×${qty}` : ''}`;
  const price = formatAmount(f.price, f.decimals, f.symbol);
  const pnl =
    f.realizedPnl != null
      ? `${f.realizedPnl >= 0n ? 'profit' : 'loss'} ${formatAmount(f.realizedPnl < 0n ? -f.realizedPnl : f.realizedPnl, f.decimals, f.symbol)}`
      : null;
  const costs = [
    f.fees !== undefined && f.fees > 0n ? `fees ${formatAmount(f.fees, f.decimals, f.symbol)}` : null,
    f.gasWei !== undefined && f.gasWei > 0n ? `gas ${formatAmount(f.gasWei, 18, 'ETH')}` : null,
  ].filter((x) => x !== null);
  const data: Record<string, AlertValue> = {
    mode: f.mode,
    strategy: f.strategy,
    fillKind: f.kind,
    collection: f.collection,
    tokenId: f.tokenId ?? null,
    quantity: qty.toString(),
    price: formatUnits(f.price, f.decimals),
    symbol: f.symbol,
    fees: f.fees !== undefined ? formatUnits(f.fees, f.decimals) : null,
    gas: f.gasWei !== undefined ? formatUnits(f.gasWei, 18) : null,
    realizedPnl: f.realizedPnl != null ? formatUnits(f.realizedPnl, f.decimals) : null,
    txHash: f.txHash ?? null,
  };
  return {
    kind: 'fill',
    at: f.at,
    severity: 'info',
    title: `${paper(f.mode)}${FILL_VERB[f.kind]} ${item} for ${price}`,
    text: lines(
      costs.length > 0 && costs.join(' · '),
      pnl,
      `strategy ${f.strategy}`,
      f.txHash ? `tx ${shortHex(f.txHash)}` : null,
    ),
    key: `fill:${f.id}`,
    data,
  };
}

export interface GuardRefusalAlertInput {
  readonly at: number;
  readonly strategy: string;
  /** The intent's type, e.g. `buy_listing`. */
  readonly intent: string;
  /** The guard's reason code, e.g. `recipient_mismatch`. */
  readonly reason: string;
  /** The guard's message (no secret: it describes the transaction). */
  readonly message: string;
  readonly collection?: string | null;
}

/** The calldata guard refused a transaction the API returned: nothing was signed. Same reason, strategy and collection within the dedup window: one alert. */
export function alertOfGuardRefusal(g: GuardRefusalAlertInput): AlertEvent {
  return {
    kind: 'guard_refusal',
    at: g.at,
    severity: 'warn',
    title: `Guard refused a ${g.intent.replace(/_/g, ' ')}: ${g.reason.replace(/_/g, ' ')}`,
    text: lines(
      clip(g.message, 300),
      `strategy ${g.strategy}${g.collection ? ` · ${g.collection}` : ''}`,
      'nothing was signed',
    ),
    key: `guard_refusal:${g.reason}:${g.strategy}:${g.collection ?? '-'}`,
    data: {
      strategy: g.strategy,
      intent: g.intent,
      reason: g.reason,
      collection: g.collection ?? null,
    },
  };
}

export interface FeeChangeAlertInput {
  readonly at: number;
  readonly collection: string;
  /** What a sale there paid and pays now (required fees, bps); null: not fees an order would take. */
  readonly beforeBps: bigint | null;
  readonly nowBps: bigint | null;
  /** Fee entries now: percent and recipient. */
  readonly fees: readonly { readonly fee: number; readonly recipient: string; readonly required?: boolean }[];
}

const percentOfBps = (bps: bigint | null): string =>
  bps === null ? 'unusable fees' : `${(Number(bps) / 100).toString()} %`;

/**
 * A collection's fees changed while the daemon runs (its creator set new ones): what our orders
 * there carry and what a sale there nets follow them. A rise is a warning (sales there bring
 * less), a fall is news. One per collection and new fees within the dedup window.
 */
export function alertOfFeeChange(f: FeeChangeAlertInput): AlertEvent {
  const rose = f.beforeBps === null || f.nowBps === null || f.nowBps > f.beforeBps;
  return {
    kind: 'fees',
    at: f.at,
    severity: rose ? 'warn' : 'info',
    title: `Fees of ${f.collection} changed: ${percentOfBps(f.beforeBps)} → ${percentOfBps(f.nowBps)}`,
    text: lines(
      clip(
        f.fees
          .map(
            (x) =>
              `${x.fee} % to ${shortHex(x.recipient.toLowerCase())}${x.required === false ? ' (optional)' : ''}`,
          )
          .join(', '),
        300,
      ),
      'our orders there carry the new fees from now on; sellers net their prices of them',
    ),
    key: `fees:${f.collection}:${f.nowBps ?? 'unusable'}:${f.fees.map((x) => `${x.fee}@${x.recipient.toLowerCase()}`).join(',')}`,
    data: {
      collection: f.collection,
      beforeBps: f.beforeBps === null ? null : f.beforeBps.toString(),
      nowBps: f.nowBps === null ? null : f.nowBps.toString(),
    },
  };
}

export interface SwitchAlertInput {
  readonly at: number;
  /** Why, as the operator or the daemon said it. */
  readonly reason?: string;
  /** Who pulled it, e.g. `control endpoint`, `dashboard`. */
  readonly by?: string;
}

function switchText(s: SwitchAlertInput, tail: string): string {
  return lines(s.reason && clip(s.reason, 200), s.by && `by ${s.by}`, tail);
}

function switchData(s: SwitchAlertInput, extra: Record<string, AlertValue> = {}): Record<string, AlertValue> {
  return { reason: s.reason ?? null, by: s.by ?? null, ...extra };
}

/** The kill switch: no new intents, every open offer being cancelled. */
export function alertOfKill(s: SwitchAlertInput & { readonly openOffers?: number }): AlertEvent {
  return {
    kind: 'kill',
    at: s.at,
    severity: 'critical',
    title: 'Kill switch engaged',
    text: switchText(
      s,
      `trading stopped${s.openOffers !== undefined ? `; cancelling ${s.openOffers} open offer(s)` : '; open offers are being cancelled'} until resume`,
    ),
    key: `kill:${s.at}`,
    data: switchData(s, { openOffers: s.openOffers ?? null }),
  };
}

export function alertOfPause(s: SwitchAlertInput): AlertEvent {
  return {
    kind: 'pause',
    at: s.at,
    severity: 'warn',
    title: 'Trading paused',
    text: switchText(s, 'no hooks, no new intents; open orders stay until resume'),
    key: `pause:${s.at}`,
    data: switchData(s),
  };
}

export function alertOfResume(s: SwitchAlertInput): AlertEvent {
  return {
    kind: 'resume',
    at: s.at,
    severity: 'info',
    title: 'Trading resumed',
    text: switchText(s, 'strategies run again'),
    key: `resume:${s.at}`,
    data: switchData(s),
  };
}

export interface FatalAlertInput {
  readonly at: number;
  /** The error's code, e.g. `wallet_mismatch`. */
  readonly code?: string;
  /** What went wrong (the daemon's failure text; no secret). */
  readonly message: string;
}

/** The daemon stopped trading for good. Keyed `fatal`: the daemon's push and the detector's sighting of state `failed` are one alert. */
export function alertOfFatal(f: FatalAlertInput): AlertEvent {
  return {
    kind: 'fatal',
    at: f.at,
    severity: 'critical',
    title: 'harpoon stopped: fatal error',
    text: lines(
      clip(f.message, 500),
      f.code && `code ${f.code}`,
      'trading has stopped; restart after fixing',
    ),
    key: 'fatal',
    data: { code: f.code ?? null, message: clip(f.message, 500) },
  };
}

export interface StreamStaleAlertInput {
  readonly at: number;
  /** When the stream went stale (epoch ms). */
  readonly since: number;
  /** The stale collections with the age of their newest information. */
  readonly channels: readonly { readonly key: string; readonly ageMs: number }[];
}

/** The stream has been stale for longer than allowed: no snipes, no bids meanwhile. */
export function alertOfStreamStale(s: StreamStaleAlertInput): AlertEvent {
  const shown = s.channels.slice(0, 5).map((c) => `${c.key} ${formatDuration(c.ageMs)}`);
  const more = s.channels.length > 5 ? ` and ${s.channels.length - 5} more` : '';
  return {
    kind: 'stream_stale',
    at: s.at,
    severity: 'warn',
    title: `Market stream stale for ${formatDuration(s.at - s.since)}`,
    text: lines(
      shown.length > 0 && `newest info: ${shown.join(', ')}${more}`,
      'no snipes or bids until it is fresh again',
    ),
    key: `stream_stale:${s.since}`,
    data: { since: s.since, staleMs: s.at - s.since, channels: s.channels.map((c) => c.key).join(',') },
  };
}

/** The stream is fresh again after a stale alert. */
export function alertOfStreamFresh(s: { readonly at: number; readonly since: number }): AlertEvent {
  return {
    kind: 'stream_stale',
    at: s.at,
    severity: 'info',
    title: `Market stream fresh again after ${formatDuration(s.at - s.since)}`,
    text: 'trading on fresh information again',
    key: `stream_stale:${s.since}:fresh`,
    data: { since: s.since, staleMs: s.at - s.since, recovered: true },
  };
}

export interface BudgetAlertInput {
  readonly at: number;
  /** The budget account, e.g. `eth-like` (ETH and WETH together) or a token address. */
  readonly account: string;
  readonly symbol: string;
  /** Which limit: the daily spend cap, the open-offer exposure cap, the overall budget. */
  readonly limit: 'spendPerDay' | 'exposure' | 'budget';
  /** Whole tokens, as the status shows them. */
  readonly used: string;
  readonly max: string;
  /** The percentage crossed (the configured warning or 100). */
  readonly pct: number;
  /** The UTC day it counts for (one alert per budget, threshold and day). */
  readonly day: string;
}

const LIMIT_TEXT: Readonly<Record<BudgetAlertInput['limit'], string>> = {
  spendPerDay: 'daily spend',
  exposure: 'open offers (worst case)',
  budget: 'overall budget',
};

export function alertOfBudget(b: BudgetAlertInput): AlertEvent {
  const full = b.pct >= 100;
  return {
    kind: 'budget',
    at: b.at,
    severity: full ? 'critical' : 'warn',
    title: `${b.symbol} ${LIMIT_TEXT[b.limit]} at ${full ? 'its limit' : `${b.pct} %`}`,
    text: lines(
      `${b.used} of ${b.max} ${b.symbol}`,
      full ? 'new spending in this budget is refused' : 'new spending is refused at 100 %',
    ),
    key: `budget:${b.account}:${b.limit}:${b.pct}:${b.day}`,
    data: { account: b.account, symbol: b.symbol, limit: b.limit, used: b.used, max: b.max, pct: b.pct },
  };
}

export function alertOfStrategyDisabled(s: {
  readonly at: number;
  readonly strategy: string;
  readonly lastError: string | null;
  readonly errors: number;
  /** Counts the disablements of this strategy (keys stay distinct when it is disabled again). */
  readonly occurrence: number;
}): AlertEvent {
  return {
    kind: 'strategy_disabled',
    at: s.at,
    severity: 'warn',
    title: `Strategy ${s.strategy} disabled`,
    text: lines(
      s.lastError && `last error: ${clip(s.lastError, 300)}`,
      `${s.errors} error(s); the other strategies keep running`,
    ),
    key: `strategy_disabled:${s.strategy}:${s.occurrence}`,
    data: { strategy: s.strategy, errors: s.errors, lastError: s.lastError },
  };
}

export function alertOfCredential(c: {
  readonly at: number;
  /** The keeper's last renewal problem (code and text, never a secret). */
  readonly problem: string;
  readonly occurrence: number;
}): AlertEvent {
  return {
    kind: 'credential',
    at: c.at,
    severity: 'critical',
    title: 'A credential could not be renewed',
    text: lines(
      clip(c.problem, 300),
      'calls that need it fail until it is renewed; check the API key, the PAT (harpoon auth login)',
    ),
    key: `credential:${c.occurrence}`,
    data: { problem: clip(c.problem, 300) },
  };
}

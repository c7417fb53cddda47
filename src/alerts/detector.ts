// Alerts that are edges of the daemon's state, found by comparing consecutive status documents:
// the stream stale for too long (and fresh again), a budget at its warning level or full, a
// strategy disabled, a credential that could not be renewed, the daemon failed. Pure: no clock,
// no I/O; the caller passes each status with the time it was read.
import type { DaemonStatus } from '../daemon/status.ts';
import { formatUnits, parseUnits } from '../domain/money.ts';
import {
  alertOfBudget,
  alertOfCredential,
  alertOfFatal,
  alertOfStrategyDisabled,
  alertOfStreamFresh,
  alertOfStreamStale,
  type BudgetAlertInput,
} from './builders.ts';
import { utcDay } from './format.ts';
import type { AlertEvent } from './types.ts';

/** The fields of the daemon's status (`DaemonStatus`) the detector reads. */
export interface DetectorStatus {
  /** `running`, `failed`, ... */
  readonly state: string;
  readonly error?: string;
  readonly strategies: readonly {
    readonly id: string;
    readonly state: string;
    readonly errors: number;
    readonly lastError: string | null;
  }[];
  /** Per budget account, amounts in whole tokens (decimal strings). */
  readonly spend: DaemonStatus['spend'];
  readonly stream: {
    readonly stale: boolean;
    readonly channels: readonly { readonly key: string; readonly ageMs: number; readonly stale: boolean }[];
  };
  readonly credentials?: { readonly lastError: string | null };
}

export interface AlertDetectorOptions {
  /** The stream must stay stale this long before it is an alert (s). */
  readonly streamStaleAfterSec: number;
  /** A budget this full (percent of its limit) is an alert, once per budget and UTC day; 100 % is another. */
  readonly budgetWarnPct: number;
}

export interface AlertDetector {
  /** The alerts that `status`, read at `now` (epoch ms), adds to what the earlier ones showed. */
  observe(status: DetectorStatus, now: number): AlertEvent[];
}

/** Scale of a decimal string (its fraction digits). */
function scale(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** `used` and `max` as bigints at one scale; undefined when either is not a decimal amount. */
function common(used: readonly string[], max: string): { used: bigint; max: bigint } | undefined {
  const s = Math.max(scale(max), ...used.map(scale));
  try {
    return { used: used.reduce((sum, u) => sum + parseUnits(u, s), 0n), max: parseUnits(max, s) };
  } catch {
    return undefined;
  }
}

export function createAlertDetector(options: AlertDetectorOptions): AlertDetector {
  const staleAfterMs = options.streamStaleAfterSec * 1000;
  const thresholds = [...new Set([options.budgetWarnPct, 100])].sort((a, b) => b - a);
  let staleSince: number | null = null;
  let staleAlerted = false;
  /** `account:limit:pct:day` already told. */
  const budgetsTold = new Set<string>();
  const disabledNow = new Set<string>();
  const disabledCount = new Map<string, number>();
  let credentialProblem: string | null = null;
  let credentialCount = 0;
  let failedTold = false;

  function stream(s: DetectorStatus, now: number, out: AlertEvent[]): void {
    const stale = s.state === 'running' && s.stream.stale && s.stream.channels.length > 0;
    if (stale) {
      staleSince ??= now;
      if (!staleAlerted && now - staleSince >= staleAfterMs) {
        staleAlerted = true;
        const channels = s.stream.channels.filter((c) => c.stale);
        out.push(alertOfStreamStale({ at: now, since: staleSince, channels }));
      }
      return;
    }
    if (staleAlerted && staleSince !== null && s.state === 'running')
      out.push(alertOfStreamFresh({ at: now, since: staleSince }));
    staleSince = null;
    staleAlerted = false;
  }

  function budgets(s: DetectorStatus, now: number, out: AlertEvent[]): void {
    const day = utcDay(now);
    for (const key of budgetsTold) if (!key.endsWith(`:${day}`)) budgetsTold.delete(key);
    for (const row of s.spend) {
      const limits: [BudgetAlertInput['limit'], readonly string[], string | null][] = [
        ['spendPerDay', [row.spentToday], row.maxSpendPerDay],
        ['exposure', [row.exposure], row.maxExposure],
        ['budget', [row.spentTotal, row.exposure], row.budget],
      ];
      for (const [limit, usedParts, max] of limits) {
        if (max === null) continue;
        const v = common(usedParts, max);
        if (v === undefined || v.max <= 0n) continue;
        // Percent in hundredths, so a fractional warning level compares exactly.
        const crossed = thresholds.find((pct) => v.used * 10_000n >= BigInt(Math.round(pct * 100)) * v.max);
        if (crossed === undefined) continue;
        const told = (pct: number) => `${row.account}:${limit}:${pct}:${day}`;
        if (budgetsTold.has(told(crossed))) continue;
        // Crossing 100 % at once also covers the warning level.
        for (const pct of thresholds) if (pct <= crossed) budgetsTold.add(told(pct));
        const used = usedParts.length === 1 ? (usedParts[0] as string) : sumText(usedParts);
        out.push(
          alertOfBudget({
            at: now,
            account: row.account,
            symbol: row.symbol,
            limit,
            used,
            max,
            pct: crossed,
            day,
          }),
        );
      }
    }
  }

  function strategies(s: DetectorStatus, now: number, out: AlertEvent[]): void {
    for (const x of s.strategies) {
      if (x.state !== 'disabled') {
        disabledNow.delete(x.id);
        continue;
      }
      if (disabledNow.has(x.id)) continue;
      disabledNow.add(x.id);
      const occurrence = (disabledCount.get(x.id) ?? 0) + 1;
      disabledCount.set(x.id, occurrence);
      out.push(
        alertOfStrategyDisabled({
          at: now,
          strategy: x.id,
          lastError: x.lastError,
          errors: x.errors,
          occurrence,
        }),
      );
    }
  }

  function credentials(s: DetectorStatus, now: number, out: AlertEvent[]): void {
    const problem = s.credentials?.lastError ?? null;
    if (problem !== null && credentialProblem === null) {
      credentialCount++;
      out.push(alertOfCredential({ at: now, problem, occurrence: credentialCount }));
    }
    credentialProblem = problem;
  }

  return {
    observe(s, now) {
      const out: AlertEvent[] = [];
      if (s.state === 'failed' && !failedTold) {
        out.push(alertOfFatal({ at: now, message: s.error ?? 'the daemon failed' }));
      }
      failedTold = s.state === 'failed';
      stream(s, now, out);
      budgets(s, now, out);
      strategies(s, now, out);
      credentials(s, now, out);
      return out;
    },
  };
}

/** The sum of decimal strings, as a decimal string at their common scale. */
function sumText(parts: readonly string[]): string {
  const s = Math.max(...parts.map(scale));
  return formatUnits(
    parts.reduce((sum, p) => sum + parseUnits(p, s), 0n),
    s,
  );
}

import { HttpError } from '../../errors.ts';
import type { MarketEventKind } from '../../events/log.ts';
import type { LimitGroup } from '../../ratelimit/token-bucket.ts';
import { type CancelFaultCounts, type FaultSettings, parseFaultUpdate } from '../faults.ts';
import { parseTraderUpdate } from '../traders.ts';
import type { Route, ServerState, TraderCounts, TraderSettings } from '../types.ts';

/**
 * The sandbox's own control surface under `/_sandbox/` (never under `/api`; no key; answered only
 * to loopback peers): counters, fault injection and the simulated traders' listing takers and
 * held-item offers.
 */

export interface GroupCounters {
  requests: number;
  throttled: number;
}

/** Request counters the server keeps per rate-limit group. */
export class RequestCounters {
  readonly groups: Record<LimitGroup, GroupCounters> = {
    read: { requests: 0, throttled: 0 },
    write: { requests: 0, throttled: 0 },
    fulfillment: { requests: 0, throttled: 0 },
  };
  unauthorized = 0;
  injectedErrors = 0;
}

export interface SandboxStats {
  readonly uptimeMs: number;
  /** Authenticated `/api` requests per rate-limit group, and how many were answered 429. */
  readonly requests: Readonly<Record<LimitGroup, Readonly<GroupCounters>>>;
  readonly unauthorized: number;
  readonly injectedErrors: number;
  readonly keys: { readonly issued: number; readonly refused: number };
  readonly events: { readonly total: number; readonly byType: Partial<Record<MarketEventKind, number>> };
  /** The order book's counters, or null while no market is attached. */
  readonly market: {
    readonly orders: number;
    readonly active: number;
    readonly fills: number;
    readonly cancels: number;
  } | null;
  readonly faults: FaultSettings;
  /** What the injected faults did: the cancel faults' counters, and the cancels held open now. */
  readonly faultCounts: { readonly cancel: Readonly<CancelFaultCounts> & { readonly held: number } };
  /**
   * The simulated traders who answer other wallets' orders (listing takers, offers on held items):
   * their settings and what they did; null while no simulator is attached.
   */
  readonly traders: { readonly settings: TraderSettings; readonly counts: TraderCounts } | null;
  readonly streamAttached: boolean;
  /** The stream server's counters, when it reports them. */
  readonly stream: unknown;
}

export function collectStats(state: ServerState, counters: RequestCounters, startedAt: number): SandboxStats {
  const byType: Partial<Record<MarketEventKind, number>> = {};
  for (const e of state.events.all()) byType[e.kind] = (byType[e.kind] ?? 0) + 1;
  const m = state.market?.stats();
  return {
    uptimeMs: Date.now() - startedAt,
    requests: {
      read: { ...counters.groups.read },
      write: { ...counters.groups.write },
      fulfillment: { ...counters.groups.fulfillment },
    },
    unauthorized: counters.unauthorized,
    injectedErrors: counters.injectedErrors,
    keys: { issued: state.keys.issued, refused: state.keys.refused },
    events: { total: state.events.size, byType },
    market: m ? { orders: m.orders, active: m.active, fills: m.fills, cancels: m.cancels } : null,
    faults: state.faults.settings,
    faultCounts: {
      cancel: {
        ...state.faults.cancelCounts,
        refusedByStatus: { ...state.faults.cancelCounts.refusedByStatus },
        held: state.held.size,
      },
    },
    traders: state.traders ? { settings: state.traders.settings(), counts: state.traders.counts() } : null,
    streamAttached: state.stream !== undefined,
    stream: state.stream?.stats?.() ?? null,
  };
}

export function adminRoutes(state: ServerState, counters: RequestCounters, startedAt: number): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/_sandbox/stats',
      access: 'admin',
      handler: () => ({ json: collectStats(state, counters, startedAt) }),
    },
    {
      method: 'GET',
      pattern: '/_sandbox/faults',
      access: 'admin',
      handler: () => ({ json: state.faults.settings }),
    },
    {
      method: 'POST',
      pattern: '/_sandbox/faults',
      access: 'admin',
      handler: async (ctx) => {
        const update = parseFaultUpdate(await ctx.body());
        const s = update.stream;
        const wantsStream =
          s !== undefined &&
          (s.drop === true ||
            s.stallMs !== undefined ||
            s.duplicateRate !== undefined ||
            s.reorderWindow !== undefined ||
            s.malformedRate !== undefined);
        if (wantsStream && !state.stream) {
          throw new HttpError(409, 'No stream server is attached: stream faults cannot be applied');
        }
        if (update.tamper !== undefined && update.tamper !== 'none' && !state.market) {
          throw new HttpError(409, 'No market is attached: fulfillment tampering cannot be applied');
        }
        if ((update.cancel?.fillInWindowRate ?? 0) > 0 && !state.windowFiller) {
          throw new HttpError(
            409,
            'No trader filler is attached: cancel.fillInWindowRate cannot be applied (the full sandbox has one)',
          );
        }
        // Validated; now apply (forwarded parts first, so a forwarding failure changes nothing here).
        const actions: { dropped?: number; stalled?: number } = {};
        if (s && state.stream) {
          const rates = {
            ...(s.duplicateRate !== undefined ? { duplicateRate: s.duplicateRate } : {}),
            ...(s.reorderWindow !== undefined ? { reorderWindow: s.reorderWindow } : {}),
            ...(s.malformedRate !== undefined ? { malformedRate: s.malformedRate } : {}),
          };
          if (Object.keys(rates).length > 0) state.stream.faults.configure(rates);
          if (s.drop === true) actions.dropped = state.stream.faults.dropAll();
          if (s.stallMs !== undefined && s.stallMs > 0)
            actions.stalled = state.stream.faults.stall(s.stallMs);
        }
        if (update.tamper !== undefined) state.market?.setTamper(update.tamper);
        const settings = state.faults.apply(update);
        return {
          json: { ...settings, ...(Object.keys(actions).length > 0 ? { streamActions: actions } : {}) },
        };
      },
    },
    {
      method: 'GET',
      pattern: '/_sandbox/traders',
      access: 'admin',
      handler: () => {
        if (!state.traders) throw noTraders();
        return { json: state.traders.settings() };
      },
    },
    {
      method: 'POST',
      pattern: '/_sandbox/traders',
      access: 'admin',
      handler: async (ctx) => {
        const update = parseTraderUpdate(await ctx.body());
        if (!state.traders) throw noTraders();
        return { json: state.traders.configure(update) };
      },
    },
    {
      method: 'POST',
      pattern: '/_sandbox/reset-faults',
      access: 'admin',
      handler: () => {
        state.stream?.faults.reset();
        state.market?.setTamper('none');
        state.held.releaseAll();
        return { json: state.faults.reset() };
      },
    },
  ];
}

const noTraders = () =>
  new HttpError(409, 'No market simulator is attached (activity 0): there are no simulated traders to set');

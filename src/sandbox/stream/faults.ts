import { prng } from '../catalog/traits.ts';

/**
 * Stream faults the admin surface toggles at runtime: the failures a real stream client must
 * survive. Random choices come from a seeded PRNG, so a run with the same seed and the same
 * sequence of events injects the same faults.
 *
 * - `dropAll()`: every open socket is terminated abruptly (no close frame).
 * - `stall(ms)`: the sockets open now receive nothing (events, replies, heartbeat replies) for
 *   `ms`; they stay open. Frames due meanwhile are discarded, not queued: a silent stall.
 * - `duplicateRate`: probability that an event is delivered twice.
 * - `reorderWindow`: up to N events are held and delivered shuffled (flushed when N are held or
 *   after `reorderHoldMs`, default 250 ms).
 * - `malformedRate`: probability that a malformed frame precedes an event: either invalid JSON or
 *   a well-formed frame whose payload is broken (price `"abc"`, or `item: "abc"`).
 */

export interface StreamFaultSettings {
  /** 0..1. */
  readonly duplicateRate: number;
  /** Events held and shuffled; 0 or 1 = no reordering. */
  readonly reorderWindow: number;
  /** 0..1. */
  readonly malformedRate: number;
}

/** What the faults act on; the stream server implements it. */
export interface StreamFaultHost {
  /** Terminates every socket; returns how many. */
  dropAll(): number;
  /** Silences every current socket for `ms`; returns how many. */
  stall(ms: number): number;
  /** Called after a setting changed (e.g. a smaller reorder window releases held events). */
  faultsChanged(): void;
}

export type MalformedKind = 'invalid_json' | 'broken_payload';

function checkRate(name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
    throw new RangeError(`${name} must be a number in [0, 1], got ${String(v)}`);
  }
  return v;
}

export class StreamFaults {
  readonly #host: StreamFaultHost;
  #rand: () => number;
  #duplicateRate = 0;
  #reorderWindow = 0;
  #malformedRate = 0;

  constructor(host: StreamFaultHost, seed = 1) {
    this.#host = host;
    this.#rand = prng(seed);
  }

  get duplicateRate(): number {
    return this.#duplicateRate;
  }
  set duplicateRate(v: number) {
    this.#duplicateRate = checkRate('duplicateRate', v);
    this.#host.faultsChanged();
  }

  get reorderWindow(): number {
    return this.#reorderWindow;
  }
  set reorderWindow(v: number) {
    if (!Number.isInteger(v) || v < 0) {
      throw new RangeError(`reorderWindow must be a non-negative integer, got ${String(v)}`);
    }
    this.#reorderWindow = v;
    this.#host.faultsChanged();
  }

  get malformedRate(): number {
    return this.#malformedRate;
  }
  set malformedRate(v: number) {
    this.#malformedRate = checkRate('malformedRate', v);
    this.#host.faultsChanged();
  }

  /** Sets several at once (validated before any is applied); `seed` restarts the PRNG. */
  configure(settings: Partial<StreamFaultSettings> & { readonly seed?: number }): void {
    if (settings.duplicateRate !== undefined) checkRate('duplicateRate', settings.duplicateRate);
    if (settings.malformedRate !== undefined) checkRate('malformedRate', settings.malformedRate);
    if (
      settings.reorderWindow !== undefined &&
      (!Number.isInteger(settings.reorderWindow) || settings.reorderWindow < 0)
    ) {
      throw new RangeError(
        `reorderWindow must be a non-negative integer, got ${String(settings.reorderWindow)}`,
      );
    }
    if (settings.seed !== undefined) this.#rand = prng(settings.seed);
    if (settings.duplicateRate !== undefined) this.#duplicateRate = settings.duplicateRate;
    if (settings.malformedRate !== undefined) this.#malformedRate = settings.malformedRate;
    if (settings.reorderWindow !== undefined) this.#reorderWindow = settings.reorderWindow;
    this.#host.faultsChanged();
  }

  /** Turns every rate fault off (held events are released). */
  reset(): void {
    this.configure({ duplicateRate: 0, reorderWindow: 0, malformedRate: 0 });
  }

  settings(): StreamFaultSettings {
    return {
      duplicateRate: this.#duplicateRate,
      reorderWindow: this.#reorderWindow,
      malformedRate: this.#malformedRate,
    };
  }

  /** Terminates every open socket abruptly; returns how many were dropped. */
  dropAll(): number {
    return this.#host.dropAll();
  }

  /** Silences every currently open socket for `ms` while keeping it open; returns how many. */
  stall(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`stall ms must be >= 0, got ${String(ms)}`);
    return this.#host.stall(ms);
  }

  // ── used by the server ─────────────────────────────────────────────

  /** True with probability `duplicateRate`. */
  rollDuplicate(): boolean {
    return this.#duplicateRate > 0 && this.#rand() < this.#duplicateRate;
  }

  /** The malformed frame to inject before the next event, or null (probability `malformedRate`). */
  rollMalformed(): MalformedKind | null {
    if (this.#malformedRate <= 0 || this.#rand() >= this.#malformedRate) return null;
    return this.#rand() < 0.5 ? 'invalid_json' : 'broken_payload';
  }

  /** Fisher–Yates shuffle with the fault PRNG (in place). */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.#rand() * (i + 1));
      const a = items[i] as T;
      items[i] = items[j] as T;
      items[j] = a;
    }
    return items;
  }
}

/**
 * How often the market view may call the read endpoints. Each refresh kind has a wanted interval
 * and a cost (requests per run: pages actually fetched last time, at least 1). When the wanted
 * rate of all collections exceeds the view's share of the read budget, every interval is
 * stretched by the same factor so that the total fits.
 */

/** In the order one collection's due refreshes run: traits first (numeric traits are left out of
 * trait floors), listings before stats (the stats floor is matched to a known listing). */
export const REFRESH_KINDS = [
  'traits',
  'listings',
  'stats',
  'traitFloors',
  'collectionOffers',
  'traitOffers',
] as const;
export type RefreshKind = (typeof REFRESH_KINDS)[number];

export type RefreshIntervals = Readonly<Record<RefreshKind, number>>;

export const DEFAULT_REFRESH_INTERVALS: RefreshIntervals = Object.freeze({
  stats: 60_000,
  traitFloors: 120_000,
  traits: 3_600_000,
  listings: 180_000,
  collectionOffers: 90_000,
  traitOffers: 180_000,
});

export interface BudgetInput {
  readonly intervals: RefreshIntervals;
  /** Requests one run of each kind costs, per collection (sum over collections when they differ). */
  readonly costs: Readonly<Record<RefreshKind, number>>;
  readonly collections: number;
  /** Read requests per hour the view may spend (its share of the key's read rate). */
  readonly readsPerHour: number;
}

export interface BudgetPlan {
  /** ≥ 1: how much every interval was stretched. */
  readonly factor: number;
  readonly intervals: RefreshIntervals;
  /** Requests per hour the plan spends. */
  readonly readsPerHour: number;
}

export function planRefresh(input: BudgetInput): BudgetPlan {
  let wanted = 0;
  for (const k of REFRESH_KINDS) {
    wanted += (Math.max(1, input.costs[k]) * input.collections * 3_600_000) / input.intervals[k];
  }
  const factor = input.readsPerHour > 0 ? Math.max(1, wanted / input.readsPerHour) : 1;
  const intervals = {} as Record<RefreshKind, number>;
  for (const k of REFRESH_KINDS) intervals[k] = Math.ceil(input.intervals[k] * factor);
  return Object.freeze({ factor, intervals: Object.freeze(intervals), readsPerHour: wanted / factor });
}

/**
 * A small token bucket for out-of-schedule refreshes (re-learning a floor, a best offer that
 * left): `perMinute` tokens, refilled continuously. Time is passed in (no clock of its own).
 */
export class RelearnBucket {
  #tokens: number;
  #at: number;
  readonly #perMs: number;
  readonly #capacity: number;

  constructor(perMinute: number, now: number) {
    this.#capacity = Math.max(1, perMinute);
    this.#tokens = this.#capacity;
    this.#perMs = perMinute / 60_000;
    this.#at = now;
  }

  #refill(now: number): void {
    if (now > this.#at) {
      this.#tokens = Math.min(this.#capacity, this.#tokens + (now - this.#at) * this.#perMs);
      this.#at = now;
    }
  }

  /** Takes a token; false when none is left. */
  take(now: number): boolean {
    this.#refill(now);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Milliseconds until a token is available (0 when one is). */
  waitMs(now: number): number {
    this.#refill(now);
    if (this.#tokens >= 1 || this.#perMs <= 0) return 0;
    return Math.ceil((1 - this.#tokens) / this.#perMs);
  }
}

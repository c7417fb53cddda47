// The safe runner: one strategy's hooks run one at a time, each with a timeout. A throw, a timeout
// or a malformed intent is a StrategyError; `maxErrors` of them within `errorWindowMs` disable this
// strategy alone.
import { StrategyError } from '../errors/index.ts';
import { INTENT_KINDS, type Intent, type StrategyContext, type StrategyState } from '../strategy.ts';

export type HookName = 'init' | 'onEvent' | 'onTick' | 'onOrderUpdate' | 'onStop';
export type RunnerState = 'idle' | 'running' | 'paused' | 'disabled' | 'stopped';

export interface RunnerOptions {
  readonly id: string;
  /** Per-hook timeout (ms). */
  readonly hookTimeoutMs: number;
  readonly maxErrors: number;
  readonly errorWindowMs: number;
  readonly now: () => number;
  readonly onError?: (error: StrategyError) => void;
  readonly onDisabled?: (error: StrategyError) => void;
}

export interface RunnerStatus {
  readonly id: string;
  readonly state: RunnerState;
  readonly hooksRun: number;
  readonly errors: number;
  readonly errorsInWindow: number;
  readonly intents: number;
  readonly lastError: { readonly code: string; readonly message: string; readonly at: number } | null;
  readonly disabledAt: number | null;
}

type AnyHook = (ctx: StrategyContext<unknown>, ...args: unknown[]) => unknown;

/** JSON-only state, marked dirty on change; revoked when a hook timed out. */
export class MemoryStrategyState implements StrategyState {
  private readonly data: Record<string, unknown>;
  /** Keys set or deleted since the last `serialize`. */
  private readonly touched = new Set<string>();
  /** Serialized changes waiting to be saved: key -> JSON text (null = deleted). */
  private readonly pending = new Map<string, string | null>();
  revoked = false;
  constructor(initial: Record<string, unknown> = {}) {
    this.data = { ...initial };
  }
  get<T = unknown>(key: string): T | undefined {
    return this.data[key] as T | undefined;
  }
  set(key: string, value: unknown): void {
    if (this.revoked) throw new Error('state is read-only after the hook timed out');
    this.data[key] = value;
    this.touched.add(key);
  }
  delete(key: string): void {
    if (this.revoked) throw new Error('state is read-only after the hook timed out');
    delete this.data[key];
    this.touched.add(key);
  }
  keys(): readonly string[] {
    return Object.keys(this.data);
  }
  toJSON(): Record<string, unknown> {
    return { ...this.data };
  }
  /**
   * Serializes the keys touched since the last call (once each, after the hook). Throws a
   * TypeError when a value is not JSON (a bigint, a cycle): the hook's own error.
   */
  serialize(): void {
    if (this.touched.size === 0) return; // most hooks touch nothing
    for (const k of this.touched) {
      const v = this.data[k];
      const text = v === undefined ? undefined : JSON.stringify(v);
      if (text === undefined && v !== undefined) throw new TypeError(`state '${k}' is not a JSON value`);
      this.pending.set(k, text ?? null);
    }
    this.touched.clear();
  }
  get dirty(): boolean {
    return this.pending.size > 0 || this.touched.size > 0;
  }
  /** Serialized changes since the last call (and clears them). */
  takeChanges(): { changed: Record<string, string>; deleted: string[] } {
    if (this.touched.size > 0) this.serialize();
    const changed: Record<string, string> = {};
    const deleted: string[] = [];
    for (const [k, text] of this.pending) {
      if (text === null) deleted.push(k);
      else changed[k] = text;
    }
    this.pending.clear();
    return { changed, deleted };
  }
}

export function validateIntents(id: string, hook: string, out: unknown): Intent[] {
  if (out === undefined || out === null) return [];
  if (!Array.isArray(out))
    throw new StrategyError(id, `${hook} returned ${typeof out}, not an array of intents`);
  for (const it of out as unknown[]) {
    const i = it as Partial<Intent> | null;
    if (
      i === null ||
      typeof i !== 'object' ||
      !INTENT_KINDS.includes(i.kind as Intent['kind']) ||
      typeof i.target !== 'string' ||
      i.target === '' ||
      typeof i.priority !== 'number' ||
      !Number.isFinite(i.priority)
    ) {
      throw new StrategyError(
        id,
        `${hook} returned a malformed intent (kind, target and priority are required)`,
        {
          details: { kind: String(i?.kind) },
        },
      );
    }
  }
  return out as Intent[];
}

export class StrategyRunner {
  readonly id: string;
  private readonly opts: RunnerOptions;
  private tail: Promise<unknown> = Promise.resolve();
  private stateName: RunnerState = 'idle';
  private hooksRun = 0;
  private errorCount = 0;
  private intents = 0;
  private window: number[] = [];
  private lastError: RunnerStatus['lastError'] = null;
  private disabledAt: number | null = null;
  /** Hooks queued or running. */
  private queued = 0;

  constructor(options: RunnerOptions) {
    this.id = options.id;
    this.opts = options;
  }

  get state(): RunnerState {
    return this.stateName;
  }
  get active(): boolean {
    return this.stateName === 'idle' || this.stateName === 'running';
  }

  /**
   * Runs `hook` once the strategy's previous hook has ended. With `now`, at once when none is
   * queued or running, and then synchronously unless the hook returns a promise — its intents come
   * back as an array, nothing to await (for callers at the top of a turn, never inside another
   * component's callback). Otherwise queued, and a promise. Either way: its intents, or []
   * when it failed, timed out or the strategy is disabled (failures go to onError/onDisabled).
   * `makeCtx` is called when the hook starts, so it sees the newest market snapshot.
   */
  run(
    name: HookName,
    hook: AnyHook | undefined,
    makeCtx: () => { ctx: StrategyContext<unknown>; state: MemoryStrategyState },
    args: readonly unknown[] = [],
    options: { force?: boolean; now?: boolean } = {},
  ): Intent[] | Promise<Intent[]> {
    if (hook === undefined) return [];
    const force = options.force === true;
    if (this.queued++ === 0 && options.now === true) {
      const now = this.exec(name, hook, makeCtx, args, force);
      if (!Array.isArray(now)) this.tail = now;
      return now;
    }
    const next = this.tail.then(() => this.exec(name, hook, makeCtx, args, force));
    this.tail = next;
    return next;
  }

  /**
   * Runs one hook (counted in `queued` until it has ended, whatever its outcome): its intents, at
   * once when the hook returned them, or a promise of them when it returned a promise.
   */
  private exec(
    name: HookName,
    hook: AnyHook,
    makeCtx: () => { ctx: StrategyContext<unknown>; state: MemoryStrategyState },
    args: readonly unknown[],
    force: boolean,
  ): Intent[] | Promise<Intent[]> {
    if (!force && !this.active) {
      this.queued--;
      return [];
    }
    if (this.stateName === 'idle') this.stateName = 'running';
    this.hooksRun++;
    let later = false;
    try {
      const made = makeCtx();
      const out = hook(made.ctx, ...args);
      if (out !== null && typeof out === 'object' && typeof (out as Promise<unknown>).then === 'function') {
        later = true;
        return this.awaitHook(name, out as Promise<unknown>, made.state);
      }
      return this.accept(name, out, made.state);
    } catch (e) {
      this.failed(name, e);
      return [];
    } finally {
      if (!later) this.ended();
    }
  }

  /** The rest of a hook that returned a promise. */
  private async awaitHook(
    name: HookName,
    p: Promise<unknown>,
    state: MemoryStrategyState,
  ): Promise<Intent[]> {
    try {
      return this.accept(name, await this.withTimeout(name, p, state), state);
    } catch (e) {
      this.failed(name, e);
      return [];
    } finally {
      this.ended();
    }
  }

  /** A hook's result: its intents (a malformed one throws), its state serialized. */
  private accept(name: HookName, out: unknown, state: MemoryStrategyState): Intent[] {
    const intents = validateIntents(this.id, name, out);
    state.serialize();
    this.intents += intents.length;
    return intents;
  }

  private failed(name: HookName, e: unknown): void {
    this.fail(
      e instanceof StrategyError && e.strategyId === this.id
        ? e
        : new StrategyError(this.id, `${name} threw: ${(e as Error)?.message ?? String(e)}`, { cause: e }),
    );
  }

  private ended(): void {
    if (this.stateName === 'running') this.stateName = 'idle';
    this.queued--;
  }

  private withTimeout(name: HookName, p: Promise<unknown>, state: MemoryStrategyState): Promise<unknown> {
    const ms = this.opts.hookTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        state.revoked = true;
        reject(
          new StrategyError(this.id, `${name} timed out after ${ms} ms`, {
            details: { hook: name, timeoutMs: ms },
          }),
        );
      }, ms);
      p.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  private fail(err: StrategyError): void {
    const now = this.opts.now();
    this.errorCount++;
    this.lastError = { code: err.code, message: err.shortMessage, at: now };
    this.window = this.window.filter((t) => t > now - this.opts.errorWindowMs);
    this.window.push(now);
    this.opts.onError?.(err);
    if (this.active && this.window.length >= this.opts.maxErrors) {
      this.stateName = 'disabled';
      this.disabledAt = now;
      this.opts.onDisabled?.(
        new StrategyError(
          this.id,
          `disabled after ${this.window.length} errors within ${this.opts.errorWindowMs} ms (last: ${err.shortMessage})`,
          { cause: err },
        ),
      );
    }
  }

  /** Marks the strategy stopped (after onStop). */
  stop(): void {
    if (this.stateName !== 'disabled') this.stateName = 'stopped';
  }

  /** Operator pause of this strategy alone: no hooks run until resume() (a running hook finishes). */
  pause(): void {
    if (this.stateName === 'idle' || this.stateName === 'running') this.stateName = 'paused';
  }

  /** Ends an operator pause (a disabled strategy stays disabled: enable() clears that). */
  resume(): void {
    if (this.stateName === 'paused') this.stateName = 'idle';
  }

  /** Re-enables a disabled strategy (operator action); the error window starts empty. */
  enable(): void {
    this.window = [];
    this.disabledAt = null;
    this.stateName = 'idle';
  }

  /** Resolves when every queued hook has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  /** No hook is queued or running. */
  get settled(): boolean {
    return this.queued === 0;
  }

  status(): RunnerStatus {
    const now = this.opts.now();
    return {
      id: this.id,
      state: this.stateName,
      hooksRun: this.hooksRun,
      errors: this.errorCount,
      errorsInWindow: this.window.filter((t) => t > now - this.opts.errorWindowMs).length,
      intents: this.intents,
      lastError: this.lastError,
      disabledAt: this.disabledAt,
    };
  }
}

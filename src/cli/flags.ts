// Every flag of `harpoon` with the values it allows, and the one function that checks a value.
// main() checks each flag of the command line against its spec before the command runs, so a bad
// value is a usage error (exit 2) that names the flag, the value and what is allowed.

import { CONTROL_ENDPOINTS } from '../daemon/paths.ts';
import { CHAIN_IDS } from '../domain/chains.ts';
import { UsageError } from './exit.ts';
import type { FlagSpec } from './spec.ts';

/** What a string flag accepts. */
export type FlagCheck =
  /** A whole number in [min, max]; `unit` names it in messages (`seconds`). */
  | { readonly kind: 'integer'; readonly min: number; readonly max: number; readonly unit?: string }
  /** A decimal number in [min, max]. */
  | { readonly kind: 'number'; readonly min: number; readonly max: number; readonly unit?: string }
  /** One of the listed whole numbers (`labels` explain them in messages). */
  | {
      readonly kind: 'choice';
      readonly values: readonly number[];
      readonly labels?: Readonly<Record<number, string>>;
    }
  /**
   * An absolute http:// or https:// URL without user, password, query or fragment. A path ending
   * in one of `endpoints` (`status`, `api/snapshot`) loses it: the value is the base URL under them.
   */
  | { readonly kind: 'url'; readonly endpoints?: readonly string[] }
  /** A file path; the command reads it (and says so when it is missing). */
  | { readonly kind: 'path' }
  /** Printable text of 1 to `maxLength` characters. */
  | { readonly kind: 'text'; readonly maxLength: number }
  /** A comma-separated list of 1 to `maxItems` names, each matching `pattern` (`what` names one). */
  | { readonly kind: 'names'; readonly pattern: RegExp; readonly what: string; readonly maxItems: number };

/** A value checked against its flag's spec: numbers are numbers, the rest stays text. */
export type FlagValue = string | number | boolean | undefined;

/**
 * Node timers fire at once for delays above 2^31-1 ms (~24.8 days); no interval of ours may come
 * near it, and a longer wait (record --seconds) goes through longTimeout.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `fn` once `ms` have passed on the wall clock, however long: in steps of at most
 * MAX_TIMER_MS. The timers do not keep the process alive. Returns a cancel.
 */
export function longTimeout(fn: () => void, ms: number, now: () => number = Date.now): () => void {
  const until = now() + ms;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wait = () => {
    const left = until - now();
    if (left <= 0) fn();
    else {
      timer = setTimeout(wait, Math.min(left, MAX_TIMER_MS));
      timer.unref?.();
    }
  };
  wait();
  return () => clearTimeout(timer);
}

const EVM_CHAIN_IDS = Object.entries(CHAIN_IDS)
  .map(([name, id]) => ({ name, id }))
  .sort((a, b) => a.id - b.id);

const flag = (spec: FlagSpec): FlagSpec => Object.freeze(spec);

export const CONFIG_FLAG: FlagSpec = flag({
  name: 'config',
  short: 'c',
  type: 'string',
  valueName: 'FILE',
  defaultText: '$HARPOON_CONFIG, else built-in defaults + environment',
  help: 'config file (.yaml, .yml or .json)',
  check: { kind: 'path' },
  example: 'harpoon.yaml',
});

export const JSON_FLAG: FlagSpec = flag({
  name: 'json',
  type: 'boolean',
  defaultText: 'off',
  help: 'print JSON instead of the text (config check: YAML; status: a summary)',
});

export const PAPER_FLAG: FlagSpec = flag({
  name: 'paper',
  type: 'boolean',
  defaultText: 'off',
  help: 'simulate execution (run: no transaction is sent; demo: the same on the sandbox)',
});

export const URL_FLAG: FlagSpec = flag({
  name: 'url',
  type: 'string',
  valueName: 'URL',
  defaultText: 'http://<control.host>:<control.port>',
  help: "the daemon's control endpoint: its base URL (http:// or https://; a copied …/status is read as its base)",
  check: { kind: 'url', endpoints: CONTROL_ENDPOINTS },
  example: 'http://127.0.0.1:8787',
});

export const SECONDS_FLAG: FlagSpec = flag({
  name: 'seconds',
  type: 'string',
  valueName: 'N',
  defaultText: 'until Ctrl-C',
  help: 'stop after N seconds (1-3600) and print the final summary',
  check: { kind: 'integer', min: 1, max: 3600, unit: 'seconds' },
  example: '90',
});

/** `record --seconds`: a recording runs for days (the demo's --seconds stops at an hour). */
export const RECORD_SECONDS_FLAG: FlagSpec = flag({
  name: 'seconds',
  type: 'string',
  valueName: 'N',
  defaultText: 'until Ctrl-C',
  help: 'stop after N seconds (1-31536000, a year; 86400 is a day) and say what the tape holds',
  check: { kind: 'integer', min: 1, max: 31_536_000, unit: 'seconds' },
  example: '86400',
});

export const EVERY_FLAG: FlagSpec = flag({
  name: 'every',
  type: 'string',
  valueName: 'S',
  defaultText: '30',
  help: 'seconds between status lines on stderr (5-86400)',
  check: { kind: 'integer', min: 5, max: 86_400, unit: 'seconds' },
  example: '30',
});

export const PORT_FLAG: FlagSpec = flag({
  name: 'port',
  type: 'string',
  valueName: 'N',
  defaultText: '0 (a free port)',
  help: 'HTTP and stream port (0-65535; 0 = a free port)',
  check: { kind: 'integer', min: 0, max: 65_535 },
  example: '8080',
});

export const SEED_FLAG: FlagSpec = flag({
  name: 'seed',
  type: 'string',
  valueName: 'N',
  defaultText: '1',
  help: 'seed of traits and fault randomness (0 to 4294967295)',
  check: { kind: 'integer', min: 0, max: 2 ** 32 - 1 },
  example: '42',
});

export const ACTIVITY_FLAG: FlagSpec = flag({
  name: 'activity',
  type: 'string',
  valueName: 'N',
  defaultText: '3',
  help: 'simulated market actions per second by seeded traders on wallets 3+ (0-10000; 0 = a quiet market)',
  check: { kind: 'number', min: 0, max: 10_000, unit: 'actions per second' },
  example: '2.5',
});

/** `--seed` of `sandbox tape`: the simulated market's dice (no faults, no traits of a chain). */
export const TAPE_SEED_FLAG: FlagSpec = flag({
  name: 'seed',
  type: 'string',
  valueName: 'N',
  defaultText: '1',
  help: "seed of the simulated market's dice: the same seed, hours and activity write the same tape (0 to 4294967295)",
  check: { kind: 'integer', min: 0, max: 2 ** 32 - 1 },
  example: '42',
});

/** `--activity` of `sandbox tape`: a tape of a quiet market would hold nothing to replay. */
export const TAPE_ACTIVITY_FLAG: FlagSpec = flag({
  name: 'activity',
  type: 'string',
  valueName: 'N',
  defaultText: '3',
  help: 'market actions per second (0.01-10000)',
  check: { kind: 'number', min: 0.01, max: 10_000, unit: 'actions per second' },
  example: '2.5',
});

export const CHAIN_ID_FLAG: FlagSpec = flag({
  name: 'chain-id',
  type: 'string',
  valueName: 'N',
  defaultText: '1',
  help: 'chain id of the local chain: an EVM chain of the API (1 ethereum, 8453 base, 137 polygon, ...)',
  check: {
    kind: 'choice',
    values: EVM_CHAIN_IDS.map((c) => c.id),
    labels: Object.fromEntries(EVM_CHAIN_IDS.map((c) => [c.id, c.name])),
  },
  example: '8453',
});

export const REASON_FLAG: FlagSpec = flag({
  name: 'reason',
  type: 'string',
  valueName: 'TEXT',
  defaultText: '"kill switch (control endpoint)"',
  help: 'why (kill): shows in the log and the status (1-200 characters, one line)',
  check: { kind: 'text', maxLength: 200 },
  example: '"floor crashed"',
});

export const LABEL_FLAG: FlagSpec = flag({
  name: 'label',
  type: 'string',
  valueName: 'TEXT',
  defaultText: '"harpoon"',
  help: 'label of the personal access token, shown by "harpoon auth tokens" (1-200 characters, one line)',
  check: { kind: 'text', maxLength: 200 },
  example: '"harpoon on vps-1"',
});

export const DAYS_FLAG: FlagSpec = flag({
  name: 'days',
  type: 'string',
  valueName: 'N',
  defaultText: '90',
  help: 'lifetime of the personal access token in days (1-365)',
  check: { kind: 'integer', min: 1, max: 365, unit: 'days' },
  example: '30',
});

export const SCOPES_FLAG: FlagSpec = flag({
  name: 'scopes',
  type: 'string',
  valueName: 'A,B',
  defaultText: 'the smallest set the configured strategies need',
  help: 'scopes of the personal access token instead (names as GET /api/v2/auth/scopes lists them)',
  check: { kind: 'names', pattern: /^[a-z][a-z_]*:[a-z][a-z_]*$/, what: 'scope names', maxItems: 32 },
  example: 'write:orders,read:eligibility',
});

export const PRINT_FLAG: FlagSpec = flag({
  name: 'print',
  type: 'boolean',
  defaultText: 'off',
  help: 'print the new personal access token once on stdout (for HARPOON_PAT) instead of storing it',
});

function allowedText(check: FlagCheck): string {
  switch (check.kind) {
    case 'integer':
      return `a whole number${check.unit ? ` of ${check.unit}` : ''} from ${check.min} to ${check.max}`;
    case 'number':
      return `a number${check.unit ? ` of ${check.unit}` : ''} from ${check.min} to ${check.max}`;
    case 'choice':
      return `one of ${check.values.map((v) => (check.labels?.[v] ? `${v} (${check.labels[v]})` : String(v))).join(', ')}`;
    case 'url':
      return 'an http:// or https:// URL without user, password, query or fragment';
    case 'path':
      return 'a file path';
    case 'text':
      return `one line of 1 to ${check.maxLength} characters`;
    case 'names':
      return `a comma-separated list of 1 to ${check.maxItems} ${check.what}`;
  }
}

const INTEGER_RE = /^[-+]?\d+$/;
/** The port of `scheme://[user@]host:PORT[/?#…]` (a bracketed IPv6 host included), as written. */
const URL_PORT_RE = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(?:\[[^\]/?#]*\]|[^/?#:@[\]]*):(\d+)(?=[/?#]|$)/i;
const NUMBER_RE = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Shows a bad value without flooding the terminal or hiding control characters. */
function shown(raw: string): string {
  const cut = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
  return JSON.stringify(cut);
}

/** Why `raw` is not allowed, or undefined when it is; `value` is the parsed value. */
function verdict(check: FlagCheck, raw: string): { problem?: string; value?: string | number } {
  switch (check.kind) {
    case 'integer': {
      const n = Number(raw);
      if (!INTEGER_RE.test(raw) || !Number.isSafeInteger(n) || n < check.min || n > check.max)
        return { problem: `is not ${allowedText(check)}` };
      return { value: n };
    }
    case 'number': {
      const n = Number(raw);
      if (!NUMBER_RE.test(raw) || !Number.isFinite(n) || n < check.min || n > check.max)
        return { problem: `is not ${allowedText(check)}` };
      return { value: n };
    }
    case 'choice': {
      const n = Number(raw);
      if (!INTEGER_RE.test(raw) || !check.values.includes(n))
        return { problem: `is not ${allowedText(check)}` };
      return { value: n };
    }
    case 'url': {
      // `new URL` refuses a port above 65535 as "not a URL" and takes port 0: both say why here
      const port = URL_PORT_RE.exec(raw)?.[1];
      if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535))
        return {
          problem: `has the port ${port.replace(/^0+(?=\d)/, '')}, out of range (a port is 1 to 65535)`,
        };
      let u: URL;
      try {
        u = new URL(raw);
      } catch {
        return { problem: `is not a URL; allowed: ${allowedText(check)}` };
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:')
        return { problem: `has the scheme ${u.protocol.replace(/:$/, '')}; allowed: ${allowedText(check)}` };
      if (u.username !== '' || u.password !== '')
        return { problem: `carries a user or password; allowed: ${allowedText(check)}` };
      if (u.search !== '' || u.hash !== '')
        return { problem: `has a query or fragment; allowed: ${allowedText(check)}` };
      const path = u.pathname.replace(/\/+$/, '');
      const endpoint = check.endpoints?.find((e) => path.endsWith(`/${e}`));
      const base = endpoint !== undefined ? path.slice(0, -endpoint.length - 1) : path;
      return { value: `${u.origin}${base.replace(/\/+$/, '')}` };
    }
    case 'path':
      if (raw.trim() === '') return { problem: 'is not a file path (it is empty)' };
      return { value: raw };
    case 'text':
      if (raw.trim() === '' || raw.length > check.maxLength || /[\p{Cc}]/u.test(raw))
        return { problem: `is not ${allowedText(check)}` };
      return { value: raw };
    case 'names': {
      const items = raw.split(',').map((s) => s.trim());
      const bad = items.find((s) => !check.pattern.test(s));
      if (bad !== undefined || items.length > check.maxItems)
        return {
          problem: `is not ${allowedText(check)}${bad !== undefined ? ` (${bad === '' ? 'an empty name' : JSON.stringify(bad)} is not one)` : ''}`,
        };
      return { value: [...new Set(items)].join(',') };
    }
  }
}

/**
 * Checks one flag's value against its spec: the parsed value (a number for numeric flags), or a
 * UsageError naming the flag, the bad value and what is allowed. `command` goes into the example.
 */
export function checkFlagValue(spec: FlagSpec, raw: string, command?: string): string | number {
  const check = spec.check;
  if (check === undefined) return raw;
  const v = verdict(check, raw);
  if (v.problem === undefined) return v.value as string | number;
  // a bad secret-looking URL must not be echoed whole: only its scheme and host
  const value = check.kind === 'url' ? shown(redactUrlText(raw)) : shown(raw);
  const example = spec.example ?? '';
  throw new UsageError(
    `--${spec.name}: ${value} ${v.problem}`,
    `e.g. harpoon${command ? ` ${command}` : ''} --${spec.name} ${example}`.trimEnd() +
      `; see "harpoon help${command ? ` ${command}` : ''}"`,
  );
}

/** A URL-ish text with any `user:password@` removed. */
function redactUrlText(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1[REDACTED]@');
}

/**
 * A flag's value from already-parsed flags: `fallback` when absent, the value itself when main()
 * has checked it already (a number), else checked here (commands called directly, e.g. in tests).
 */
export function numberFlag(
  flags: Readonly<Record<string, FlagValue>>,
  spec: FlagSpec,
  fallback: number,
  command?: string,
): number {
  const raw = flags[spec.name];
  if (raw === undefined) return fallback;
  if (typeof raw === 'number') return raw;
  const v = checkFlagValue(spec, String(raw), command);
  if (typeof v !== 'number') throw new TypeError(`--${spec.name} is not a numeric flag`);
  return v;
}

/** A text flag's value (path, URL, text), checked; undefined when absent. */
export function textFlag(
  flags: Readonly<Record<string, FlagValue>>,
  spec: FlagSpec,
  command?: string,
): string | undefined {
  const raw = flags[spec.name];
  if (raw === undefined || typeof raw === 'boolean') return undefined;
  return String(checkFlagValue(spec, String(raw), command));
}

/**
 * Checks every string flag given on the command line against its spec (see checkFlagValue). A
 * flag given several times (`multiple`) has each value checked; the command gets them joined by
 * newlines (`multipleFlag` splits them again).
 */
export function checkFlags(
  specs: readonly FlagSpec[],
  values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>,
  command: string,
): Record<string, FlagValue> {
  const out: Record<string, FlagValue> = {};
  for (const [k, v] of Object.entries(values)) out[k] = Array.isArray(v) ? v.join('\n') : (v as FlagValue);
  for (const spec of specs) {
    const raw = values[spec.name];
    if (spec.type !== 'string' || raw === undefined || typeof raw === 'boolean') continue;
    if (Array.isArray(raw))
      out[spec.name] = raw.map((r) => String(checkFlagValue(spec, r, command))).join('\n');
    else out[spec.name] = checkFlagValue(spec, raw as string, command);
  }
  return out;
}

/** Every value of a flag that may be repeated (none: an empty list). */
export function multipleFlag(flags: Readonly<Record<string, FlagValue>>, spec: FlagSpec): string[] {
  const raw = flags[spec.name];
  if (raw === undefined || typeof raw === 'boolean') return [];
  return String(raw).split('\n');
}

export const TAPE_FLAG: FlagSpec = flag({
  name: 'tape',
  type: 'string',
  valueName: 'FILE',
  defaultText: 'required',
  help: 'the tape to replay (written by harpoon record, market.record or harpoon sandbox tape)',
  check: { kind: 'path' },
  example: 'market.tape',
});

/** `--tape` of `tape info`: any tape, read and not replayed. */
export const TAPE_INFO_FLAG: FlagSpec = flag({
  ...TAPE_FLAG,
  help: 'the tape to read (written by harpoon record, market.record or harpoon sandbox tape)',
});

/** `--out` of the commands that write a tape (record, sandbox tape). */
export const TAPE_OUT_FLAG: FlagSpec = flag({
  name: 'out',
  type: 'string',
  valueName: 'FILE',
  defaultText: 'required',
  help: 'the tape to write, in a folder that exists',
  check: { kind: 'path' },
  example: 'market.tape',
});

/** `--out` of backtest: where the report goes. */
export const REPORT_OUT_FLAG: FlagSpec = flag({
  name: 'out',
  type: 'string',
  valueName: 'PATH',
  defaultText: 'none: print the summary only',
  help: 'write the report to PATH.json and PATH.html (a sweep: PATH.sweep.json)',
  check: { kind: 'path' },
  example: 'report',
});

export const FROM_FLAG: FlagSpec = flag({
  name: 'from',
  type: 'string',
  valueName: 'TIME',
  defaultText: "the tape's start",
  help: 'start trading at TIME (ISO 8601, e.g. 2026-01-01T06:00Z, or epoch ms); the market before it only warms the view up',
  check: { kind: 'text', maxLength: 40 },
  example: '2026-01-01T06:00Z',
});

export const CUT_FROM_FLAG: FlagSpec = flag({
  name: 'from',
  type: 'string',
  valueName: 'TIME',
  defaultText: "the tape's start",
  help: "cut: the copy's market begins at TIME (ISO 8601 or epoch ms); of the tape before it only the newest of each value is kept, no event",
  check: { kind: 'text', maxLength: 40 },
  example: '2026-01-05T00:00Z',
});

export const CUT_TO_FLAG: FlagSpec = flag({
  name: 'to',
  type: 'string',
  valueName: 'TIME',
  defaultText: "the tape's end",
  help: 'cut: nothing recorded after TIME (ISO 8601 or epoch ms) is copied',
  check: { kind: 'text', maxLength: 40 },
  example: '2026-01-06T00:00Z',
});

export const TO_FLAG: FlagSpec = flag({
  name: 'to',
  type: 'string',
  valueName: 'TIME',
  defaultText: "the tape's end",
  help: 'stop at TIME (ISO 8601 or epoch ms)',
  check: { kind: 'text', maxLength: 40 },
  example: '2026-01-01T18:00Z',
});

export const SWEEP_FLAG: FlagSpec = flag({
  name: 'sweep',
  type: 'string',
  valueName: 'SPEC',
  defaultText: 'none',
  help: 'sweep a parameter, repeatable: strategy.param=FROM..TO:STEP (step 1 when left out) or strategy.param=A,B,C ("0.01" in quotes stays text; a number is given as text where the config has text, e.g. maxPrice); every combination runs in worker threads and is ranked',
  check: { kind: 'text', maxLength: 200 },
  example: "'sniper.discountBps=1000..3000:500'",
  multiple: true,
});

export const WARMUP_FLAG: FlagSpec = flag({
  name: 'warmup',
  type: 'string',
  valueName: 'DURATION',
  defaultText: 'all: the whole tape before --from',
  help: 'warm the market view up only on the last DURATION before --from (e.g. 1h, 30m, 2d; at most 365d), as a daemon started then would: its first reads answered by the tape as of then, the events before it read but not applied — much faster on a long tape; "all" replays every event before --from',
  check: { kind: 'text', maxLength: 20 },
  example: '1h',
});

export const COMPARE_FLAG: FlagSpec = flag({
  name: 'compare',
  type: 'string',
  valueName: 'FILE',
  defaultText: 'none',
  help: 'compare the backtest with the run that recorded the tape: FILE is the report "harpoon run --paper" saved as it stopped (harpoon-paper-report.json), or a live daemon\'s (run-report.json next to its store); --from/--to default to when its strategies began and when it stopped; every fill found in one and not the other, or at another price, is listed with its cause when it has a known one',
  check: { kind: 'text', maxLength: 4096 },
  example: 'harpoon-paper-report.json',
});

export const WORKERS_FLAG: FlagSpec = flag({
  name: 'workers',
  type: 'string',
  valueName: 'N',
  defaultText: 'one per core',
  help: 'worker threads of a sweep (1-256; at most one per core: each holds a whole replay, ~60-80 MB, and more than the cores run no faster)',
  check: { kind: 'integer', min: 1, max: 256 },
  example: '2',
});

export const WORKER_MEMORY_FLAG: FlagSpec = flag({
  name: 'worker-memory',
  type: 'string',
  valueName: 'MB',
  defaultText: "a share of the machine's memory: 60 % over the workers and the main thread, 256-4096 MB each",
  help: 'heap limit of each sweep worker thread (64-65536 MB): a combination that needs more fails ("ran out of memory"), said, and the others run on',
  check: { kind: 'integer', min: 64, max: 65_536, unit: 'MB' },
  example: '1024',
});

export const COMBINATION_TIMEOUT_FLAG: FlagSpec = flag({
  name: 'combination-timeout',
  type: 'string',
  valueName: 'S',
  defaultText: 'none',
  help: 'a sweep combination still running after S seconds of wall time (1-604800) is stopped and fails, said; the others run on (a strategy caught in a loop holds its worker for good otherwise); counted from when its worker begins it',
  check: { kind: 'integer', min: 1, max: 604_800, unit: 'seconds' },
  example: '3600',
});

export const LATENCY_FLAG: FlagSpec = flag({
  name: 'latency',
  type: 'string',
  valueName: 'MS',
  defaultText: '0',
  help: 'our buy lands MS milliseconds after the decision; the listing must still stand then (0-600000)',
  check: { kind: 'integer', min: 0, max: 600_000, unit: 'milliseconds' },
  example: '500',
});

export const SAMPLE_FLAG: FlagSpec = flag({
  name: 'sample',
  type: 'string',
  valueName: 'S',
  defaultText:
    '60; over 49,999 minutes (~35 days), the whole minutes that keep it to 50,000 samples (a year: 660)',
  help: "the report's series (equity, exposure, floors) and its drawdown take a sample every S seconds of the tape (1-86400); a report holds at most 200,000 samples",
  check: { kind: 'integer', min: 1, max: 86_400, unit: 'seconds' },
  example: '300',
});

export const HOURS_FLAG: FlagSpec = flag({
  name: 'hours',
  type: 'string',
  valueName: 'H',
  defaultText: '24',
  help: 'hours of market to write (0.01-8760)',
  check: { kind: 'number', min: 0.01, max: 8_760, unit: 'hours' },
  example: '24',
});

import type { z } from 'zod';
import { describe } from '../domain/ids.ts';
import { ConfigError } from '../errors/index.ts';
import { knownKeysAt } from './schema.ts';
import { closest } from './suggest.ts';

export type PathSeg = string | number;

/** One thing wrong with the configuration: where, what, and how to fix it. */
export interface ConfigIssue {
  readonly path: readonly PathSeg[];
  /** What is wrong (without the key path). */
  readonly message: string;
  /** What to do about it. */
  readonly fix: string;
  /** The offending value, already rendered short and safe; absent for secrets. */
  readonly shown?: string;
  /** Where the value came from: the file path or `environment variable NAME`. */
  readonly source?: string;
}

/** `rateLimits.read`, `strategies[0].id`; `(top level)` for the root. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(top level)';
}

export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const seg of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[seg];
  }
  return node;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `a ${typeof v}`;
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (key: value)',
  record: 'a mapping (key: value)',
};

/** Turns zod issues into ConfigIssues with a fix each. `sensitive` paths never echo their value. */
export function fromZodIssues(
  issues: readonly z.core.$ZodIssue[],
  raw: unknown,
  sensitive: (path: readonly PropertyKey[]) => boolean,
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.filter((p): p is PathSeg => typeof p === 'string' || typeof p === 'number');
    const value = valueAt(raw, path);
    const params = (issue as { params?: { fix?: string; hideValue?: boolean } }).params ?? {};
    const hide = params.hideValue === true || sensitive(path);
    const shown = hide || value === undefined ? undefined : describe(value);
    const base = { path, ...(shown !== undefined ? { shown } : {}) };
    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = knownKeysAt(path) ?? [];
        for (const key of issue.keys) {
          const guess = closest(key, known);
          out.push({
            path: [...path, key],
            message: 'is not a known key',
            fix: `${guess ? `did you mean "${guess}"? ` : ''}known keys here: ${known.join(', ')}`,
          });
        }
        break;
      }
      case 'invalid_type': {
        const expected = EXPECTED[issue.expected] ?? issue.expected;
        if (value === undefined) {
          out.push({ path, message: 'is missing', fix: `set it to ${expected}` });
        } else {
          const quote =
            issue.expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')
              ? ` (quote it: "${String(value)}")`
              : '';
          out.push({
            ...base,
            message: `must be ${expected}, not ${typeName(value)}`,
            fix: `write ${expected}${quote}`,
          });
        }
        break;
      }
      case 'invalid_value': {
        const options = issue.values.map(String);
        const guess = typeof value === 'string' ? closest(value, options) : undefined;
        out.push({
          ...base,
          message: 'is not an allowed value',
          fix: `${guess ? `did you mean "${guess}"? ` : ''}use one of: ${options.join(', ')}`,
        });
        break;
      }
      case 'too_small':
      case 'too_big': {
        const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
        const what = issue.origin === 'string' || issue.origin === 'array' ? 'length' : 'value';
        const cmp = issue.code === 'too_small' ? 'at least' : 'at most';
        out.push({ ...base, message: `is out of range`, fix: `use a ${what} ${cmp} ${String(bound)}` });
        break;
      }
      default:
        out.push({
          ...base,
          message: issue.message,
          fix: params.fix ?? 'see `harpoon config example` for the expected form',
        });
    }
  }
  return out;
}

/** One ConfigError for all issues: names the file, each key path, the value (never a secret) and the fix. */
export function configErrorOf(issues: readonly ConfigIssue[], file: string | undefined): ConfigError {
  const where = file ?? 'configuration (defaults + environment)';
  const line = (i: ConfigIssue): string => {
    const from = i.source !== undefined && i.source !== file ? ` (from ${i.source})` : '';
    const val = i.shown !== undefined ? ` ${i.shown}` : '';
    return `${formatPath(i.path)}${from}:${val} ${i.message}. Fix: ${i.fix}`;
  };
  const shortMessage =
    issues.length === 1
      ? `${where}: ${line(issues[0] as ConfigIssue)}`
      : `${where}: ${issues.length} problems:\n${issues.map((i) => `  - ${line(i)}`).join('\n')}`;
  return new ConfigError(shortMessage, {
    details: {
      file: file ?? null,
      issues: issues.map((i) => ({
        path: formatPath(i.path),
        source: i.source ?? file ?? null,
        problem: i.message,
      })),
    },
  });
}

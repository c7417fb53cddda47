// The log of a command that runs daemon parts (run, record, auth): pino to the command's stderr,
// as JSON lines or as human lines beside the command's own `harpoon: …` lines. `log.pretty`
// (HARPOON_LOG_PRETTY) chooses; unset, each command has its default (run: JSON for a log
// collector; record and auth, whose stderr a person reads: human lines).
import { Writable } from 'node:stream';
import type { LogLevel } from '../config/types.ts';
import { createLogger, type Logger } from '../observability/logger.ts';
import type { CliIo } from './io.ts';

/** How each pino level starts a human line (info is the plain case). */
const LEVEL_TEXT: Readonly<Record<number, string>> = {
  10: 'trace: ',
  20: 'debug: ',
  30: '',
  40: 'warning: ',
  50: 'error: ',
  60: 'fatal: ',
};

/** Fields every pino line has, or that the human line shows in its own place. */
const SHOWN_APART = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'part', 'err', 'error']);

const MAX_FIELD = 160;

function fieldText(v: unknown): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > MAX_FIELD ? `${text.slice(0, MAX_FIELD)}…` : text;
}

function errText(err: unknown, verbose: boolean): string {
  if (err === null || typeof err !== 'object') return fieldText(err);
  const e = err as { shortMessage?: unknown; message?: unknown; code?: unknown; stack?: unknown };
  const message = typeof e.shortMessage === 'string' ? e.shortMessage : String(e.message ?? '');
  const code = typeof e.code === 'string' ? ` [${e.code}]` : '';
  const stack = verbose && typeof e.stack === 'string' ? `\n${e.stack}` : '';
  return `${message}${code}${stack}`;
}

/**
 * One pino JSON line (without its newline) as a person reads it: `harpoon: warning: [stream]
 * reconnecting (attempt=3)`, the error's message (and its stack when `verbose`) after the message.
 * A line that is not pino's JSON is passed as it is.
 */
export function humanLogLine(line: string, verbose = false): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (o === null || typeof o !== 'object' || typeof o.level !== 'number') return line;
  const level = LEVEL_TEXT[o.level] ?? `level ${o.level}: `;
  const part = typeof o.part === 'string' ? `[${o.part}] ` : '';
  const err = o.err ?? o.error;
  const fields = Object.entries(o)
    .filter(([k, v]) => !SHOWN_APART.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${fieldText(v)}`);
  const msg = typeof o.msg === 'string' ? o.msg : '';
  const why = err !== undefined ? `${msg === '' ? '' : ': '}${errText(err, verbose)}` : '';
  return `harpoon: ${level}${part}${msg}${why}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`;
}

export interface CommandLogOptions {
  readonly level: LogLevel;
  /** log.pretty of the config: true human lines, false JSON lines, unset `prettyByDefault`. */
  readonly pretty?: boolean;
  /** The command's choice when the config says nothing. */
  readonly prettyByDefault: boolean;
  /** Stacks of logged errors in human lines (--verbose). */
  readonly verbose?: boolean;
  /** Raw secret values to scrub from every line (besides those of the environment, which io scrubs). */
  readonly scrub?: () => readonly string[];
}

/** The logger of a command: pino at `level` to the command's stderr, JSON or human lines. */
export function commandLogger(io: CliIo, o: CommandLogOptions): Logger {
  const pretty = o.pretty ?? o.prettyByDefault;
  const destination = new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _enc, done) {
      const text = chunk.toString();
      if (!pretty) io.stderr(text);
      else
        for (const line of text.split('\n'))
          if (line.trim() !== '') io.stderr(`${humanLogLine(line, o.verbose === true)}\n`);
      done();
    },
  });
  return createLogger({
    level: o.level,
    name: 'harpoon',
    destination,
    ...(o.scrub !== undefined ? { scrub: o.scrub } : {}),
  });
}

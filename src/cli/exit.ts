import { BaseError, ConfigError, describeError, FatalError } from '../errors/index.ts';

/** Exit codes of the `harpoon` command (documented in `--help` and the README). */
export const ExitCode = Object.freeze({
  ok: 0,
  /** An unexpected error (a bug or an unhandled failure). */
  error: 1,
  /** Bad usage (unknown command or flag) or an invalid configuration: fix the command line or config. */
  usage: 2,
  /**
   * A fatal error stopped trading (revoked key, wallet/chain mismatch, corrupt store), or the server
   * refused a credential (`harpoon auth`: sign-in refused, session gone, unknown token).
   */
  fatal: 3,
  /** The running daemon did not answer, or refused the request (status, kill, pause, resume, mcp). */
  daemon: 4,
  /** Interrupted (Ctrl-C): twice before a clean stop, or a backtest or sweep stopped before its end. */
  interrupted: 130,
});
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODE_HELP: readonly (readonly [number, string])[] = Object.freeze([
  [ExitCode.ok, 'success'],
  [ExitCode.error, 'unexpected error (run again with --verbose for the stack trace)'],
  [ExitCode.usage, 'bad usage (unknown command or flag) or invalid configuration'],
  [
    ExitCode.fatal,
    'fatal error: trading stopped (e.g. revoked key, wallet/chain mismatch, corrupt store), or the server refused a credential (harpoon auth)',
  ],
  [
    ExitCode.daemon,
    'the running daemon did not answer or refused (status, kill, pause, resume, mcp): is it running, at this address, with this token?',
  ],
  [
    ExitCode.interrupted,
    'interrupted (Ctrl-C): twice before a clean stop, or a backtest or sweep stopped before its end (its report covers what ran)',
  ],
]);

/** A mistake on the command line. `hint` says what to type instead. */
export class UsageError extends Error {
  readonly hint: string;
  constructor(message: string, hint: string) {
    super(message);
    this.name = 'UsageError';
    this.hint = hint;
  }
}

/** Error codes of a daemon that did not answer or refused a request: exit 4, not an unexpected error. */
export const DAEMON_CODES: ReadonlySet<string> = new Set(['daemon_unreachable', 'daemon_refused']);

/** Renders an error for a person and chooses the exit code. Stacks only when `verbose`. */
export function describeFailure(err: unknown, verbose: boolean): { code: ExitCode; text: string } {
  if (err instanceof UsageError) {
    return { code: ExitCode.usage, text: `harpoon: ${err.message}\n${err.hint}\n` };
  }
  const stack = (e: unknown): string => {
    if (!verbose || !(e instanceof Error) || !e.stack) return '';
    let out = `\n${e.stack}`;
    let cause = e.cause;
    for (let depth = 0; cause !== undefined && depth < 5; depth++) {
      out += `\ncaused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`;
      cause = cause instanceof Error ? cause.cause : undefined;
    }
    return out;
  };
  const code =
    err instanceof ConfigError
      ? ExitCode.usage
      : err instanceof FatalError
        ? ExitCode.fatal
        : err instanceof BaseError && DAEMON_CODES.has(err.code)
          ? ExitCode.daemon
          : ExitCode.error;
  // configuration and fatal errors say what to fix; the others may need the stack to tell
  const more = verbose || code !== ExitCode.error ? '' : '\n(run again with --verbose for the stack trace)';
  return { code, text: `harpoon: ${describeError(err)}${stack(err)}${more}\n` };
}

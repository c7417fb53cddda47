import { ExitCode } from './exit.ts';

/** What a command may touch of the outside world. Tests pass their own; `processIo()` is the real one. */
export interface CliIo {
  /** Writes text as is (add your own newline). */
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on the first SIGINT/SIGTERM: long-running commands stop cleanly when it fires. */
  readonly signal: AbortSignal;
}

/**
 * The process's own streams, environment and signals. The first SIGINT/SIGTERM aborts `signal`;
 * a second one exits at once (130/143). `dispose()` removes the handlers.
 */
export function processIo(): CliIo & { dispose(): void } {
  const controller = new AbortController();
  const handlers = new Map<NodeJS.Signals, () => void>();
  for (const [sig, code] of [
    ['SIGINT', ExitCode.interrupted],
    // 128 + 15, as a shell reports a process its SIGTERM ended
    ['SIGTERM', 143],
  ] as const) {
    const handler = () => {
      if (controller.signal.aborted) process.exit(code);
      controller.abort(new Error(`received ${sig}`));
    };
    handlers.set(sig, handler);
    process.on(sig, handler);
  }
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    dispose() {
      for (const [sig, handler] of handlers) process.off(sig, handler);
    },
  };
}

/** A word as a shell reads it back: as is when plain, else in single quotes (a space or a quote in a path). */
export const shellWord = (s: string): string =>
  /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;

import type { CliIo } from '../../../src/cli/io.ts';

/** The io of an in-process main() run: what it printed, a given environment and folder. */
export function fakeIo(
  env: Record<string, string> = {},
  cwd = '/nonexistent-cwd',
): CliIo & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    env,
    cwd,
    signal: new AbortController().signal,
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

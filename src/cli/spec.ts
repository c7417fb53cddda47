import type { FlagCheck, FlagValue } from './flags.ts';
import type { CliIo } from './io.ts';

/** One command-line flag, with the default shown in `--help`. */
export interface FlagSpec {
  /** Long name without `--`. */
  readonly name: string;
  readonly short?: string;
  readonly type: 'string' | 'boolean';
  /** Placeholder of the value in help (`FILE`). */
  readonly valueName?: string;
  /** The default, as shown in help. */
  readonly defaultText: string;
  readonly help: string;
  /** What a string flag accepts; main() refuses anything else with a usage error (exit 2). */
  readonly check?: FlagCheck;
  /** An allowed value, shown in the hint of that usage error. */
  readonly example?: string;
  /** May be given more than once: each value is checked, the command gets them joined by newlines. */
  readonly multiple?: boolean;
}

export interface CommandContext {
  readonly io: CliIo;
  /** Parsed and checked flags of this command (global ones included); numeric flags are numbers. */
  readonly flags: Readonly<Record<string, FlagValue>>;
  /** Positionals after the command name. */
  readonly args: readonly string[];
  readonly verbose: boolean;
}

export interface Command {
  /** Words typed after `harpoon` (`config check`). */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** A paragraph for `harpoon help <command>`. */
  readonly description: string;
  readonly flags: readonly FlagSpec[];
  /** Extra positional arguments, e.g. `[command]`; empty = none accepted. */
  readonly argsUsage?: string;
  readonly examples: readonly string[];
  run(ctx: CommandContext): Promise<number>;
}

export const GLOBAL_FLAGS: readonly FlagSpec[] = Object.freeze([
  {
    name: 'help',
    short: 'h',
    type: 'boolean',
    defaultText: 'off',
    help: 'show help (for a command: harpoon <command> --help)',
  },
  { name: 'version', short: 'V', type: 'boolean', defaultText: 'off', help: 'print the version and exit' },
  { name: 'verbose', type: 'boolean', defaultText: 'off', help: 'print stack traces of errors' },
]);

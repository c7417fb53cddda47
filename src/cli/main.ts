import { parseArgs } from 'node:util';
import { ENV_OVERRIDES, SECRET_ENV } from '../config/env.ts';
import { closest } from '../config/suggest.ts';
import { scrubSecrets } from '../observability/scrub.ts';
import { COMMANDS, commandWords } from './commands.ts';
import { describeFailure, ExitCode, UsageError } from './exit.ts';
import { checkFlags } from './flags.ts';
import { renderCommandHelp, renderMainHelp } from './help.ts';
import { type CliIo, processIo } from './io.ts';
import { packageVersion } from './package-info.ts';
import { type Command, type FlagSpec, GLOBAL_FLAGS } from './spec.ts';

const HELP_HINT = 'run "harpoon --help" for every command and flag';

/** Every flag any command knows (names are unique across commands; shorts too). */
function allFlags(): FlagSpec[] {
  const byName = new Map<string, FlagSpec>();
  for (const f of [...GLOBAL_FLAGS, ...COMMANDS.flatMap((c) => c.flags)]) byName.set(f.name, f);
  return [...byName.values()];
}

/** Raw secret values present in the environment: whatever the CLI prints is scrubbed of them. */
function envSecrets(env: CliIo['env']): string[] {
  const names = [
    ...SECRET_ENV.map((s) => s.name),
    ...ENV_OVERRIDES.filter((o) => o.sensitive).map((o) => o.name),
  ];
  return names.map((n) => env[n]?.trim() ?? '').filter((v) => v.length > 0);
}

function scrubbing(io: CliIo): CliIo {
  const secrets = envSecrets(io.env);
  return {
    ...io,
    stdout: (text) => io.stdout(scrubSecrets(text, secrets)),
    stderr: (text) => io.stderr(scrubSecrets(text, secrets)),
  };
}

const NEGATIVE_NUMBER_RE = /^-(?:\d|\.\d)/;

/**
 * `--seed -1` is read as `--seed=-1`: node's parseArgs takes a value starting with a dash for an
 * option and refuses it, but a negative number is never an option of ours. Everything after `--`
 * stays as it is.
 */
export function joinNegativeValues(argv: readonly string[], flags: readonly FlagSpec[]): string[] {
  const takesValue = new Set<string>();
  for (const f of flags) {
    if (f.type !== 'string') continue;
    takesValue.add(`--${f.name}`);
    if (f.short !== undefined) takesValue.add(`-${f.short}`);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (takesValue.has(a) && next !== undefined && NEGATIVE_NUMBER_RE.test(next)) {
      out.push(a.startsWith('--') ? `${a}=${next}` : `${a}${next}`);
      i++;
    } else {
      out.push(a);
    }
  }
  return out;
}

/** Where to read a command's flags: the hint of an option it does not take. */
function flagsHint(command: Command): string {
  return command.flags.length > 0
    ? `flags of "harpoon ${command.name}": ${command.flags.map((f) => `--${f.name}`).join(', ')}; see "harpoon help ${command.name}"`
    : `"harpoon ${command.name}" takes no flags of its own; see "harpoon help ${command.name}"`;
}

/**
 * The command the words of `argv` name, read leniently (an unknown option is taken for a
 * switch), for the messages of a command line the strict parse refused.
 */
function commandOfArgv(argv: readonly string[], flags: readonly FlagSpec[]): Command | undefined {
  const { positionals } = parseArgs({
    args: joinNegativeValues(argv, flags),
    options: Object.fromEntries(flags.map((f) => [f.name, { type: f.type }])),
    allowPositionals: true,
    strict: false,
  });
  return resolveCommand(positionals);
}

function parseError(err: unknown, flags: readonly FlagSpec[], argv: readonly string[]): UsageError {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  const quoted = /'(-[^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) {
    // a guess among the flags of the command typed: another command's flag would be refused next
    const command = commandOfArgv(argv, flags);
    const known = command !== undefined ? [...GLOBAL_FLAGS, ...command.flags] : flags;
    const guess = quoted.startsWith('--')
      ? closest(
          quoted.slice(2),
          known.map((f) => f.name),
        )
      : undefined;
    return new UsageError(
      `unknown option ${quoted}${guess ? ` (did you mean --${guess}?)` : ''}`,
      command !== undefined ? flagsHint(command) : HELP_HINT,
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted && /ambiguous/.test(message)) {
    // `--config --json`, `--reason -x`: a value that starts with a dash after an option that needs one
    const at = argv.indexOf(quoted);
    const next = at >= 0 ? argv[at + 1] : undefined;
    const name = quoted.startsWith('--')
      ? quoted
      : `--${flags.find((f) => f.short === quoted.slice(1))?.name ?? quoted.slice(1)}`;
    return new UsageError(
      `option ${quoted} needs a value, but it is followed by ${next !== undefined ? JSON.stringify(next) : 'another option'}`,
      `write the value right after it; a value that starts with "-" is written ${name}=-VALUE; ${HELP_HINT}`,
    );
  }
  const missing = /--([a-z-]+) <value>' argument missing/.exec(message)?.[1];
  const spec = flags.find((f) => f.name === missing);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && spec !== undefined) {
    return new UsageError(
      `option --${spec.name}: argument missing (it needs a value: --${spec.name} ${spec.valueName ?? 'VALUE'})`,
      `${spec.example !== undefined ? `e.g. --${spec.name} ${spec.example}; ` : ''}${HELP_HINT}`,
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new UsageError(message.replace(/^Option/, 'option'), HELP_HINT);
  }
  return new UsageError(message, HELP_HINT);
}

/** The command named by the leading positionals (longest match), and the words it used. */
function resolveCommand(positionals: readonly string[]): Command | undefined {
  let best: Command | undefined;
  for (const c of COMMANDS) {
    const words = c.name.split(' ');
    if (words.every((w, i) => positionals[i] === w) && (!best || words.length > best.name.split(' ').length))
      best = c;
  }
  return best;
}

function unknownCommand(positionals: readonly string[]): UsageError {
  const first = positionals[0] as string;
  const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
  if (group.length > 0) {
    const subs = group.map((c) => c.name.slice(first.length + 1));
    const second = positionals[1];
    if (second === undefined) {
      return new UsageError(
        `"harpoon ${first}" needs a sub-command`,
        `use one of: ${group.map((c) => `harpoon ${c.name}`).join(', ')}`,
      );
    }
    const guess = closest(second, subs);
    return new UsageError(
      `unknown command "harpoon ${first} ${second}"${guess ? ` (did you mean "harpoon ${first} ${guess}"?)` : ''}`,
      `use one of: ${group.map((c) => `harpoon ${c.name}`).join(', ')}`,
    );
  }
  const guess = closest(first, commandWords());
  return new UsageError(
    `unknown command "${first}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
    `commands: ${commandWords().join(', ')}; ${HELP_HINT}`,
  );
}

/**
 * Runs the `harpoon` command line and returns the exit code (see ExitCode). Never throws and
 * never calls process.exit: bin/harpoon.mjs does that. `io` defaults to the real process.
 */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  const own = io === undefined ? processIo() : undefined;
  const out = scrubbing(io ?? (own as CliIo));
  let verbose = argv.includes('--verbose');
  try {
    const flags = allFlags();
    let parsed: ReturnType<
      typeof parseArgs<{
        options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;
        allowPositionals: true;
        strict: true;
        tokens: true;
      }>
    >;
    try {
      parsed = parseArgs({
        args: joinNegativeValues(argv, flags),
        options: Object.fromEntries(
          flags.map((f) => [
            f.name,
            {
              type: f.type,
              ...(f.short !== undefined ? { short: f.short } : {}),
              ...(f.multiple === true ? { multiple: true } : {}),
            },
          ]),
        ),
        allowPositionals: true,
        strict: true,
        tokens: true,
      });
    } catch (err) {
      throw parseError(err, flags, argv);
    }
    const { values, positionals, tokens } = parsed;
    verbose = values.verbose === true;

    if (values.version === true) {
      out.stdout(`harpoon ${packageVersion()}\n`);
      return ExitCode.ok;
    }
    if (positionals.length === 0) {
      out.stdout(renderMainHelp(COMMANDS, packageVersion()));
      return ExitCode.ok;
    }
    const command = resolveCommand(positionals);
    if (command === undefined) {
      const first = positionals[0] as string;
      if (
        values.help === true &&
        COMMANDS.some((c) => c.name.startsWith(`${first} `)) &&
        positionals.length === 1
      ) {
        out.stdout(renderCommandHelp(COMMANDS, first) ?? '');
        return ExitCode.ok;
      }
      throw unknownCommand(positionals);
    }
    if (values.help === true) {
      out.stdout(renderCommandHelp(COMMANDS, command.name) ?? '');
      return ExitCode.ok;
    }
    const accepted = new Set([...GLOBAL_FLAGS, ...command.flags].map((f) => f.name));
    for (const t of tokens) {
      if (t.kind === 'option' && !accepted.has(t.name)) {
        throw new UsageError(
          `option ${t.rawName} is not accepted by "harpoon ${command.name}"`,
          flagsHint(command),
        );
      }
    }
    const args = positionals.slice(command.name.split(' ').length);
    if (command.argsUsage === undefined && args.length > 0) {
      throw new UsageError(
        `unexpected argument "${args[0]}" for "harpoon ${command.name}"`,
        `usage: harpoon ${command.name} [flags]; see "harpoon help ${command.name}"`,
      );
    }
    const checked = checkFlags(
      [...GLOBAL_FLAGS, ...command.flags],
      values as Record<string, string | boolean | string[] | undefined>,
      command.name,
    );
    return await command.run({ io: out, flags: checked, args, verbose });
  } catch (err) {
    const { code, text } = describeFailure(err, verbose);
    out.stderr(text);
    return code;
  } finally {
    own?.dispose();
  }
}

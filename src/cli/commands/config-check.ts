import { stringify } from 'yaml';
import { loadConfig } from '../../config/load.ts';
import { sanitizeConfig } from '../../config/sanitize.ts';
import { ExitCode, UsageError } from '../exit.ts';
import type { CommandContext } from '../spec.ts';

/**
 * `harpoon config check`: loads and validates the configuration (file + environment) and prints it
 * with every secret `[REDACTED]`. An invalid configuration throws ConfigError (exit 2).
 */
export async function runConfigCheck(ctx: CommandContext): Promise<number> {
  const file = ctx.flags.config;
  if (file === '')
    throw new UsageError('--config needs a file path', 'e.g. harpoon config check --config harpoon.yaml');
  const loaded = loadConfig({
    ...(typeof file === 'string' ? { file } : {}),
    env: ctx.io.env,
    cwd: ctx.io.cwd,
  });
  for (const warning of loaded.warnings) ctx.io.stderr(`harpoon: warning: ${warning}\n`);
  const printable = sanitizeConfig(loaded.config);
  if (ctx.flags.json === true) {
    ctx.io.stdout(`${JSON.stringify(printable, null, 2)}\n`);
  } else {
    ctx.io.stdout(
      [
        '# harpoon configuration: valid',
        `# file: ${loaded.file ?? '(none: defaults + environment)'}`,
        '# secrets are shown as [REDACTED]; money in ETH (gas in gwei); paths resolved',
        stringify(printable),
      ].join('\n'),
    );
  }
  return ExitCode.ok;
}

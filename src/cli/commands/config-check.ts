import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { loadConfig } from '../../config/load.ts';
import { sanitizeConfig } from '../../config/sanitize.ts';
import { checkPaperBalances } from '../../daemon/options.ts';
import { ExitCode } from '../exit.ts';
import { CONFIG_FLAG, textFlag } from '../flags.ts';
import type { CommandContext } from '../spec.ts';
import { checkStrategies, strategiesForCheck } from '../strategies.ts';

/**
 * `harpoon config check`: loads and validates the configuration (file + environment), loads every
 * configured strategy exactly as `harpoon run` does (module found, imports only the strategy API,
 * params valid), and prints the configuration with every secret `[REDACTED]`. An invalid
 * configuration or strategy throws ConfigError (exit 2).
 */
export async function runConfigCheck(ctx: CommandContext): Promise<number> {
  const file = textFlag(ctx.flags, CONFIG_FLAG, 'config check');
  const loaded = loadConfig({
    ...(file !== undefined ? { file } : {}),
    env: ctx.io.env,
    cwd: ctx.io.cwd,
  });
  for (const warning of loaded.warnings) ctx.io.stderr(`harpoon: warning: ${warning}\n`);
  const strategies = await checkStrategies({
    strategies: strategiesForCheck(loaded.config),
    baseDir: loaded.file !== undefined ? dirname(loaded.file) : ctx.io.cwd,
  });
  checkPaperBalances(loaded.config);
  const printable = sanitizeConfig(loaded.config);
  if (ctx.flags.json === true) {
    ctx.io.stdout(`${JSON.stringify(printable, null, 2)}\n`);
  } else {
    ctx.io.stdout(
      [
        '# harpoon configuration: valid',
        `# file: ${loaded.file ?? '(none: defaults + environment)'}`,
        `# strategies: ${strategies.length === 0 ? 'none' : strategies.map((s) => `${s.id} (${s.definition.id} ${s.definition.version})`).join(', ')}`,
        '# secrets are shown as [REDACTED]; money in ETH (gas in gwei); paths resolved',
        stringify(printable),
      ].join('\n'),
    );
  }
  return ExitCode.ok;
}

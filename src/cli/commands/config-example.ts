import { ExitCode } from '../exit.ts';
import { exampleConfigText } from '../package-info.ts';
import type { CommandContext } from '../spec.ts';

/** `harpoon config example`: prints the commented example config (config/example.yaml). */
export async function runConfigExample(ctx: CommandContext): Promise<number> {
  ctx.io.stdout(exampleConfigText());
  return ExitCode.ok;
}

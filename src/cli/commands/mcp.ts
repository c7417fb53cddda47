import { ConfigError } from '../../errors/index.ts';
import { serveStdioBridge } from '../../mcp/stdio.ts';
import { ExitCode } from '../exit.ts';
import { packageVersion } from '../package-info.ts';
import type { CommandContext } from '../spec.ts';
import { controlAccess } from './status.ts';

class NoTokenError extends ConfigError {
  constructor() {
    super(
      "no control token: set HARPOON_CONTROL_TOKEN, or run this with the daemon's config (it keeps the token beside its store while it runs)",
    );
  }
}

/**
 * `harpoon mcp [--config FILE | --url URL]`: the running daemon's agent tools over stdio (a relay
 * to its control endpoint's /mcp with the control token). stdout carries the protocol only.
 */
export async function runMcp(ctx: CommandContext): Promise<number> {
  const { url, token } = controlAccess(ctx, 'mcp');
  if (token === undefined) throw new NoTokenError();
  await serveStdioBridge({ url, token, version: packageVersion(), signal: ctx.io.signal });
  return ExitCode.ok;
}

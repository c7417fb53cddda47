import { loadConfig } from '../../config/load.ts';
import type { DaemonStatus } from '../../daemon/status.ts';
import { renderStatus } from '../../daemon/status.ts';
import { BaseError } from '../../errors/index.ts';
import { ExitCode } from '../exit.ts';
import { CONFIG_FLAG, textFlag, URL_FLAG } from '../flags.ts';
import type { CommandContext } from '../spec.ts';

/** The control endpoint to read: --url, else the config's control host and port. */
export function controlUrl(ctx: CommandContext, command = 'status'): string {
  const url = textFlag(ctx.flags, URL_FLAG, command);
  if (url !== undefined) return url.replace(/\/+$/, '');
  const file = textFlag(ctx.flags, CONFIG_FLAG, command);
  const loaded = loadConfig({
    ...(file !== undefined ? { file } : {}),
    env: ctx.io.env,
    cwd: ctx.io.cwd,
  });
  const host = loaded.config.control.host.includes(':')
    ? `[${loaded.config.control.host}]`
    : loaded.config.control.host;
  return `http://${host}:${loaded.config.control.port}`;
}

class NotRunningError extends BaseError {
  constructor(url: string, cause: unknown) {
    super('daemon_unreachable', `no daemon answers at ${url} (is "harpoon run" running with this config?)`, {
      cause,
    });
  }
}

/** `harpoon status [--json] [--url URL | --config FILE]`: reads /status and /health of a running daemon. */
export async function runStatus(ctx: CommandContext): Promise<number> {
  const base = controlUrl(ctx);
  let status: DaemonStatus;
  let health: { state: string; reasons: string[] };
  try {
    const [s, h] = await Promise.all([
      fetch(`${base}/status`, { signal: AbortSignal.timeout(5000) }),
      fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) }),
    ]);
    if (!s.ok) throw new Error(`/status answered ${s.status}`);
    status = (await s.json()) as DaemonStatus;
    health = (await h.json()) as { state: string; reasons: string[] };
  } catch (e) {
    throw new NotRunningError(base, e);
  }
  if (ctx.flags.json === true) {
    ctx.io.stdout(`${JSON.stringify({ health, status }, null, 2)}\n`);
  } else {
    ctx.io.stdout(renderStatus(status));
    ctx.io.stdout(
      `  health: ${health.state}${health.reasons.length > 0 ? ` (${health.reasons.join('; ')})` : ''}\n`,
    );
  }
  return health.state === 'down' ? ExitCode.error : ExitCode.ok;
}

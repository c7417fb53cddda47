import { existsSync, readFileSync, statSync } from 'node:fs';
import { loadConfig } from '../../config/load.ts';
import { controlTokenPathOf, paperPathOf } from '../../daemon/options.ts';
import type { DaemonStatus } from '../../daemon/status.ts';
import { renderStatus } from '../../daemon/status.ts';
import { BaseError } from '../../errors/index.ts';
import { ExitCode } from '../exit.ts';
import { CONFIG_FLAG, textFlag, URL_FLAG } from '../flags.ts';
import type { CommandContext } from '../spec.ts';

/**
 * The control endpoint to talk to — --url, else the config's control host and port — and its
 * token: HARPOON_CONTROL_TOKEN, else the file the running daemon keeps beside its store (live or
 * paper, the newer).
 */
export function controlAccess(ctx: CommandContext, command = 'status'): { url: string; token?: string } {
  const file = textFlag(ctx.flags, CONFIG_FLAG, command);
  const given = textFlag(ctx.flags, URL_FLAG, command);
  const envToken = ctx.io.env.HARPOON_CONTROL_TOKEN?.trim();
  let config: ReturnType<typeof loadConfig>['config'] | undefined;
  const load = () => {
    config ??= loadConfig({
      ...(file !== undefined ? { file } : {}),
      env: ctx.io.env,
      cwd: ctx.io.cwd,
    }).config;
    return config;
  };
  let url: string;
  if (given !== undefined) {
    url = given.replace(/\/+$/, '');
  } else {
    const c = load();
    const host = c.control.host.includes(':') ? `[${c.control.host}]` : c.control.host;
    url = `http://${host}:${c.control.port}`;
  }
  if (envToken) return { url, token: envToken };
  let newest: { token: string; at: number } | undefined;
  try {
    const c = load();
    for (const store of [c.store.path, paperPathOf(c.store.path)]) {
      const path = controlTokenPathOf(store);
      if (path === undefined || !existsSync(path)) continue;
      const at = statSync(path).mtimeMs;
      const token = readFileSync(path, 'utf8').trim();
      if (token !== '' && (newest === undefined || at > newest.at)) newest = { token, at };
    }
  } catch {
    // no config to find the token by: the switches will say the token is needed
  }
  return newest !== undefined ? { url, token: newest.token } : { url };
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
  const { url: base, token } = controlAccess(ctx);
  const headers: Record<string, string> = token !== undefined ? { authorization: `Bearer ${token}` } : {};
  let status: DaemonStatus;
  let health: { state: string; reasons: string[] };
  try {
    const [s, h] = await Promise.all([
      fetch(`${base}/status`, { headers, signal: AbortSignal.timeout(5000) }),
      fetch(`${base}/health`, { headers, signal: AbortSignal.timeout(5000) }),
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

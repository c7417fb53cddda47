import { BaseError, ConfigError } from '../../errors/index.ts';
import { ExitCode } from '../exit.ts';
import { REASON_FLAG, textFlag } from '../flags.ts';
import type { CommandContext } from '../spec.ts';
import { controlAccess } from './status.ts';

/** The daemon did not answer (`daemon_unreachable`) or refused the switch (`daemon_refused`): exit 4. */
class SwitchError extends BaseError {
  constructor(code: 'daemon_unreachable' | 'daemon_refused', message: string, cause?: unknown) {
    super(code, message, cause === undefined ? {} : { cause });
  }
}

/** `harpoon kill|pause|resume`: pulls a switch of a running daemon through its control endpoint. */
export function switchCommand(name: 'kill' | 'pause' | 'resume') {
  return async function run(ctx: CommandContext): Promise<number> {
    const { url: base, token } = controlAccess(ctx, name);
    const reason = name === 'kill' ? textFlag(ctx.flags, REASON_FLAG, name) : undefined;
    if (token === undefined)
      throw new ConfigError(
        `no control token: set HARPOON_CONTROL_TOKEN, or run this with the daemon's config (it keeps the token beside its store while it runs)`,
      );
    let res: Response;
    try {
      res = await fetch(`${base}/${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(reason !== undefined ? { reason } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      throw new SwitchError(
        'daemon_unreachable',
        `no daemon answers at ${base} (is "harpoon run" running with this config?)`,
        e,
      );
    }
    const body = (await res.json().catch(() => ({}))) as { ok?: boolean; error?: string };
    if (!res.ok || body.ok !== true)
      throw new SwitchError(
        'daemon_refused',
        body.error !== undefined
          ? `${name} refused: ${body.error}`
          : `${name} refused: ${base} answered HTTP ${res.status} without harpoon's answer (is it the daemon's control endpoint?)`,
      );
    const what = {
      kill: 'kill switch engaged: no new intents; every open offer is being cancelled (until "harpoon resume")',
      pause: 'paused: no hooks, no new intents; open orders and state kept (until "harpoon resume")',
      resume: 'resumed: strategies run again',
    }[name];
    ctx.io.stdout(`${what}\n`);
    return ExitCode.ok;
  };
}

import { CONTROL_HEADER } from '../../daemon/control.ts';
import { BaseError } from '../../errors/index.ts';
import { ExitCode } from '../exit.ts';
import { REASON_FLAG, textFlag } from '../flags.ts';
import type { CommandContext } from '../spec.ts';
import { controlUrl } from './status.ts';

class SwitchError extends BaseError {
  constructor(message: string, cause?: unknown) {
    super('switch_failed', message, cause === undefined ? {} : { cause });
  }
}

/** `harpoon kill|pause|resume`: pulls a switch of a running daemon through its control endpoint. */
export function switchCommand(name: 'kill' | 'pause' | 'resume') {
  return async function run(ctx: CommandContext): Promise<number> {
    const base = controlUrl(ctx, name);
    const text = name === 'kill' ? textFlag(ctx.flags, REASON_FLAG, name) : undefined;
    const reason = text !== undefined ? `?reason=${encodeURIComponent(text)}` : '';
    let res: Response;
    try {
      res = await fetch(`${base}/${name}${name === 'kill' ? reason : ''}`, {
        method: 'POST',
        headers: { [CONTROL_HEADER]: '1' },
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      throw new SwitchError(`no daemon answers at ${base} (is "harpoon run" running with this config?)`, e);
    }
    const body = (await res.json().catch(() => ({}))) as { ok?: boolean; error?: string };
    if (!res.ok || body.ok !== true)
      throw new SwitchError(`${name} refused: ${body.error ?? `HTTP ${res.status}`}`);
    const what = {
      kill: 'kill switch engaged: no new intents; every open offer is being cancelled (until "harpoon resume")',
      pause: 'paused: no hooks, no new intents; open orders and state kept (until "harpoon resume")',
      resume: 'resumed: strategies run again',
    }[name];
    ctx.io.stdout(`${what}\n`);
    return ExitCode.ok;
  };
}

import { HttpError } from '../../errors.ts';
import type { Route, ServerState } from '../types.ts';

/**
 * The sandbox clock under `/_sandbox/` (loopback only, no key):
 *
 * - `GET /_sandbox/clock` → `{now, offsetSec, chainTime}`.
 * - `POST /_sandbox/clock {advanceSec}` moves the clock forward (whole seconds, up to 400 days
 *   per call) and, when the chain runs, the chain's time by the same amount (anvil
 *   `evm_increaseTime` then `evm_mine`, so the next block carries it). Lifetimes judged on the
 *   clock: instant keys, nonces, SIWE cookies, PATs, wallet JWTs, rate buckets.
 */

export const MAX_ADVANCE_SEC = 400 * 86_400;

export function clockRoutes(state: ServerState): Route[] {
  async function view() {
    const block = state.fixture ? await state.fixture.provider.getBlock('latest') : null;
    return {
      now: new Date(state.clock.wallNow()).toISOString(),
      offsetSec: Math.floor(state.clock.offsetMs / 1000),
      chainTime: block ? block.timestamp : null,
    };
  }
  return [
    {
      method: 'GET',
      pattern: '/_sandbox/clock',
      access: 'admin',
      handler: async () => ({ json: await view() }),
    },
    {
      method: 'POST',
      pattern: '/_sandbox/clock',
      access: 'admin',
      handler: async (ctx) => {
        const body = await ctx.body();
        const sec = (body as Record<string, unknown> | undefined)?.['advanceSec'];
        if (typeof sec !== 'number' || !Number.isInteger(sec) || sec < 0 || sec > MAX_ADVANCE_SEC) {
          throw new HttpError(
            400,
            `advanceSec: must be a whole number of seconds from 0 to ${MAX_ADVANCE_SEC}`,
          );
        }
        if (state.fixture && sec > 0) {
          await state.fixture.provider.send('evm_increaseTime', [sec]);
          await state.fixture.provider.send('evm_mine', []);
        }
        state.clock.advance(sec * 1000);
        return { json: await view() };
      },
    },
  ];
}

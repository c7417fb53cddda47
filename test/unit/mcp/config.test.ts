import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.ts';
import { daemonOptionsFromConfig } from '../../../src/daemon/options.ts';
import { configError } from '../config/helpers.ts';

/** `mcp.allowControl`: read-only by default; the daemon's options carry it and the redacted config. */

const KEY = 'sk-0123456789abcdef0123456789abcdef';
const PRIVATE_KEY = `0x${'5c'.repeat(32)}`;
const RPC = 'https://rpc.example/v2/rpc-secret-0123456789';
const env = { HARPOON_API_KEY: KEY, HARPOON_PRIVATE_KEY: PRIVATE_KEY, HARPOON_RPC_URL: RPC };
const load = (raw: Record<string, unknown>) => resolveConfig(raw, { env, cwd: '/srv/h' }).config;

describe('config: mcp', () => {
  it('is read-only by default; allowControl: true serves the switches', () => {
    expect(load({}).mcp).toEqual({ allowControl: false });
    expect(load({ mcp: { allowControl: true } }).mcp).toEqual({ allowControl: true });
  });

  it('refuses a mistyped key or value with the path', () => {
    expect(configError(() => load({ mcp: { allowcontrol: true } })).message).toContain('mcp');
    expect(configError(() => load({ mcp: { allowControl: 'yes' } })).message).toContain('mcp.allowControl');
  });

  it('the daemon options carry the switch and the config with every secret redacted', () => {
    const o = daemonOptionsFromConfig(load({ mcp: { allowControl: true } }), env);
    expect(o.mcp?.allowControl).toBe(true);
    const shown = JSON.stringify(o.mcp?.config);
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain(PRIVATE_KEY.slice(2));
    expect(shown).not.toContain('rpc-secret');
    expect(o.mcp?.config).toMatchObject({
      api: { apiKey: '[REDACTED]' },
      chain: { rpcUrl: 'https://rpc.example/[REDACTED]' },
      mcp: { allowControl: true },
    });
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { checkStrategies, strategiesForCheck } from '../../../src/cli/strategies.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { BUILTIN_STRATEGIES_DIR } from '../../../src/daemon/index.ts';
import { loadStrategy } from '../../../src/engine/loader.ts';
import { ConfigError } from '../../../src/errors/index.ts';
import { fakeIo } from './fake-io.ts';

/**
 * `harpoon config check` runs the strategy checks of `harpoon run` (engine/loader.ts, with the
 * daemon's BUILTIN_STRATEGIES_DIR and the config file's folder for relative paths): a missing
 * module or bad params is exit 2 from `config check`, not only later from `run`.
 */

const STRATEGY_API = resolve(import.meta.dirname, '../../../src/strategy.ts');
const dir = mkdtempSync(join(tmpdir(), 'harpoon-cc-strategies-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const io = () => fakeIo({}, dir);

function file(name: string, text: string): string {
  const p = join(dir, name);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text, { mode: 0o600 });
  return p;
}

async function harpoon(args: string[]) {
  const o = io();
  const code = await main(args, o);
  return { code, stdout: o.out(), stderr: o.err() };
}

const SNIPER_OK = `  - id: snipe
    module: sniper
    params: { collections: [azuki], maxPrice: "0.1" }
`;

describe('config check loads every strategy as run does', () => {
  it('valid built-in strategies: exit 0 and the loaded strategies are listed', async () => {
    const cfg = file('ok.yaml', `strategies:\n${SNIPER_OK}`);
    const r = await harpoon(['config', 'check', '-c', cfg]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# strategies: snipe \(sniper 1\.\d+\.\d+\)$/m);
  });

  it('paper.balances naming a token the config does not trade: exit 2 as run and backtest refuse it', async () => {
    const ok = file('wallet.yaml', `strategies:\n${SNIPER_OK}paper:\n  balances: { ETH: "1", weth: "2" }\n`);
    expect((await harpoon(['config', 'check', '-c', ok])).code).toBe(0);
    const cfg = file(
      'wallet-bad.yaml',
      `strategies:\n${SNIPER_OK}paper:\n  balances: { ETH: "1", USDC: "5" }\n`,
    );
    const r = await harpoon(['config', 'check', '-c', cfg]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'harpoon: configuration error: paper.balances.USDC: no token the config trades is USDC (known: ETH, WETH); write the symbol or address of one',
    );
  });

  it('a missing module: exit 2 naming the strategy, the module, the path looked at and the fix', async () => {
    const cfg = file('missing.yaml', 'strategies:\n  - id: snipe\n    module: snipr\n    params: {}\n');
    const r = await harpoon(['config', 'check', '-c', cfg]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `harpoon: configuration error: strategy 'snipe' (snipr): module cannot be read at ${join(BUILTIN_STRATEGIES_DIR, 'snipr.ts')} (ENOENT). Fix: give a built-in name`,
    );
  });

  it('bad params: exit 2 naming the key and the fix', async () => {
    const cfg = file(
      'params.yaml',
      'strategies:\n  - id: snipe\n    module: sniper\n    params: { collections: [azuki], maxPrice: lots }\n',
    );
    const r = await harpoon(['config', 'check', '-c', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /strategy 'snipe' \(sniper\): invalid params: params\.maxPrice: .*Fix: correct strategies\[id=snipe\]\.params/,
    );
  });

  it('every broken strategy is reported at once', async () => {
    const cfg = file(
      'two.yaml',
      `strategies:\n${SNIPER_OK}  - id: a\n    module: nope-a\n    params: {}\n  - id: b\n    module: sniper\n    params: {}\n`,
    );
    const r = await harpoon(['config', 'check', '-c', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/2 strategies cannot be loaded/);
    expect(r.stderr).toMatch(/strategy 'a' \(nope-a\): module cannot be read/);
    expect(r.stderr).toMatch(/strategy 'b' \(sniper\): invalid params/);
  });

  it('a module that imports more than the strategy API is refused', async () => {
    file(
      'sub/strategies/sneaky.ts',
      `import { readFileSync } from 'node:fs';\nimport { defineStrategy } from '${STRATEGY_API}';\nexport default defineStrategy({} as never);\nvoid readFileSync;\n`,
    );
    const cfg = file(
      'sub/sneaky.yaml',
      'strategies:\n  - id: s\n    module: ./strategies/sneaky.ts\n    params: {}\n',
    );
    const r = await harpoon(['config', 'check', '-c', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/imports 'node:fs'; a strategy may import only the strategy API/);
  });

  it("relative module paths resolve against the config file's folder (as run does)", async () => {
    file(
      'nested/strategies/mine.ts',
      [
        `import { defineStrategy, z } from '${STRATEGY_API}';`,
        'export default defineStrategy({',
        "  id: 'mine',",
        "  version: '1.2.3',",
        '  params: z.strictObject({ n: z.number().int() }),',
        "  subscriptions: { events: ['sale'] },",
        '});',
        '',
      ].join('\n'),
    );
    const cfg = file(
      'nested/harpoon.yaml',
      'strategies:\n  - id: m\n    module: ./strategies/mine.ts\n    params: { n: 1 }\n',
    );
    const ok = await harpoon(['config', 'check', '-c', cfg]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^# strategies: m \(mine 1\.2\.3\)$/m);
    // the same file named from the cwd does not exist next to the cwd: the folder of the config counts
    const bad = file(
      'nested/bad.yaml',
      'strategies:\n  - id: m\n    module: ./strategies/mine.ts\n    params: { n: x }\n',
    );
    const r = await harpoon(['config', 'check', '-c', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/strategy 'm' \(\.\/strategies\/mine\.ts\): invalid params: params\.n:/);
  });

  it('says the same as the loader the daemon calls (one copy of the logic)', async () => {
    const entry = { id: 'snipe', module: 'snipr', params: {} };
    const direct = await loadStrategy(entry, { strategiesDir: BUILTIN_STRATEGIES_DIR, baseDir: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(direct).toBeInstanceOf(ConfigError);
    const viaCheck = await checkStrategies({ strategies: [entry], baseDir: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((viaCheck as ConfigError).shortMessage).toBe((direct as ConfigError).shortMessage);
  });

  it('harpoon run refuses the same config with the same message before starting anything', async () => {
    const cfg = file('run-missing.yaml', 'strategies:\n  - id: snipe\n    module: snipr\n    params: {}\n');
    const check = await harpoon(['config', 'check', '-c', cfg]);
    const run = await harpoon(['run', '-c', cfg]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(check.stderr);
    expect(run.stderr).not.toMatch(/starting in/);
  });
});

describe('sandbox placeholders in strategy params', () => {
  const BIDDER = `strategies:
  - id: bid
    module: collection-bidder
    params:
      collection: azuki
      paymentToken: { address: "\${sandbox.weth}", symbol: WETH, decimals: 18 }
      distanceBps: 500
      minDistanceBps: 100
      maxPrice: "0.05"
      repriceBps: 300
      expiryMinutes: 30
`;

  it('without sandbox.enabled they are an error that says who fills them', async () => {
    const cfg = file('ph.yaml', BIDDER);
    const r = await harpoon(['config', 'check', '-c', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `strategy 'bid' (collection-bidder): params hold the placeholder \${sandbox.weth}, which only the sandbox fills. Fix: set sandbox.enabled: true`,
    );
  });

  it('with sandbox.enabled they stand in for the addresses the sandbox will give, and the params are checked', async () => {
    const cfg = file('ph-sandbox.yaml', `${BIDDER}sandbox:\n  enabled: true\n`);
    const loaded = loadConfig({ file: cfg, env: {}, cwd: dir });
    const filled = strategiesForCheck(loaded.config);
    const address = (
      (filled[0] as { params: Record<string, unknown> }).params.paymentToken as { address: string }
    ).address;
    expect(address).toMatch(/^0x[0-9a-f]{40}$/);
    const r = await harpoon(['config', 'check', '-c', cfg]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# strategies: bid \(collection-bidder /m);
    // the other params are still checked
    const bad = file(
      'ph-bad.yaml',
      `${BIDDER.replace('distanceBps: 500', 'distanceBps: -5')}sandbox:\n  enabled: true\n`,
    );
    const b = await harpoon(['config', 'check', '-c', bad]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/strategy 'bid' \(collection-bidder\): invalid params: params\.distanceBps/);
  });
});

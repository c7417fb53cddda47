import { describe, expect, it } from 'vitest';
import { backtestSetupFromConfig, checkSetupAgainstTape } from '../../../src/backtest/setup.ts';
import { loadConfig } from '../../../src/config/load.ts';

const tape = { chain: 'ethereum', collections: ['harpoon-apes', 'harpoon-punks'] };

describe('checkSetupAgainstTape', () => {
  it('the config trading what the tape recorded, on its chain: nothing to say', () => {
    expect(checkSetupAgainstTape({ chain: 'ethereum', collections: ['harpoon-apes'] }, tape)).toEqual({
      errors: [],
      warnings: [],
    });
  });

  it('some collections not on the tape: a warning naming them and what the tape holds', () => {
    const r = checkSetupAgainstTape({ chain: 'ethereum', collections: ['harpoon-apes', 'other-apes'] }, tape);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([
      'the tape holds no market of other-apes (it recorded harpoon-apes, harpoon-punks): strategies trading it see nothing of it in this backtest',
    ]);
  });

  it('none of them on the tape: an error with what to do', () => {
    const r = checkSetupAgainstTape({ chain: 'ethereum', collections: ['other-apes', 'other-punks'] }, tape);
    expect(r.warnings).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.message).toBe(
      "the tape holds none of the config's collections (other-apes, other-punks); it recorded harpoon-apes, harpoon-punks",
    );
    expect(r.errors[0]?.hint).toMatch(/harpoon record --config/);
  });

  it("another chain than the tape's: a warning that the replay runs on the tape's", () => {
    const r = checkSetupAgainstTape({ chain: 'base', collections: ['harpoon-apes'] }, tape);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([
      "the tape is of ethereum and the config's chain is base: the replay runs on the tape's (its payment tokens and addresses)",
    ]);
  });

  it("takes the chain and the collections (strategies' included) of a setup built from a config", () => {
    const { config } = loadConfig({
      env: { HARPOON_CHAIN: 'base', HARPOON_COLLECTIONS: 'other-apes' },
      cwd: '/nonexistent',
    });
    const setup = backtestSetupFromConfig(config);
    expect(setup.chain).toBe('base');
    const r = checkSetupAgainstTape(setup, tape);
    expect(r.errors.map((e) => e.message)).toEqual([
      "the tape holds none of the config's collections (other-apes); it recorded harpoon-apes, harpoon-punks",
    ]);
    expect(r.warnings).toHaveLength(1);
  });
});

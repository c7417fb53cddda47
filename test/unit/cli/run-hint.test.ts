import { describe, expect, it } from 'vitest';
import { compareHint } from '../../../src/cli/commands/run.ts';
import { shellWord } from '../../../src/cli/io.ts';

describe('what a paper run that recorded its market prints as it stops', () => {
  it('the command that checks a backtest of its tape against it', () => {
    expect(
      compareHint({ tape: 'market.tape', config: 'harpoon.yaml', report: '/srv/harpoon-paper-report.json' }),
    ).toBe(
      'compare a backtest of the recorded market with this run: harpoon backtest --tape market.tape --config harpoon.yaml --compare /srv/harpoon-paper-report.json',
    );
    // no config file (built-in defaults and the environment): none named
    expect(compareHint({ tape: 'm.tape', config: undefined, report: 'r.json' })).toBe(
      'compare a backtest of the recorded market with this run: harpoon backtest --tape m.tape --compare r.json',
    );
    // paths a shell would split or end are quoted
    expect(compareHint({ tape: "my tapes/bob's.tape", config: 'c.yaml', report: 'r.json' })).toContain(
      `--tape 'my tapes/bob'\\''s.tape' --config c.yaml`,
    );
  });

  it('nothing without a tape', () => {
    expect(compareHint({ tape: undefined, config: 'harpoon.yaml', report: 'r.json' })).toBeUndefined();
  });

  it('shellWord leaves a plain path as it is and quotes anything else', () => {
    expect(shellWord('config/backtest.yaml')).toBe('config/backtest.yaml');
    expect(shellWord('/a b/c')).toBe("'/a b/c'");
    expect(shellWord('$HOME')).toBe("'$HOME'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
  });
});

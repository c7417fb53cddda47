import { describe, expect, it } from 'vitest';
import { type AlertEvent, createAlertDetector, type DetectorStatus } from '../../../src/alerts/index.ts';
import type { DaemonStatus } from '../../../src/daemon/status.ts';

// The detector reads the daemon's status document as it is.
const _fits = (s: DaemonStatus): DetectorStatus => s;
void _fits;

const T0 = Date.UTC(2026, 10, 26, 10, 0, 0);

type Over = {
  state?: string;
  error?: string;
  stale?: boolean;
  channels?: DetectorStatus['stream']['channels'];
  strategies?: DetectorStatus['strategies'];
  spend?: Partial<DetectorStatus['spend'][number]>[];
  lastError?: string | null;
};

function status(o: Over = {}): DetectorStatus {
  const stale = o.stale ?? false;
  return {
    state: o.state ?? 'running',
    ...(o.error !== undefined ? { error: o.error } : {}),
    strategies: o.strategies ?? [
      { id: 'sniper', state: 'running', errors: 0, lastError: null },
      { id: 'bidder', state: 'running', errors: 0, lastError: null },
    ],
    spend: (o.spend ?? []).map((r) => ({
      account: 'eth-like',
      symbol: 'ETH+WETH',
      spentToday: '0',
      spentTotal: '0',
      exposure: '0',
      maxSpendPerDay: '0.2',
      maxExposure: '0.2',
      budget: null,
      ...r,
    })),
    stream: {
      stale,
      channels: o.channels ?? [
        { key: 'cool-cats', ageMs: stale ? 90_000 : 1_000, stale },
        { key: 'doodles', ageMs: 2_000, stale: false },
      ],
    },
    credentials: { lastError: o.lastError ?? null },
  };
}

function run(steps: [number, DetectorStatus][], opts = { streamStaleAfterSec: 60, budgetWarnPct: 80 }) {
  const d = createAlertDetector(opts);
  return steps.map(([dt, s]) => d.observe(s, T0 + dt));
}

const keys = (out: AlertEvent[][]) => out.map((list) => list.map((e) => e.key));

describe('detector: stream stale', () => {
  it('alerts once after N s of staleness, and once more (info) when fresh again', () => {
    const out = run([
      [0, status()],
      [5_000, status({ stale: true })],
      [64_999, status({ stale: true })],
      [65_000, status({ stale: true })],
      [70_000, status({ stale: true })],
      [80_000, status()],
      [90_000, status()],
    ]);
    const since = T0 + 5_000;
    expect(keys(out)).toEqual([
      [],
      [],
      [],
      [`stream_stale:${since}`],
      [],
      [`stream_stale:${since}:fresh`],
      [],
    ]);
    const alert = out[3]?.[0];
    expect(alert).toMatchObject({
      kind: 'stream_stale',
      severity: 'warn',
      title: 'Market stream stale for 60 s',
    });
    expect(alert?.text).toContain('cool-cats 90 s');
    expect(alert?.text).not.toContain('doodles');
    expect(out[5]?.[0]).toMatchObject({ severity: 'info', title: 'Market stream fresh again after 75 s' });
  });

  it('a short stale spell is no alert, and neither is its end', () => {
    const out = run([
      [0, status({ stale: true })],
      [59_000, status({ stale: true })],
      [60_000, status()],
      [200_000, status({ stale: true })],
    ]);
    expect(out.flat()).toEqual([]);
  });

  it('a new stale spell after recovery is a new alert', () => {
    const out = run([
      [0, status({ stale: true })],
      [60_000, status({ stale: true })],
      [61_000, status()],
      [100_000, status({ stale: true })],
      [160_000, status({ stale: true })],
    ]);
    expect(keys(out)).toEqual([
      [],
      [`stream_stale:${T0}`],
      [`stream_stale:${T0}:fresh`],
      [],
      [`stream_stale:${T0 + 100_000}`],
    ]);
  });

  it('no stream to speak of (no channels) or a daemon not running is not stale', () => {
    const out = run([
      [0, status({ stale: true, channels: [] })],
      [120_000, status({ stale: true, channels: [] })],
      [130_000, status({ stale: true, state: 'built' })],
      [300_000, status({ stale: true, state: 'stopping' })],
    ]);
    expect(out.flat()).toEqual([]);
  });
});

describe('detector: budgets', () => {
  it('a budget at the warning level alerts once a UTC day; full is another alert', () => {
    const out = run([
      [0, status({ spend: [{ spentToday: '0.15' }] })],
      [1_000, status({ spend: [{ spentToday: '0.16' }] })],
      [2_000, status({ spend: [{ spentToday: '0.17' }] })],
      [3_000, status({ spend: [{ spentToday: '0.2' }] })],
      [4_000, status({ spend: [{ spentToday: '0.2' }] })],
      [14 * 3_600_000, status({ spend: [{ spentToday: '0.17' }] })],
    ]);
    expect(keys(out)).toEqual([
      [],
      ['budget:eth-like:spendPerDay:80:2026-11-26'],
      [],
      ['budget:eth-like:spendPerDay:100:2026-11-26'],
      [],
      ['budget:eth-like:spendPerDay:80:2026-11-27'],
    ]);
    expect(out[1]?.[0]).toMatchObject({
      kind: 'budget',
      severity: 'warn',
      title: 'ETH+WETH daily spend at 80 %',
      text: '0.16 of 0.2 ETH+WETH\nnew spending is refused at 100 %',
    });
    expect(out[3]?.[0]).toMatchObject({ severity: 'critical', title: 'ETH+WETH daily spend at its limit' });
  });

  it('jumping straight to full is one alert, not two', () => {
    const out = run([
      [0, status({ spend: [{ exposure: '0.01' }] })],
      [1_000, status({ spend: [{ exposure: '0.25' }] })],
      [2_000, status({ spend: [{ exposure: '0.18' }] })],
    ]);
    expect(keys(out)).toEqual([[], ['budget:eth-like:exposure:100:2026-11-26'], []]);
  });

  it('the overall budget counts spend so far plus open offers; amounts of other scales compare exactly', () => {
    const out = run(
      [
        [
          0,
          status({
            spend: [
              {
                spentTotal: '0.5',
                exposure: '0.249999',
                budget: '1',
                maxSpendPerDay: null,
                maxExposure: null,
              },
            ],
          }),
        ],
        [
          1_000,
          status({
            spend: [
              { spentTotal: '0.5', exposure: '0.25', budget: '1', maxSpendPerDay: null, maxExposure: null },
            ],
          }),
        ],
      ],
      { streamStaleAfterSec: 60, budgetWarnPct: 75 },
    );
    expect(keys(out)).toEqual([[], ['budget:eth-like:budget:75:2026-11-26']]);
    expect(out[1]?.[0]?.text).toContain('0.75 of 1 ETH+WETH');
  });

  it('budgets of several tokens are told apart; no limit or a zero limit is no alert', () => {
    const usdc = { account: '0xa0b8', symbol: 'USDC', maxExposure: null, budget: null };
    const out = run([
      [
        0,
        status({ spend: [{ spentToday: '0.19' }, { ...usdc, spentToday: '850', maxSpendPerDay: '1000' }] }),
      ],
      [1_000, status({ spend: [{ spentToday: '5', maxSpendPerDay: '0', maxExposure: null }] })],
    ]);
    expect(keys(out)).toEqual([
      ['budget:eth-like:spendPerDay:80:2026-11-26', 'budget:0xa0b8:spendPerDay:80:2026-11-26'],
      [],
    ]);
  });
});

describe('detector: strategies, credentials, failure', () => {
  it('a disabled strategy alerts once; again only after it ran again', () => {
    const s = (state: string, lastError: string | null = null) =>
      status({
        strategies: [
          { id: 'sniper', state, errors: state === 'disabled' ? 5 : 0, lastError },
          { id: 'bidder', state: 'running', errors: 0, lastError: null },
        ],
      });
    const out = run([
      [0, s('running')],
      [1_000, s('disabled', 'hook onEvent timed out after 2000 ms')],
      [2_000, s('disabled', 'hook onEvent timed out after 2000 ms')],
      [3_000, s('running')],
      [4_000, s('disabled', 'boom')],
    ]);
    expect(keys(out)).toEqual([[], ['strategy_disabled:sniper:1'], [], [], ['strategy_disabled:sniper:2']]);
    expect(out[1]?.[0]).toMatchObject({
      title: 'Strategy sniper disabled',
      text: 'last error: hook onEvent timed out after 2000 ms\n5 error(s); the other strategies keep running',
    });
  });

  it('a credential problem alerts once until it clears', () => {
    const out = run([
      [0, status()],
      [1_000, status({ lastError: 'http_401: the PAT was revoked' })],
      [2_000, status({ lastError: 'network: timeout' })],
      [3_000, status({ lastError: null })],
      [4_000, status({ lastError: 'http_401: again' })],
    ]);
    expect(keys(out)).toEqual([[], ['credential:1'], [], [], ['credential:2']]);
    expect(out[1]?.[0]).toMatchObject({ kind: 'credential', severity: 'critical' });
    expect(out[1]?.[0]?.text).toContain('http_401: the PAT was revoked');
  });

  it('state failed is one fatal alert, keyed as the daemon pushes it', () => {
    const out = run([
      [0, status()],
      [1_000, status({ state: 'failed', error: 'wallet_mismatch: the keystore is not wallet 0xabc' })],
      [2_000, status({ state: 'failed', error: 'wallet_mismatch: the keystore is not wallet 0xabc' })],
    ]);
    expect(keys(out)).toEqual([[], ['fatal'], []]);
    expect(out[1]?.[0]).toMatchObject({ kind: 'fatal', severity: 'critical', at: T0 + 1_000 });
    expect(out[1]?.[0]?.text).toContain('wallet_mismatch');
  });
});

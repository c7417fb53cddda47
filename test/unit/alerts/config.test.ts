// Every key of the alerts section reaches the notifier, its sinks and the detector.
import { describe, expect, it } from 'vitest';
import { alertOfKill, createAlerts, type DetectorStatus } from '../../../src/alerts/index.ts';
import { resolveConfig } from '../../../src/config/index.ts';
import { FakeClock, flush } from '../ratelimit/fake-clock.ts';
import { ev, fakeFetch } from './fakes.ts';

const TOKEN = '7123456789:AAHsecretBotToken_abcdefghijklmnopqr';
const DISCORD = 'http://discord.test/api/webhooks/1/SecretWebhookToken-abcdefghijklmnop';

const ALL_SINKS = {
  HARPOON_TELEGRAM_BOT_TOKEN: TOKEN,
  HARPOON_DISCORD_WEBHOOK_URL: DISCORD,
  HARPOON_ALERT_WEBHOOK_URL: 'http://hook.test/in',
};

function alertsOf(alerts: Record<string, unknown>, env: Record<string, string> = {}) {
  return resolveConfig({ alerts }, { env, cwd: '/tmp' }).config.alerts;
}

describe('createAlerts: the configuration reaches the code', () => {
  it('sinks: the webhook URL, the Telegram chat and API base, the Discord URL and embed switch', async () => {
    const clock = new FakeClock();
    const f = fakeFetch(clock);
    const a = alertsOf(
      {
        telegram: { chatId: '-42', apiBase: 'http://tg.test/' },
        discord: { embed: false },
      },
      ALL_SINKS,
    );
    const { notifier } = createAlerts(a, { clock, fetch: f.fetch });
    notifier.notify(alertOfKill({ at: 1 }));
    await flush();
    expect(f.calls.map((c) => c.url).sort()).toEqual(
      [DISCORD, 'http://hook.test/in', `http://tg.test/bot${TOKEN}/sendMessage`].sort(),
    );
    expect(JSON.parse(f.to('http://tg.test')[0]?.body ?? '{}')).toMatchObject({ chat_id: '-42' });
    expect(JSON.parse(f.to('http://discord.test')[0]?.body ?? '{}')).toHaveProperty('content');
  });

  it('events, maxPerMinute, dedupWindowSec, queueMax, timeoutMs and retry', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    // the second request hangs (timeout), the third answers 500 (retried), then all is well
    const f = fakeFetch(clock, (_c, n) =>
      n === 1 ? { hang: true } : n === 2 ? { status: 500 } : { status: 200 },
    );
    const a = alertsOf({
      webhook: { url: 'http://hook.test/in' },
      events: ['fill'],
      maxPerMinute: 2,
      dedupWindowSec: 30,
      queueMax: 1,
      timeoutMs: 1_000,
      retry: { attempts: 3, baseMs: 200, maxMs: 300 },
    });
    const { notifier } = createAlerts(a, { clock, fetch: f.fetch, random: () => 0 });
    notifier.notify(ev({ kind: 'kill', key: 'k' })); // not among events
    notifier.notify(ev({ key: 'a' }));
    notifier.notify(ev({ key: 'a' })); // within 30 s
    notifier.notify(ev({ key: 'b' }));
    notifier.notify(ev({ key: 'c' })); // queue of 1 behind b: b gives way
    await flush();
    expect(notifier.status()).toMatchObject({ filtered: 1, deduped: 1, dropped: 1 });
    await clock.advance(2_000);
    // a at 0; c hangs until 1000 (timeout), waits 100 (half of 200), then the minute is full (2 requests)
    expect(f.calls.map((c) => [c.body.includes('"key":"a"') ? 'a' : 'c', c.at - t0])).toEqual([
      ['a', 0],
      ['c', 0],
    ]);
    await clock.advance(60_000);
    expect(f.calls.map((c) => c.at - t0)).toEqual([0, 0, 60_000, 60_000 + 150]);
    expect(notifier.status()).toMatchObject({ sent: 2, failed: 0 });
    await clock.advance(30_000);
    notifier.notify(ev({ key: 'a' })); // the window has passed
    await clock.advance(60_000);
    expect(notifier.status().sent).toBe(3);
  });

  it('the detector: streamStaleAfterSec and budgetWarnPct', () => {
    const { detector } = createAlerts(alertsOf({ streamStaleAfterSec: 5, budgetWarnPct: 50 }));
    const s = (stale: boolean, spentToday: string): DetectorStatus => ({
      state: 'running',
      strategies: [],
      spend: [
        {
          account: 'eth-like',
          symbol: 'ETH+WETH',
          spentToday,
          spentTotal: spentToday,
          exposure: '0',
          maxSpendPerDay: '1',
          maxExposure: null,
          budget: null,
        },
      ],
      stream: { stale, channels: [{ key: 'x', ageMs: 9_000, stale }] },
    });
    const t = Date.UTC(2026, 10, 26);
    expect(detector.observe(s(true, '0.4'), t)).toEqual([]);
    expect(detector.observe(s(true, '0.5'), t + 5_000).map((e) => e.key)).toEqual([
      `stream_stale:${t}`,
      'budget:eth-like:spendPerDay:50:2026-11-26',
    ]);
  });
});

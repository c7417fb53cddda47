// The alert sinks against a real local HTTP receiver (node:http on 127.0.0.1) that plays a JSON
// webhook, Telegram's Bot API and a Discord webhook, with the real fetch and real timers; a fourth
// sink answers 500 slowly, then is down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALERT_KINDS,
  type AlertEvent,
  alertOfFatal,
  alertOfFeeChange,
  alertOfFill,
  alertOfGuardRefusal,
  alertOfKill,
  alertOfPause,
  alertOfResume,
  alertSinksOf,
  createAlertDetector,
  createNotifier,
  type DetectorStatus,
  type Notifier,
  webhookSink,
} from '../../../src/alerts/index.ts';
import { resolveConfig } from '../../../src/config/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { FakeHttpServer } from '../../unit/fakes/http-server.ts';
import { canaryHits, memorySink } from '../../unit/observability/sink.ts';

const TOKEN = '7123456789:AAHintegrationBotToken_abcdefghijk';
const DISCORD_PATH = '/api/webhooks/1122334455667788/DiscordIntegrationToken-abcdefghijklmn';
const FAILING_KEY = 'failingSinkKey0123456789';
const SLOW_500_MS = 2_000;

/** One alert of every kind: six pushed through the builders, four found by the detector. */
function everyKind(now: number): AlertEvent[] {
  const detector = createAlertDetector({ streamStaleAfterSec: 1, budgetWarnPct: 80 });
  const base: DetectorStatus = {
    state: 'running',
    strategies: [{ id: 'sniper', state: 'running', errors: 0, lastError: null }],
    spend: [],
    stream: { stale: false, channels: [{ key: 'cool-cats', ageMs: 500, stale: false }] },
    credentials: { lastError: null },
  };
  const edge: DetectorStatus = {
    ...base,
    strategies: [{ id: 'sniper', state: 'disabled', errors: 5, lastError: 'hook onEvent threw' }],
    spend: [
      {
        account: 'eth-like',
        symbol: 'ETH+WETH',
        spentToday: '0.17',
        spentTotal: '0.17',
        exposure: '0',
        maxSpendPerDay: '0.2',
        maxExposure: '0.2',
        budget: null,
      },
    ],
    stream: { stale: true, channels: [{ key: 'cool-cats', ageMs: 95_000, stale: true }] },
    credentials: { lastError: 'http_401: the PAT was revoked' },
  };
  const found = [
    ...detector.observe(base, now),
    ...detector.observe(edge, now),
    ...detector.observe(edge, now + 1_500),
  ];
  return [
    alertOfFill({
      id: '1',
      at: now,
      mode: 'live',
      strategy: 'sniper',
      kind: 'buy',
      collection: 'cool-cats',
      tokenId: '42',
      price: 480_000_000_000_000_000n,
      decimals: 18,
      symbol: 'ETH',
      txHash: `0x${'ab'.repeat(32)}`,
    }),
    alertOfGuardRefusal({
      at: now,
      strategy: 'sniper',
      intent: 'buy_listing',
      reason: 'recipient_mismatch',
      message: 'the NFT would go to someone else',
      collection: 'cool-cats',
    }),
    alertOfKill({ at: now, reason: 'operator', by: 'control endpoint' }),
    alertOfPause({ at: now + 1 }),
    alertOfResume({ at: now + 2 }),
    alertOfFatal({ at: now, code: 'chain_mismatch', message: 'the RPC serves another chain' }),
    alertOfFeeChange({
      at: now,
      collection: 'cool-cats',
      beforeBps: 350n,
      nowBps: 500n,
      fees: [{ fee: 5, recipient: `0x${'cd'.repeat(20)}`, required: true }],
    }),
    ...found,
  ];
}

describe('alert sinks against a local receiver', () => {
  let receiver: FakeHttpServer;
  let failing: FakeHttpServer;
  let notifier: Notifier;
  const log = memorySink();

  beforeAll(async () => {
    receiver = await FakeHttpServer.start();
    failing = await FakeHttpServer.start();
    receiver
      .route('POST', '/hook', { status: 200, body: { received: true } })
      .route('POST', `/bot${TOKEN}/sendMessage`, {
        status: 200,
        body: { ok: true, result: { message_id: 1 } },
      })
      .route('POST', DISCORD_PATH, { status: 204 });
    // 500 after a long wait, then nobody listens any more (connection refused).
    failing.route('POST', '/hook', () => {
      setTimeout(() => void failing.close(), SLOW_500_MS + 100);
      return { status: 500, body: 'internal error', delayMs: SLOW_500_MS };
    });
    const { config } = resolveConfig(
      { alerts: { webhook: {}, telegram: { chatId: '-100200300', apiBase: receiver.url }, discord: {} } },
      {
        env: {
          HARPOON_ALERT_WEBHOOK_URL: `${receiver.url}/hook`,
          HARPOON_TELEGRAM_BOT_TOKEN: TOKEN,
          HARPOON_DISCORD_WEBHOOK_URL: `${receiver.url}${DISCORD_PATH}`,
        },
        cwd: '/tmp',
      },
    );
    notifier = createNotifier({
      sinks: [
        ...alertSinksOf(config.alerts),
        webhookSink({ name: 'failing', url: new Secret(`${failing.url}/hook?key=${FAILING_KEY}`) }),
      ],
      events: config.alerts.events,
      retry: { attempts: 3, baseMs: 50, maxMs: 200 },
      maxPerMinute: 60,
      timeoutMs: 5_000,
      logger: createLogger({ destination: log.stream, level: 'debug' }),
    });
  });

  afterAll(async () => {
    await notifier?.close(1_000);
    await receiver?.close();
    await failing?.close().catch(() => undefined);
  });

  it('each sink receives each kind exactly once; the failing sink is counted and delays nobody', async () => {
    const alerts = everyKind(Date.now());
    expect(alerts.map((e) => e.kind).sort()).toEqual([...ALERT_KINDS].sort());
    const start = Date.now();
    for (const e of alerts) notifier.notify(e);
    for (const e of alerts) notifier.notify(e); // the same keys again: deduplicated
    const until = async (ok: () => boolean, ms: number) => {
      for (const end = Date.now() + ms; !ok() && Date.now() < end; )
        await new Promise((r) => setTimeout(r, 20));
    };
    const good = () => receiver.requests.length;
    /** One delivery of each kind to each of the three good sinks. */
    const deliveries = 3 * ALERT_KINDS.length;
    await until(() => good() >= deliveries, 10_000);
    const lastGood = Math.max(...receiver.requests.map((r) => r.receivedAt));
    // all deliveries came while the failing sink still waited for its first answer
    expect(lastGood - start).toBeLessThan(SLOW_500_MS);
    expect(notifier.status().bySink.failing?.failed).toBe(0);

    const webhook = receiver
      .requestsTo('POST', '/hook')
      .map((r) => JSON.parse(r.body) as { kind: string; key: string });
    expect(webhook.map((b) => b.kind).sort()).toEqual([...ALERT_KINDS].sort());
    const telegram = receiver.requestsTo('POST', `/bot${TOKEN}/sendMessage`).map((r) => JSON.parse(r.body));
    expect(telegram).toHaveLength(ALERT_KINDS.length);
    expect(new Set(telegram.map((b) => b.chat_id))).toEqual(new Set(['-100200300']));
    for (const e of alerts)
      expect(telegram.filter((b) => (b.text as string).split('\n')[0]?.endsWith(` ${e.title}`))).toHaveLength(
        1,
      );
    const discord = receiver.requestsTo('POST', DISCORD_PATH).map((r) => JSON.parse(r.body));
    expect(discord.map((b) => (b.embeds[0].footer.text as string).replace('harpoon · ', '')).sort()).toEqual(
      [...ALERT_KINDS].sort(),
    );

    await until(() => notifier.status().bySink.failing?.failed === ALERT_KINDS.length, 20_000);
    const s = notifier.status();
    expect(s.bySink.failing).toMatchObject({ sent: 0, failed: ALERT_KINDS.length, queued: 0 });
    expect(s.bySink.failing?.lastError).toMatch(/^network error: /);
    expect(failing.requests[0]?.body).toContain('"kind"');
    for (const name of ['webhook', 'telegram', 'discord'])
      expect(s.bySink[name]).toMatchObject({ sent: ALERT_KINDS.length, failed: 0, retries: 0 });
    expect(s).toMatchObject({ sent: 3 * ALERT_KINDS.length, deduped: ALERT_KINDS.length, dropped: 0 });
    // nothing more arrived at the good sinks while the failing one retried
    expect(receiver.requests).toHaveLength(deliveries);
    const seen = `${log.text()}\n${JSON.stringify(s)}`;
    expect(log.text()).toContain('alert not delivered');
    expect(
      canaryHits(seen, [TOKEN, DISCORD_PATH.slice(1), 'DiscordIntegrationToken-abcdefghijklmn', FAILING_KEY]),
    ).toEqual([]);
  });
});

import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  alertOfKill,
  createNotifier,
  discordSink,
  telegramSink,
  webhookSink,
} from '../../../src/alerts/index.ts';
import { Secret } from '../../../src/domain/secret.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { canaryHits, memorySink } from '../observability/sink.ts';
import { FakeClock } from '../ratelimit/fake-clock.ts';
import { ev, fakeFetch } from './fakes.ts';

const TOKEN = '7123456789:AAHsecretBotToken_abcdefghijklmnopqr';
const DISCORD = 'https://discord.com/api/webhooks/1122334455667788/SecretWebhookToken-abcdefghijklmnop';
const HOOK_PASSWORD = 'hunter2-webhook-pass';
const HOOK_KEY = 'queryKeySecret0123456789';
const HOOK = `https://alerts:${HOOK_PASSWORD}@hooks.example/harpoon?key=${HOOK_KEY}`;
const AT = Date.UTC(2026, 10, 26, 4, 30);

describe('sinks: the requests', () => {
  const e = alertOfKill({ at: AT, reason: 'floor crash', by: 'dashboard' });

  it('webhook: POSTs the alert as JSON', () => {
    const r = webhookSink({ url: 'http://127.0.0.1:9/hook' }).request(e);
    expect(r.url).toBe('http://127.0.0.1:9/hook');
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      source: 'harpoon',
      kind: 'kill',
      severity: 'critical',
      at: AT,
      time: '2026-11-26T04:30:00.000Z',
      title: 'Kill switch engaged',
      text: e.text,
      key: `kill:${AT}`,
      data: { reason: 'floor crash', by: 'dashboard', openOffers: null },
    });
  });

  it('telegram: sendMessage of the bot at the configured API base, plain text, chat id', () => {
    const r = telegramSink({
      botToken: new Secret(TOKEN),
      chatId: '-1001234567890',
      apiBase: 'http://127.0.0.1:9/',
    }).request(e);
    expect(r.url).toBe(`http://127.0.0.1:9/bot${TOKEN}/sendMessage`);
    expect(JSON.parse(r.body)).toEqual({
      chat_id: '-1001234567890',
      text: `🚨 Kill switch engaged\n${e.text}`,
      disable_web_page_preview: true,
    });
    const def = telegramSink({ botToken: new Secret(TOKEN), chatId: '@harpoon_ops' }).request(e);
    expect(def.url).toBe(`https://api.telegram.org/bot${TOKEN}/sendMessage`);
  });

  it('discord: an embed by default or plain content; mentions off either way', () => {
    const embed = JSON.parse(discordSink({ webhookUrl: new Secret(DISCORD) }).request(e).body);
    expect(embed).toEqual({
      embeds: [
        {
          title: '🚨 Kill switch engaged',
          description: e.text,
          color: 0xda3633,
          timestamp: '2026-11-26T04:30:00.000Z',
          footer: { text: 'harpoon · kill' },
        },
      ],
      allowed_mentions: { parse: [] },
    });
    const plain = JSON.parse(discordSink({ webhookUrl: new Secret(DISCORD), embed: false }).request(e).body);
    expect(plain).toEqual({
      content: `🚨 **Kill switch engaged**\n${e.text}`,
      allowed_mentions: { parse: [] },
    });
  });

  it('long texts are cut to what the services accept', () => {
    const long = ev({ text: 'x'.repeat(10_000) });
    const tg = JSON.parse(telegramSink({ botToken: new Secret(TOKEN), chatId: '1' }).request(long).body);
    expect(tg.text).toHaveLength(4096);
    const dc = JSON.parse(discordSink({ webhookUrl: new Secret(DISCORD), embed: false }).request(long).body);
    expect(dc.content).toHaveLength(2000);
  });

  it("read the wait of a 429 from Telegram's and Discord's JSON", () => {
    const tg = telegramSink({ botToken: new Secret(TOKEN), chatId: '1' });
    expect(tg.retryAfterMs?.({ ok: false, parameters: { retry_after: 3 } })).toBe(3_000);
    expect(tg.retryAfterMs?.({ ok: false })).toBeUndefined();
    const dc = discordSink({ webhookUrl: new Secret(DISCORD) });
    expect(dc.retryAfterMs?.({ retry_after: 0.25 })).toBe(250);
    expect(dc.retryAfterMs?.('nope')).toBeUndefined();
  });
});

describe('sinks: secrets', () => {
  it('no token or webhook URL reaches a log line, status(), an error text, or the sink printed', async () => {
    const clock = new FakeClock();
    const canaries = [TOKEN, DISCORD, 'SecretWebhookToken-abcdefghijklmnop', HOOK_PASSWORD, HOOK_KEY];
    // Every failure a service or the network can produce, each carrying the URL or the token back.
    const f = fakeFetch(clock, (call, n) => {
      if (n === 0)
        return {
          error: new TypeError(`fetch failed for ${call.url}`, {
            cause: new Error(`connect ECONNREFUSED ${call.url}`),
          }),
        };
      if (n === 1)
        return { status: 401, body: { ok: false, description: `Unauthorized: ${TOKEN} ${call.url}` } };
      return { status: 500, body: `upstream error at ${call.url}` };
    });
    const log = memorySink();
    const sinks = [
      telegramSink({ botToken: new Secret(TOKEN), chatId: '1' }),
      discordSink({ webhookUrl: new Secret(DISCORD) }),
      webhookSink({ url: new Secret(HOOK) }),
    ];
    const notifier = createNotifier({
      sinks,
      clock,
      fetch: f.fetch,
      logger: createLogger({ destination: log.stream, level: 'trace' }),
      random: () => 0,
      retry: { attempts: 2 },
    });
    notifier.notify(ev({ key: 'a' }));
    notifier.notify(ev({ key: 'b' }));
    await clock.advance(60_000);
    // the requests did carry them (the canaries are real) ...
    expect(f.calls.some((c) => c.url.includes(TOKEN))).toBe(true);
    expect(f.calls.some((c) => c.url === DISCORD)).toBe(true);
    // ... and the failures were seen, counted and described
    const s = notifier.status();
    expect(s.failed).toBe(6);
    expect(s.bySink.telegram?.lastError).toMatch(/^HTTP 500: upstream error at http/);
    expect(log.lines().length).toBeGreaterThan(6);
    expect(log.text()).toContain('network error');
    expect(log.text()).toContain('HTTP 401: Unauthorized: [REDACTED]');
    const seen = [log.text(), JSON.stringify(s), inspect(sinks, { depth: 5 }), JSON.stringify(sinks)].join(
      '\n',
    );

    expect(canaryHits(seen, canaries)).toEqual([]);
    await notifier.close(0);
  });
});

import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ALERT_KINDS, alertSinksOf, createAlerts } from '../../../src/alerts/index.ts';
import { resolveConfig } from '../../../src/config/index.ts';
import { sanitizeConfig, secretValues } from '../../../src/config/sanitize.ts';
import { configError } from './helpers.ts';

const TOKEN = '7123456789:AAHsecretBotToken_abcdefghijklmnopqr';
const DISCORD = 'https://discord.com/api/webhooks/1122334455667788/SecretWebhookToken-abcdefghijklmnop';
const HOOK = 'https://alerts:hunter2-webhook-pass@hooks.example/harpoon';

function load(raw: Record<string, unknown>, env: Record<string, string> = {}) {
  return resolveConfig(raw, { env, cwd: '/srv/h' }).config;
}

function problem(raw: Record<string, unknown>, env: Record<string, string> = {}): string {
  return configError(() => load(raw, env)).message;
}

describe('config: alerts', () => {
  it('defaults: every kind, 60 s stale, 80 %, 20 a minute, 10 min dedup, no sink', () => {
    const a = load({}).alerts;
    expect(a).toEqual({
      events: [...ALERT_KINDS],
      streamStaleAfterSec: 60,
      budgetWarnPct: 80,
      maxPerMinute: 20,
      dedupWindowSec: 600,
      queueMax: 100,
      timeoutMs: 10_000,
      retry: { attempts: 5, baseMs: 1_000, maxMs: 60_000 },
    });
    expect(alertSinksOf(a)).toEqual([]);
  });

  it('reads every key; each sink is on by its section, with its secret from the environment', () => {
    const a = load(
      {
        alerts: {
          events: ['fill', 'fatal', 'fill'],
          streamStaleAfterSec: 120,
          budgetWarnPct: 90,
          maxPerMinute: 5,
          dedupWindowSec: 0,
          queueMax: 10,
          timeoutMs: 2_000,
          retry: { attempts: 2, baseMs: 100, maxMs: 400 },
          webhook: { url: 'http://127.0.0.1:9/hook' },
          telegram: { chatId: -1001234567890, apiBase: 'http://127.0.0.1:9/' },
          discord: { embed: false },
        },
      },
      { HARPOON_TELEGRAM_BOT_TOKEN: TOKEN, HARPOON_DISCORD_WEBHOOK_URL: DISCORD },
    ).alerts;
    expect(a).toMatchObject({
      events: ['fill', 'fatal'],
      streamStaleAfterSec: 120,
      budgetWarnPct: 90,
      maxPerMinute: 5,
      dedupWindowSec: 0,
      queueMax: 10,
      timeoutMs: 2_000,
      retry: { attempts: 2, baseMs: 100, maxMs: 400 },
      telegram: { chatId: '-1001234567890', apiBase: 'http://127.0.0.1:9' },
      discord: { embed: false },
    });
    expect(a.webhook?.url.reveal()).toBe('http://127.0.0.1:9/hook');
    expect(a.telegram?.botToken.reveal()).toBe(TOKEN);
    expect(a.discord?.webhookUrl.reveal()).toBe(DISCORD);
    expect(alertSinksOf(a).map((s) => s.name)).toEqual(['webhook', 'telegram', 'discord']);
    const { detector, notifier } = createAlerts(a);
    expect(typeof detector.observe).toBe('function');
    expect(notifier.status().bySink).toHaveProperty('telegram');
  });

  it('the variables alone turn the sinks on (the chat id by HARPOON_TELEGRAM_CHAT_ID)', () => {
    const a = load(
      {},
      {
        HARPOON_ALERT_WEBHOOK_URL: HOOK,
        HARPOON_TELEGRAM_BOT_TOKEN: TOKEN,
        HARPOON_TELEGRAM_CHAT_ID: '@harpoon_ops',
        HARPOON_DISCORD_WEBHOOK_URL: DISCORD,
        HARPOON_ALERTS_EVENTS: 'kill, fatal',
        HARPOON_ALERTS_STREAM_STALE_AFTER_SEC: '30',
        HARPOON_ALERTS_BUDGET_WARN_PCT: '75',
      },
    ).alerts;
    expect(alertSinksOf(a).map((s) => s.name)).toEqual(['webhook', 'telegram', 'discord']);
    expect(a).toMatchObject({
      events: ['kill', 'fatal'],
      streamStaleAfterSec: 30,
      budgetWarnPct: 75,
      telegram: { chatId: '@harpoon_ops', apiBase: 'https://api.telegram.org' },
      discord: { embed: true },
    });
    expect(a.webhook?.url.reveal()).toBe(HOOK);
  });

  it('secrets are printed masked and listed for the log scrubber', () => {
    const config = load(
      { alerts: { telegram: { chatId: '1' } } },
      {
        HARPOON_TELEGRAM_BOT_TOKEN: TOKEN,
        HARPOON_DISCORD_WEBHOOK_URL: DISCORD,
        HARPOON_ALERT_WEBHOOK_URL: HOOK,
      },
    );
    const printed = JSON.stringify(sanitizeConfig(config));
    for (const s of [TOKEN, DISCORD, 'SecretWebhookToken', 'hunter2-webhook-pass']) {
      expect(printed).not.toContain(s);
      expect(inspect(config, { depth: 10 })).not.toContain(s);
    }
    expect(printed).toContain('"webhookUrl":"https://discord.com/[REDACTED]"');
    expect(printed).toContain('"url":"https://[REDACTED]@hooks.example/[REDACTED]"');
    const values = secretValues(config);
    expect(values).toEqual(
      expect.arrayContaining([TOKEN, DISCORD, 'SecretWebhookToken-abcdefghijklmnop', 'hunter2-webhook-pass']),
    );
  });
});

describe('config: alerts — what to fix', () => {
  const cases: [string, Record<string, unknown>, Record<string, string>, RegExp][] = [
    [
      'telegram without its token',
      { alerts: { telegram: { chatId: '1' } } },
      {},
      /alerts\.telegram: is configured but HARPOON_TELEGRAM_BOT_TOKEN is not set\. Fix: set HARPOON_TELEGRAM_BOT_TOKEN to the token @BotFather gave/,
    ],
    [
      'telegram token without a chat',
      {},
      { HARPOON_TELEGRAM_BOT_TOKEN: TOKEN },
      /alerts\.telegram\.chatId: is required to send Telegram alerts\. Fix: set alerts\.telegram\.chatId \(or HARPOON_TELEGRAM_CHAT_ID\)/,
    ],
    [
      'a token that is not one',
      { alerts: { telegram: { chatId: '1' } } },
      { HARPOON_TELEGRAM_BOT_TOKEN: 'not-a-token' },
      /alerts\.telegram \(from environment variable HARPOON_TELEGRAM_BOT_TOKEN\): has a bot token that is not one \(value not shown\)/,
    ],
    [
      'a chat that is not one',
      { alerts: { telegram: { chatId: 'my group' } } },
      { HARPOON_TELEGRAM_BOT_TOKEN: TOKEN },
      /alerts\.telegram\.chatId: "my group" is not a Telegram chat\. Fix: write the numeric chat id/,
    ],
    [
      'discord without its URL',
      { alerts: { discord: {} } },
      {},
      /alerts\.discord: is configured but HARPOON_DISCORD_WEBHOOK_URL is not set\. Fix: set HARPOON_DISCORD_WEBHOOK_URL/,
    ],
    [
      'a discord URL that is not one',
      {},
      { HARPOON_DISCORD_WEBHOOK_URL: 'discord-secret-thing' },
      /alerts\.discord \(from environment variable HARPOON_DISCORD_WEBHOOK_URL\): has a webhook URL that is not an http\(s\) URL \(value not shown\)/,
    ],
    [
      'webhook without a URL',
      { alerts: { webhook: {} } },
      {},
      /alerts\.webhook: is configured but has no URL\. Fix: set HARPOON_ALERT_WEBHOOK_URL/,
    ],
    [
      'a webhook URL with a password in the file',
      { alerts: { webhook: { url: HOOK } } },
      {},
      /alerts\.webhook\.url: carries a credential.*Fix: delete it from the file and set the whole URL in HARPOON_ALERT_WEBHOOK_URL/,
    ],
    [
      'a bot token in the file',
      { alerts: { telegram: { chatId: '1', botToken: TOKEN } } },
      {},
      /alerts\.telegram\.botToken: holds a secret.*Fix: delete it from the file and set HARPOON_TELEGRAM_BOT_TOKEN/,
    ],
    [
      'a Discord webhook URL in the file',
      { alerts: { discord: { webhookUrl: DISCORD } } },
      {},
      /alerts\.discord\.webhookUrl: holds a secret.*HARPOON_DISCORD_WEBHOOK_URL/,
    ],
    ['an unknown kind', { alerts: { events: ['fill', 'fills'] } }, {}, /alerts\.events\[1\]: "fills"/],
    [
      'no kind at all',
      { alerts: { events: [] } },
      {},
      /alerts\.events: an array is out of range\. Fix: use a length at least 1/,
    ],
    [
      'warning level above 100',
      { alerts: { budgetWarnPct: 120 } },
      {},
      /alerts\.budgetWarnPct: 120 is out of range/,
    ],
    [
      'stale of 0 s',
      { alerts: { streamStaleAfterSec: 0 } },
      {},
      /alerts\.streamStaleAfterSec: 0 is out of range/,
    ],
    [
      'retry typo',
      { alerts: { retry: { attempt: 3 } } },
      {},
      /alerts\.retry\.attempt: is not a known key\. Fix: did you mean "attempts"\?/,
    ],
    [
      'section typo',
      { alerts: { telgram: {} } },
      {},
      /alerts\.telgram: is not a known key\. Fix: did you mean "telegram"\?/,
    ],
    [
      'a bad HARPOON_ALERTS_BUDGET_WARN_PCT',
      {},
      { HARPOON_ALERTS_BUDGET_WARN_PCT: '80%' },
      /alerts\.budgetWarnPct \(from environment variable HARPOON_ALERTS_BUDGET_WARN_PCT\)/,
    ],
  ];

  it.each(cases)('%s', (_name, raw, env, re) => {
    const text = problem(raw, env);
    expect(text).toMatch(re);
    for (const s of [TOKEN, DISCORD, 'SecretWebhookToken', 'hunter2-webhook-pass', 'discord-secret-thing'])
      expect(text).not.toContain(s);
  });
});

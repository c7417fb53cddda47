// The three sinks: a JSON webhook, Telegram's Bot API, a Discord webhook. Each one only builds the
// request for an alert and knows its secrets; the notifier sends, retries and counts.
import { urlSecretParts } from '../config/sanitize.ts';
import type { Secret } from '../domain/secret.ts';
import { scrubSecrets } from '../observability/scrub.ts';
import { clip } from './format.ts';
import { type AlertEvent, type AlertSeverity, type AlertSink, DEFAULT_TELEGRAM_API_BASE } from './types.ts';

const JSON_HEADERS = Object.freeze({
  'content-type': 'application/json',
  'user-agent': 'harpoon-alerts',
});

const ICON: Readonly<Record<AlertSeverity, string>> = { info: 'ℹ️', warn: '⚠️', critical: '🚨' };

/** A scrubber of one secret value, and of the credential parts of it when it is a URL. */
function scrubberOf(secret: Secret | string, isUrl: boolean): (text: string) => string {
  const raw = typeof secret === 'string' ? secret : secret.reveal();
  const values = [raw, ...(isUrl ? urlSecretParts(raw) : [])];
  return (text) => scrubSecrets(text, values);
}

/** Seconds in a JSON body (`{retry_after: 1.5}` or Telegram's `{parameters: {retry_after: 5}}`) as ms. */
function seconds(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v * 1000) : undefined;
}

function field(o: unknown, key: string): unknown {
  return o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
}

export interface WebhookSinkOptions {
  /** Where alerts are POSTed; a Secret when it may carry a credential (HARPOON_ALERT_WEBHOOK_URL). */
  readonly url: Secret | string;
  /** Default `webhook`. */
  readonly name?: string;
}

/** POSTs each alert as JSON: `{source, kind, severity, at, time, title, text, key, data}`. */
export function webhookSink(o: WebhookSinkOptions): AlertSink {
  const url = o.url;
  return {
    name: o.name ?? 'webhook',
    request: (e: AlertEvent) => ({
      url: typeof url === 'string' ? url : url.reveal(),
      headers: JSON_HEADERS,
      body: JSON.stringify({
        source: 'harpoon',
        kind: e.kind,
        severity: e.severity,
        at: e.at,
        time: new Date(e.at).toISOString(),
        title: e.title,
        text: e.text,
        key: e.key,
        data: e.data ?? {},
      }),
    }),
    scrub: scrubberOf(url, true),
  };
}

export interface TelegramSinkOptions {
  /** From HARPOON_TELEGRAM_BOT_TOKEN; it is part of every request URL, so it is scrubbed from everything. */
  readonly botToken: Secret;
  /** A chat id (`-1001234567890`) or a channel (`@name`). */
  readonly chatId: string;
  /** Default https://api.telegram.org (tests point it at a local receiver). */
  readonly apiBase?: string;
  /** Default `telegram`. */
  readonly name?: string;
}

/** Telegram's limit on a message's text. */
const TELEGRAM_MAX = 4096;

/** `POST {apiBase}/bot<token>/sendMessage` with plain text (no parse mode: nothing in an alert is markup). */
export function telegramSink(o: TelegramSinkOptions): AlertSink {
  const base = (o.apiBase ?? DEFAULT_TELEGRAM_API_BASE).replace(/\/+$/, '');
  const token = o.botToken;
  return {
    name: o.name ?? 'telegram',
    request: (e) => ({
      url: `${base}/bot${token.reveal()}/sendMessage`,
      headers: JSON_HEADERS,
      body: JSON.stringify({
        chat_id: o.chatId,
        text: clip(`${ICON[e.severity]} ${e.title}\n${e.text}`, TELEGRAM_MAX),
        disable_web_page_preview: true,
      }),
    }),
    scrub: scrubberOf(token, false),
    retryAfterMs: (body) => seconds(field(field(body, 'parameters'), 'retry_after')),
  };
}

export interface DiscordSinkOptions {
  /** From HARPOON_DISCORD_WEBHOOK_URL (the token is in its path). */
  readonly webhookUrl: Secret;
  /** An embed (title, text, colour by severity); false = a plain `content` message. Default true. */
  readonly embed?: boolean;
  /** Default `discord`. */
  readonly name?: string;
}

const DISCORD_COLOR: Readonly<Record<AlertSeverity, number>> = {
  info: 0x2f81f7,
  warn: 0xd29922,
  critical: 0xda3633,
};

/** POSTs `{content}` or `{embeds: [...]}`; mentions are off, so no text of an alert can ping anyone. */
export function discordSink(o: DiscordSinkOptions): AlertSink {
  const url = o.webhookUrl;
  const embed = o.embed ?? true;
  return {
    name: o.name ?? 'discord',
    request: (e) => ({
      url: url.reveal(),
      headers: JSON_HEADERS,
      body: JSON.stringify({
        ...(embed
          ? {
              embeds: [
                {
                  title: clip(`${ICON[e.severity]} ${e.title}`, 256),
                  description: clip(e.text, 4096),
                  color: DISCORD_COLOR[e.severity],
                  timestamp: new Date(e.at).toISOString(),
                  footer: { text: `harpoon · ${e.kind}` },
                },
              ],
            }
          : { content: clip(`${ICON[e.severity]} **${e.title}**\n${e.text}`, 2000) }),
        allowed_mentions: { parse: [] },
      }),
    }),
    scrub: scrubberOf(url, true),
    retryAfterMs: (body) => seconds(field(body, 'retry_after')),
  };
}

// The alert vocabulary. Pure: no imports, so the config schema can name the kinds too.

/** Every kind of alert, in the order the README and the config example list them. */
export const ALERT_KINDS = [
  'fill',
  'guard_refusal',
  'kill',
  'pause',
  'resume',
  'fatal',
  'stream_stale',
  'budget',
  'fees',
  'strategy_disabled',
  'credential',
] as const;

export type AlertKind = (typeof ALERT_KINDS)[number];

/** Where Telegram's Bot API is served. */
export const DEFAULT_TELEGRAM_API_BASE = 'https://api.telegram.org';

export const ALERT_SEVERITIES = ['info', 'warn', 'critical'] as const;

export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** A value an alert carries for machines (the webhook's JSON); never money as a number. */
export type AlertValue = string | number | boolean | null;

/** One thing worth telling the operator. */
export interface AlertEvent {
  readonly kind: AlertKind;
  /** Epoch milliseconds of what happened. */
  readonly at: number;
  readonly severity: AlertSeverity;
  /** One short line (a phone's notification title). */
  readonly title: string;
  /** A few short lines a person reads on a phone. */
  readonly text: string;
  /** Alerts with the same key within the notifier's dedup window are sent once (e.g. `budget:eth-like:spendPerDay:80:2026-11-26`). */
  readonly key: string;
  /** The event's fields for machines; amounts are decimal strings in whole tokens. */
  readonly data?: Readonly<Record<string, AlertValue>>;
}

/** 0 = info, 1 = warn, 2 = critical: a full queue gives up the lowest first. */
export function severityRank(s: AlertSeverity): number {
  return ALERT_SEVERITIES.indexOf(s);
}

/** The HTTP request a sink makes for one alert. */
export interface SinkRequest {
  /** May carry the sink's secret (Telegram's bot token, a Discord webhook): never logged. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** One place alerts go to (a JSON webhook, Telegram, Discord). */
export interface AlertSink {
  /** Unique among the notifier's sinks; shown in status() and logs. */
  readonly name: string;
  /** The request that delivers `e`. */
  request(e: AlertEvent): SinkRequest;
  /** Replaces this sink's secrets in `text` (error texts, response bodies) with `[REDACTED]`. */
  scrub(text: string): string;
  /** How long the service asked to wait, read from an error body (seconds in Telegram's and Discord's JSON). */
  retryAfterMs?(body: unknown): number | undefined;
}

// From the loaded configuration to the notifier and the detector the daemon runs.
import type { AlertsConfig } from '../config/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Clock, Timers } from '../ratelimit/clock.ts';
import { type AlertDetector, createAlertDetector } from './detector.ts';
import { type AlertFetch, createNotifier, type Notifier } from './notifier.ts';
import { discordSink, telegramSink, webhookSink } from './sinks.ts';
import type { AlertSink } from './types.ts';

/** The sinks the configuration turns on (none: alerts are counted, nothing is sent). */
export function alertSinksOf(a: AlertsConfig): AlertSink[] {
  const sinks: AlertSink[] = [];
  if (a.webhook !== undefined) sinks.push(webhookSink({ url: a.webhook.url }));
  if (a.telegram !== undefined)
    sinks.push(
      telegramSink({ botToken: a.telegram.botToken, chatId: a.telegram.chatId, apiBase: a.telegram.apiBase }),
    );
  if (a.discord !== undefined)
    sinks.push(discordSink({ webhookUrl: a.discord.webhookUrl, embed: a.discord.embed }));
  return sinks;
}

export interface AlertsDeps {
  readonly logger?: Logger;
  readonly fetch?: AlertFetch;
  readonly clock?: Clock & Timers;
  readonly random?: () => number;
}

/** The notifier with the configured sinks and knobs, and the detector of state edges. */
export function createAlerts(
  a: AlertsConfig,
  deps: AlertsDeps = {},
): { notifier: Notifier; detector: AlertDetector } {
  const notifier = createNotifier({
    sinks: alertSinksOf(a),
    events: a.events,
    maxPerMinute: a.maxPerMinute,
    dedupWindowMs: a.dedupWindowSec * 1000,
    queueMax: a.queueMax,
    timeoutMs: a.timeoutMs,
    retry: { ...a.retry },
    ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
    ...(deps.fetch !== undefined ? { fetch: deps.fetch } : {}),
    ...(deps.clock !== undefined ? { clock: deps.clock } : {}),
    ...(deps.random !== undefined ? { random: deps.random } : {}),
  });
  const detector = createAlertDetector({
    streamStaleAfterSec: a.streamStaleAfterSec,
    budgetWarnPct: a.budgetWarnPct,
  });
  return { notifier, detector };
}

// Alerts: one notifier with sinks (JSON webhook, Telegram, Discord), the builders of the alerts
// the daemon pushes, and the detector of the alerts that are edges of its status.
export {
  alertOfBudget,
  alertOfCredential,
  alertOfFatal,
  alertOfFeeChange,
  alertOfFill,
  alertOfGuardRefusal,
  alertOfKill,
  alertOfPause,
  alertOfResume,
  alertOfStrategyDisabled,
  alertOfStreamFresh,
  alertOfStreamStale,
  type BudgetAlertInput,
  type FatalAlertInput,
  FILL_KINDS,
  type FillAlertInput,
  type FillKind,
  type GuardRefusalAlertInput,
  isFillKind,
  type StreamStaleAlertInput,
  type SwitchAlertInput,
} from './builders.ts';
export { type AlertsDeps, alertSinksOf, createAlerts } from './config.ts';
export {
  type AlertDetector,
  type AlertDetectorOptions,
  createAlertDetector,
  type DetectorStatus,
} from './detector.ts';
export { formatAmount } from './format.ts';
export {
  type AlertFetch,
  type AlertFetchResponse,
  createNotifier,
  NOTIFIER_DEFAULTS,
  type Notifier,
  type NotifierOptions,
  type NotifierStatus,
  type RetryOptions,
  type SinkStatus,
} from './notifier.ts';
export {
  type DiscordSinkOptions,
  discordSink,
  type TelegramSinkOptions,
  telegramSink,
  type WebhookSinkOptions,
  webhookSink,
} from './sinks.ts';
export {
  ALERT_KINDS,
  ALERT_SEVERITIES,
  type AlertEvent,
  type AlertKind,
  type AlertSeverity,
  type AlertSink,
  type AlertValue,
  DEFAULT_TELEGRAM_API_BASE,
  type SinkRequest,
  severityRank,
} from './types.ts';

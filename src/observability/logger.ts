import { type Logger, type LoggerOptions, pino } from 'pino';
import { scrubSecrets } from './scrub.ts';

export type { Logger } from 'pino';

/**
 * Paths pino blanks out. This is the second line of defence: secrets are `Secret` instances
 * that print `[REDACTED]` on their own; these catch raw strings that slipped into a log object.
 */
export const REDACT_PATHS: readonly string[] = Object.freeze([
  'apiKey',
  'api_key',
  'privateKey',
  'private_key',
  'password',
  'passphrase',
  'token',
  'jwt',
  'pat',
  'cookie',
  'cookies',
  'authorization',
  'secret',
  'mnemonic',
  '*.apiKey',
  '*.api_key',
  '*.privateKey',
  '*.private_key',
  '*.password',
  '*.passphrase',
  '*.token',
  '*.jwt',
  '*.pat',
  '*.cookie',
  '*.cookies',
  '*.authorization',
  '*.secret',
  '*.mnemonic',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  '*.headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["set-cookie"]',
]);

export interface CreateLoggerOptions {
  readonly level?: LoggerOptions['level'];
  readonly name?: string;
  /** Destination stream; default stdout. Tests pass a sink to scan for secrets. */
  readonly destination?: NodeJS.WritableStream;
  /** Raw secret values to scrub from every log line by value (third line of defence). */
  readonly scrub?: () => readonly string[];
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    ...(options.name !== undefined ? { name: options.name } : {}),
  };
  const scrubList = options.scrub;
  const dest = options.destination ?? process.stdout;
  if (scrubList) {
    const wrapped = {
      write(line: string) {
        dest.write(scrubSecrets(line, scrubList()));
        return true;
      },
    };
    return pino(opts, wrapped);
  }
  return pino(opts, dest as pino.DestinationStream);
}

/** A logger that drops everything (for tests and library defaults). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

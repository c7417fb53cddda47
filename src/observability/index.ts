export { isSecret, REDACTED_TEXT, Secret } from '../domain/secret.ts';
export * from './logger.ts';
export * from './scrub.ts';

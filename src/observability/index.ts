export * from './logger.ts';
export * from './scrub.ts';
export { Secret, REDACTED_TEXT, isSecret } from '../domain/secret.ts';

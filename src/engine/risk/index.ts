export * from './checks.ts';
export * from './limits.ts';
export * from './manager.ts';

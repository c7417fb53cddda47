export * from './codec.ts';
export * from './config.ts';
export * from './cron.ts';
export * from './engine.ts';
export * from './loader.ts';
export * from './memory.ts';
export type * from './ports.ts';
export * from './risk/index.ts';
export * from './runner.ts';

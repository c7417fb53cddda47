export * from './clock.ts';
export { schedulerStoreFromConfig } from './cluster.ts';
export * from './headers.ts';
export * from './rates.ts';
export { type RedisStoreConfig, redactRedisUrl } from './redis-store.ts';
export { createScheduler, type SchedulerOptions, type StoreConfig, stoppedError } from './scheduler.ts';
export * from './types.ts';

import type { ClusterConfig } from '../config/types.ts';
import { ConfigError } from '../errors/index.ts';
import type { StoreConfig } from './scheduler.ts';

/**
 * The scheduler's `store` option from the config's `rateLimits.cluster`: `local` (or no cluster
 * section) keeps the buckets in this process; `redis` shares one bucket per group with every
 * daemon of `account` through `redisUrl`. The URL stays a Secret (it may hold a password) until
 * the Redis client is created.
 */
export function schedulerStoreFromConfig(cluster: ClusterConfig | undefined): StoreConfig {
  if (cluster === undefined || cluster.store === 'local') return { kind: 'local' };
  if (cluster.redisUrl === undefined) {
    throw new ConfigError(
      'rateLimits.cluster.redisUrl is required when rateLimits.cluster.store is "redis". Fix: set HARPOON_REDIS_URL (e.g. redis://127.0.0.1:6379) or use store: local',
      { code: 'redis_url_missing' },
    );
  }
  return { kind: 'redis', url: cluster.redisUrl, account: cluster.account };
}

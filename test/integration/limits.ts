/**
 * Rate limits roomy enough that no integration test waits on them: the sandbox's per-key buckets
 * and the daemon's own rates, one hour windows. Tests of rate limiting set their own small limits.
 */
import type { GroupRates } from '../../src/ratelimit/types.ts';
import type { BucketLimit, LimitGroup } from '../../src/sandbox/ratelimit/token-bucket.ts';

const HOUR = 3_600_000;

/** The sandbox's per-key buckets (`createSandbox` option `limits`): `capacity` requests an hour in each group. */
export function roomyLimits(capacity = 100_000): Readonly<Record<LimitGroup, BucketLimit>> {
  const bucket: BucketLimit = Object.freeze({ capacity, windowMs: HOUR });
  return Object.freeze({ read: bucket, write: bucket, fulfillment: bucket });
}

/** The daemon's own rates (daemon or scheduler option `rates`): `count` requests an hour in each group. */
export function roomyRates(count = 100_000): GroupRates {
  const rate = Object.freeze({ count, windowMs: HOUR });
  return Object.freeze({ read: rate, write: rate, fulfillment: rate });
}

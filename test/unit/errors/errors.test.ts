import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  BaseError,
  ConfigError,
  FatalError,
  isBaseError,
  RateLimitedError,
  RejectedError,
  StrategyError,
  SupersededError,
  TransientError,
} from '../../../src/errors/index.ts';

describe('error classes', () => {
  it('BaseError carries code, shortMessage, frozen details and cause', () => {
    const cause = new Error('socket hang up');
    const e = new BaseError('net', 'network failed', { details: { host: 'api.example' }, cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('BaseError');
    expect(e.code).toBe('net');
    expect(e.message).toBe('network failed');
    expect(e.shortMessage).toBe('network failed');
    expect(e.details).toEqual({ host: 'api.example' });
    expect(Object.isFrozen(e.details)).toBe(true);
    expect(e.cause).toBe(cause);
    expect(new BaseError('x', 'y').cause).toBeUndefined();
    expect(new BaseError('x', 'y').details).toEqual({});
  });

  it('toJSON serializes only name, code, message and details (never the cause)', () => {
    const cause = Object.assign(new Error('raw'), { request: { headers: { 'x-api-key': 'canary-key-1' } } });
    const e = new TransientError('timeout', 'timed out', { details: { path: '/api/v2/x' }, cause });
    expect(e.toJSON()).toEqual({
      name: 'TransientError',
      code: 'timeout',
      message: 'timed out',
      details: { path: '/api/v2/x' },
    });
    expect(JSON.stringify(e)).not.toContain('canary-key-1');
    expect(JSON.parse(JSON.stringify({ err: e }))).toEqual({ err: e.toJSON() });
  });

  it('ConfigError defaults its code and accepts another', () => {
    expect(new ConfigError('bad').code).toBe('config_invalid');
    expect(new ConfigError('missing', { code: 'config_not_found' }).code).toBe('config_not_found');
    expect(new ConfigError('bad', { details: { file: 'h.yaml' } }).details).toEqual({ file: 'h.yaml' });
  });

  it('TransientError records whether the request may have been processed', () => {
    expect(new TransientError('http_500', 'server error').maybeProcessed).toBe(false);
    expect(new TransientError('timeout', 't', { maybeProcessed: true }).maybeProcessed).toBe(true);
  });

  it('RateLimitedError says which group and how long to wait', () => {
    const e = new RateLimitedError('write', 1234.2, { details: { status: 429 } });
    expect(e.code).toBe('rate_limited');
    expect(e.group).toBe('write');
    expect(e.retryAfterMs).toBe(1234.2);
    expect(e.shortMessage).toBe("rate limited in group 'write': retry in 1235 ms");
    expect(e.details).toEqual({ group: 'write', retryAfterMs: 1234.2, status: 429 });
    expect(e.maybeProcessed).toBe(false);
  });

  it('SupersededError and StrategyError carry their keys', () => {
    const s = new SupersededError('offer:azuki');
    expect(s.code).toBe('superseded');
    expect(s.coalesceKey).toBe('offer:azuki');
    expect(s.details).toEqual({ coalesceKey: 'offer:azuki' });
    const st = new StrategyError('sniper', 'hook threw', { details: { hook: 'onListing' } });
    expect(st.code).toBe('strategy_failed');
    expect(st.strategyId).toBe('sniper');
    expect(st.details).toEqual({ strategyId: 'sniper', hook: 'onListing' });
  });

  it('names each instance after its class', () => {
    expect(new FatalError('revoked', 'key revoked').name).toBe('FatalError');
    expect(new RejectedError('http_404', 'not found').name).toBe('RejectedError');
    expect(new SupersededError('k').name).toBe('SupersededError');
    expect(new RateLimitedError('read', 1).name).toBe('RateLimitedError');
  });
});

describe('instanceof chain (the daemon reacts by class)', () => {
  const cases: Array<
    [BaseError, Array<new (...args: never[]) => Error>, Array<new (...args: never[]) => Error>]
  > = [
    [new ConfigError('c'), [ConfigError, BaseError, Error], [FatalError, TransientError, RejectedError]],
    [new FatalError('f', 'f'), [FatalError, BaseError], [ConfigError, TransientError, RejectedError]],
    [new TransientError('t', 't'), [TransientError, BaseError], [RateLimitedError, RejectedError]],
    [
      new RateLimitedError('read', 10),
      [RateLimitedError, TransientError, BaseError],
      [RejectedError, FatalError],
    ],
    [new RejectedError('r', 'r'), [RejectedError, BaseError], [SupersededError, TransientError]],
    [new SupersededError('k'), [SupersededError, RejectedError, BaseError], [TransientError, FatalError]],
    [new StrategyError('s', 's'), [StrategyError, BaseError], [RejectedError, FatalError]],
  ];

  it.each(cases)('%s', (err, is, isNot) => {
    for (const cls of is) expect(err).toBeInstanceOf(cls);
    for (const cls of isNot) expect(err).not.toBeInstanceOf(cls);
    expect(isBaseError(err)).toBe(true);
  });

  it('isBaseError is false for plain errors and values', () => {
    expect(isBaseError(new Error('x'))).toBe(false);
    expect(isBaseError({ code: 'x', shortMessage: 'y' })).toBe(false);
    expect(isBaseError(undefined)).toBe(false);
  });

  it('keeps a stack trace and shows class and code in inspect', () => {
    const e = new RejectedError('http_409', 'drop not active');
    expect(e.stack).toContain('RejectedError');
    expect(inspect(e)).toContain('http_409');
  });
});

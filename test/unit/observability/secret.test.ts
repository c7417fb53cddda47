import { Console } from 'node:console';
import { format, inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger, isSecret, REDACTED_TEXT, Secret } from '../../../src/observability/index.ts';
import { memorySink } from './sink.ts';

const RAW = 'sk-canary-secret-value-1234';

describe('Secret prints [REDACTED] everywhere', () => {
  const s = new Secret(RAW, 'apiKey');

  it('String(), template literals, concatenation and toString', () => {
    expect(String(s)).toBe('[REDACTED]');
    expect(`${s}`).toBe('[REDACTED]');
    expect('key=' + s).toBe('key=[REDACTED]');
    expect(s.toString()).toBe('[REDACTED]');
    expect(REDACTED_TEXT).toBe('[REDACTED]');
  });

  it('JSON.stringify, alone and nested', () => {
    expect(JSON.stringify(s)).toBe('"[REDACTED]"');
    expect(JSON.stringify({ a: { b: [s] } })).toBe('{"a":{"b":["[REDACTED]"]}}');
  });

  it('util.inspect, with showHidden and depth, nested', () => {
    expect(inspect(s)).toBe('[REDACTED]');
    const nested = inspect({ deep: { deeper: { s } } }, { showHidden: true, depth: 10 });
    expect(nested).toContain('[REDACTED]');
    expect(nested).not.toContain(RAW);
  });

  it.each(['%s', '%o', '%O', '%j', '%i', '%d', '%f'])('util.format %s', (spec) => {
    expect(format(spec, s)).not.toContain(RAW);
    expect(format(spec, { s })).not.toContain(RAW);
  });

  it('console.log / console.error formatting', () => {
    const sink = memorySink();
    const c = new Console({ stdout: sink.stream, stderr: sink.stream });
    c.log(s);
    c.log('key %s', s);
    c.error({ nested: { s } });
    c.table([{ s }]);
    c.dir({ s }, { depth: 5 });
    const text = sink.text();
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(RAW);
  });

  it('pino, as a field, nested, in the message and inside an error', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream });
    log.info({ key: s, nested: { deep: { key2: s } } }, 'with %s', s);
    log.info(`template ${s}`);
    log.error({ err: new Error(`failed with ${s}`) }, 'boom');
    const text = sink.text();
    expect(sink.lines()).toHaveLength(3);
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(RAW);
  });

  it('spreads and Object.entries expose only the label', () => {
    expect({ ...s }).toEqual({ label: 'apiKey' });
    expect(JSON.stringify(Object.entries(s))).not.toContain(RAW);
  });

  it('reveals only on purpose, compares without revealing, and is immutable', () => {
    expect(s.reveal()).toBe(RAW);
    expect(s.equals(RAW)).toBe(true);
    expect(s.equals(`${RAW}x`)).toBe(false);
    expect(s.equals('sk-canary-secret-value-1235')).toBe(false);
    expect(isSecret(s)).toBe(true);
    expect(isSecret(RAW)).toBe(false);
    expect(Object.isFrozen(s)).toBe(true);
    expect(() => new Secret(42 as unknown as string)).toThrow(TypeError);
  });
});

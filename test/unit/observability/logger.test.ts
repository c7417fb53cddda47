import { describe, expect, it } from 'vitest';
import { createLogger, REDACT_PATHS, scrubSecrets, silentLogger } from '../../../src/observability/index.ts';
import { memorySink } from './sink.ts';

/** Turns a redact path (`a.b`, `*.x`, `headers["x-api-key"]`) into segments; `*` becomes a concrete key. */
function segments(path: string): string[] {
  const out: string[] = [];
  const re = /([^.[\]]+)|\["([^"]+)"\]/g;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) out.push((m[1] ?? m[2]) as string);
  return out.map((s) => (s === '*' ? 'wrapper' : s));
}

function objectAt(path: readonly string[], value: unknown): Record<string, unknown> {
  let node: unknown = value;
  for (const seg of [...path].reverse()) node = { [seg]: node };
  return node as Record<string, unknown>;
}

describe('createLogger redaction (REDACT_PATHS)', () => {
  it.each(REDACT_PATHS.map((p) => [p]))('blanks %s', (path) => {
    const canary = `canary-${path.replace(/\W/g, '')}-value`;
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream });
    log.info(objectAt(segments(path), canary), 'redaction');
    const text = sink.text();
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(canary);
  });

  it('covers the credential field names of the API and the wallet', () => {
    for (const name of [
      'apiKey',
      'privateKey',
      'password',
      'jwt',
      'pat',
      'token',
      'authorization',
      'cookie',
    ]) {
      expect(REDACT_PATHS).toContain(name);
      expect(REDACT_PATHS).toContain(`*.${name}`);
    }
    expect(REDACT_PATHS).toContain('headers["x-api-key"]');
  });

  it('keeps ordinary fields and honours the level', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, level: 'warn', name: 'test' });
    log.info({ slug: 'azuki' }, 'dropped');
    log.warn({ slug: 'azuki' }, 'kept');
    expect(sink.lines()).toEqual([expect.objectContaining({ slug: 'azuki', msg: 'kept', name: 'test' })]);
  });

  it('silentLogger writes nothing and does not throw', () => {
    const log = silentLogger();
    expect(() => log.error({ apiKey: 'x' }, 'nothing')).not.toThrow();
    expect(log.level).toBe('silent');
  });
});

describe('value scrubbing (third line of defence)', () => {
  const canary = 'canary/key+with=odd&chars-77';

  it('scrubSecrets replaces raw and URL-encoded forms', () => {
    const text = `raw ${canary} encoded ${encodeURIComponent(canary)} twice ${canary}`;
    const out = scrubSecrets(text, [canary]);
    expect(out).toBe('raw [REDACTED] encoded [REDACTED] twice [REDACTED]');
  });

  it('ignores values too short to be secrets (no blanking of common words)', () => {
    expect(scrubSecrets('an abc b', ['abc', ''])).toBe('an abc b');
  });

  it('a logger with scrub catches raw secrets where key-based redaction cannot', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, scrub: () => [canary] });
    log.info(
      { request: { _header: `GET /?k=${encodeURIComponent(canary)}\r\nx-api-key: ${canary}` } },
      'deep',
    );
    log.error({ err: new Error(`upstream said ${canary}`) }, `message ${canary}`);
    log.info({ a: { b: { c: { apiKey: canary } } } }, 'deeper than *.apiKey');
    const text = sink.text();
    expect(sink.lines()).toHaveLength(3);
    expect(text).not.toContain(canary);
    expect(text).not.toContain(encodeURIComponent(canary));
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(5);
  });

  it('reads the scrub list on every line (secrets added later are scrubbed too)', () => {
    const sink = memorySink();
    const list: string[] = [];
    const log = createLogger({ destination: sink.stream, scrub: () => list });
    list.push('rotated-key-123456');
    log.info('now rotated-key-123456');
    expect(sink.text()).not.toContain('rotated-key-123456');
  });
});

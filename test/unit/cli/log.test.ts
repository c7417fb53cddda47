import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandLogger, humanLogLine } from '../../../src/cli/log.ts';
import { main } from '../../../src/cli/main.ts';
import { fakeIo } from './fake-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'harpoon-cli-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('humanLogLine', () => {
  it('turns a pino line into one a person reads: level, part, message, error, fields', () => {
    const line = JSON.stringify({
      level: 50,
      time: 1,
      pid: 2,
      hostname: 'h',
      name: 'harpoon',
      part: 'stream',
      err: {
        type: 'TransientError',
        message: 'long',
        shortMessage: 'socket closed',
        code: 'stream_down',
        stack: 'S',
      },
      attempt: 3,
      msg: 'reconnecting',
    });
    expect(humanLogLine(line)).toBe(
      'harpoon: error: [stream] reconnecting: socket closed [stream_down] (attempt=3)',
    );
    expect(humanLogLine(line, true)).toBe(
      'harpoon: error: [stream] reconnecting: socket closed [stream_down]\nS (attempt=3)',
    );
    expect(humanLogLine(JSON.stringify({ level: 30, msg: 'joined', topic: { a: 1 } }))).toBe(
      'harpoon: joined (topic={"a":1})',
    );
    expect(humanLogLine(JSON.stringify({ level: 40, msg: 'slow', ms: 'x'.repeat(200) }))).toMatch(
      /^harpoon: warning: slow \(ms=x{160}…\)$/,
    );
    expect(humanLogLine('not json')).toBe('not json');
  });

  it('commandLogger writes human lines, or JSON lines when log.pretty is false', () => {
    const human = fakeIo();
    commandLogger(human, { level: 'info', prettyByDefault: true }).warn({ n: 1 }, 'careful');
    expect(human.err()).toBe('harpoon: warning: careful (n=1)\n');
    const json = fakeIo();
    commandLogger(json, { level: 'info', pretty: false, prettyByDefault: true }).warn({ n: 1 }, 'careful');
    expect(JSON.parse(json.err())).toMatchObject({ level: 40, msg: 'careful', n: 1 });
    const off = fakeIo();
    commandLogger(off, { level: 'info', prettyByDefault: false }).info('x');
    expect(JSON.parse(off.err())).toMatchObject({ level: 30, msg: 'x' });
  });
});

describe('harpoon record: one kind of line on stderr', () => {
  const config = join(dir, 'rec.yaml');
  writeFileSync(
    config,
    'mode: paper\ncollections: [harpoon-apes]\napi:\n  baseUrl: http://127.0.0.1:9\n  streamUrl: ws://127.0.0.1:9/socket\n',
  );
  const env = { HARPOON_RPC_URL: 'http://127.0.0.1:9', HARPOON_API_KEY: 'a-test-api-key' };

  it('its log (here: the start failing, nothing listens) comes in human lines beside the progress', async () => {
    const io = fakeIo(env, dir);
    const code = await main(['record', '-c', config, '--out', join(dir, 'm.tape'), '--seconds', '5'], io);
    expect(code, io.err()).toBe(1);
    expect(io.err()).toMatch(/^harpoon: error: start failed: eth_chainId failed.* \[rpc_unavailable\]/m);
    for (const line of io
      .err()
      .split('\n')
      .filter((l) => l !== ''))
      expect(line, io.err()).not.toMatch(/^\{/);
  }, 30_000);

  it('log.pretty: false (HARPOON_LOG_PRETTY=false) keeps the log in JSON lines', async () => {
    const io = fakeIo({ ...env, HARPOON_LOG_PRETTY: 'false' }, dir);
    const code = await main(['record', '-c', config, '--out', join(dir, 'm.tape'), '--seconds', '5'], io);
    expect(code, io.err()).toBe(1);
    const json = io
      .err()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string });
    expect(json.map((l) => l.msg)).toContain('start failed');
  }, 30_000);
});

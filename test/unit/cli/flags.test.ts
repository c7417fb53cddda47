import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseSandboxFlags } from '../../../src/cli/commands/sandbox.ts';
import { COMMANDS } from '../../../src/cli/commands.ts';
import { UsageError } from '../../../src/cli/exit.ts';
import {
  CHAIN_ID_FLAG,
  checkFlags,
  checkFlagValue,
  EVERY_FLAG,
  longTimeout,
  MAX_TIMER_MS,
  numberFlag,
  RECORD_SECONDS_FLAG,
  SEED_FLAG,
  URL_FLAG,
} from '../../../src/cli/flags.ts';
import { joinNegativeValues, main } from '../../../src/cli/main.ts';
import { GLOBAL_FLAGS } from '../../../src/cli/spec.ts';
import { fakeIo } from './fake-io.ts';

/** Every flag's values, checked in process through main() (nothing starts: the check comes first). */

async function usage(args: string[]): Promise<string> {
  const io = fakeIo();
  const code = await main(args, io);
  expect(code, `${args.join(' ')}: ${io.err()}`).toBe(2);
  expect(io.out()).toBe('');
  expect(io.err()).not.toMatch(/\n\s+at /);
  return io.err();
}

describe('every string flag of every command says what it allows', () => {
  it('has a check and an example that passes it', () => {
    for (const c of COMMANDS) {
      for (const f of [...GLOBAL_FLAGS, ...c.flags]) {
        if (f.type !== 'string') continue;
        expect(f.check, `${c.name} --${f.name}`).toBeDefined();
        expect(f.example, `${c.name} --${f.name}`).toBeDefined();
        const example = (f.example as string).replace(/^"(.*)"$/, '$1');
        expect(() => checkFlagValue(f, example, c.name), `${c.name} --${f.name} ${example}`).not.toThrow();
      }
    }
  });

  it('no interval flag can overflow a Node timer (record --seconds waits through longTimeout)', () => {
    for (const f of COMMANDS.flatMap((c) => c.flags)) {
      if (f === RECORD_SECONDS_FLAG) continue;
      if (f.check?.kind === 'integer' && f.check.unit === 'seconds')
        expect(f.check.max * 1000, f.name).toBeLessThanOrEqual(MAX_TIMER_MS);
    }
  });

  it('longTimeout waits longer than one timer can: a year fires after a year, not at once', () => {
    vi.useFakeTimers({ now: 0 });
    try {
      let fired = 0;
      const year = 365 * 86_400_000;
      longTimeout(() => fired++, year);
      vi.advanceTimersByTime(MAX_TIMER_MS + 1);
      expect(fired).toBe(0);
      vi.advanceTimersByTime(year - MAX_TIMER_MS - 2);
      expect(fired).toBe(0);
      vi.advanceTimersByTime(1);
      expect(fired).toBe(1);
      vi.advanceTimersByTime(year);
      expect(fired).toBe(1);
      // cancelled: never
      const cancel = longTimeout(() => fired++, year);
      vi.advanceTimersByTime(MAX_TIMER_MS);
      cancel();
      vi.advanceTimersByTime(year);
      expect(fired).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('bad values are usage errors (exit 2) naming the flag, the value and what is allowed', () => {
  it.each([
    // run --every: NaN printed thousands of status lines; huge values overflowed the timer
    [['run', '--every', 'abc'], '--every: "abc" is not a whole number of seconds from 5 to 86400'],
    [['run', '--every', '4'], '--every: "4" is not a whole number of seconds from 5 to 86400'],
    [['run', '--every', '86401'], '--every: "86401" is not a whole number of seconds from 5 to 86400'],
    [
      ['run', '--every', '99999999999'],
      '--every: "99999999999" is not a whole number of seconds from 5 to 86400',
    ],
    [['run', '--every', '7.5'], '--every: "7.5" is not a whole number of seconds from 5 to 86400'],
    [['run', '--every', '1e3'], '--every: "1e3" is not a whole number of seconds from 5 to 86400'],
    [['run', '--every='], '--every: "" is not a whole number of seconds from 5 to 86400'],
    [['run', '--every', '-5'], '--every: "-5" is not a whole number of seconds from 5 to 86400'],
    // sandbox: negative numbers as values, both spellings
    [['sandbox', '--seed', '-1'], '--seed: "-1" is not a whole number from 0 to 4294967295'],
    [['sandbox', '--seed=-1'], '--seed: "-1" is not a whole number from 0 to 4294967295'],
    [['sandbox', '--seed', '4294967296'], '--seed: "4294967296" is not a whole number from 0 to 4294967295'],
    [['sandbox', '--seed', '0x10'], '--seed: "0x10" is not a whole number from 0 to 4294967295'],
    [['sandbox', '--port', '70000'], '--port: "70000" is not a whole number from 0 to 65535'],
    [['sandbox', '--port', '-1'], '--port: "-1" is not a whole number from 0 to 65535'],
    [['sandbox', '--port', 'http'], '--port: "http" is not a whole number from 0 to 65535'],
    [
      ['sandbox', '--activity', '-0.5'],
      '--activity: "-0.5" is not a number of actions per second from 0 to 10000',
    ],
    [
      ['sandbox', '--activity', 'lots'],
      '--activity: "lots" is not a number of actions per second from 0 to 10000',
    ],
    [
      ['sandbox', '--activity', 'Infinity'],
      '--activity: "Infinity" is not a number of actions per second from 0 to 10000',
    ],
    [['sandbox', '--chain-id', '12345'], '--chain-id: "12345" is not one of 1 (ethereum), 10 (optimism)'],
    [['sandbox', '--chain-id', '0'], '--chain-id: "0" is not one of 1 (ethereum)'],
    // status / kill / pause / resume: the URL is checked before anything is dialled
    [['status', '--url', 'notaurl'], '--url: "notaurl" is not a URL; allowed: an http:// or https:// URL'],
    [['status', '--url', 'ftp://h:1'], '--url: "ftp://h:1" has the scheme ftp; allowed: an http://'],
    [['status', '--url', 'http://h:1/?x=1'], '--url: "http://h:1/?x=1" has a query or fragment'],
    [['status', '--url='], '--url: "" is not a URL'],
    [['kill', '--url', '127.0.0.1:8787'], '--url: "127.0.0.1:8787" is not a URL'],
    [['pause', '--url', 'localhost'], '--url: "localhost" is not a URL'],
    [['resume', '--url', 'ws://127.0.0.1:1'], '--url: "ws://127.0.0.1:1" has the scheme ws'],
    // a URL with a port no TCP port can have says so (it read "is not a URL")
    [
      ['status', '--url', 'http://127.0.0.1:99999'],
      '--url: "http://127.0.0.1:99999" has the port 99999, out of range (a port is 1 to 65535)',
    ],
    [
      ['mcp', '--url', 'https://[::1]:65536/'],
      '--url: "https://[::1]:65536/" has the port 65536, out of range (a port is 1 to 65535)',
    ],
    [
      ['kill', '--url', 'http://localhost:0'],
      '--url: "http://localhost:0" has the port 0, out of range (a port is 1 to 65535)',
    ],
    [['kill', '--reason='], '--reason: "" is not one line of 1 to 200 characters'],
    [['kill', '--reason', 'a\nb'], '--reason: "a\\nb" is not one line of 1 to 200 characters'],
    [
      ['kill', '--reason', 'x'.repeat(201)],
      `--reason: "${'x'.repeat(80)}…" is not one line of 1 to 200 characters`,
    ],
    // demo
    [['demo', '--seconds', '0'], '--seconds: "0" is not a whole number of seconds from 1 to 3600'],
    [['demo', '--seconds', 'soon'], '--seconds: "soon" is not a whole number of seconds from 1 to 3600'],
    [['demo', '--seconds', '3601'], '--seconds: "3601" is not a whole number of seconds from 1 to 3600'],
    // --config: a path is needed (a missing file is the config loader's ConfigError, also exit 2)
    [['config', 'check', '--config='], '--config: "" is not a file path (it is empty)'],
    [['run', '-c', ''], '--config: "" is not a file path (it is empty)'],
    [['status', '--config='], '--config: "" is not a file path (it is empty)'],
  ])('harpoon %j', async (args, message) => {
    const err = await usage(args);
    expect(err).toContain(`harpoon: ${message}`);
    // the hint shows an allowed value and where to read more
    const command = COMMANDS.find((c) => c.name === args[0] || c.name === `${args[0]} ${args[1]}`);
    expect(err).toMatch(new RegExp(`e\\.g\\. harpoon ${command?.name} --[a-z-]+ \\S+`));
    expect(err).toContain(`see "harpoon help ${command?.name}"`);
  });

  it('a URL with a password is refused without echoing the password', async () => {
    const err = await usage(['status', '--url', 'http://admin:hunter2-pw@127.0.0.1:8787']);
    expect(err).toContain('--url: "http://[REDACTED]@127.0.0.1:8787" carries a user or password');
    expect(err).not.toContain('hunter2');
  });

  it('an option followed by another option instead of its value says so', async () => {
    const err = await usage(['status', '--config', '--json']);
    expect(err).toContain('harpoon: option --config needs a value, but it is followed by "--json"');
    expect(err).toContain('--config=-VALUE');
    const dash = await usage(['kill', '--reason', '-x']);
    expect(dash).toContain('option --reason needs a value, but it is followed by "-x"');
    expect(dash).toContain('--reason=-VALUE');
  });

  it('an option without its value names the value it needs', async () => {
    const err = await usage(['sandbox', '--port']);
    expect(err).toContain('harpoon: option --port: argument missing (it needs a value: --port N)');
    expect(err).toContain('e.g. --port 8080');
  });

  it('status --url notaurl is a usage error, not "no daemon answers"', async () => {
    const err = await usage(['status', '--url', 'notaurl']);
    expect(err).not.toMatch(/no daemon answers/);
  });
});

describe('good values', () => {
  it('are parsed: numbers for numeric flags, a URL without its trailing slash', () => {
    const status = COMMANDS.find((c) => c.name === 'status');
    const sandbox = COMMANDS.find((c) => c.name === 'sandbox');
    const run = COMMANDS.find((c) => c.name === 'run');
    expect(checkFlags(run?.flags ?? [], { every: '5', paper: true }, 'run')).toEqual({
      every: 5,
      paper: true,
    });
    expect(checkFlags(run?.flags ?? [], { every: '86400' }, 'run')).toEqual({ every: 86_400 });
    expect(
      checkFlags(
        sandbox?.flags ?? [],
        { seed: '4294967295', port: '0', activity: '2.5', 'chain-id': '8453' },
        'sandbox',
      ),
    ).toEqual({ seed: 4_294_967_295, port: 0, activity: 2.5, 'chain-id': 8453 });
    expect(checkFlags(status?.flags ?? [], { url: 'http://127.0.0.1:8787/' }, 'status')).toEqual({
      url: 'http://127.0.0.1:8787',
    });
    expect(checkFlagValue(URL_FLAG, 'https://bot.example/harpoon/')).toBe('https://bot.example/harpoon');
    // an endpoint's URL copied whole (the demo prints <url>/status) is taken as the daemon's base URL
    for (const endpoint of [
      'status',
      'health/',
      'metrics',
      'mcp',
      'kill',
      'pause',
      'resume',
      'events',
      'api/snapshot',
    ])
      expect(checkFlagValue(URL_FLAG, `http://127.0.0.1:8787/${endpoint}`), endpoint).toBe(
        'http://127.0.0.1:8787',
      );
    expect(checkFlagValue(URL_FLAG, 'https://bot.example/harpoon/status')).toBe(
      'https://bot.example/harpoon',
    );
    expect(checkFlagValue(URL_FLAG, 'https://bot.example/statuses')).toBe('https://bot.example/statuses');
    expect(checkFlagValue(URL_FLAG, 'http://status:8787')).toBe('http://status:8787');
    expect(checkFlagValue(URL_FLAG, 'http://[::1]:8787/mcp')).toBe('http://[::1]:8787');
    expect(checkFlagValue(SEED_FLAG, '+7')).toBe(7);
  });

  it('--seed -1 is read as --seed=-1 (a negative number is never an option); other args are kept', () => {
    const flags = COMMANDS.flatMap((c) => c.flags);
    expect(joinNegativeValues(['sandbox', '--seed', '-1', '--port', '8'], flags)).toEqual([
      'sandbox',
      '--seed=-1',
      '--port',
      '8',
    ]);
    expect(joinNegativeValues(['sandbox', '--activity', '-.5'], flags)).toEqual([
      'sandbox',
      '--activity=-.5',
    ]);
    expect(joinNegativeValues(['run', '-c', '-1.yaml'], flags)).toEqual(['run', '-c-1.yaml']);
    // booleans take no value; after `--` nothing is touched
    expect(joinNegativeValues(['run', '--paper', '-1'], flags)).toEqual(['run', '--paper', '-1']);
    expect(joinNegativeValues(['x', '--', '--seed', '-1'], flags)).toEqual(['x', '--', '--seed', '-1']);
  });

  it('numberFlag checks raw values when a command is called directly (no main())', () => {
    expect(numberFlag({}, EVERY_FLAG, 30)).toBe(30);
    expect(numberFlag({ every: 12 }, EVERY_FLAG, 30)).toBe(12);
    expect(numberFlag({ every: '12' }, EVERY_FLAG, 30)).toBe(12);
    expect(() => numberFlag({ every: 'abc' }, EVERY_FLAG, 30, 'run')).toThrow(UsageError);
    expect(parseSandboxFlags({ seed: '9', 'chain-id': '10' })).toEqual({
      port: 0,
      seed: 9,
      activity: 3,
      chainId: 10,
    });
    expect(() => parseSandboxFlags({ seed: '-1' })).toThrow(/--seed: "-1" is not a whole number/);
    expect(() => checkFlagValue(CHAIN_ID_FLAG, '8453.0')).toThrow(UsageError);
  });
});

describe('--url of a running daemon', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/health') res.end(JSON.stringify({ state: 'ok', reasons: [] }));
      else if (req.url === '/status') res.end(JSON.stringify({ mode: 'paper' }));
      else if (req.method === 'POST') res.end(JSON.stringify({ ok: true }));
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('is one flag with one check for every command that takes it', () => {
    const taking = COMMANDS.filter((c) => c.flags.some((f) => f.name === 'url'));
    expect(taking.map((c) => c.name).sort()).toEqual(['kill', 'mcp', 'pause', 'resume', 'status']);
    for (const c of taking) expect(c.flags.find((f) => f.name === 'url')).toBe(URL_FLAG);
  });

  it('given as the URL of an endpoint (…/status), reaches the daemon at its base URL', async () => {
    const io = fakeIo({ HARPOON_CONTROL_TOKEN: 'a-control-token-of-the-test' });
    expect(await main(['status', '--json', '--url', `${base}/status`], io), io.err()).toBe(0);
    expect(JSON.parse(io.out())).toEqual({ health: { state: 'ok', reasons: [] }, status: { mode: 'paper' } });
    for (const name of ['kill', 'pause', 'resume']) {
      const sw = fakeIo({ HARPOON_CONTROL_TOKEN: 'a-control-token-of-the-test' });
      expect(await main([name, '--url', `${base}/health/`], sw), sw.err()).toBe(0);
    }
    expect(seen.sort()).toEqual(['GET /health', 'GET /status', 'POST /kill', 'POST /pause', 'POST /resume']);
  });
});

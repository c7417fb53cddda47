import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMANDS } from '../../../src/cli/commands.ts';
import { ENV_OVERRIDES, OTHER_ENV, SECRET_ENV } from '../../../src/config/env.ts';

/** Runs the real bin/harpoon.mjs as a child process. */

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/harpoon.mjs');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), 'harpoon-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function harpoon(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dir, ...env },
        timeout: 30_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

function file(name: string, text: string, mode = 0o600): string {
  const p = join(dir, name);
  writeFileSync(p, text, { mode });
  return p;
}

describe('harpoon --help', () => {
  it('teaches every command, every flag, the environment, the config file and the exit codes', async () => {
    const r = await harpoon(['--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/unattended NFT trading daemon for the OpenSea API v2/);
    for (const c of COMMANDS) expect(r.stdout).toContain(`  ${c.name} `);
    for (const f of COMMANDS.flatMap((c) => c.flags))
      expect(r.stdout).toMatch(new RegExp(`--${f.name}.*\\(default: `));
    for (const flag of ['--help', '--version', '--verbose']) expect(r.stdout).toContain(flag);
    for (const e of [...ENV_OVERRIDES, ...SECRET_ENV, ...OTHER_ENV]) expect(r.stdout).toContain(e.name);
    expect(r.stdout).toContain('HARPOON_CONFIG');
    expect(r.stdout).toMatch(
      /Config file[\s\S]*rateLimits:[\s\S]*Exit codes:\n {2}0 +success\n {2}1 [^\n]+\n {2}2 [^\n]+\n {2}3 /,
    );
  });

  it('no arguments prints the same help', async () => {
    const [a, b] = await Promise.all([harpoon([]), harpoon(['help'])]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toContain('Commands:');
  });

  it('help <command> and <command> --help show that command with flags and examples', async () => {
    const [a, b, group] = await Promise.all([
      harpoon(['help', 'config', 'check']),
      harpoon(['config', 'check', '--help']),
      harpoon(['help', 'config']),
    ]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toMatch(/Usage: harpoon config check \[flags\]/);
    expect(a.stdout).toMatch(/-c, --config FILE .*\(default: \$HARPOON_CONFIG/);
    expect(a.stdout).toMatch(/Examples:\n {2}harpoon config check --config harpoon\.yaml/);
    expect(group.stdout).toContain('harpoon config <check|example>');
    expect(group.stdout).toContain('Usage: harpoon config example');
  });

  it('--version and version print the package version', async () => {
    const [a, b, c] = await Promise.all([harpoon(['--version']), harpoon(['-V']), harpoon(['version'])]);
    for (const r of [a, b, c]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`harpoon ${VERSION}\n`);
    }
  });
});

describe('bad usage exits 2 with a message and a hint', () => {
  it.each([
    [['--bogus'], /unknown option --bogus/, /harpoon --help/],
    [
      ['config', 'check', '--confg', 'x.yaml'],
      /unknown option --confg \(did you mean --config\?\)/,
      /flags of "harpoon config check": --config, --json; see "harpoon help config check"/,
    ],
    [
      ['confg', 'check'],
      /unknown command "confg" \(did you mean "config"\?\)/,
      /commands: demo, config, help, version/,
    ],
    [['config'], /"harpoon config" needs a sub-command/, /harpoon config check, harpoon config example/],
    [['config', 'chek'], /did you mean "harpoon config check"\?/, /use one of/],
    [['demo', '--json'], /option --json is not accepted by "harpoon demo"/, /harpoon help demo/],
    [['demo', 'extra'], /unexpected argument "extra" for "harpoon demo"/, /harpoon help demo/],
    [['config', 'check', '--config'], /argument missing/, /harpoon --help/],
    [['help', 'nope'], /no help for unknown command "nope"/, /commands:/],
    // flag values (all of them: test/unit/cli/flags.test.ts), through the real bin
    [
      ['run', '--every', 'abc'],
      /--every: "abc" is not a whole number of seconds from 5 to 86400/,
      /e\.g\. harpoon run --every 30/,
    ],
    [
      ['sandbox', '--seed', '-1'],
      /--seed: "-1" is not a whole number from 0 to 4294967295/,
      /e\.g\. harpoon sandbox --seed 42/,
    ],
    [
      ['status', '--url', 'notaurl'],
      /--url: "notaurl" is not a URL; allowed: an http:\/\/ or https:\/\/ URL/,
      /e\.g\. harpoon status --url http:\/\/127\.0\.0\.1:8787/,
    ],
  ])('harpoon %j', async (args, message, hint) => {
    const r = await harpoon(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(hint);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('harpoon demo', () => {
  // The live demo (sandbox + daemon trading) runs in test/integration/daemon/demo.test.ts.
  it('refuses a bad --seconds with exit 2 and says what is allowed', async () => {
    const r = await harpoon(['demo', '--seconds', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--seconds: "soon" is not a whole number of seconds from 1 to 3600/);
  });
});

describe('harpoon run and status', () => {
  it('run with a bad config exits 2 with the key, the bad value and the fix, before starting anything', async () => {
    const path = file('bad-run.yaml', 'risk:\n  maxPricePerItem: lots\n');
    const r = await harpoon(['run', '--config', path]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/configuration error/);
    expect(r.stderr).toMatch(/risk\.maxPricePerItem/);
    expect(r.stderr).not.toMatch(/starting in/);
  });

  it('run with store.path in a folder that is not there exits 2 naming store.path (no stack trace, nothing created)', async () => {
    const path = file(
      'nostore.yaml',
      'mode: paper\nstore:\n  path: nope-folder/h.db\nchain:\n  rpcUrl: http://127.0.0.1:1\n',
    );
    const r = await harpoon(['run', '--config', path], { HARPOON_API_KEY: 'k' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /harpoon: configuration error: store\.path: the database cannot be written: there is no folder .*nope-folder/,
    );
    expect(r.stderr).not.toMatch(/"stack"|at doBuild/);
    expect(existsSync(join(dir, 'nope-folder'))).toBe(false);
  });

  it('run --paper runs a live config on paper: no wallet is asked for', async () => {
    const path = file(
      'live-nowallet.yaml',
      'mode: live\nstore:\n  path: nope-folder/h.db\nchain:\n  rpcUrl: http://127.0.0.1:1\n',
    );
    const live = await harpoon(['run', '--config', path], { HARPOON_API_KEY: 'k' });
    expect(live.code).toBe(2);
    expect(live.stderr).toMatch(/no wallet is configured/);
    // on paper the config passes; what stops it is the next thing wrong (the store's folder)
    const paper = await harpoon(['run', '--paper', '--config', path], { HARPOON_API_KEY: 'k' });
    expect(paper.code).toBe(2);
    expect(paper.stderr).not.toMatch(/no wallet is configured/);
    expect(paper.stderr).toMatch(/store\.path: the database cannot be written/);
  });

  it('status, kill and mcp with no daemon there: exit 4 with what to check (not an unexpected error)', async () => {
    for (const args of [
      ['status', '--url', 'http://127.0.0.1:9'],
      ['kill', '--url', 'http://127.0.0.1:9'],
      ['mcp', '--url', 'http://127.0.0.1:9'],
    ]) {
      const r = await harpoon(args, { HARPOON_CONTROL_TOKEN: 't' });
      expect(r.code, args.join(' ')).toBe(4);
      expect(r.stderr).toMatch(/no daemon answers at http:\/\/127\.0\.0\.1:9/);
      expect(r.stderr).not.toMatch(/--verbose/);
    }
    // no token at all is configuration: exit 2
    expect(
      (await harpoon(['pause', '--url', 'http://127.0.0.1:9'], { HARPOON_CONTROL_TOKEN: '' })).code,
    ).toBe(2);
  });

  it('run with a missing config file exits 2 and names the file', async () => {
    const r = await harpoon(['run', '--config', join(dir, 'nope.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nope\.yaml/);
  });
});

describe('harpoon config', () => {
  it('config example prints config/example.yaml, and it checks clean', async () => {
    const ex = await harpoon(['config', 'example']);
    expect(ex.code).toBe(0);
    expect(ex.stdout).toBe(readFileSync(join(REPO, 'config/example.yaml'), 'utf8'));
    const path = file('from-example.yaml', ex.stdout);
    const check = await harpoon(['config', 'check', '--config', path]);
    expect(check.code).toBe(0);
    expect(check.stderr).toBe('');
  });

  it('config check prints the sanitized config as YAML (or JSON) and exits 0', async () => {
    const path = file(
      'good.yaml',
      'log:\n  level: debug\ncollections: [azuki]\nrisk:\n  maxPricePerItem: "0.25"\n',
    );
    const r = await harpoon(['config', 'check', '-c', path]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# harpoon configuration: valid\n# file: .*good\.yaml\n/);
    const printed = parse(r.stdout) as Record<string, Record<string, unknown>>;
    expect(printed.log).toEqual({ level: 'debug' });
    expect(printed.risk?.maxPricePerItem).toBe('0.25');
    expect(printed.collections).toEqual(['azuki']);
    const json = await harpoon(['config', 'check', '-c', path, '--json'], { HARPOON_LOG_LEVEL: 'warn' });
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { log: { level: string } }).log.level).toBe('warn');
  });

  it('config check reads HARPOON_CONFIG when --config is absent', async () => {
    file('env-chosen.yaml', 'chain:\n  name: base\n');
    const r = await harpoon(['config', 'check', '--json'], { HARPOON_CONFIG: 'env-chosen.yaml' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ chain: { name: 'base', chainId: 8453 } });
  });

  it('config check on a bad file exits 2 naming the file, key, value and fix', async () => {
    const path = file('bad.yaml', 'rateLimit:\n  read: 600/h\nrateLimits:\n  read: 600/hr\n');
    const r = await harpoon(['config', 'check', '--config', path]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`harpoon: configuration error: ${path}: 2 problems`);
    expect(r.stderr).toMatch(/rateLimit: is not a known key\. Fix: did you mean "rateLimits"\?/);
    expect(r.stderr).toMatch(/rateLimits\.read: "600\/hr" is not a rate\. Fix: write <count>\/<unit>/);
  });

  it('config check on a missing file exits 2', async () => {
    const r = await harpoon(['config', 'check', '--config', 'nope.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nope\.yaml: file not found\. Fix: /);
  });

  it('prints keystore warnings on stderr and still exits 0', async () => {
    file('key.json', JSON.stringify({ address: '00'.repeat(20), version: 3, crypto: {} }), 0o644);
    const r = await harpoon(['config', 'check', '--json'], {
      HARPOON_KEYSTORE: 'key.json',
      HARPOON_KEYSTORE_PASSWORD: 'canary-cli-pw-77',
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/harpoon: warning: keystore .*key\.json is readable by group or others/);
    expect(r.stdout + r.stderr).not.toContain('canary-cli-pw-77');
  });
});

describe('secrets are never printed', () => {
  const CANARIES = {
    OPENSEA_API_KEY: 'canary-cli-api-key-01',
    HARPOON_WALLET_JWT: 'canary-cli-jwt-02',
    HARPOON_PAT: 'canary-cli-pat-03',
    HARPOON_PRIVATE_KEY: `0x${'ca7a11e5'.repeat(8)}`,
    HARPOON_RPC_URL: 'https://rpc.example/v2/canaryclirpckey04',
    HARPOON_RATE_LIMITS_STORE: 'redis',
    HARPOON_REDIS_URL: 'redis://:canary-cli-redis-05@127.0.0.1:6379',
  };
  const leaked = (text: string) =>
    ['canary-cli', 'canaryclirpckey', 'ca7a11e5'].filter((c) => text.toLowerCase().includes(c.toLowerCase()));

  it('config check with every secret set shows [REDACTED] only', async () => {
    for (const args of [
      ['config', 'check'],
      ['config', 'check', '--json'],
    ]) {
      const r = await harpoon(args, CANARIES);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('[REDACTED]');
      expect(r.stdout).toContain('https://rpc.example/[REDACTED]');
      expect(leaked(r.stdout + r.stderr)).toEqual([]);
    }
  });

  it('a failing config check with secrets in env and file prints none of them', async () => {
    const path = file('secret.yaml', 'api:\n  apiKey: canary-cli-in-file-06\n');
    const r = await harpoon(['config', 'check', '--config', path, '--verbose'], {
      ...CANARIES,
      HARPOON_API_TIMEOUT_MS: 'canary-cli-bad-07',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/api\.apiKey: holds a secret/);
    expect(leaked(r.stdout + r.stderr)).toEqual(['canary-cli']); // only the non-secret bad timeout value is echoed
    expect(r.stderr).toContain('"canary-cli-bad-07"');
    expect(r.stderr).not.toContain('canary-cli-in-file-06');
    expect(r.stderr).not.toContain('canary-cli-api-key-01');
  });
});

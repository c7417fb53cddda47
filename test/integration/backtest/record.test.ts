/**
 * `harpoon record` against the sandbox, as a user runs it: the market side of the daemon only,
 * written to a tape that holds the view's REST answers for each collection, the stream's events,
 * the fees, gas and traits; recording to it again continues the same tape; a backtest replays it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTapeSource, type TapeSource } from '../../../src/backtest/tape-source.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { openTape, scanTape } from '../../../src/tape/reader.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { roomyLimits } from '../limits.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/harpoon.mjs');

let sb: Sandbox;
let dir: string;

beforeAll(async () => {
  sb = await createSandbox({
    seed: 9,
    activity: 5,
    limits: roomyLimits(),
  });
  dir = mkdtempSync(join(tmpdir(), 'harpoon-record-'));
}, 240_000);

afterAll(async () => {
  await sb?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The events a replay of the tape goes through (as far as it was surveyed). */
function eventsOf(tape: TapeSource): unknown[] {
  const r = tape.replay(() => tape.firstAt);
  const out: unknown[] = [];
  for (let e = r.shift(); e !== undefined; e = r.shift()) out.push(e.event);
  r.close();
  return out;
}

/** What harpoon needs to reach the sandbox (and nothing else of this environment). */
function sandboxEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    HARPOON_API_BASE_URL: sb.apiUrl,
    HARPOON_STREAM_URL: sb.streamUrl,
    HARPOON_RPC_URL: sb.rpcUrl,
    HARPOON_API_KEY: sb.apiKey,
  };
}

function harpoon(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: dir,
        timeout: 180_000,
        env: { ...sandboxEnv(), ...env },
      },
      (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** A config that records the sandbox's two collections. */
function recordConfig(): string {
  const config = join(dir, 'record.yaml');
  writeFileSync(
    config,
    `mode: paper\ncollections: [harpoon-apes, harpoon-punks]\nchain:\n  name: ethereum\n  weth: "${sb.weth}"\n`,
  );
  return config;
}

describe('harpoon record', () => {
  it('records the market to a tape, continues it, and the tape replays', async () => {
    const config = recordConfig();
    const tape = join(dir, 'market.tape');
    const first = await harpoon(['record', '--config', config, '--out', tape, '--seconds', '15']);
    expect(first.stderr).toMatch(/recording harpoon-apes, harpoon-punks to .*market\.tape for 15 s/);
    // the last line says what the tape holds (the daemon's status of its recording)
    expect(first.stderr).toMatch(
      /recorded to \S*market\.tape: [1-9][\d,]* events and [1-9][\d,]* REST answers, \d+\.\d MB/,
    );
    expect(first.code).toBe(0);
    const once = openTapeSource(tape);
    expect(once.torn).toBe(false);
    expect(once.header).toMatchObject({
      source: 'daemon',
      chain: 'ethereum',
      collections: ['harpoon-apes', 'harpoon-punks'],
    });
    // harpoon record trades nothing: the tape names no wallet of its own
    expect(once.header.meta?.wallet).toBeUndefined();
    expect(once.events).toBeGreaterThan(10);
    const rest = [...openTape(tape).records()].filter((r) => r.k === 'rest');
    for (const slug of ['harpoon-apes', 'harpoon-punks'])
      for (const call of ['stats', 'listings', 'collectionOffers', 'traitOffers', 'traits', 'traitFloors'])
        expect(
          rest.some((r) => r.k === 'rest' && r.slug === slug && r.call === call),
          `${call} ${slug}`,
        ).toBe(true);
    const atEnd = once.replay(() => once.lastAt);
    expect(atEnd.fees('harpoon-apes').length).toBeGreaterThan(0);
    expect(atEnd.gasPrice()).toBeGreaterThan(0n);
    atEnd.close();
    expect(once.counts.traits ?? 0).toBeGreaterThan(0);
    expect(first.stderr).not.toMatch(/paper report saved/);

    // again to the same file: one tape, the first recording kept, the second after it
    const second = await harpoon(['record', '--config', config, '--out', tape, '--seconds', '8']);
    expect(second.code).toBe(0);
    const twice = openTapeSource(tape);
    expect(twice.counts.header).toBe(1);
    expect(twice.events).toBeGreaterThan(once.events);
    expect(eventsOf(twice).slice(0, once.events)).toEqual(eventsOf(once));

    const bt = await harpoon(['backtest', '--tape', tape, '--config', join(REPO, 'config/backtest.yaml')]);
    expect(bt.code).toBe(0);
    expect(bt.stdout).toMatch(
      new RegExp(
        `Backtest of market\\.tape \\(daemon, harpoon-apes, harpoon-punks\\).*, ${twice.events} events`,
      ),
    );
  }, 400_000);

  it('one recorder per tape: a second one on the same file is refused at once, and the first records on', async () => {
    const config = recordConfig();
    const tape = join(dir, 'one.tape');
    const first = harpoon(['record', '--config', config, '--out', tape, '--seconds', '12']);
    // the first has the tape once its lock is there
    for (let i = 0; i < 300 && !existsSync(`${tape}.lock`); i++)
      await new Promise((ok) => setTimeout(ok, 100));
    expect(existsSync(`${tape}.lock`)).toBe(true);
    const second = await harpoon(['record', '--config', config, '--out', tape, '--seconds', '5']);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      /--out: .*one\.tape is being written by another harpoon process \(pid \d+\)/,
    );
    const done = await first;
    expect(done.code).toBe(0);
    const t = openTapeSource(tape);
    expect([t.torn, t.damaged]).toEqual([false, false]);
    expect(t.events).toBeGreaterThan(0);
    expect(existsSync(`${tape}.lock`)).toBe(false);
  }, 120_000);

  it('a tape that cannot be written to its end (a file size limit) keeps what it holds whole; the rest is said lost: exit 1', async () => {
    const config = recordConfig();
    const tape = join(dir, 'limited.tape');
    // a tape of this market, already ~400 KB (random traits: they do not compress): a file size
    // limit just above it is reached by the recording, before the daemon's small database
    const w = openTapeWriter(tape, {
      header: {
        k: 'header',
        at: Date.now(),
        version: 1,
        source: 'daemon',
        chain: 'ethereum',
        collections: ['harpoon-apes', 'harpoon-punks'],
        paymentTokens: [],
      },
      flushMs: 0,
    });
    for (let i = 0; i < 200; i++)
      w.write({
        k: 'traits',
        at: Date.now(),
        nft: `ethereum/0x0000000000000000000000000000000000000001/${i}`,
        traits: [{ type: 'noise', value: randomBytes(1_000).toString('hex') }],
      });
    await w.close();
    const before = statSync(tape).size;
    const limitKb = Math.ceil(before / 1024) + 4;
    const r = await new Promise<{ code: number; stderr: string }>((done) => {
      execFile(
        'bash',
        [
          '-c',
          `ulimit -f ${limitKb} && exec "$0" "$@"`,
          process.execPath,
          ...[BIN, 'record', '--config', config, '--out', tape, '--seconds', '10'],
        ],
        {
          cwd: dir,
          timeout: 180_000,
          env: sandboxEnv(),
        },
        (err, _stdout, stderr) =>
          done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      );
    });
    expect(r.code, r.stderr).toBe(1);
    // told as it happened (once, not every second), and at the end with how many are missing
    expect(r.stderr).toMatch(/market recording: cannot write the tape/);
    expect(r.stderr).toMatch(
      /recorded to \S+limited\.tape: .*; [\d,]+ records not written \(writing the tape fails\)/,
    );
    expect(r.stderr).toMatch(/error: [\d,]+ records are not on the tape: writing it failed/);
    // what the tape holds is whole: the block the limit cut was taken back, not left half written
    const scan = scanTape(tape);
    expect(scan).toMatchObject({ torn: false, damaged: false });
    expect(statSync(tape).size).toBeLessThanOrEqual(limitKb * 1024);
    expect([...openTape(tape).records()].filter((x) => x.k === 'traits')).toHaveLength(200);
  }, 240_000);

  it('a recording that got nothing (no API, no stream) fails: exit 1, said', async () => {
    const config = recordConfig();
    const tape = join(dir, 'nothing.tape');
    const r = await harpoon(['record', '--config', config, '--out', tape, '--seconds', '6'], {
      // nothing listens there
      HARPOON_API_BASE_URL: 'http://127.0.0.1:9',
      HARPOON_STREAM_URL: 'ws://127.0.0.1:9',
    });
    expect(r.stderr).toMatch(/recorded to \S*nothing\.tape: 0 events and 0 REST answers/);
    expect(r.stderr).toMatch(/error: nothing was recorded: no market event and no REST answer came/);
    expect(r.code).toBe(1);
  }, 120_000);
});

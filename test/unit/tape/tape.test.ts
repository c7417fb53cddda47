import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListingEvent } from '../../../src/domain/events.ts';
import type { Address, CollectionSlug, OrderHash, TokenId } from '../../../src/domain/ids.ts';
import { recordedWallet, TAPE_MAGIC, type TapeHeader, type TapeRecord } from '../../../src/tape/format.ts';
import { openTape, scanTape, surveyTape } from '../../../src/tape/reader.ts';
import { openTapeWriter, TapeInUseError } from '../../../src/tape/writer.ts';
import { tapeLines } from '../../helpers/tapes.ts';

/** Whether this process may start one as `nobody` that can load this checkout's writer. */
const nobodyCanRun =
  process.getuid?.() === 0 &&
  spawnSync(
    process.execPath,
    [
      '-e',
      `require('node:fs').accessSync(${JSON.stringify(join(import.meta.dirname, '../../../src/tape/writer.ts'))})`,
    ],
    { uid: 65_534, gid: 65_534 },
  ).status === 0;

const header: TapeHeader = {
  k: 'header',
  at: 1_000,
  version: 1,
  source: 'test',
  chain: 'ethereum',
  collections: ['apes'],
  paymentTokens: [{ address: '0x0000000000000000000000000000000000000000', symbol: 'ETH', decimals: 18 }],
};

/** Where each block of a tape starts and ends (its 8-byte header included). */
function scanTapeBlocks(path: string): { start: number; end: number }[] {
  const b = readFileSync(path);
  const out: { start: number; end: number }[] = [];
  for (let at = TAPE_MAGIC.length; at + 8 <= b.length; ) {
    const end = at + 8 + b.readUInt32BE(at);
    out.push({ start: at, end });
    at = end;
  }
  return out;
}

function listing(n: number): ListingEvent {
  return {
    kind: 'listing',
    id: `l-${n}`,
    collection: 'apes' as CollectionSlug,
    chain: 'ethereum',
    occurredAt: 1_000 + n,
    receivedAt: 1_000 + n,
    source: 'stream',
    orderHash: `0x${n.toString(16).padStart(64, '0')}` as OrderHash,
    maker: '0x00000000000000000000000000000000000000bb' as Address,
    taker: null,
    quantity: 1n,
    price: 10n ** 18n + BigInt(n),
    paymentToken: {
      address: '0x0000000000000000000000000000000000000000' as Address,
      symbol: 'ETH',
      decimals: 18,
    },
    expiresAt: null,
    nft: {
      chain: 'ethereum',
      contract: '0x00000000000000000000000000000000000000a1' as Address,
      identifier: String(n) as TokenId,
    },
    isPrivate: false,
  };
}

const dir = () => mkdtempSync(join(tmpdir(), 'harpoon-tape-'));
const all = (path: string): TapeRecord[] => [...openTape(path).records()];

describe('tape', () => {
  it('gives back every record written, bigints included, the header first', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 0, maxBlockBytes: 300 });
    for (let n = 0; n < 50; n++) w.write({ k: 'event', at: 1_000 + n, event: listing(n) });
    w.write({ k: 'gas', at: 2_000, price: 12_345_678_901n });
    w.write({
      k: 'rest',
      at: 2_001,
      call: 'stats',
      slug: 'apes',
      next: null,
      response: { total: { floor_price: 1.5 } },
    });
    await w.close();
    const got = all(path);
    expect(got[0]).toEqual(header);
    expect(got.slice(1, 51)).toEqual(
      Array.from({ length: 50 }, (_, n) => ({ k: 'event', at: 1_000 + n, event: listing(n) })),
    );
    expect(got[51]).toEqual({ k: 'gas', at: 2_000, price: 12_345_678_901n });
    expect(got[52]).toMatchObject({ k: 'rest', call: 'stats', response: { total: { floor_price: 1.5 } } });
    expect(w.stats().blocks).toBeGreaterThan(5); // small blocks: many of them
    expect(readFileSync(path).subarray(0, TAPE_MAGIC.length).toString('latin1')).toBe(TAPE_MAGIC);
  });

  it('a tape cut mid-block reads up to the last whole block and says it was torn', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 0 });
    for (let n = 0; n < 10; n++) w.write({ k: 'event', at: 1_000 + n, event: listing(n) });
    w.flush();
    const whole = statSync(path).size;
    for (let n = 10; n < 20; n++) w.write({ k: 'event', at: 1_000 + n, event: listing(n) });
    await w.close();
    const full = statSync(path).size;
    for (const cut of [whole + 3, whole + 8, whole + 20, full - 1]) {
      const copy = join(dir(), 'cut.tape');
      writeFileSync(copy, readFileSync(path).subarray(0, cut));
      const tape = openTape(copy);
      const got = [...tape.records()];
      expect(got).toHaveLength(11); // header + the first block's 10 events
      expect(tape.torn).toBe(true);
      expect(scanTape(copy)).toMatchObject({ validBytes: whole, torn: true });
    }
    const tape = openTape(path);
    expect([...tape.records()]).toHaveLength(21);
    expect(tape.torn).toBe(false);
  });

  it('a flipped byte in the last block stops the reader there (checksum)', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 0 });
    w.write({ k: 'event', at: 1_000, event: listing(0) });
    w.flush();
    w.write({ k: 'event', at: 1_001, event: listing(1) });
    await w.close();
    const bytes = readFileSync(path);
    bytes[bytes.length - 2] = (bytes[bytes.length - 2] as number) ^ 0xff;
    writeFileSync(path, bytes);
    const tape = openTape(path);
    expect([...tape.records()].map((r) => r.k)).toEqual(['header', 'event']);
    expect(tape.tornReason).toBe('block checksum mismatch');
  });

  it('continuing a torn tape truncates the tail and appends after the last whole block', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 0 });
    w.write({ k: 'event', at: 1_000, event: listing(0) });
    await w.close();
    appendFileSync(path, Buffer.from([0, 0, 1, 0, 9, 9])); // a crash mid-write
    const again = openTapeWriter(path, { header, flushMs: 0 });
    again.write({ k: 'event', at: 1_001, event: listing(1) });
    await again.close();
    expect(again.stats().truncatedTail).toBe(6);
    const tape = openTape(path);
    expect([...tape.records()].map((r) => r.k)).toEqual(['header', 'event', 'event']);
    expect(tape.torn).toBe(false);
  });

  it('continuing a tape damaged before its last block is refused, and the file is left as it was', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 0 });
    for (let n = 0; n < 3; n++) {
      w.write({ k: 'event', at: 1_000 + n, event: listing(n) });
      w.flush();
    }
    await w.close();
    const second = scanTapeBlocks(path)[1] as { start: number; end: number };
    const bytes = readFileSync(path);
    bytes[second.end - 2] = (bytes[second.end - 2] as number) ^ 0xff; // a flipped byte in block 2 of 3
    writeFileSync(path, bytes);
    expect(scanTape(path)).toMatchObject({
      validBytes: second.start,
      torn: true,
      damaged: true,
      bytes: bytes.length,
    });
    expect(() => openTapeWriter(path, { header, flushMs: 0 })).toThrow(
      new RegExp(
        `m\\.tape is damaged at byte ${second.start} \\(block checksum mismatch\\), with ${bytes.length - second.start} bytes after it: that is not the tail of a write cut by a crash`,
      ),
    );
    expect(readFileSync(path).equals(bytes)).toBe(true);
    // the refused writer holds no lock
    expect(existsSync(`${path}.lock`)).toBe(false);
    // it still replays up to the damage
    expect([...openTape(path).records()].map((r) => r.k)).toEqual(['header', 'event']);
  });

  it('continuing a tape whose last block is cut, or unsynced (zeros), truncates just that', async () => {
    for (const tail of ['cut', 'zeros', 'bad last block'] as const) {
      const path = join(dir(), 'm.tape');
      const w = openTapeWriter(path, { header, flushMs: 0 });
      w.write({ k: 'event', at: 1_000, event: listing(0) });
      w.flush();
      const whole = statSync(path).size;
      w.write({ k: 'event', at: 1_001, event: listing(1) });
      await w.close();
      const size = statSync(path).size;
      if (tail === 'cut') truncateSync(path, size - 5);
      else if (tail === 'zeros') appendFileSync(path, Buffer.alloc(100_000));
      else {
        const b = readFileSync(path);
        b[size - 1] = (b[size - 1] as number) ^ 0x01;
        writeFileSync(path, b);
      }
      // a crash's tail: torn, not damaged
      expect(scanTape(path), tail).toMatchObject({ torn: true, damaged: false });
      const again = openTapeWriter(path, { header, flushMs: 0 });
      again.write({ k: 'event', at: 1_002, event: listing(2) });
      await again.close();
      expect(again.stats().truncatedTail, tail).toBe(
        tail === 'cut' ? size - 5 - whole : tail === 'zeros' ? 100_000 : size - whole,
      );
      const kept = tail === 'zeros' ? ['header', 'event', 'event', 'event'] : ['header', 'event', 'event'];
      expect(
        [...openTape(path).records()].map((r) => r.k),
        tail,
      ).toEqual(kept);
    }
  });

  it('a tape is one market: continuing it with another chain, other collections or a simulated market is refused', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 0 });
    w.write({ k: 'event', at: 1_000, event: listing(0) });
    await w.close();
    const before = readFileSync(path);
    for (const [other, said] of [
      [{ chain: 'base' }, /is a tape of ethereum \(apes\) and this recording is of base \(apes\)/],
      [{ collections: ['apes', 'punks'] }, /this recording is of ethereum \(apes, punks\)/],
      [
        { source: 'sandbox' },
        /this recording is of ethereum \(apes, simulated\): continuing it would mix two markets/,
      ],
    ] as const) {
      expect(() => openTapeWriter(path, { header: { ...header, ...other }, flushMs: 0 })).toThrow(said);
      expect(readFileSync(path).equals(before)).toBe(true);
    }
    // the same market from another recorder (harpoon record, then the daemon's market.record) continues it
    const again = openTapeWriter(path, { header: { ...header, source: 'daemon', at: 9_000 }, flushMs: 0 });
    again.write({ k: 'event', at: 9_001, event: listing(1) });
    await again.close();
    expect([...openTape(path).records()].map((r) => r.k)).toEqual(['header', 'event', 'event']);
  });

  it("a tape is one wallet's: continuing a trading daemon's tape as another wallet is refused; a recorder that trades nothing continues it", async () => {
    const path = join(dir(), 'w.tape');
    const A = '0x00000000000000000000000000000000000000aa';
    const B = '0x00000000000000000000000000000000000000bb';
    const w = openTapeWriter(path, {
      header: { ...header, source: 'daemon', meta: { wallet: A } },
      flushMs: 0,
    });
    w.write({ k: 'event', at: 1_000, event: listing(0) });
    await w.close();
    const before = readFileSync(path);
    expect(() =>
      openTapeWriter(path, { header: { ...header, source: 'daemon', meta: { wallet: B } }, flushMs: 0 }),
    ).toThrow(
      new RegExp(
        `was recorded by a daemon trading as ${A} and this one trades as ${B}: continuing it would make one wallet's orders pass for the other's`,
      ),
    );
    expect(readFileSync(path).equals(before)).toBe(true);
    // the same wallet (written in capitals), and harpoon record (no wallet), continue it; the header stays the first
    for (const meta of [{ wallet: A.toUpperCase().replace('0X', '0x') }, undefined]) {
      const again = openTapeWriter(path, {
        header: { ...header, source: 'daemon', ...(meta !== undefined ? { meta } : {}) },
        flushMs: 0,
      });
      again.write({ k: 'event', at: 2_000, event: listing(1) });
      await again.close();
    }
    expect(recordedWallet(openTape(path).header())).toBe(A);
    expect([...openTape(path).records()].map((r) => r.k)).toEqual(['header', 'event', 'event', 'event']);
  });

  it("harpoon record's tape continued by a trading daemon names the daemon's wallet in a second header; it stays that wallet's", async () => {
    const path = join(dir(), 'r.tape');
    const A = '0x00000000000000000000000000000000000000aa';
    const B = '0x00000000000000000000000000000000000000bb';
    const recorder = openTapeWriter(path, { header: { ...header, source: 'record' }, flushMs: 0 });
    recorder.write({ k: 'event', at: 1_000, event: listing(0) });
    await recorder.close();
    expect(surveyTape(path).wallet).toBeUndefined();
    // the daemon trading as A (its address in capitals) continues it: a header naming A comes first
    const daemon = openTapeWriter(path, {
      header: {
        ...header,
        at: 2_000,
        source: 'daemon',
        meta: { wallet: A.toUpperCase().replace('0X', '0x') },
      },
      flushMs: 0,
    });
    daemon.write({ k: 'event', at: 2_001, event: listing(1) });
    await daemon.close();
    const kinds = () => [...openTape(path).records()].map((r) => r.k);
    expect(kinds()).toEqual(['header', 'event', 'header', 'event']);
    // the tape's header is still the first (the recorder's, naming no wallet); the survey names A
    expect(openTape(path).header()).toMatchObject({ source: 'record', at: header.at });
    expect(recordedWallet(openTape(path).header())).toBeUndefined();
    const survey = surveyTape(path);
    expect(survey.wallet).toBe(A);
    expect(survey.counts).toMatchObject({ header: 2, event: 2 });
    expect([survey.firstAt, survey.lastAt]).toEqual([1_000, 2_001]);
    // from now on it is A's tape: B is refused (the file untouched), as with A in the first header
    const before = readFileSync(path);
    expect(() =>
      openTapeWriter(path, { header: { ...header, source: 'daemon', meta: { wallet: B } }, flushMs: 0 }),
    ).toThrow(new RegExp(`was recorded by a daemon trading as ${A} and this one trades as ${B}`));
    expect(readFileSync(path).equals(before)).toBe(true);
    // A again, and harpoon record again, continue it without another header
    for (const meta of [{ wallet: A }, undefined]) {
      const again = openTapeWriter(path, {
        header: { ...header, source: meta === undefined ? 'record' : 'daemon', ...(meta ? { meta } : {}) },
        flushMs: 0,
      });
      again.write({ k: 'event', at: 3_000, event: listing(2) });
      await again.close();
    }
    expect(kinds()).toEqual(['header', 'event', 'header', 'event', 'event', 'event']);
    expect(surveyTape(path).wallet).toBe(A);
  });
  it('continuing a tape whose first block a crash cut writes the header again (else nothing could read it)', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 0 });
    w.write({ k: 'event', at: 1_000, event: listing(0) });
    await w.close();
    truncateSync(path, statSync(path).size - 4);
    expect(scanTape(path)).toMatchObject({ validBytes: TAPE_MAGIC.length, torn: true, damaged: false });
    const again = openTapeWriter(path, { header, flushMs: 0 });
    again.write({ k: 'event', at: 1_001, event: listing(1) });
    await again.close();
    expect(openTape(path).header()).toEqual(header);
    expect([...openTape(path).records()].map((r) => r.k)).toEqual(['header', 'event']);
  });

  it('the timer flushes at least every flushMs; a reader sees whole blocks while it is written', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 20, sync: false });
    w.write({ k: 'event', at: 1_000, event: listing(0) });
    expect(() => openTape(path).header()).toThrow(/no whole block/);
    await new Promise((r) => setTimeout(r, 80));
    expect([...openTape(path).records()].map((r) => r.k)).toEqual(['header', 'event']);
    w.write({ k: 'event', at: 1_001, event: listing(1) });
    await w.close();
    expect([...openTape(path).records()]).toHaveLength(3);
  });

  it('a survey tells counts, first and last time and the torn tail without parsing, as the records say', async () => {
    const path = join(dir(), 'm.tape');
    const w = openTapeWriter(path, { header, flushMs: 0, maxBlockBytes: 300 });
    for (let n = 0; n < 30; n++) w.write({ k: 'event', at: 1_000 + n, event: listing(n) });
    w.write({ k: 'gas', at: 900, price: 5n }); // written late: the earliest time all the same
    // keys in another order, a time below zero: read by parsing the line
    w.write({ at: 5_000, k: 'fees', slug: 'apes', fees: [] } as unknown as TapeRecord);
    w.write({ at: -7, k: 'gas', price: 1n } as unknown as TapeRecord);
    w.flush();
    const whole = statSync(path).size;
    w.write({ k: 'event', at: 9_000, event: listing(99) });
    await w.close();
    const s = surveyTape(path);
    expect(s.header).toEqual(header);
    expect(s.counts).toEqual({ header: 1, event: 31, gas: 2, fees: 1 });
    expect(s.records).toBe(35);
    expect(s.firstAt).toBe(-7);
    expect(s.lastAt).toBe(9_000);
    expect(s).toMatchObject({ torn: false, tornReason: null, validBytes: statSync(path).size });
    expect(s.blocks).toBe(scanTape(path).blocks);
    // cut in the last block: up to the whole blocks, as the reader gives them
    const copy = join(dir(), 'cut.tape');
    writeFileSync(copy, readFileSync(path).subarray(0, statSync(path).size - 3));
    const cut = surveyTape(copy);
    expect(cut).toMatchObject({ torn: true, validBytes: whole, lastAt: 5_000, records: 34 });
    expect(cut.tornReason).toBe(scanTape(copy).tornReason);
    expect([...openTape(copy).records()]).toHaveLength(34);
    // records() stops at a survey's bytes: a tape written on since is read as surveyed
    expect([...openTape(path).records(cut.validBytes)]).toHaveLength(34);
  });

  it('one writer per tape: a second one is refused with the pid of the first, until the first closes', async () => {
    const path = join(dir(), 'one.tape');
    const a = openTapeWriter(path, { header, flushMs: 0 });
    a.write({ k: 'event', at: 1_001, event: listing(1) });
    a.flush();
    expect(readFileSync(`${path}.lock`, 'utf8')).toMatch(
      new RegExp(`^${process.pid} [0-9a-f-]{36}( [0-9a-f-]{36}:\\d+)?$`),
    );
    let refused: unknown;
    try {
      openTapeWriter(path, { header, flushMs: 0 });
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(TapeInUseError);
    expect((refused as Error).message).toBe(
      `${path} is being written by another harpoon process (pid ${process.pid}): one writer per tape; stop that one or record to another file`,
    );
    a.write({ k: 'event', at: 1_002, event: listing(2) });
    await a.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    // now it continues, and the tape is whole
    const b = openTapeWriter(path, { header, flushMs: 0 });
    b.write({ k: 'event', at: 1_003, event: listing(3) });
    await b.close();
    expect(scanTape(path)).toMatchObject({ torn: false, damaged: false });
    expect([...openTape(path).records()].map((r) => r.at)).toEqual([1_000, 1_001, 1_002, 1_003]);
  });

  it('a writer in another process holds the tape; its lock, once that process is dead, is taken over', async () => {
    const path = join(dir(), 'two.tape');
    const writer = join(import.meta.dirname, '../../../src/tape/writer.ts');
    // another process opens a writer, says so, and waits to be killed (as a recorder runs)
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `const { openTapeWriter } = await import(${JSON.stringify(writer)});
         openTapeWriter(${JSON.stringify(path)}, { header: ${JSON.stringify(header)}, flushMs: 0 });
         process.stdout.write('open\\n');
         setInterval(() => {}, 1000);`,
      ],
      { cwd: join(import.meta.dirname, '../../..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((ok, fail) => {
      child.stdout?.on('data', (d: Buffer) => d.toString().includes('open') && ok());
      child.on('exit', (code) => fail(new Error(`the writer process exited (${code})`)));
    });
    expect(() => openTapeWriter(path, { header, flushMs: 0 })).toThrow(
      new RegExp(`being written by another harpoon process \\(pid ${child.pid}\\)`),
    );
    // killed (kill -9: no cleanup): its lock stays, naming a dead process
    child.kill('SIGKILL');
    await new Promise((ok) => child.once('exit', ok));
    expect(readFileSync(`${path}.lock`, 'utf8')).toMatch(new RegExp(`^${child.pid} `));
    const w = openTapeWriter(path, { header, flushMs: 0 });
    w.write({ k: 'event', at: 1_001, event: listing(1) });
    await w.close();
    expect([...openTape(path).records()].map((r) => r.k)).toEqual(['header', 'event']);
    expect(existsSync(`${path}.lock`)).toBe(false);
  }, 30_000);

  // as another user for real: only root can start one, and only where that user can read this
  // checkout (a clone in a 0700 folder cannot be run as nobody; test/unit/store/lock.test.ts
  // refuses the read instead)
  it.skipIf(!nobodyCanRun)(
    "another user's writer, whose lock that user cannot read, is refused: not taken for stale and removed",
    async () => {
      const d = dir();
      chmodSync(d, 0o777); // a folder both may write (no sticky bit): the lock could be removed
      const path = join(d, 'shared.tape');
      const a = openTapeWriter(path, { header, flushMs: 0 });
      const writer = join(import.meta.dirname, '../../../src/tape/writer.ts');
      const other = (mode: number) => {
        chmodSync(`${path}.lock`, mode);
        return spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            '-e',
            `const { openTapeWriter } = await import(${JSON.stringify(writer)});
             try { openTapeWriter(${JSON.stringify(path)}, { header: ${JSON.stringify(header)}, flushMs: 0 }); console.log('opened'); }
             catch (e) { console.log(e.name + ': ' + e.message); }`,
          ],
          {
            cwd: join(import.meta.dirname, '../../..'),
            uid: 65_534, // nobody
            gid: 65_534,
            env: { ...process.env, HOME: d, TMPDIR: d },
            encoding: 'utf8',
          },
        );
      };
      // a lock as older versions made it (0600): the other user cannot read it
      const hidden = other(0o600);
      expect(hidden.stdout).toContain(
        `TapeInUseError: ${path} is being written by another user's harpoon process (its lock cannot be read here)`,
      );
      // as locks are made now (0644): it learns who holds it
      const shown = other(0o644);
      expect(shown.stdout).toContain(
        `TapeInUseError: ${path} is being written by another harpoon process (pid ${process.pid})`,
      );
      // the lock is still ours, and released as ours
      expect(readFileSync(`${path}.lock`, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      await a.close();
      expect(existsSync(`${path}.lock`)).toBe(false);
    },
    30_000,
  );

  it('a new lock is readable by all (a pid and a token, no secret): another user learns who holds the tape', async () => {
    const path = join(dir(), 'mode.tape');
    const a = openTapeWriter(path, { header, flushMs: 0 });
    expect(statSync(`${path}.lock`).mode & 0o777).toBe(0o644 & ~process.umask());
    await a.close();
  });

  it('a lock naming this pid but not this process (a container restarted: node is pid 1 again) is stale', async () => {
    const path = join(dir(), 'pid1.tape');
    writeFileSync(`${path}.lock`, `${process.pid} 00000000-0000-4000-8000-000000000000`);
    const w = openTapeWriter(path, { header, flushMs: 0 });
    await w.close();
    // as is one of the older kind (a pid alone)
    writeFileSync(`${path}.lock`, String(process.pid));
    const again = openTapeWriter(path, { header, flushMs: 0 });
    await again.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a link to a tape is that tape: one lock, so a second writer through the link is refused', async () => {
    const d = dir();
    const real = join(d, 'real.tape');
    const a = openTapeWriter(real, { header, flushMs: 0 });
    symlinkSync(real, join(d, 'link.tape'));
    expect(() => openTapeWriter(join(d, 'link.tape'), { header, flushMs: 0 })).toThrow(TapeInUseError);
    await a.close();
    // a link made before the tape exists (into a linked folder) names the same lock too
    symlinkSync(d, join(d, 'alias'));
    const b = openTapeWriter(join(d, 'alias', 'new.tape'), { header, flushMs: 0 });
    expect(() => openTapeWriter(join(d, 'new.tape'), { header, flushMs: 0 })).toThrow(TapeInUseError);
    await b.close();
  });

  it('replace: a new tape over a file there, under the lock; a pipe there, or a live writer, is refused and left', async () => {
    const d = dir();
    const path = join(d, 'new.tape');
    const a = openTapeWriter(path, { header, flushMs: 0 });
    a.write({ k: 'event', at: 1_001, event: listing(1) });
    // being written: refused before anything is removed
    expect(() => openTapeWriter(path, { header, replace: true, flushMs: 0 })).toThrow(TapeInUseError);
    await a.close();
    expect([...openTape(path).records()].map((r) => r.k)).toEqual(['header', 'event']);
    const b = openTapeWriter(path, { header: { ...header, at: 2_000 }, replace: true, flushMs: 0 });
    await b.close();
    expect([...openTape(path).records()].map((r) => r.at)).toEqual([2_000]);
    const pipe = join(d, 'pipe.tape');
    execFileSync('mkfifo', [pipe]);
    expect(() => openTapeWriter(pipe, { header, replace: true, flushMs: 0 })).toThrow(/not a regular file/);
    expect(statSync(pipe).isFIFO()).toBe(true);
    expect(existsSync(`${pipe}.lock`)).toBe(false);
  });

  it('refuses a file that is not a tape', () => {
    const path = join(dir(), 'x.tape');
    writeFileSync(path, 'hello');
    expect(() => [...openTape(path).records()]).toThrow(/not a harpoon tape/);
    truncateSync(path, 0);
    expect(() => openTape(path).header()).toThrow(/not a harpoon tape/);
    expect(() => surveyTape(path)).toThrow(/not a harpoon tape/);
    writeFileSync(path, TAPE_MAGIC);
    expect(() => surveyTape(path)).toThrow(/no header/);
  });

  it('a tape deleted while it is written: a new tape is started at its path, and it is told once', async () => {
    const path = join(dir(), 'gone.tape');
    const told: string[] = [];
    const w = openTapeWriter(path, { header, flushMs: 0, onNotice: (m) => told.push(m) });
    w.write({ k: 'event', at: 1_001, event: listing(1) });
    w.flush();
    rmSync(path);
    w.write({ k: 'event', at: 1_002, event: listing(2) });
    w.flush();
    w.write({ k: 'event', at: 1_003, event: listing(3) });
    await w.close();
    expect(told).toEqual([expect.stringMatching(/was deleted while it was written: a new tape is started/)]);
    expect([...openTape(path).records()].map((r) => r.at)).toEqual([1_000, 1_002, 1_003]);
    expect(scanTape(path)).toMatchObject({ torn: false, damaged: false });
  });

  it('REST answers as changes (version 3): read back equal across writers continuing the tape; a version 2 tape continued gets none', async () => {
    const v3: TapeHeader = { ...header, version: 3 };
    const offers = (...ns: number[]) => ({ offers: ns.map((n) => ({ hash: `0x${n}`, price: String(n) })) });
    const rest = (at: number, response: unknown): TapeRecord => ({
      k: 'rest',
      at,
      call: 'traitOffers',
      slug: 'apes',
      next: null,
      response,
    });
    const answers = [offers(1, 2, 3), offers(2, 3, 4), offers(3, 4, 5), offers(4, 5, 6)];
    const raw = (path: string) =>
      [...openTape(path).records()].map((r) => (r.k === 'rest' ? r.response : r.k));
    const path = join(dir(), 'v3.tape');
    let w = openTapeWriter(path, { header: v3, flushMs: 0 });
    w.write(rest(1_001, answers[0]));
    w.write(rest(1_002, answers[1]));
    await w.close();
    // a writer that continues the tape knows no answer before: its first is whole
    w = openTapeWriter(path, { header: v3, flushMs: 0 });
    w.write(rest(1_003, answers[2]));
    w.write(rest(1_004, answers[3]));
    await w.close();
    expect(raw(path)).toEqual(['header', ...answers]);
    // the lines as written
    const text = (p: string) => tapeLines(p).join('\n');
    expect(text(path).match(/"same"/g)).toHaveLength(2);
    // a version 2 tape is continued in version 2: every answer whole
    const old = join(dir(), 'v2.tape');
    w = openTapeWriter(old, { header: { ...header, version: 2 }, flushMs: 0 });
    w.write(rest(1_001, answers[0]));
    await w.close();
    w = openTapeWriter(old, { header: v3, flushMs: 0 });
    w.write(rest(1_002, answers[1]));
    w.write(rest(1_003, answers[2]));
    await w.close();
    expect(raw(old)).toEqual(['header', ...answers.slice(0, 3)]);
    expect(text(old)).not.toContain('"same"');
  });

  it('a tape deleted while written: an answer written as changes of one in the deleted tape is not read; the next is whole', async () => {
    const path = join(dir(), 'gone3.tape');
    const rest = (at: number, ...ns: number[]): TapeRecord => ({
      k: 'rest',
      at,
      call: 'listings',
      slug: 'apes',
      next: null,
      response: { listings: ns.map((n) => ({ hash: `0x${n}` })) },
    });
    const w = openTapeWriter(path, { header: { ...header, version: 3 }, flushMs: 0, onNotice: () => {} });
    w.write(rest(1_001, 1, 2));
    w.flush();
    rmSync(path);
    w.write(rest(1_002, 2, 3));
    w.flush();
    w.write(rest(1_003, 3, 4));
    await w.close();
    expect([...openTape(path).records()]).toEqual([
      { ...header, version: 3 },
      { ...rest(1_003, 3, 4), response: { listings: [{ hash: '0x3' }, { hash: '0x4' }] } },
    ]);
  });

  it('a tape moved while it is written is written on where it is, and told once', async () => {
    const d = dir();
    const path = join(d, 'here.tape');
    const told: string[] = [];
    const w = openTapeWriter(path, { header, flushMs: 0, onNotice: (m) => told.push(m) });
    w.write({ k: 'event', at: 1_001, event: listing(1) });
    w.flush();
    renameSync(path, join(d, 'there.tape'));
    for (const at of [1_002, 1_003]) {
      w.write({ k: 'event', at, event: listing(at) });
      w.flush();
    }
    await w.close();
    expect(told).toEqual([expect.stringMatching(/was moved or replaced while it is written/)]);
    expect(existsSync(path)).toBe(false);
    expect([...openTape(join(d, 'there.tape')).records()].map((r) => r.at)).toEqual([
      1_000, 1_001, 1_002, 1_003,
    ]);
  });

  it('a new tape is readable by all (market data, replayed elsewhere), written by its owner', async () => {
    const d = dir();
    const path = join(d, 'mode.tape');
    const w = openTapeWriter(path, { header, flushMs: 0 });
    await w.close();
    // as the umask leaves a file made with the default mode (0o666)
    writeFileSync(join(d, 'plain'), '');
    expect(statSync(path).mode & 0o777).toBe(statSync(join(d, 'plain')).mode & 0o644);
  });
});

// Writing a tape on a full disk: node:fs's writeSync is wrapped so that, while `disk.room` is set,
// it writes at most that many more bytes (a short write, as write(2) does on a full disk or at a
// file size limit) and then fails with ENOSPC.
import { mkdtempSync, type writeSync as WriteSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MarketApi } from '../../../src/market/api.ts';
import type { TapeHeader } from '../../../src/tape/format.ts';
import { openTape, scanTape } from '../../../src/tape/reader.ts';
import {
  createTapeRecorder,
  type TapeRecorder,
  type TapeRecorderOptions,
  type TapeWriteState,
} from '../../../src/tape/recorder.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { tapeListing } from '../../helpers/tapes.ts';

const disk = { room: undefined as number | undefined };

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
    if (disk.room === undefined) return fs.writeSync(fd, buffer, offset, length, position);
    if (disk.room === 0)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const n = fs.writeSync(fd, buffer, offset, Math.min(length, disk.room), position);
    disk.room -= n;
    return n;
  }) as typeof WriteSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

afterEach(() => {
  disk.room = undefined;
  vi.useRealTimers();
});

const header: TapeHeader = {
  k: 'header',
  at: 1_000,
  version: 1,
  source: 'test',
  chain: 'ethereum',
  collections: ['apes'],
  paymentTokens: [],
};

const tmp = (name: string) => join(mkdtempSync(join(tmpdir(), 'harpoon-full-')), name);

/** A record that does not compress much: `bytes` of hex. */
function fees(at: number, bytes: number) {
  let slug = '';
  for (let i = 0; slug.length < bytes; i++) slug += ((at * 7919 + i * 104729) % 2 ** 31).toString(16);
  return { k: 'fees' as const, at, slug: slug.slice(0, bytes), fees: [] };
}

describe('tape writer on a full disk', () => {
  it('a block cut short by a full disk is cut off, its records are kept, and the smaller blocks written once there is room again leave a whole tape', () => {
    const path = tmp('full.tape');
    const w = openTapeWriter(path, { header, flushMs: 0, sync: false });
    w.write(fees(1, 100));
    w.flush();
    // room for part of the next block only: a short write, then ENOSPC
    disk.room = 1_000;
    w.write(fees(2, 20_000));
    expect(() => w.flush()).toThrow(/ENOSPC/);
    expect(w.stats().held).toBe(1);
    expect(() => w.flush()).toThrow(/ENOSPC/);
    // room again: the held record goes out with the next ones, blocks smaller than the cut one
    disk.room = undefined;
    w.write(fees(3, 10));
    w.flush();
    w.write(fees(4, 10));
    w.flush();
    const scan = scanTape(path);
    expect(scan).toMatchObject({ torn: false, damaged: false });
    expect([...openTape(path).records()].map((r) => r.at)).toEqual([1_000, 1, 2, 3, 4]);
  });

  it('holds at most maxHeldBytes while the disk stays full; the records after that are dropped and counted', () => {
    const path = tmp('held.tape');
    const w = openTapeWriter(path, { header, flushMs: 0, sync: false, maxHeldBytes: 5_000 });
    w.flush();
    disk.room = 0;
    // the records buffered when it starts failing are held; then a few more, up to maxHeldBytes
    for (let at = 1; at <= 20; at++) w.write(fees(at, 100));
    expect(() => w.flush()).toThrow(/ENOSPC/);
    for (let at = 21; at <= 200; at++) w.write(fees(at, 100));
    const { held, dropped } = w.stats();
    expect(held).toBeGreaterThan(20);
    expect(held).toBeLessThan(60);
    expect(held + dropped).toBe(200);
    disk.room = undefined;
    w.flush();
    expect([...openTape(path).records()].length).toBe(1 + held);
  });

  it('REST answers as changes (version 3): answers held while the disk is full, and those after dropped ones, read back as they were', () => {
    const path = tmp('held3.tape');
    const w = openTapeWriter(path, {
      header: { ...header, version: 3 },
      flushMs: 0,
      sync: false,
      maxHeldBytes: 3_000,
    });
    // answers of one kind that each keep most of the one before: written as changes
    const answer = (at: number) => ({
      k: 'rest' as const,
      at,
      call: 'listings' as const,
      slug: 'apes',
      next: null,
      response: { listings: [at, at + 1, at + 2].map((n) => ({ hash: fees(n, 40).slug })) },
    });
    w.write(answer(1));
    w.flush();
    disk.room = 0;
    for (let at = 2; at <= 200; at++) w.write(answer(at));
    expect(() => w.flush()).toThrow(/ENOSPC/);
    for (let at = 201; at <= 400; at++) w.write(answer(at));
    expect(w.stats().dropped).toBeGreaterThan(0);
    disk.room = undefined;
    w.flush();
    w.write(answer(401));
    w.flush();
    const back = [...openTape(path).records()].filter((r) => r.k === 'rest');
    expect(back.length).toBe(401 - w.stats().dropped);
    for (const r of back) expect(r).toEqual(answer(r.at));
    expect(back.at(-1)?.at).toBe(401);
  });
});

const listing = (id: number, at: number) => tapeListing(String(id), at);

/** A recorder of collection `apes` on the wall clock (faked in these tests), at `path`. */
function recorderAt(path: string, more: Partial<TapeRecorderOptions>): TapeRecorder {
  return createTapeRecorder({
    path,
    source: 'test',
    chain: 'ethereum',
    collections: ['apes'],
    paymentTokens: [],
    clock: { now: () => Date.now() },
    ...more,
  });
}

describe('tape recorder on a full disk', () => {
  it('never throws at the daemon: a REST answer too big to buffer is still returned, events still taken; told once when failing, once a minute while it fails, once when it recovers', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const path = tmp('rec.tape');
    const told: TapeWriteState[] = [];
    const big = { listings: [{ blob: fees(0, 300 * 1024).slug }] };
    const api = {
      collections: {
        stats: async () => ({}),
        traits: async () => ({}),
        traitFloors: async () => ({}),
      },
      listings: { best: async () => big },
      offers: { collection: async () => ({}), traits: async () => ({}) },
    } as unknown as MarketApi;
    const rec = recorderAt(path, {
      freshness: () => ({ ageMs: 1, stale: false }),
      onWrite: (s) => told.push(s),
    });
    const view = rec.wrapApi(api);
    await vi.advanceTimersByTimeAsync(1_000);
    disk.room = 0;
    // the answer is over maxBlockBytes: recording it flushes, and the flush fails
    await expect(view.listings.best('apes')).resolves.toBe(big);
    expect(() => rec.event(listing(1, Date.now()))).not.toThrow();
    // ten minutes of a full disk: one warning, then a note a minute
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(told.map((s) => s.state)).toEqual(['failing', ...Array(10).fill('still failing')]);
    expect(told.at(-1)?.failures).toBeGreaterThan(590);
    disk.room = undefined;
    rec.event(listing(2, Date.now()));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(told.at(-1)).toMatchObject({ state: 'recovered', held: 0, dropped: 0 });
    await rec.close();
    expect(told.length).toBe(12);
    const kept = [...openTape(path).records()];
    expect(kept.filter((r) => r.k === 'rest').length).toBe(1);
    expect(kept.filter((r) => r.k === 'event').length).toBe(2);
    expect(scanTape(path)).toMatchObject({ torn: false, damaged: false });
  });

  it('closed while the disk is still full: says how many records were not written', async () => {
    const path = tmp('end.tape');
    const rec = recorderAt(path, { onWrite: () => {} });
    disk.room = 0;
    rec.event(listing(1, 1));
    rec.event(listing(2, 2));
    // the header and the two events
    await expect(rec.close()).rejects.toThrow(
      `the tape ${path} could not be written at the end: 3 records were not written`,
    );
  });
});

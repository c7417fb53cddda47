import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MarketEvent } from '../../../src/domain/events.ts';
import { convertTape } from '../../../src/tape/convert.ts';
import { TAPE_VERSION, type TapeHeader, type TapeRecord } from '../../../src/tape/format.ts';
import { openTape, surveyTape } from '../../../src/tape/reader.ts';
import { openTapeWriter } from '../../../src/tape/writer.ts';
import { apesTapeHeader, appendRawBlock, tapeLines, tapeListing } from '../../helpers/tapes.ts';

const AT = 1_767_225_600_000;
const header = (version: TapeHeader['version'], meta?: TapeHeader['meta']) =>
  apesTapeHeader(AT, version, meta);
const listing = (n: number): TapeRecord => ({
  k: 'event',
  at: AT + n * 1_000,
  event: tapeListing(String(n), AT + n * 1_000) as MarketEvent,
});
const offers = (n: number): TapeRecord => ({
  k: 'rest',
  at: AT + n * 1_000,
  call: 'collectionOffers',
  slug: 'apes',
  next: null,
  response: {
    offers: [n, n + 1, n + 2, n + 3, n + 4, n + 5].map((i) => ({ order_hash: `0x${i}`, price: String(i) })),
  },
});
/** Every field, in its order, bigints marked: equal only when a record reads back as it was. */
const exact = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
/** A version 3 tape of `n` listings, a second apart. */
async function listingsTape(path: string, n: number): Promise<string> {
  const w = openTapeWriter(path, { header: header(3), flushMs: 0 });
  for (let i = 0; i < n; i++) w.write(listing(i));
  await w.close();
  return path;
}
const dir = () => mkdtempSync(join(tmpdir(), 'harpoon-convert-'));

describe('convertTape', () => {
  it('writes every record of an older tape again in this version, in order, a later header kept', async () => {
    const d = dir();
    const old = join(d, 'v1.tape');
    // a version 1 tape of `harpoon record`, continued by a trading daemon (a second header)
    let w = openTapeWriter(old, { header: header(1), flushMs: 0 });
    const written: TapeRecord[] = [];
    for (let n = 0; n < 40; n++) written.push(n % 4 === 3 ? offers(n) : listing(n));
    for (const r of written.slice(0, 20)) w.write(r);
    await w.close();
    const wallet = '0x00000000000000000000000000000000000000aa';
    w = openTapeWriter(old, { header: header(1, { wallet }), flushMs: 0 });
    for (const r of written.slice(20)) w.write(r);
    w.write({ k: 'gas', at: AT + 50_000, price: 9n });
    await w.close();
    const before = readFileSync(old);
    const records = [...openTape(old).records()];
    expect(records.filter((r) => r.k === 'header')).toHaveLength(2);

    const out = join(d, 'v4.tape');
    const r = await convertTape(old, out);
    expect(r).toMatchObject({ version: TAPE_VERSION, records: 42, events: 30, interrupted: false });
    expect(r.from.header.version).toBe(1);
    // the tape read is not touched
    expect(readFileSync(old).equals(before)).toBe(true);
    const back = [...openTape(out).records()];
    expect(back[0]).toEqual({ ...header(1), version: TAPE_VERSION });
    expect(exact(back.slice(1))).toBe(exact(records.slice(1)));
    // events in binary now, REST answers as changes, the wallet of the later header still named
    const lines = tapeLines(out);
    expect(lines.filter((l) => l.startsWith('\u0001'))).toHaveLength(30);
    expect(lines.filter((l) => l.includes('"same"')).length).toBeGreaterThan(5);
    expect(surveyTape(out).wallet).toBe(wallet);
  });

  it('stopped by its signal: the copy is a whole tape up to there', async () => {
    const d = dir();
    const old = await listingsTape(join(d, 'long.tape'), 3_000);
    const stop = new AbortController();
    const out = join(d, 'part.tape');
    const r = await convertTape(old, out, {
      signal: stop.signal,
      progressEvery: 1_000,
      onProgress: (n) => {
        if (n >= 1_000) stop.abort();
      },
    });
    expect(r).toMatchObject({ interrupted: true, records: 1_000 });
    const s = surveyTape(out);
    expect(s).toMatchObject({ torn: false, records: 1_001 });
    expect(s.lastAt).toBe(AT + 999_000);
    // a signal aborted from outside (a Ctrl-C's handler) is seen while the tape is read: the
    // conversion gives the process's events a turn
    const later = new AbortController();
    setImmediate(() => later.abort());
    const r2 = await convertTape(old, join(d, 'part2.tape'), { signal: later.signal });
    expect(r2.interrupted).toBe(true);
    expect(r2.records).toBeLessThan(3_000);
    expect(surveyTape(join(d, 'part2.tape'))).toMatchObject({ torn: false, records: r2.records + 1 });
  });

  it('a record that cannot be read stops it with the error, and no copy is left', async () => {
    const d = dir();
    const old = await listingsTape(join(d, 'bad.tape'), 10);
    // a block no writer of ours makes: an event of a kind this harpoon does not know
    appendRawBlock(old, [`[${AT + 20_000},55,"x","apes","ethereum",0,0,"stream"]`]);
    const out = join(d, 'copy.tape');
    await expect(convertTape(old, out)).rejects.toThrow(/of kind 55 is not one this harpoon knows/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.lock`)).toBe(false);
  });
});

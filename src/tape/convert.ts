/**
 * A tape written again in the version this harpoon writes (`harpoon tape convert`): a tape keeps
 * the version it was started in for as long as it is recorded to (events of one tape in one form),
 * so a recording of an older harpoon stays as large and as slow to replay as it was (the bench's
 * sandbox tape of version 3: 6.2 MB, 5.0 MB once converted, read in ~30 % less time). Every
 * record is read (REST answers written as changes resolved) and written anew, in order, with the
 * same times: the same market, replayed to the same report.
 *
 * A tape being written is converted as it stands (its whole blocks), a torn or damaged one up to
 * its last whole block or the damage (see TapeSurvey). The copy is a new file: nothing is ever
 * written to the tape read. A record that cannot be read stops the conversion with its
 * TapeFormatError, and the copy is removed (it would look whole without the rest).
 *
 * A cut (`--from`, `--to`): the copy holds the tape's market from `from` to `to` — a day out of a
 * month's recording, replayed without reading the month. Its records before `from` are no events,
 * only each key's newest value then (a REST answer per call, collection and page cursor — cursors
 * of the last CURSOR_ANSWER_KEEP_MS only —, fees per collection, the gas price, a price per token,
 * a drop's status, traits per NFT, the freshness per collection, a later header: see CutState), at
 * their own times, and its header says where it begins (TapeHeader.from): a replay of the copy
 * begins there, its view's first reads answered as the whole tape's would be then — the copy
 * replays as the whole tape does with `--warmup` reaching back to `from` (tested). Records after
 * `to` are not copied (the tape is read LOOK_AHEAD_MS past it, for records written late).
 */
import { rmSync } from 'node:fs';
import {
  CURSOR_ANSWER_KEEP_MS,
  isCursorKey,
  LOOK_AHEAD_MS,
  restKey,
  TAPE_VERSION,
  type TapeFresh,
  type TapeHeader,
  type TapeRecord,
} from './format.ts';
import { openTape, surveyTape, type TapeSurvey } from './reader.ts';
import { openTapeWriter } from './writer.ts';

export interface ConvertOptions {
  /** Stops the conversion at the next record: the copy is then a whole tape up to there. */
  readonly signal?: AbortSignal;
  /** Told every `progressEvery` records read: records read, the time of the last. */
  readonly onProgress?: (records: number, at: number) => void;
  readonly progressEvery?: number;
  /** Cut: the copy's market begins here (epoch ms; see above). Not after the tape's last record. */
  readonly from?: number;
  /** Cut: nothing recorded after this (epoch ms) is copied. Not before the tape's first record or `from`. */
  readonly to?: number;
}

export interface ConvertResult {
  /** The tape read, as surveyed before (version, records, bytes, whether whole). */
  readonly from: TapeSurvey;
  /** The version written. */
  readonly version: number;
  /** Records written after the header (all the tape's but its first header, unless interrupted or cut). */
  readonly records: number;
  readonly events: number;
  /** Bytes of the copy. */
  readonly bytes: number;
  readonly interrupted: boolean;
  /** A cut: where the copy begins and ends, what it kept of the market before, what it left out. */
  readonly cut?: {
    /** The copy's start (TapeHeader.from); null: not cut at the start. */
    readonly from: number | null;
    readonly to: number | null;
    /** Records before `from` written: the newest value of each key then. */
    readonly kept: number;
    /** Records before `from` not written (events, values replaced by newer ones). */
    readonly leftBefore: number;
    /** Events among them. */
    readonly eventsBefore: number;
    /** Records after `to` not written (read: those within LOOK_AHEAD_MS of it). */
    readonly leftAfter: number;
  };
}

/** Records between two turns of the process's events (see convertTape). */
const YIELD_EVERY = 1024;

/** Inflated bytes of a block of the copy (as the sandbox's tapes: few, large blocks read fastest). */
const BLOCK_BYTES = 512 * 1024;

/**
 * The market before a cut's start: each key's newest record (a later one of the same time
 * replaces it, as a replay's lookup takes the last recorded), the freshness per collection, and
 * every later header. `offered` counts what it was given, to tell what was left out.
 */
class CutState {
  private readonly newest = new Map<string, TapeRecord>();
  private readonly fresh = new Map<string, { at: number; ageMs: number; stale: boolean }>();
  private readonly headers: TapeRecord[] = [];
  offered = 0;
  events = 0;

  add(r: TapeRecord): void {
    this.offered++;
    let key: string;
    switch (r.k) {
      case 'event':
        this.events++;
        return;
      case 'header':
        this.headers.push(r);
        return;
      case 'fresh':
        for (const [slug, f] of Object.entries(r.collections)) {
          const had = this.fresh.get(slug);
          if (had === undefined || had.at <= r.at) this.fresh.set(slug, { at: r.at, ...f });
        }
        return;
      case 'rest':
        key = `rest\u0000${restKey(r)}`;
        break;
      case 'fees':
        key = `fees\u0000${r.slug}`;
        break;
      case 'gas':
        key = 'gas';
        break;
      case 'price':
        key = `price\u0000${r.token}`;
        break;
      case 'drop':
        key = `drop\u0000${r.drop.slug}`;
        break;
      case 'traits':
        key = `traits\u0000${r.nft}`;
        break;
    }
    const had = this.newest.get(key);
    if (had === undefined || had.at <= r.at) {
      // the newest last, as read (a key's order among the others does not matter to a replay)
      this.newest.delete(key);
      this.newest.set(key, r);
    }
  }

  /** Lets go of answers to page cursors recorded before `floor`: a cut copies none of them. */
  forgetCursors(floor: number): void {
    for (const [k, r] of this.newest)
      if (r.k === 'rest' && r.at < floor && isCursorKey(k.slice('rest\u0000'.length))) this.newest.delete(k);
  }

  /** What a cut at `from` writes before its window, in time order (freshness grouped by time). */
  records(from: number): TapeRecord[] {
    this.forgetCursors(from - CURSOR_ANSWER_KEEP_MS);
    const out: TapeRecord[] = [...this.headers, ...this.newest.values()];
    const byAt = new Map<number, Record<string, { ageMs: number; stale: boolean }>>();
    for (const [slug, f] of this.fresh) {
      let c = byAt.get(f.at);
      if (c === undefined) {
        c = {};
        byAt.set(f.at, c);
      }
      c[slug] = { ageMs: f.ageMs, stale: f.stale };
    }
    for (const [at, collections] of byAt) out.push({ k: 'fresh', at, collections } satisfies TapeFresh);
    // stable: records of one time keep the order they were read in
    return out.sort((a, b) => a.at - b.at);
  }
}

/**
 * Writes the tape at `from` to the new file `out` in version TAPE_VERSION, whole or cut to
 * `o.from`…`o.to` (see above). A window with nothing in it is a RangeError, before anything is written.
 */
export async function convertTape(from: string, out: string, o: ConvertOptions = {}): Promise<ConvertResult> {
  const survey = surveyTape(from);
  // a start at or before the tape's first record cuts nothing off
  const cutFrom = o.from !== undefined && o.from > survey.firstAt ? o.from : undefined;
  const cutTo = o.to !== undefined && o.to < survey.lastAt ? o.to : undefined;
  const runs = `the tape runs ${new Date(survey.firstAt).toISOString()} → ${new Date(survey.lastAt).toISOString()}`;
  if (o.from !== undefined && o.to !== undefined && o.to <= o.from)
    throw new RangeError('the cut ends before it starts: nothing to copy');
  if (o.from !== undefined && o.from > survey.lastAt)
    throw new RangeError(`the cut starts after the tape ends (${runs}): nothing to copy`);
  if (o.to !== undefined && o.to < survey.firstAt)
    throw new RangeError(`the cut ends before the tape starts (${runs}): nothing to copy`);
  const header: TapeHeader = {
    ...survey.header,
    version: TAPE_VERSION,
    ...(cutFrom !== undefined ? { from: cutFrom } : {}),
  };
  const w = openTapeWriter(out, { header, flushMs: 0, maxBlockBytes: BLOCK_BYTES });
  const every = Math.max(1, Math.floor(o.progressEvery ?? 500_000));
  let read = 0;
  let records = 0;
  let events = 0;
  let leftAfter = 0;
  let kept = 0;
  let interrupted = false;
  let failed = true;
  const write = (r: TapeRecord) => {
    w.write(r);
    records++;
    if (r.k === 'event') events++;
  };
  // a cut: the market before its start, and what was read of its window while records written
  // late (up to LOOK_AHEAD_MS) may still add to that market
  const before = cutFrom !== undefined ? new CutState() : undefined;
  let held: TapeRecord[] | undefined = before !== undefined ? [] : undefined;
  const release = () => {
    if (before === undefined || held === undefined) return;
    const state = before.records(cutFrom as number);
    kept = state.length;
    for (const r of state) write(r);
    for (const r of held) write(r);
    held = undefined;
  };
  try {
    let first = true;
    // the whole blocks the survey saw: a tape still being recorded is read as it was surveyed
    for (const r of openTape(from).records(survey.validBytes)) {
      // the first header is the copy's own (written by the writer); a later one (a trading daemon
      // continuing a recording) is a record of the tape like any other
      if (first) {
        first = false;
        continue;
      }
      // the process's events (a Ctrl-C) get a turn now and then: the reading is synchronous
      if (read % YIELD_EVERY === 0 && read > 0) await new Promise((done) => setImmediate(done));
      if (o.signal?.aborted === true) {
        interrupted = true;
        break;
      }
      read++;
      if (read % every === 0) o.onProgress?.(read, r.at);
      if (cutTo !== undefined && r.at > cutTo) {
        // written late, a record of the window can still come after one past it
        if (r.at > cutTo + LOOK_AHEAD_MS) break;
        leftAfter++;
        continue;
      }
      if (before !== undefined && held !== undefined) {
        if (r.at < (cutFrom as number)) {
          before.add(r);
          // cursors go stale as the book moves: a month's of them are not all held
          if (before.offered % 65_536 === 0) before.forgetCursors(r.at - CURSOR_ANSWER_KEEP_MS);
          continue;
        }
        held.push(r);
        if (r.at >= (cutFrom as number) + LOOK_AHEAD_MS) release();
        continue;
      }
      write(r);
    }
    release();
    failed = false;
  } finally {
    await w.close();
    // a record that cannot be read (or a write that failed): no copy that looks whole but is not
    if (failed) rmSync(out, { force: true });
  }
  const s = w.stats();
  if (s.records !== records || s.held > 0 || s.dropped > 0) {
    rmSync(out, { force: true });
    throw new Error(
      `${out}: ${s.records - s.held - s.dropped} of ${records} records reached the copy (the disk full?): no copy made`,
    );
  }
  return {
    from: survey,
    version: TAPE_VERSION,
    records,
    events,
    bytes: s.bytes,
    interrupted,
    ...(o.from !== undefined || o.to !== undefined
      ? {
          cut: {
            from: cutFrom ?? null,
            to: cutTo ?? null,
            kept,
            leftBefore: (before?.offered ?? 0) - kept,
            eventsBefore: before?.events ?? 0,
            leftAfter,
          },
        }
      : {}),
  };
}

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
 */
import { rmSync } from 'node:fs';
import { TAPE_VERSION, type TapeHeader } from './format.ts';
import { openTape, surveyTape, type TapeSurvey } from './reader.ts';
import { openTapeWriter } from './writer.ts';

export interface ConvertOptions {
  /** Stops the conversion at the next record: the copy is then a whole tape up to there. */
  readonly signal?: AbortSignal;
  /** Told every `progressEvery` records: records written, the time of the last. */
  readonly onProgress?: (records: number, at: number) => void;
  readonly progressEvery?: number;
}

export interface ConvertResult {
  /** The tape read, as surveyed before (version, records, bytes, whether whole). */
  readonly from: TapeSurvey;
  /** The version written. */
  readonly version: number;
  /** Records written after the header (all the tape's but its first header, unless interrupted). */
  readonly records: number;
  readonly events: number;
  /** Bytes of the copy. */
  readonly bytes: number;
  readonly interrupted: boolean;
}

/** Records between two turns of the process's events (see convertTape). */
const YIELD_EVERY = 1024;

/** Inflated bytes of a block of the copy (as the sandbox's tapes: few, large blocks read fastest). */
const BLOCK_BYTES = 512 * 1024;

/** Writes the tape at `from` to the new file `out` in version TAPE_VERSION (see above). */
export async function convertTape(from: string, out: string, o: ConvertOptions = {}): Promise<ConvertResult> {
  const survey = surveyTape(from);
  const header: TapeHeader = { ...survey.header, version: TAPE_VERSION };
  const w = openTapeWriter(out, { header, flushMs: 0, maxBlockBytes: BLOCK_BYTES });
  const every = Math.max(1, Math.floor(o.progressEvery ?? 500_000));
  let records = 0;
  let events = 0;
  let interrupted = false;
  let failed = true;
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
      if (records % YIELD_EVERY === 0 && records > 0) await new Promise((done) => setImmediate(done));
      if (o.signal?.aborted === true) {
        interrupted = true;
        break;
      }
      w.write(r);
      records++;
      if (r.k === 'event') events++;
      if (records % every === 0) o.onProgress?.(records, r.at);
    }
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
  return { from: survey, version: TAPE_VERSION, records, events, bytes: s.bytes, interrupted };
}

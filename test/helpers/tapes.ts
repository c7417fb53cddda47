import type { TapeEvent, TapeHeader, TapeRecord } from '../../src/tape/format.ts';
import { openTape } from '../../src/tape/reader.ts';
import { openTapeWriter } from '../../src/tape/writer.ts';

/**
 * Writes to `out` the tape at `from`, then its last event again `gapMs` later; between them
 * nothing is recorded, or what `between` gives (from the last event's time and the header).
 */
export async function gappedTape(
  from: string,
  out: string,
  gapMs: number,
  between?: (lastAt: number, header: TapeHeader) => Iterable<TapeRecord>,
): Promise<{ lastAt: number; farAt: number }> {
  const records = [...openTape(from).records()];
  const w = openTapeWriter(out, { header: records[0] as TapeHeader, flushMs: 0 });
  let last: TapeEvent | undefined;
  for (const r of records.slice(1)) {
    w.write(r);
    if (r.k === 'event') last = r;
  }
  if (last === undefined) throw new Error(`${from} has no event`);
  for (const r of between?.(last.at, records[0] as TapeHeader) ?? []) w.write(r);
  const farAt = last.at + gapMs;
  w.write({ ...last, at: farAt, event: { ...last.event, receivedAt: farAt } });
  await w.close();
  return { lastAt: last.at, farAt };
}

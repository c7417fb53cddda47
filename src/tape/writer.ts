/**
 * Appends records to a tape: buffered, one compressed block per flush. With `flushMs` (default
 * 1000) a timer flushes what was buffered, so a crash loses at most that much; `maxBlockBytes`
 * flushes a large buffer at once (a generator writing hours of market in seconds).
 *
 *   const w = openTapeWriter('market.tape', { header });
 *   w.write({ k: 'event', at, event });
 *   await w.close();
 *
 * An existing tape is continued: its torn tail (a block cut by a crash) is truncated away first,
 * and no second header is written. A tape damaged before its last block is refused (TapeFormatError):
 * truncating there would lose the blocks after the damage.
 */
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';
import {
  BLOCK_HEADER_BYTES,
  encodeRecord,
  TAPE_MAGIC_BYTES,
  TapeFormatError,
  type TapeHeader,
  type TapeRecord,
} from './format.ts';
import { openTape, scanTape } from './reader.ts';

export interface TapeWriterOptions {
  /** Written first when the file is new (ignored when continuing a tape). */
  readonly header: TapeHeader;
  /** Flush the buffer at least this often (ms); 0: only on size and close. Default 1000. */
  readonly flushMs?: number;
  /** Flush as soon as the buffer holds this many bytes of JSON. Default 256 KiB. */
  readonly maxBlockBytes?: number;
  /** fdatasync after each block (the second a crash may lose is then only the buffer). Default true. */
  readonly sync?: boolean;
  /** deflate level, 1 (fast) .. 9. Default 6. */
  readonly level?: number;
  /** A flush that failed (disk full…): told, never thrown from the timer. */
  readonly onError?: (err: unknown) => void;
}

export interface TapeWriter {
  readonly path: string;
  write(record: TapeRecord): void;
  /** Writes what is buffered as one block now. */
  flush(): void;
  /** Records and blocks written by this writer. */
  stats(): { records: number; blocks: number; bytes: number; truncatedTail: number };
  close(): Promise<void>;
}

/**
 * A tape is one market: continuing it with a recording of another chain or other collections, or
 * a real market after a simulated one (or the other way), would make its header lie.
 */
function refuseOtherMarket(path: string, had: TapeHeader, now: TapeHeader): void {
  const market = (h: TapeHeader) =>
    `${h.chain} (${[...h.collections].sort().join(', ') || 'no collections'}${h.source === 'sandbox' ? ', simulated' : ''})`;
  if (market(had) !== market(now))
    throw new TapeFormatError(
      `${path} is a tape of ${market(had)} and this recording is of ${market(now)}: continuing it would mix two markets on one tape; record to a new file`,
    );
}

export function openTapeWriter(path: string, options: TapeWriterOptions): TapeWriter {
  const flushMs = options.flushMs ?? 1000;
  const maxBlockBytes = options.maxBlockBytes ?? 256 * 1024;
  const sync = options.sync ?? true;
  const level = options.level ?? 6;
  let truncatedTail = 0;
  let fd: number;
  let size: number;
  if (existsSync(path) && statSync(path).size > 0) {
    const scan = scanTape(path);
    if (scan.damaged)
      throw new TapeFormatError(
        `${path} is damaged at byte ${scan.validBytes} (${scan.tornReason}), with ${scan.bytes - scan.validBytes} bytes after it: ` +
          'that is not the tail of a write cut by a crash, and continuing the tape would cut them off. It still replays up to the damage; move it aside and record to a new file',
      );
    if (scan.blocks > 0) refuseOtherMarket(path, openTape(path).header(), options.header);
    fd = openSync(path, 'r+');
    if (scan.validBytes < scan.bytes) {
      truncatedTail = scan.bytes - scan.validBytes;
      ftruncateSync(fd, scan.validBytes);
    }
    size = scan.validBytes;
  } else {
    fd = openSync(path, 'w', 0o600);
    writeSync(fd, TAPE_MAGIC_BYTES);
    size = TAPE_MAGIC_BYTES.length;
  }
  let lines: string[] = [];
  let pending = 0;
  let records = 0;
  let blocks = 0;
  let closed = false;
  // no whole block yet (a new file, or one whose first block a crash cut): the header first
  if (size === TAPE_MAGIC_BYTES.length) {
    lines.push(encodeRecord(options.header));
    pending += 1;
  }

  function flush(): void {
    if (lines.length === 0 || closed) return;
    const payload = deflateRawSync(Buffer.from(`${lines.join('\n')}\n`, 'utf8'), { level });
    lines = [];
    pending = 0;
    const block = Buffer.allocUnsafe(BLOCK_HEADER_BYTES + payload.length);
    block.writeUInt32BE(payload.length, 0);
    block.writeUInt32BE(crc32(payload), 4);
    payload.copy(block, BLOCK_HEADER_BYTES);
    // one write per block: a reader sees it whole or as a torn tail
    writeSync(fd, block, 0, block.length, size);
    size += block.length;
    blocks++;
    if (sync) fdatasyncSync(fd);
  }

  const timer =
    flushMs > 0
      ? setInterval(() => {
          try {
            flush();
          } catch (err) {
            options.onError?.(err);
          }
        }, flushMs)
      : undefined;
  timer?.unref?.();

  return {
    path,
    write(record) {
      if (closed) throw new Error(`tape ${path} is closed`);
      const line = encodeRecord(record);
      lines.push(line);
      pending += line.length + 1;
      records++;
      if (pending >= maxBlockBytes) flush();
    },
    flush,
    stats: () => ({ records, blocks, bytes: size, truncatedTail }),
    async close() {
      if (closed) return;
      if (timer !== undefined) clearInterval(timer);
      flush();
      closed = true;
      closeSync(fd);
    },
  };
}

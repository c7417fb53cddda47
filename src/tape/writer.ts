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
 * and no second header is written — but when a trading daemon (a header naming its wallet)
 * continues a tape no header of which names one (`harpoon record`'s): then a header naming the
 * wallet comes first, so that the tape's backtests trade as it. A tape damaged before its last
 * block is refused (TapeFormatError): truncating there would lose the blocks after the damage.
 *
 * One writer per tape: `<path>.lock` holds the writer's pid while it is open (see acquireFileLock).
 * A second writer — another recorder, a daemon's market.record, this process again — is refused
 * with a TapeInUseError: two writers each append at their own idea of the end and overwrite each
 * other's blocks. A lock left by a process that died is taken over.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';
import { acquireFileLock, lockOwner, UNKNOWN_OWNER } from '../store/lock.ts';
import {
  BinaryEventWriter,
  BLOCK_HEADER_BYTES,
  encodeRecord,
  RestDeltaEncoder,
  recordedWallet,
  TAPE_MAGIC_BYTES,
  TapeFormatError,
  type TapeHeader,
  type TapeRecord,
} from './format.ts';
import { openTape, scanTape, surveyTape, type TapeScan } from './reader.ts';

/**
 * A new tape's mode (before the umask): readable by all, written by its owner. A tape is market
 * data, no secret, and is replayed elsewhere (a CI step as another user, a colleague's backtest).
 */
const TAPE_MODE = 0o644;

/** The tape is being written by another writer (its pid named): refused like a file that is no tape of ours. */
export class TapeInUseError extends TapeFormatError {
  constructor(
    readonly path: string,
    readonly owner: number | null,
  ) {
    super(
      owner === null
        ? `cannot take the lock of ${path}: another writer is opening it`
        : owner === UNKNOWN_OWNER
          ? `${path} is being written by another user's harpoon process (its lock cannot be read here): one writer per tape; stop that one or record to another file`
          : `${path} is being written by another harpoon process (pid ${owner}): one writer per tape; stop that one or record to another file`,
    );
    this.name = 'TapeInUseError';
  }
}

export interface TapeWriterOptions {
  /** Written first when the file is new (ignored when continuing a tape). */
  readonly header: TapeHeader;
  /** Flush the buffer at least this often (ms); 0: only on size and close. Default 1000. */
  readonly flushMs?: number;
  /** Flush as soon as the buffer holds this many bytes of JSON. Default 256 KiB. */
  readonly maxBlockBytes?: number;
  /**
   * A new tape, never a continued one: a file at the path is removed first, under the writer's lock
   * (anything but a regular file there is refused). Default false: an existing tape is continued.
   */
  readonly replace?: boolean;
  /** fdatasync after each block (the second a crash may lose is then only the buffer). Default true. */
  readonly sync?: boolean;
  /** deflate level, 1 (fast) .. 9. Default 6. */
  readonly level?: number;
  /** A flush that failed (disk full…): told, never thrown from the timer. */
  readonly onError?: (err: unknown) => void;
  /**
   * While writing fails, records are held to be written when it works again, up to this many bytes
   * (their blocks, deflated); the records after that are dropped (counted in stats). Default 16 MiB.
   */
  readonly maxHeldBytes?: number;
  /**
   * Told once when the tape is deleted while it is written (a new tape is started at its path) or
   * moved (writing goes on into the moved file).
   */
  readonly onNotice?: (message: string) => void;
}

export interface TapeWriter {
  readonly path: string;
  write(record: TapeRecord): void;
  /**
   * Writes what is buffered as one block now. When the write fails (disk full, file too large) it
   * throws, and the records stay buffered for the next flush.
   */
  flush(): void;
  /**
   * Records and blocks written by this writer; `held`: records waiting for a flush, `dropped`:
   * records lost because writing failed for longer than maxHeldBytes could hold.
   */
  stats(): {
    records: number;
    blocks: number;
    bytes: number;
    truncatedTail: number;
    held: number;
    dropped: number;
  };
  close(): Promise<void>;
}

/** What a tape records: its chain and collections, simulated or not (see checkTapeToWrite). */
export type TapeMarket = Pick<TapeHeader, 'chain' | 'collections' | 'source' | 'meta'>;

/**
 * A tape is one market: continuing it with a recording of another chain or other collections, or
 * a real market after a simulated one (or the other way), would make its header lie. It is one
 * wallet too (`hadWallet`: the wallet its headers name, see TapeSurvey.wallet).
 */
function refuseOtherMarket(
  path: string,
  had: TapeMarket,
  now: TapeMarket,
  hadWallet: string | undefined,
): void {
  const market = (h: TapeMarket) =>
    `${h.chain} (${[...h.collections].sort().join(', ') || 'no collections'}${h.source === 'sandbox' ? ', simulated' : ''})`;
  if (market(had) !== market(now))
    throw new TapeFormatError(
      `${path} is a tape of ${market(had)} and this recording is of ${market(now)}: continuing it would mix two markets on one tape; record to a new file`,
    );
  // the orders of the wallet a tape names are ours in its backtests: one wallet a tape
  const b = recordedWallet(now);
  if (hadWallet !== undefined && b !== undefined && hadWallet !== b)
    throw new TapeFormatError(
      `${path} was recorded by a daemon trading as ${hadWallet} and this one trades as ${b}: continuing it would make one wallet's orders pass for the other's in a backtest; record to a new file`,
    );
}

/**
 * Whether a recording of `market` may be written to `path`, checked before anything starts (a
 * recorder opening it later checks again): a TapeInUseError when another writer has it open, a
 * TapeFormatError when it is not a tape, is damaged before its end, or is a tape of another
 * market. Nothing there, or an empty file, is fine (a new tape).
 */
export function checkTapeToWrite(path: string, market: TapeMarket): void {
  const owner = lockOwner(path);
  if (owner !== null) throw new TapeInUseError(path, owner);
  scanToContinue(path, market);
}

/**
 * A tape to continue: its whole blocks, its version (null: no whole block, its header not written
 * yet) and the wallet its headers name.
 */
function scanToContinue(
  path: string,
  market: TapeMarket,
): (TapeScan & { version: number | null; wallet: string | undefined }) | null {
  if (!existsSync(path) || statSync(path).size === 0) return null;
  const scan = scanTape(path);
  if (scan.damaged)
    throw new TapeFormatError(
      `${path} is damaged at byte ${scan.validBytes} (${scan.tornReason}), with ${scan.bytes - scan.validBytes} bytes after it: ` +
        'that is not the tail of a write cut by a crash, and continuing the tape would cut them off. It still replays up to the damage; move it aside and record to a new file',
    );
  if (scan.blocks === 0) return { ...scan, version: null, wallet: undefined };
  const had = openTape(path).header();
  // a first header naming no wallet (harpoon record's) may be followed by one that does (a trading
  // daemon continued it): read only when this recording names a wallet (a pass over the tape)
  const wallet =
    recordedWallet(had) ?? (recordedWallet(market) !== undefined ? surveyTape(path).wallet : undefined);
  refuseOtherMarket(path, had, market, wallet);
  return { ...scan, version: had.version, wallet };
}

export function openTapeWriter(path: string, options: TapeWriterOptions): TapeWriter {
  const release = acquireFileLock(path, (owner) => new TapeInUseError(path, owner));
  try {
    return writerOf(path, options, release);
  } catch (e) {
    release();
    throw e;
  }
}

function writerOf(path: string, options: TapeWriterOptions, release: () => void): TapeWriter {
  const flushMs = options.flushMs ?? 1000;
  const maxBlockBytes = options.maxBlockBytes ?? 256 * 1024;
  const sync = options.sync ?? true;
  const level = options.level ?? 6;
  const maxHeldBytes = options.maxHeldBytes ?? 16 * 1024 * 1024;
  let truncatedTail = 0;
  let fd: number;
  let size: number;
  if (options.replace === true && existsSync(path)) {
    if (!statSync(path).isFile())
      throw new TapeFormatError(`${path} is not a regular file: a new tape replaces only a file`);
    rmSync(path);
  }
  const scan = scanToContinue(path, options.header);
  // a tape is written on in its own version (events of one tape in one form)
  let version = scan?.version ?? options.header.version;
  if (scan !== null) {
    fd = openSync(path, 'r+');
    if (scan.validBytes < scan.bytes) {
      truncatedTail = scan.bytes - scan.validBytes;
      ftruncateSync(fd, scan.validBytes);
    }
    size = scan.validBytes;
  } else {
    fd = openSync(path, 'w', TAPE_MODE);
    writeSync(fd, TAPE_MAGIC_BYTES);
    size = TAPE_MAGIC_BYTES.length;
  }
  // the tape was told moved, or deleted with no new one possible (see followPath): told once
  let moved = false;
  let lines: (string | Buffer)[] = [];
  let pending = 0;
  let records = 0;
  let blocks = 0;
  let dropped = 0;
  // Blocks a write failed to put on disk (full, file too large), oldest first, written before any
  // new one: deflated once, so retrying every second costs a write, not compressing again all that
  // is held (that would take the CPU the daemon trades with). While there are any, write() does not
  // flush on size.
  let held: { block: Buffer; records: number }[] = [];
  let heldBytes = 0;
  let closed = false;
  // REST answers written as changes of the one before (version 3). Only what goes into `lines` is
  // encoded, and lines reach the file in order (held while writing fails, never dropped once
  // encoded): each answer's one before is on the tape before it — but for a tape deleted meanwhile.
  const deltas = new RestDeltaEncoder();
  // events in binary (version 4): each string once a block, so a new block starts a new table
  // whenever `lines` starts anew
  const events = new BinaryEventWriter();
  // no whole block yet (a new file, or one whose first block a crash cut): the header first
  if (size === TAPE_MAGIC_BYTES.length) {
    lines.push(encodeRecord(options.header));
    pending += 1;
  } else if (scan?.wallet === undefined && recordedWallet(options.header) !== undefined) {
    // a tape no header of which names a wallet (harpoon record's), continued by a trading daemon:
    // a header naming its wallet, so that its backtests trade as it (its orders are on the tape
    // from now on; see TapeSurvey.wallet). The first header stays the tape's.
    lines.push(encodeRecord({ ...options.header, version: version as TapeHeader['version'] }));
    pending += 1;
  }

  /**
   * The tape deleted while it is written (the operator freeing space, a cleanup of old files): the
   * descriptor still writes, into a file no one can open that vanishes when it is closed. A new tape
   * is started at the path instead (what went into the deleted one is gone with it) and it is told.
   * A tape moved is told once, and written on where it is: nothing is lost there.
   */
  function followPath(): void {
    const file = fstatSync(fd);
    if (file.nlink > 0) {
      if (moved) return;
      const there = statSync(path, { throwIfNoEntry: false });
      if (there?.ino !== file.ino || there.dev !== file.dev) {
        moved = true;
        options.onNotice?.(
          `the tape ${path} was moved or replaced while it is written: recording goes on into the moved file, not into ${path}`,
        );
      }
      return;
    }
    let next: number;
    try {
      next = openSync(path, 'wx', TAPE_MODE);
    } catch (err) {
      if (!moved)
        options.onNotice?.(
          `the tape ${path} was deleted while it is written, and a new one cannot be made there (${(err as Error).message}): what is recorded now is lost`,
        );
      moved = true;
      return;
    }
    closeSync(fd);
    fd = next;
    moved = false;
    size = 0;
    // the new tape's start, its magic and header, written first (and cut off again if that fails)
    const start = Buffer.concat([TAPE_MAGIC_BYTES, blockOf([encodeRecord(options.header)])]);
    version = options.header.version;
    // answers after this are written whole; those held, written as changes of answers that went
    // into the deleted tape, are read as not recorded (see RestDeltaDecoder)
    deltas.clear();
    held.unshift({ block: start, records: 0 });
    heldBytes += start.length;
    options.onNotice?.(
      `the tape ${path} was deleted while it was written: a new tape is started there (what was written since the deletion, at most a second, is lost)`,
    );
  }

  function blockOf(records: (string | Buffer)[]): Buffer {
    // lines of JSON, each ended by a newline, and events in binary as they are (see BINARY_EVENT)
    const parts: Buffer[] = [];
    let text = '';
    for (const r of records)
      if (typeof r === 'string') text += `${r}\n`;
      else {
        if (text !== '') parts.push(Buffer.from(text, 'utf8'));
        text = '';
        parts.push(r);
      }
    if (text !== '') parts.push(Buffer.from(text, 'utf8'));
    const payload = deflateRawSync(Buffer.concat(parts), { level });
    const block = Buffer.allocUnsafe(BLOCK_HEADER_BYTES + payload.length);
    block.writeUInt32BE(payload.length, 0);
    block.writeUInt32BE(crc32(payload), 4);
    payload.copy(block, BLOCK_HEADER_BYTES);
    return block;
  }

  function flush(): void {
    if (closed) return;
    if (lines.length > 0) {
      const block = blockOf(lines);
      held.push({ block, records: lines.length });
      heldBytes += block.length;
      lines = [];
      events.newBlock();
      pending = 0;
    }
    if (held.length === 0) return;
    followPath();
    const blocksBefore = blocks;
    for (const { block } of held) {
      try {
        // one write per block: a reader sees it whole or as a torn tail
        let done = 0;
        while (done < block.length) done += writeSync(fd, block, done, block.length - done, size + done);
      } catch (err) {
        // A full disk or a file size limit writes part of the block, then fails. That part is cut
        // off: a smaller block written over it once there is room again would leave the rest of it
        // between two whole blocks, damage that stops every reader there. The block stays held.
        try {
          ftruncateSync(fd, size);
        } catch {
          // the next write at `size` covers it, and a crash before then leaves a torn tail
        }
        held = held.slice(blocks - blocksBefore);
        heldBytes = held.reduce((n, h) => n + h.block.length, 0);
        throw err;
      }
      size += block.length;
      blocks++;
    }
    held = [];
    heldBytes = 0;
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
      // writing has failed for long: what is held is kept, what comes after is lost (memory is the
      // daemon's, and a disk that stays full must not take it all)
      if (held.length > 0 && heldBytes + pending >= maxHeldBytes) {
        dropped++;
        return;
      }
      const line = encodeRecord(record, version, deltas, events);
      lines.push(line);
      pending += typeof line === 'string' ? line.length + 1 : line.length;
      records++;
      if (pending >= maxBlockBytes && held.length === 0) flush();
    },
    flush,
    stats: () => ({
      records,
      blocks,
      bytes: size,
      truncatedTail,
      held: lines.length + held.reduce((n, h) => n + h.records, 0),
      dropped,
    }),
    async close() {
      if (closed) return;
      if (timer !== undefined) clearInterval(timer);
      try {
        flush();
      } finally {
        closed = true;
        closeSync(fd);
        release();
      }
    },
  };
}

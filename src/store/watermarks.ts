import type { Db } from './open.ts';

export interface Watermark {
  readonly collection: string;
  /** Event time (epoch ms) of the newest event fully processed for this collection. */
  readonly eventAt: number;
  /** Optional opaque position (e.g. an events API cursor). */
  readonly cursor?: string;
  readonly updatedAt: number;
}

export interface WatermarkRepo {
  get(collection: string): Watermark | undefined;
  /** Moves the watermark forward; an older `eventAt` leaves it unchanged. Returns true if it moved. */
  advance(collection: string, eventAt: number, cursor?: string): boolean;
  all(): Watermark[];
}

interface Row {
  collection: string;
  event_at: number;
  cursor: string | null;
  updated_at: number;
}

const fromRow = (r: Row): Watermark => ({
  collection: r.collection,
  eventAt: r.event_at,
  ...(r.cursor === null ? {} : { cursor: r.cursor }),
  updatedAt: r.updated_at,
});

export function createWatermarkRepo(db: Db, now: () => number): WatermarkRepo {
  const getStmt = db.prepare<[string], Row>('SELECT * FROM watermarks WHERE collection = ?');
  const upsert = db.prepare(
    `INSERT INTO watermarks (collection, event_at, cursor, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (collection) DO UPDATE SET event_at = excluded.event_at, cursor = excluded.cursor,
       updated_at = excluded.updated_at
     WHERE excluded.event_at >= watermarks.event_at`,
  );
  const allStmt = db.prepare<[], Row>('SELECT * FROM watermarks ORDER BY collection');
  return {
    get(collection) {
      const r = getStmt.get(collection);
      return r ? fromRow(r) : undefined;
    },
    advance(collection, eventAt, cursor) {
      return upsert.run(collection, eventAt, cursor ?? null, now()).changes === 1;
    },
    all() {
      return allStmt.all().map(fromRow);
    },
  };
}

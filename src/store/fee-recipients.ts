import type { Db } from './open.ts';

/**
 * Every fee recipient read for a collection (lower case), kept across restarts: the calldata guard
 * lets a fill there pay them, and an order signed before a creator moved their fee pays the old
 * recipient — known to a daemon that read the fees before the change, also after it restarted.
 */
export interface FeeRecipientRepo {
  /** The recipients kept for a collection, in the order first read. */
  of(collection: string): string[];
  /** Keeps these recipients (lower-cased); one kept already stays as it was. */
  add(collection: string, recipients: readonly string[]): void;
}

export function createFeeRecipientRepo(db: Db, now: () => number): FeeRecipientRepo {
  const ofStmt = db.prepare<[string], { recipient: string }>(
    'SELECT recipient FROM fee_recipients WHERE collection = ? ORDER BY first_read_at, rowid',
  );
  const addStmt = db.prepare(
    'INSERT INTO fee_recipients (collection, recipient, first_read_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const addAll = db.transaction((collection: string, recipients: readonly string[], at: number) => {
    for (const r of recipients) addStmt.run(collection, r.toLowerCase(), at);
  });
  return {
    of: (collection) => ofStmt.all(collection).map((r) => r.recipient),
    add(collection, recipients) {
      if (recipients.length > 0) addAll(collection, recipients, now());
    },
  };
}

import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { FatalError } from '../errors/index.ts';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from './migrations.ts';

export type Db = Database.Database;

export interface OpenDbOptions {
  /** `quick` (default) runs `PRAGMA quick_check` at open; `off` skips it. */
  readonly integrityCheck?: 'quick' | 'off';
  /** Migrations to apply (tests pass their own list); default: the project's. */
  readonly migrations?: readonly Migration[];
}

const SQLITE_CORRUPT_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_VTAB']);

function corrupt(path: string, reason: string, cause?: unknown): FatalError {
  return new FatalError(
    'store_corrupt',
    `the database at ${path} is corrupt or not a harpoon database (${reason}); it was left untouched — restore it from a backup or move it away to start empty`,
    { details: { path, reason }, ...(cause === undefined ? {} : { cause }) },
  );
}

function sqliteCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Creates the database file with mode 0600 before SQLite opens it (SQLite then gives its -wal and
 * -shm files the same mode), and tightens an existing file to 0600.
 */
function prepareFile(path: string): void {
  if (path === ':memory:') return;
  if (!existsSync(path)) {
    const fd = openSync(path, 'a', 0o600);
    closeSync(fd);
  }
  if ((statSync(path).mode & 0o777) !== 0o600) chmodSync(path, 0o600);
}

/**
 * Opens (or creates) the SQLite database in WAL mode with synchronous=FULL (each commit is fsynced:
 * the write-ahead record of an intent survives a crash), checks it, and applies pending migrations.
 *
 * A corrupt file, a foreign database, or a schema newer than this build is a `FatalError`: the file
 * is never reset or rewritten.
 */
export function openDb(path: string, options: OpenDbOptions = {}): Db {
  const migrations = options.migrations ?? MIGRATIONS;
  const latest = migrations[migrations.length - 1]?.version ?? LATEST_SCHEMA_VERSION;
  prepareFile(path);
  let db: Db;
  try {
    db = new Database(path, { fileMustExist: path !== ':memory:' });
  } catch (e) {
    throw corrupt(path, 'cannot open', e);
  }
  try {
    try {
      db.pragma('busy_timeout = 5000');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (path !== ':memory:' && mode !== 'wal') throw corrupt(path, `journal mode is ${String(mode)}`);
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      if ((options.integrityCheck ?? 'quick') === 'quick') {
        const rows = db.pragma('quick_check') as Array<Record<string, unknown>>;
        const first = rows[0] ? Object.values(rows[0])[0] : 'ok';
        if (rows.length !== 1 || first !== 'ok') throw corrupt(path, `integrity check: ${String(first)}`);
      }
    } catch (e) {
      if (e instanceof FatalError) throw e;
      const code = sqliteCode(e);
      if (code && SQLITE_CORRUPT_CODES.has(code)) throw corrupt(path, code, e);
      throw corrupt(path, code ?? 'unreadable', e);
    }
    migrate(db, path, migrations, latest);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function tableNames(db: Db): string[] {
  return (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as Array<{ name: string }>
  ).map((r) => r.name);
}

function migrate(db: Db, path: string, migrations: readonly Migration[], latest: number): void {
  const tables = tableNames(db);
  let current: number;
  if (!tables.includes('schema_version')) {
    if (tables.length > 0) {
      throw new FatalError(
        'store_foreign',
        `the database at ${path} has tables but no harpoon schema version; it was left untouched — point store.path at a harpoon database or a new file`,
        { details: { path, tables: tables.slice(0, 10) } },
      );
    }
    db.exec(
      'CREATE TABLE schema_version (version INTEGER NOT NULL) STRICT; INSERT INTO schema_version VALUES (0);',
    );
    current = 0;
  } else {
    const rows = db.prepare('SELECT version FROM schema_version').all() as Array<{ version: unknown }>;
    const v = rows[0]?.version;
    if (rows.length !== 1 || typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw corrupt(path, 'schema_version table is malformed');
    }
    current = v;
  }
  if (current > latest) {
    throw new FatalError(
      'store_schema_newer',
      `the database at ${path} has schema version ${current}, newer than this harpoon build understands (${latest}); upgrade harpoon or use another store.path — the file was left untouched`,
      { details: { path, version: current, supported: latest } },
    );
  }
  for (const m of migrations) {
    if (m.version <= current) continue;
    const apply = db.transaction(() => {
      db.exec(m.sql);
      db.prepare('UPDATE schema_version SET version = ?').run(m.version);
    });
    apply.immediate();
    current = m.version;
  }
}

export function schemaVersion(db: Db): number {
  const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
  return row?.version ?? 0;
}

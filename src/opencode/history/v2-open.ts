/**
 * Opens `opencode.db` by the layouts it holds: version 1's tables (SqliteHistorySource), version 2's
 * (V2HistorySource), or both (each session once, version 2 first).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HistorySource } from '../../core/backfill/history.js';
import { PagedSnapshot } from './paged-file.js';
import { loadSqlJs, SqliteHistorySource } from './sqlite-store.js';
import { BothLayoutsHistorySource, layoutOf, openSnapshotDatabase, V2HistorySource } from './v2-store.js';
import type { DatabaseLayout, SnapshotDatabase } from './v2-store.js';

/**
 * The layouts of the database at `file`, read page by page (only the schema's pages: no copy of a
 * large store in memory); 'unknown' when it cannot be read.
 */
export async function databaseLayout(file: string): Promise<DatabaseLayout> {
  let paged: PagedSnapshot | undefined;
  let db: SnapshotDatabase | undefined;
  try {
    const SQL = await loadSqlJs();
    paged = PagedSnapshot.open(file);
    db = new SQL.Database(paged.asFileData()) as unknown as SnapshotDatabase;
    const layout = layoutOf(db);
    // A sql.js that does not read through the paged view saw an empty file: ask a copy instead.
    if (paged.reads > 0) return layout;
    db.close();
    db = await openSnapshotDatabase(file);
    return layoutOf(db);
  } catch {
    return 'unknown';
  } finally {
    db?.close();
    paged?.close();
  }
}

/** @throws UnknownHistoryLayoutError (from the version-1 reader) when neither layout is there. */
export async function openSqliteHistory(file: string): Promise<HistorySource> {
  const layout = await databaseLayout(file);
  // Version 1 alone keeps its own reader, page by page, untouched.
  if (layout === 'v1' || layout === 'unknown') return SqliteHistorySource.open(file);
  const db = await openSnapshotDatabase(file);
  const v2 = new V2HistorySource(db, file);
  if (layout === 'v2') return v2;
  try {
    return new BothLayoutsHistorySource(v2, await SqliteHistorySource.open(file), db, file);
  } catch (error) {
    v2.close();
    throw error;
  }
}

const LAYOUT_WORDS: Readonly<Record<DatabaseLayout, string>> = {
  v1: 'OpenCode 1 tables (session, message, part)',
  v2: 'OpenCode 2 tables (session_v2, session_message)',
  'v1+v2': 'OpenCode 2 tables and OpenCode 1 tables (each session read once, version 2 first)',
  unknown: 'a layout this version does not read',
};

/** One line for `doctor`: which history store is in OpenCode's data folder `location`, and its layout. */
export async function describeHistoryLayout(location: string): Promise<string> {
  const database = path.join(location, 'opencode.db');
  if (fs.statSync(database, { throwIfNoEntry: false })?.isFile()) return `${database}: ${LAYOUT_WORDS[await databaseLayout(database)]}`;
  if (fs.statSync(path.join(location, 'storage', 'session'), { throwIfNoEntry: false })?.isDirectory()) return `${path.join(location, 'storage')}: OpenCode's older JSON files`;
  return `none at ${location}`;
}

/**
 * Where OpenCode keeps its history and which layout it is: `$XDG_DATA_HOME/opencode` (else
 * `~/.local/share/opencode`), with `opencode.db` (current versions) or `storage/` JSON files (older).
 * The readers load when a store is opened: the fingerprint alone (nothing new to import) needs none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HistorySource } from '../../core/backfill/history.js';
import { UnknownHistoryLayoutError } from '../../core/backfill/history.js';

/** OpenCode's data folder, from the environment the way OpenCode resolves it. */
export function opencodeDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'opencode');
}

/** Raised when there is no history store at the place looked at; the message names it. */
export class NoHistoryError extends Error {
  override name = 'NoHistoryError';
}

/**
 * Opens the history store at `location`: OpenCode's data folder, an `opencode.db` file, or a
 * `storage` folder. The database wins when a folder has both (OpenCode migrated the files into it).
 * @throws NoHistoryError when nothing is there; UnknownHistoryLayoutError for a layout it cannot read.
 */
export async function openHistory(location: string): Promise<HistorySource> {
  const resolved = path.resolve(location);
  const stats = fs.statSync(resolved, { throwIfNoEntry: false });
  if (stats?.isFile()) return openDatabase(resolved);
  const database = path.join(resolved, 'opencode.db');
  if (fs.statSync(database, { throwIfNoEntry: false })?.isFile()) return openDatabase(database);
  const storage = path.basename(resolved) === 'storage' ? resolved : path.join(resolved, 'storage');
  if (fs.statSync(path.join(storage, 'session'), { throwIfNoEntry: false })?.isDirectory()) return new (await import('./json-store.js')).JsonHistorySource(storage);
  throw new NoHistoryError(`no OpenCode history at ${resolved} (looked for opencode.db and storage/session/)`);
}

/**
 * Where the runtime has its own SQLite (Bun: bun:sqlite, in the plugin's import child; Node 22.13 and
 * later: node:sqlite, for the CLI), that engine tells the layout and reads version 1's tables in place,
 * and sql.js is never loaded; on Node 20, for version 2's tables, or when the native engine cannot open
 * the file (a locked database, say), sql.js, which always works: the fallback is said in the source's
 * description, so the summary line carries it.
 */
async function openDatabase(file: string): Promise<HistorySource> {
  let fallback = '';
  const engineName = process.versions.bun ? 'bun:sqlite' : 'node:sqlite';
  try {
    const engine = await (await import('./native-engine.js')).loadNativeEngine();
    if (engine) {
      const { NativeSqliteHistorySource } = await import('./native-sqlite-store.js');
      const native = NativeSqliteHistorySource.open(file, engine);
      if (native) return native;
    }
  } catch (error) {
    if (error instanceof UnknownHistoryLayoutError) throw error;
    fallback = ` (read with sql.js: ${engineName} could not open it: ${(error as Error).message.split('\n')[0]})`;
  }
  // Version 2's tables (alone or beside version 1's) are read by the version-2 reader (v2-open.ts).
  const { databaseLayout, openSqliteHistory } = await import('./v2-open.js');
  const layout = await databaseLayout(file);
  const source = layout === 'v2' || layout === 'v1+v2' ? await openSqliteHistory(file) : await (await import('./sqlite-store.js')).SqliteHistorySource.open(file);
  return fallback ? Object.assign(source, { description: `${source.description}${fallback}` }) : source;
}

/** A cheap fingerprint of the store's files: unchanged means nothing new to import. */
export function historySignature(location: string): string {
  // The places openHistory reads for `location`: a database file given itself, else the folder's.
  const resolved = path.resolve(location);
  const files = fs.statSync(resolved, { throwIfNoEntry: false })?.isFile()
    ? [resolved, `${resolved}-wal`]
    : ['opencode.db', 'opencode.db-wal', 'storage/session'].map((file) => path.join(resolved, file));
  const parts: string[] = [];
  for (const file of files) {
    const stats = fs.statSync(file, { throwIfNoEntry: false });
    parts.push(stats ? `${stats.size}:${Math.floor(stats.mtimeMs)}` : '-');
  }
  return parts.join('|');
}

/**
 * The named sub-databases of an open root database, each with the compression that pays for it
 * (compression.ts) and, for entry tables, the stored form of their values (stored-form.ts).
 */
import type { Database, Key, RootDatabase } from 'lmdb';
import { compressionOf } from './compression.js';
import { emptyTable } from './empty-tables.js';
import type { TableName } from './mutations.js';
import { hasStoredForm, restoredValue, storedValue } from './stored-form.js';
import type { WritableTable, WritableTables } from './tables.js';

/**
 * One entry table whose values are stored in a form of their own (stored-form.ts): written in
 * it, read whole. Everything else lmdb offers (stats, clear) passes through.
 */
function storedFormTable<V, K extends Key>(db: Database<V, K>, name: TableName): WritableTable<V, K> {
  const restore = (key: K, value: V | undefined): V | undefined => (value === undefined ? value : (restoredValue(name, key, value) as V));
  // lmdb's typings say putSync returns nothing; it returns whether it wrote (false under noOverwrite when the key is there).
  const raw = db as unknown as WritableTable<V, K>;
  const table: WritableTable<V, K> & Pick<Database<V, K>, 'getStats' | 'clearSync'> = {
    get: (key) => restore(key, db.get(key)),
    doesExist: (key) => db.doesExist(key),
    getRange: (options) => db.getRange(options).map(({ key, value }) => ({ key, value: restore(key, value) as V })),
    getKeysCount: (options) => db.getKeysCount(options),
    getKeys: (options) => db.getKeys(options),
    putSync: (key, value, options) => raw.putSync(key, storedValue(name, key, value) as V, options),
    removeSync: (key) => db.removeSync(key),
    getStats: () => db.getStats(),
    clearSync: () => db.clearSync(),
  };
  return table;
}

/**
 * Names the tables of an open root database. Opened read-only, a file has only the tables a write
 * created: lmdb gives nothing for the others (a file the plugin made but was stopped before its
 * first commit has none), and they read as empty.
 */
export function tablesOf(root: RootDatabase): WritableTables {
  const table = <V, K extends Key>(name: TableName): WritableTable<V, K> => {
    const db = root.openDB<V, K>({ name, compression: compressionOf(name) }) as Database<V, K> | undefined;
    if (!db) return emptyTable();
    return hasStoredForm(name) ? storedFormTable(db, name) : (db as unknown as WritableTable<V, K>);
  };
  return {
    agents: table('agents'),
    usage: table('sessions'),
    commits: table('commits'),
    gradeEvents: table('communication'),
    retrospectives: table('retrospectives'),
    activities: table('activities'),
    projects: table('projects'),
    migrations: table('migrations'),
    userGrades: table('userGrades'),
    events: table('events'),
    terms: table('terms'),
    meta: table('meta'),
  };
}

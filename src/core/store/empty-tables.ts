/**
 * Tables that read as empty and refuse writes: what a pending store shows while its file is being
 * checked out of process. Recording goes on in the write buffer meanwhile; nothing touches lmdb.
 */
import type { Key } from 'lmdb';
import type { WritableTable, WritableTables } from './tables.js';

function refuseWrite(): never {
  throw new Error('the agent-tracker database is not open yet');
}

/** A table with nothing in it; a write is a programming error (writes go through the store's transaction). */
function emptyTable<V, K extends Key>(): WritableTable<V, K> {
  return {
    get: () => undefined,
    doesExist: () => false,
    getRange: () => [],
    getKeysCount: () => 0,
    getKeys: () => [],
    putSync: refuseWrite,
    removeSync: refuseWrite,
  };
}

/** One empty table per named sub-database. */
export function emptyTables(): WritableTables {
  return {
    agents: emptyTable(),
    usage: emptyTable(),
    commits: emptyTable(),
    gradeEvents: emptyTable(),
    retrospectives: emptyTable(),
    activities: emptyTable(),
    projects: emptyTable(),
    migrations: emptyTable(),
    userGrades: emptyTable(),
    events: emptyTable(),
    terms: emptyTable(),
    meta: emptyTable(),
  };
}

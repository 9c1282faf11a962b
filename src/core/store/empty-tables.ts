/**
 * Tables that read as empty and refuse writes: what a pending store shows while its file is being
 * checked out of process. Recording goes on in the write buffer meanwhile; nothing touches lmdb.
 */
import type { Key } from 'lmdb';
import type { WritableTable, WritableTables } from './tables.js';

function refuseWrite(): never {
  throw new Error('the agent-tracker database is not open yet');
}

/**
 * A table with nothing in it; a write is a programming error (writes go through the store's transaction).
 * Its lmdb statistics say so too (`doctor`'s page count, the salvage's entry counts read them).
 */
export function emptyTable<V, K extends Key>(): WritableTable<V, K> {
  const table = {
    get: () => undefined,
    doesExist: () => false,
    getRange: () => [],
    getKeysCount: () => 0,
    getKeys: () => [],
    putSync: refuseWrite,
    removeSync: refuseWrite,
    getStats: () => ({ entryCount: 0, treeBranchPageCount: 0, treeLeafPageCount: 0, overflowPages: 0 }),
  };
  return table;
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

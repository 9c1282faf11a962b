/**
 * OpenCode 2's history layout, read-only: `session_v2` (one row per session) and `session_message`
 * (typed rows, `data` JSON), in the same `opencode.db`. A database may hold both layouts (version 2
 * imports version-1 sessions under the same id, and a version-1 OpenCode run later adds sessions
 * only to the old tables): each session is read once, from the version-2 tables when they have it.
 * Read through sql.js over an in-memory snapshot of the files (wal.ts): nothing is ever written there.
 */
import type { HistoryQuery, HistorySource, HostMessage, HostSession, UnreadableSession } from '../../core/backfill/history.js';
import { isInside } from './json-store.js';
import { num, parseJson, SESSION_FILTER, sessionFilterParams, sessionOfRow, str } from './parse.js';
import { loadSqlJs } from './sqlite-store.js';
import type { SqlJs } from './sqlite-store.js';
import { parseV2Message } from './v2-parse.js';
import { readSnapshot } from './wal.js';

/** The columns read, per version-2 table. */
export const V2_REQUIRED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  session_v2: ['id', 'parent_id', 'directory', 'title', 'time_created', 'time_updated'],
  session_message: ['id', 'session_id', 'type', 'seq', 'time_created', 'data'],
};

/** Which layouts a database holds: `v1` (session, message, part), `v2` (session_v2, session_message), or both. */
export type DatabaseLayout = 'v1' | 'v2' | 'v1+v2' | 'unknown';

type Row = Record<string, unknown>;

interface Statement {
  bind(values: unknown[]): boolean;
  step(): boolean;
  getAsObject(): Row;
  free(): void;
}

export interface SnapshotDatabase {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  close(): void;
}

export function* queryRows(db: SnapshotDatabase, sql: string, params: unknown[] = []): Generator<Row> {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    while (statement.step()) yield statement.getAsObject();
  } finally {
    statement.free();
  }
}

function columnsOf(db: SnapshotDatabase, table: string): Set<string> {
  return new Set([...queryRows(db, `PRAGMA table_info(${table})`)].map((row) => String(row.name)));
}

function hasTables(db: SnapshotDatabase, required: Readonly<Record<string, readonly string[]>>): boolean {
  return Object.entries(required).every(([table, needed]) => {
    const columns = columnsOf(db, table);
    return needed.every((column) => columns.has(column));
  });
}

const V1_TABLES: Readonly<Record<string, readonly string[]>> = { session: ['id'], message: ['id'], part: ['id'] };

/** The layouts `db` holds. */
export function layoutOf(db: SnapshotDatabase): DatabaseLayout {
  const v1 = hasTables(db, V1_TABLES);
  const v2 = hasTables(db, V2_REQUIRED_COLUMNS);
  return v1 && v2 ? 'v1+v2' : v2 ? 'v2' : v1 ? 'v1' : 'unknown';
}

/** A read-only in-memory snapshot of the database at `databasePath` (the WAL's committed frames applied). */
export async function openSnapshotDatabase(databasePath: string, engine?: SqlJs): Promise<SnapshotDatabase> {
  const SQL = engine ?? (await loadSqlJs());
  const db = new SQL.Database(readSnapshot(databasePath)) as unknown as SnapshotDatabase;
  db.exec('PRAGMA query_only = 1');
  return db;
}



/** The sessions of the version-2 tables. */
export class V2HistorySource implements HistorySource {
  readonly description: string;

  constructor(
    private readonly db: SnapshotDatabase,
    databasePath: string,
  ) {
    this.description = `OpenCode 2's database at ${databasePath}`;
  }

  /** The ids of every version-2 session (a version-1 copy of one of them is not read again). */
  ids(): Set<string> {
    return new Set([...queryRows(this.db, 'SELECT id FROM session_v2')].map((row) => String(row.id)));
  }

  count(query: HistoryQuery): number {
    const [row] = [...queryRows(this.db, `SELECT COUNT(*) AS n FROM session_v2 WHERE ${SESSION_FILTER}`, sessionFilterParams(query))];
    return num(row?.n) ?? 0;
  }

  earliestCreated(query: HistoryQuery): number | undefined {
    const [row] = [...queryRows(this.db, `SELECT MIN(time_created) AS t FROM session_v2 WHERE ${SESSION_FILTER}`, sessionFilterParams(query))];
    return num(row?.t);
  }

  async *sessions(query: HistoryQuery): AsyncIterable<HostSession | UnreadableSession> {
    const heads = [...queryRows(this.db, `SELECT id, parent_id, directory, title, time_created, time_updated FROM session_v2 WHERE ${SESSION_FILTER} ORDER BY time_updated, id`, sessionFilterParams(query))];
    for (const head of heads) {
      const id = str(head.id);
      const directory = str(head.directory);
      if (!id || !directory) {
        yield { unreadable: 'session row without id or directory' };
        continue;
      }
      if (query.directory !== undefined && !isInside(directory, query.directory)) continue;
      const messages: HostMessage[] = [];
      for (const row of queryRows(this.db, "SELECT id, type, time_created, data FROM session_message WHERE session_id = ? AND type = 'assistant' ORDER BY seq", [id])) {
        const message = parseV2Message(String(row.id), row.type, parseJson(row.data), num(row.time_created));
        if (message) messages.push(message);
      }
      yield sessionOfRow(id, head, directory, messages);
    }
  }

  close(): void {
    this.db.close();
  }
}

/** Both layouts in one database: every version-2 session, then the version-1 sessions version 2 does not hold. */
export class BothLayoutsHistorySource implements HistorySource {
  readonly description: string;
  private readonly v2Ids: Set<string>;

  constructor(
    private readonly v2: V2HistorySource,
    private readonly v1: HistorySource,
    private readonly db: SnapshotDatabase,
    databasePath: string,
  ) {
    this.description = `OpenCode's database at ${databasePath} (version-2 and version-1 tables)`;
    this.v2Ids = v2.ids();
  }

  count(query: HistoryQuery): number {
    const [row] = [...queryRows(this.db, `SELECT COUNT(*) AS n FROM session WHERE ${SESSION_FILTER} AND id NOT IN (SELECT id FROM session_v2)`, sessionFilterParams(query))];
    return this.v2.count(query) + (num(row?.n) ?? 0);
  }

  /** The older of the two layouts' (version 1's counting the sessions version 2 also holds: a bound, not more). */
  earliestCreated(query: HistoryQuery): number | undefined {
    const times = [this.v2.earliestCreated(query), this.v1.earliestCreated(query)].filter((time) => time !== undefined);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  async *sessions(query: HistoryQuery): AsyncIterable<HostSession | UnreadableSession> {
    yield* this.v2.sessions(query);
    for await (const session of this.v1.sessions(query)) {
      if ('unreadable' in session || !this.v2Ids.has(session.id)) yield session;
    }
  }

  close(): void {
    this.v2.close();
    this.v1.close();
  }
}

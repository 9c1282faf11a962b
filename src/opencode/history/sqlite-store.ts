/**
 * OpenCode's current history layout: the SQLite database `opencode.db` (WAL mode), read-only.
 * Read through sql.js (SQLite compiled to WASM, from the npm registry, no native build) over a
 * snapshot of the files (see wal.ts): OpenCode is never locked out and nothing is ever written
 * there. Sessions are read one at a time with indexed queries.
 */
import { createRequire } from 'node:module';
import type { HistoryQuery, HistorySource, HostSession, UnreadableSession } from '../../core/backfill/history.js';
import { UnknownHistoryLayoutError } from '../../core/backfill/history.js';
import { isInside } from './json-store.js';
import { num, parseMessage, parseToolPart, sessionFolder, str } from './parse.js';
import type { HostMessage } from '../../core/backfill/history.js';
import { readSnapshot } from './wal.js';

/** The columns this version reads, per table: a store without them has a layout it does not know. */
export const REQUIRED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  session: ['id', 'parent_id', 'directory', 'title', 'time_created', 'time_updated'],
  message: ['id', 'session_id', 'time_created', 'data'],
  part: ['id', 'message_id', 'session_id', 'data'],
};

type Row = Record<string, unknown>;

/** The part of sql.js's API used here. */
interface SqlStatement {
  bind(values: unknown[]): boolean;
  step(): boolean;
  get(): unknown[];
  getAsObject(): Row;
  free(): void;
}
interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  close(): void;
}
interface SqlJs {
  Database: new (data: Uint8Array) => SqlDatabase;
}

let engine: Promise<SqlJs> | undefined;

/** sql.js, loaded once and only when a SQLite store is read (plugin start never pays for it). */
function loadSqlJs(): Promise<SqlJs> {
  engine ??= (async () => {
    const require = createRequire(import.meta.url);
    const initSqlJs = (await import('sql.js')).default as unknown as (config: { locateFile: (file: string) => string }) => Promise<SqlJs>;
    const wasm = require.resolve('sql.js/dist/sql-wasm.wasm');
    return initSqlJs({ locateFile: () => wasm });
  })();
  return engine;
}

function* rows(db: SqlDatabase, sql: string, params: unknown[] = []): Generator<Row> {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    while (statement.step()) yield statement.getAsObject();
  } finally {
    statement.free();
  }
}

/** Rows as arrays (sql.js builds them faster than objects), for the hot loops. */
function* tuples(db: SqlDatabase, sql: string, params: unknown[] = []): Generator<unknown[]> {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    while (statement.step()) yield statement.get();
  } finally {
    statement.free();
  }
}

/** Above this many sessions, messages and parts are read in one ordered pass each instead of per session. */
const STREAM_ABOVE_SESSIONS = 50;

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What the database holds, table by table, when it is not the layout this version reads; undefined when it is. */
export function layoutProblem(db: SqlDatabase): string | undefined {
  const missing: string[] = [];
  for (const [table, needed] of Object.entries(REQUIRED_COLUMNS)) {
    const columns = new Set([...rows(db, `PRAGMA table_info(${table})`)].map((row) => String(row.name)));
    if (columns.size === 0) missing.push(`no table "${table}"`);
    else for (const column of needed) if (!columns.has(column)) missing.push(`no column ${table}.${column}`);
  }
  if (missing.length === 0) return undefined;
  const tables = [...rows(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")].map((row) => String(row.name));
  return `${missing.join(', ')} (tables found: ${tables.join(', ') || 'none'})`;
}

/**
 * The rows of one session from a pass ordered by session id: skips rows of sessions before `id`
 * (not selected), yields those of `id`, and keeps the first row after them for the next session.
 */
function* takeWhile(source: Iterator<unknown[]>, pending: { message?: unknown[]; part?: unknown[] }, kind: 'message' | 'part', id: string): Generator<unknown[]> {
  for (;;) {
    let row = pending[kind];
    pending[kind] = undefined;
    if (!row) {
      const next = source.next();
      if (next.done) return;
      row = next.value;
    }
    const sessionId = String(row[0]);
    if (sessionId < id) continue;
    if (sessionId > id) {
      pending[kind] = row;
      return;
    }
    yield row;
  }
}

export class SqliteHistorySource implements HistorySource {
  readonly description: string;
  private readonly db: SqlDatabase;

  private constructor(db: SqlDatabase, databasePath: string) {
    this.db = db;
    this.description = `OpenCode's database at ${databasePath}`;
  }

  /**
   * Opens a snapshot of the database at `databasePath`.
   * @throws UnknownHistoryLayoutError naming what was found when the tables are not the known ones.
   */
  static async open(databasePath: string): Promise<SqliteHistorySource> {
    const SQL = await loadSqlJs();
    let db: SqlDatabase;
    try {
      db = new SQL.Database(readSnapshot(databasePath));
      layoutProblem(db);
    } catch (error) {
      throw new UnknownHistoryLayoutError(`${databasePath} is not a SQLite database this version can read: ${(error as Error).message}`);
    }
    const problem = layoutProblem(db);
    if (problem) {
      db.close();
      throw new UnknownHistoryLayoutError(`${databasePath} has a layout this version does not know: ${problem}`);
    }
    return new SqliteHistorySource(db, databasePath);
  }

  count(query: HistoryQuery): number {
    const [row] = [...rows(this.db, 'SELECT COUNT(*) AS n FROM session WHERE time_updated > ? AND time_created >= ? AND time_created < ?', [query.updatedAfter ?? -1, query.createdSince ?? 0, query.createdBefore ?? Number.MAX_SAFE_INTEGER])];
    return num(row?.n) ?? 0;
  }

  async *sessions(query: HistoryQuery): AsyncIterable<HostSession | UnreadableSession> {
    const heads = [
      ...rows(
        this.db,
        'SELECT id, parent_id, directory, title, time_created, time_updated FROM session WHERE time_updated > ? AND time_created >= ? AND time_created < ? ORDER BY time_updated, id',
        [query.updatedAfter ?? -1, query.createdSince ?? 0, query.createdBefore ?? Number.MAX_SAFE_INTEGER],
      ),
    ];
    const streamed = heads.length > STREAM_ABOVE_SESSIONS;
    // Many sessions: one pass over messages and one over parts, both in session order (indexed), merged.
    if (streamed) heads.sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
    const messageRows = streamed ? tuples(this.db, 'SELECT session_id, id, time_created, data FROM message ORDER BY session_id, time_created, id') : undefined;
    const partRows = streamed ? tuples(this.db, 'SELECT session_id, message_id, data FROM part ORDER BY session_id') : undefined;
    const pending: { message?: unknown[]; part?: unknown[] } = {};
    for (const head of heads) {
      const id = str(head.id);
      const directory = str(head.directory);
      if (!id || !directory) {
        yield { unreadable: 'session row without id or directory' };
        continue;
      }
      const session = this.readSession(
        id,
        head,
        directory,
        messageRows ? takeWhile(messageRows, pending, 'message', id) : tuples(this.db, 'SELECT session_id, id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id', [id]),
        partRows ? takeWhile(partRows, pending, 'part', id) : tuples(this.db, 'SELECT session_id, message_id, data FROM part WHERE session_id = ?', [id]),
      );
      if (query.directory === undefined || isInside(session.directory, query.directory)) yield session;
    }
  }

  private readSession(id: string, head: Row, directory: string, messageRows: Iterable<unknown[]>, partRows: Iterable<unknown[]>): HostSession {
    const messages: (HostMessage & { root?: string })[] = [];
    const byId = new Map<string, HostMessage>();
    for (const [, messageId, createdAt, data] of messageRows) {
      const message = parseMessage(String(messageId), parseJson(data), num(createdAt));
      if (!message) continue;
      messages.push(message);
      byId.set(message.id, message);
    }
    for (const [, messageId, data] of partRows) {
      // Only tool parts matter; skipping the others unparsed saves most of the JSON work.
      if (typeof data !== 'string' || !data.includes('"tool"')) continue;
      const call = parseToolPart(parseJson(data));
      if (call) byId.get(String(messageId))?.tools.push(call);
    }
    const parentId = str(head.parent_id);
    const createdAt = num(head.time_created) ?? 0;
    return {
      id,
      ...(parentId ? { parentId } : {}),
      directory: sessionFolder(directory, messages),
      title: str(head.title) ?? '',
      createdAt,
      updatedAt: num(head.time_updated) ?? createdAt,
      messages,
    };
  }

  close(): void {
    this.db.close();
  }
}

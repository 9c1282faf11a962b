/**
 * OpenCode's current history layout: the SQLite database `opencode.db` (WAL mode), read-only.
 * Read through sql.js (SQLite compiled to WASM, from the npm registry, no native build) over a
 * snapshot of the files read page by page from disk (paged-file.ts, wal.ts): OpenCode is never
 * locked out and nothing is ever written there. Sessions are read one at a time with indexed queries.
 */
import { createRequire } from 'node:module';
import type { HistoryQuery, HistorySource, HostSession, UnreadableSession } from '../../core/backfill/history.js';
import { UnknownHistoryLayoutError } from '../../core/backfill/history.js';
import { isInside } from './json-store.js';
import { addPromptText, num, parseJson, parseMessage, parseToolPart, parseUserText, PASS_PARTS_FILTER, SESSION_FILTER, SESSION_PARTS_FILTER, sessionFilterParams, sessionOfRow, str } from './parse.js';
import type { HostMessage } from '../../core/backfill/history.js';
import { PagedSnapshot } from './paged-file.js';
import type { SqlJsFileData } from './paged-file.js';
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
  exec(sql: string): unknown;
  close(): void;
}
export interface SqlJs {
  /** Takes the file's bytes, or a view that reads them on demand (paged-file.ts). */
  Database: new (data: Uint8Array | SqlJsFileData) => SqlDatabase;
}

let engine: Promise<SqlJs> | undefined;

/** sql.js, loaded once and only when a SQLite store is read (plugin start never pays for it). */
export function loadSqlJs(): Promise<SqlJs> {
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

/** Whether the message table's `id` is its primary key, which SQLite keeps unique (OpenCode makes it so). */
export function messageIdIsKey(db: SqlDatabase): boolean {
  const keys = [...rows(db, 'PRAGMA table_info(message)')].filter((row) => Number(row.pk) > 0);
  return keys.length === 1 && String(keys[0]?.name) === 'id';
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

/** Times a read is started again on a new snapshot when a checkpoint wrote the file under it. */
const MAX_SNAPSHOT_ATTEMPTS = 5;
/** Counted for a session that could not be read because the database kept changing under every snapshot. */
export const KEPT_CHANGING = 'the database kept changing while it was read';

/** The SQLite engine over one snapshot of the files; `paged` is absent when the snapshot is a copy in memory. */
interface OpenSnapshot {
  db: SqlDatabase;
  paged?: PagedSnapshot;
}

function isStale(open: OpenSnapshot): boolean {
  return open.paged?.changed() ?? false;
}

function closeSnapshot(open: OpenSnapshot): void {
  open.db.close();
  open.paged?.close();
}

/**
 * A snapshot read page by page from the files; a copy in memory (readSnapshot) when this sql.js does
 * not read its file through the paged view. Never writes: the engine is set to refuse writes.
 */
function openSnapshot(SQL: SqlJs, databasePath: string): OpenSnapshot {
  const paged = PagedSnapshot.open(databasePath);
  let db: SqlDatabase;
  try {
    db = new SQL.Database(paged.asFileData());
  } catch (error) {
    paged.close();
    throw error;
  }
  if (paged.reads > 0) {
    db.exec('PRAGMA query_only = 1');
    return { db, paged };
  }
  db.close();
  paged.close();
  const copy = new SQL.Database(readSnapshot(databasePath));
  copy.exec('PRAGMA query_only = 1');
  return { db: copy };
}

/** The rows of `sql` from `first` on, ordered by session id: one pass per table for many sessions. */
interface Passes {
  messages: Generator<unknown[]>;
  parts: Generator<unknown[]>;
  pending: { message?: unknown[]; part?: unknown[] };
}

function openPasses(db: SqlDatabase, first: string): Passes {
  return {
    messages: tuples(db, 'SELECT session_id, id, time_created, data FROM message WHERE session_id >= ? ORDER BY session_id, time_created, id', [first]),
    parts: tuples(db, `SELECT session_id, message_id, data, id FROM part WHERE session_id >= ? AND ${PASS_PARTS_FILTER} ORDER BY session_id`, [first, first]),
    pending: {},
  };
}

function closePasses(passes: Passes | undefined): void {
  passes?.messages.return(undefined);
  passes?.parts.return(undefined);
}

export class SqliteHistorySource implements HistorySource {
  readonly description: string;
  readonly uniqueMessageIds: boolean;
  private readonly SQL: SqlJs;
  private readonly databasePath: string;
  private open: OpenSnapshot;

  private constructor(SQL: SqlJs, open: OpenSnapshot, databasePath: string) {
    this.SQL = SQL;
    this.open = open;
    this.databasePath = databasePath;
    this.description = `OpenCode's database at ${databasePath}`;
    this.uniqueMessageIds = messageIdIsKey(open.db);
  }

  /**
   * Opens a snapshot of the database at `databasePath`, with sql.js (`engine`: another build of it).
   * @throws UnknownHistoryLayoutError naming what was found when the tables are not the known ones.
   */
  static async open(databasePath: string, engine?: SqlJs): Promise<SqliteHistorySource> {
    const SQL = engine ?? (await loadSqlJs());
    for (let attempt = 1; ; attempt += 1) {
      let open: OpenSnapshot | undefined;
      let problem: string | undefined;
      try {
        open = openSnapshot(SQL, databasePath);
        problem = layoutProblem(open.db);
      } catch (error) {
        const stale = open !== undefined && isStale(open);
        if (open) closeSnapshot(open);
        if (stale && attempt < MAX_SNAPSHOT_ATTEMPTS) continue;
        throw new UnknownHistoryLayoutError(`${databasePath} is not a SQLite database this version can read: ${(error as Error).message}`);
      }
      if (isStale(open) && attempt < MAX_SNAPSHOT_ATTEMPTS) {
        closeSnapshot(open);
        continue;
      }
      if (problem) {
        closeSnapshot(open);
        throw new UnknownHistoryLayoutError(`${databasePath} has a layout this version does not know: ${problem}`);
      }
      return new SqliteHistorySource(SQL, open, databasePath);
    }
  }

  count(query: HistoryQuery): number {
    const [row] = [...rows(this.open.db, `SELECT COUNT(*) AS n FROM session WHERE ${SESSION_FILTER}`, sessionFilterParams(query))];
    return num(row?.n) ?? 0;
  }

  earliestCreated(query: HistoryQuery): number | undefined {
    const [row] = [...rows(this.open.db, `SELECT MIN(time_created) AS t FROM session WHERE ${SESSION_FILTER}`, sessionFilterParams(query))];
    return num(row?.t);
  }

  /**
   * Sessions oldest update first (many: in session id order, read in one pass per table). Each is
   * read from one snapshot: when a checkpoint wrote the file while a session was read, it is read
   * again from a new one (what came before stays valid: it was read before the write).
   */
  async *sessions(query: HistoryQuery): AsyncIterable<HostSession | UnreadableSession> {
    const heads = this.heads(query);
    const streamed = heads.length > STREAM_ABOVE_SESSIONS;
    if (streamed) heads.sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
    let passes: Passes | undefined;
    try {
      for (const head of heads) {
        const id = str(head.id);
        const directory = str(head.directory);
        if (!id || !directory) {
          yield { unreadable: 'session row without id or directory' };
          continue;
        }
        let session: HostSession | undefined;
        for (let attempt = 1; session === undefined && attempt <= MAX_SNAPSHOT_ATTEMPTS; attempt += 1) {
          if (streamed) passes ??= openPasses(this.open.db, id);
          try {
            session = this.readSession(id, head, directory, passes);
          } catch (error) {
            if (!isStale(this.open)) throw error;
          }
          if (session && !isStale(this.open)) break;
          session = undefined;
          closePasses(passes);
          passes = undefined;
          this.reopen();
        }
        if (!session) yield { unreadable: KEPT_CHANGING, id };
        else if (query.directory === undefined || isInside(session.directory, query.directory)) yield session;
      }
    } finally {
      closePasses(passes);
    }
  }

  /** The session rows `query` selects, oldest update first, all from one snapshot. */
  private heads(query: HistoryQuery): Row[] {
    for (let attempt = 1; ; attempt += 1) {
      const heads = [
        ...rows(
          this.open.db,
          `SELECT id, parent_id, directory, title, time_created, time_updated FROM session WHERE ${SESSION_FILTER} ORDER BY time_updated, id`,
          sessionFilterParams(query),
        ),
      ];
      if (!isStale(this.open) || attempt >= MAX_SNAPSHOT_ATTEMPTS) return heads;
      this.reopen();
    }
  }

  /** A new snapshot of the files, in place of one a checkpoint has written under. */
  private reopen(): void {
    closeSnapshot(this.open);
    this.open = openSnapshot(this.SQL, this.databasePath);
  }

  private readSession(id: string, head: Row, directory: string, passes: Passes | undefined): HostSession {
    const db = this.open.db;
    const messageRows = passes ? takeWhile(passes.messages, passes.pending, 'message', id) : tuples(db, 'SELECT session_id, id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id', [id]);
    const partRows = passes ? takeWhile(passes.parts, passes.pending, 'part', id) : tuples(db, `SELECT session_id, message_id, data, id FROM part WHERE session_id = ? AND ${SESSION_PARTS_FILTER} ORDER BY id`, [id, id]);
    const messages: (HostMessage & { root?: string })[] = [];
    const byId = new Map<string, HostMessage>();
    for (const [, messageId, createdAt, data] of messageRows) {
      const message = parseMessage(String(messageId), parseJson(data), num(createdAt));
      if (!message) continue;
      messages.push(message);
      byId.set(message.id, message);
    }
    for (const [, messageId, data, partId] of partRows) {
      if (typeof data !== 'string') continue;
      const part = parseJson(data);
      const call = parseToolPart(part, str(partId));
      if (call) byId.get(String(messageId))?.tools.push(call);
      else addPromptText(byId.get(String(messageId)), parseUserText(part));
    }
    return sessionOfRow(id, head, directory, messages);
  }

  close(): void {
    closeSnapshot(this.open);
  }
}

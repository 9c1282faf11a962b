/**
 * OpenCode's SQLite history read with the SQLite engine built into the runtime (native-engine.ts):
 * `bun:sqlite` in the plugin's import child under OpenCode's own binary, `node:sqlite` for the CLI on
 * Node 22.13 and later. Native SQLite reads the store in place, without sql.js's WASM heap or a
 * page-by-page copy. Read-only, in one read transaction: in WAL mode that is one consistent snapshot
 * while OpenCode goes on writing, so a store that changes while it is read, a WAL being written or a
 * half-written session are seen as of the moment the read began. Anything it cannot open (a locked or
 * foreign file) is thrown, and the caller falls back to sql.js (sqlite-store.ts), which always works.
 */
import type { HistoryQuery, HistorySource, HostMessage, HostSession, UnreadableSession } from '../../core/backfill/history.js';
import { UnknownHistoryLayoutError } from '../../core/backfill/history.js';
import { isInside } from './json-store.js';
import type { NativeDatabase, NativeEngine } from './native-engine.js';
import { addPromptText, num, parseJson, parseMessage, SESSION_FILTER, SESSION_PARTS_FILTER, sessionFilterParams, sessionOfRow, str, TOOL_PART_COLUMNS, toolPartOfColumns, userTextOfColumns } from './parse.js';
import { REQUIRED_COLUMNS } from './sqlite-store.js';
import { V2_REQUIRED_COLUMNS } from './v2-store.js';

export class NativeSqliteHistorySource implements HistorySource {
  readonly description: string;
  readonly uniqueMessageIds: boolean;
  private readonly db: NativeDatabase;

  private constructor(db: NativeDatabase, databasePath: string, engine: string) {
    this.db = db;
    this.description = `OpenCode's database at ${databasePath} (read with ${engine})`;
    this.uniqueMessageIds = messageIdIsKey(db);
  }

  /**
   * Opens the database read-only and starts the read transaction every query below shares. The
   * layout is told here, natively, so that reading version 1's tables never loads sql.js (its WASM
   * heap is most of the import child's memory); undefined when version 2's tables are there, which
   * the version-2 reader (v2-open.ts) reads.
   * @throws UnknownHistoryLayoutError for tables it does not know; any other error when it cannot open or read the file.
   */
  static open(databasePath: string, engine: NativeEngine): NativeSqliteHistorySource | undefined {
    const db = engine.openReadOnly(databasePath);
    try {
      db.exec('BEGIN');
      if (missingColumns(db, V2_REQUIRED_COLUMNS).length === 0) {
        db.exec('ROLLBACK');
        db.close();
        return undefined;
      }
      const missing = missingColumns(db, REQUIRED_COLUMNS);
      if (missing.length > 0) throw new UnknownHistoryLayoutError(`${databasePath} has a layout this version does not know: ${missing.join(', ')}`);
      return new NativeSqliteHistorySource(db, databasePath, engine.name);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  count(query: HistoryQuery): number {
    const [row] = this.db.query(`SELECT COUNT(*) AS n FROM session WHERE ${SESSION_FILTER}`).all(...sessionFilterParams(query));
    return num(row?.n) ?? 0;
  }

  earliestCreated(query: HistoryQuery): number | undefined {
    const [row] = this.db.query(`SELECT MIN(time_created) AS t FROM session WHERE ${SESSION_FILTER}`).all(...sessionFilterParams(query));
    return num(row?.t);
  }

  /** Sessions oldest update first, each read with indexed queries (one session's rows in memory at a time). */
  async *sessions(query: HistoryQuery): AsyncIterable<HostSession | UnreadableSession> {
    const heads = this.db
      .query(`SELECT id, parent_id, directory, title, time_created, time_updated FROM session WHERE ${SESSION_FILTER} ORDER BY time_updated, id`)
      .iterate(...sessionFilterParams(query));
    const messagesOf = this.db.query('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id');
    const partsOf = this.db.query(`SELECT ${TOOL_PART_COLUMNS} FROM part WHERE session_id = ? AND ${SESSION_PARTS_FILTER} ORDER BY id`);
    for (const head of heads) {
      const id = str(head.id);
      const directory = str(head.directory);
      if (!id || !directory) {
        yield { unreadable: 'session row without id or directory' };
        continue;
      }
      const messages: (HostMessage & { root?: string })[] = [];
      const byId = new Map<string, HostMessage>();
      for (const row of messagesOf.iterate(id)) {
        const message = parseMessage(String(row.id), parseJson(row.data), num(row.time_created));
        if (!message) continue;
        messages.push(message);
        byId.set(message.id, message);
      }
      for (const row of partsOf.iterate(id, id)) {
        const call = toolPartOfColumns(row.fields, row.outputs, str(row.id));
        if (call) byId.get(String(row.message_id))?.tools.push(call);
        else addPromptText(byId.get(String(row.message_id)), userTextOfColumns(row.fields));
      }
      const session = sessionOfRow(id, head, directory, messages);
      if (query.directory === undefined || isInside(session.directory, query.directory)) yield session;
    }
  }

  close(): void {
    try {
      this.db.exec('ROLLBACK');
    } finally {
      this.db.close();
    }
  }
}

/** What `db` lacks of the `required` tables and columns, one phrase each; empty when it has them all. */
function missingColumns(db: NativeDatabase, required: Readonly<Record<string, readonly string[]>>): string[] {
  const missing: string[] = [];
  for (const [table, needed] of Object.entries(required)) {
    const columns = new Set(db.query(`PRAGMA table_info(${table})`).all().map((row) => String(row.name)));
    if (columns.size === 0) missing.push(`no table "${table}"`);
    else for (const column of needed) if (!columns.has(column)) missing.push(`no column ${table}.${column}`);
  }
  return missing;
}

/** Whether the message table's `id` is its primary key (as sqlite-store.ts asks sql.js): then no two sessions share a message id. */
function messageIdIsKey(db: NativeDatabase): boolean {
  const keys = db.query('PRAGMA table_info(message)').all().filter((row) => Number(row.pk) > 0);
  return keys.length === 1 && String(keys[0]?.name) === 'id';
}


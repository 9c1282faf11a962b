/**
 * The SQLite engine built into the runtime, where it has one: `bun:sqlite` on Bun (the plugin's import
 * child under OpenCode's own binary), `node:sqlite` on Node 22.13 / 23.4 and later (unflagged there).
 * Both are narrowed to the few calls native-sqlite-store.ts makes, so one reader serves both; only
 * this adapter knows which driver is underneath. Node 20 has neither, and pays one lookup.
 */

export type Row = Record<string, unknown>;

/** A prepared query: every row at once, or one row at a time. */
export interface NativeStatement {
  all(...params: unknown[]): Row[];
  iterate(...params: unknown[]): IterableIterator<Row>;
}

/** A database opened read-only by a native engine. */
export interface NativeDatabase {
  query(sql: string): NativeStatement;
  exec(sql: string): void;
  close(): void;
}

export interface NativeEngine {
  /** The engine's module name, said in the summary line: `bun:sqlite` or `node:sqlite`. */
  readonly name: string;
  /** @throws when the file cannot be opened (missing, not SQLite, no permission). */
  openReadOnly(file: string): NativeDatabase;
}

/** The part of bun:sqlite's API used here: its `query` already caches the prepared statement. */
interface BunSqlite {
  Database: new (file: string, options: { readonly: boolean }) => NativeDatabase;
}

/** The part of node:sqlite's API used here. */
interface NodeSqlite {
  DatabaseSync: new (file: string, options: { readOnly: boolean }) => {
    prepare(sql: string): NativeStatement;
    exec(sql: string): void;
    close(): void;
  };
  StatementSync: { prototype: Partial<NativeStatement> };
}

async function loadBunSqlite(): Promise<NativeEngine> {
  const specifier = 'bun:sqlite';
  const { Database } = (await import(specifier)) as BunSqlite;
  return { name: 'bun:sqlite', openReadOnly: (file) => new Database(file, { readonly: true }) };
}

/**
 * node:sqlite, or undefined where this Node has none. Node 22 and 24.0 print an ExperimentalWarning
 * on stderr when it loads; the user asked for a report, not for that, so that one warning is held
 * back while the module loads (synchronously, through getBuiltinModule) and every other passes.
 */
function loadNodeSqlite(): NativeEngine | undefined {
  const lookup = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof lookup !== 'function') return undefined;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning: string | Error, ...rest: unknown[]): void {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && text.startsWith('SQLite')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  let sqlite: NodeSqlite | undefined;
  try {
    sqlite = lookup.call(process, 'node:sqlite') as NodeSqlite | undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  // Node 22.5-22.12 behind --experimental-sqlite have no statement iterator: read with sql.js there.
  if (!sqlite || typeof sqlite.StatementSync.prototype.iterate !== 'function') return undefined;
  const { DatabaseSync } = sqlite;
  return {
    name: 'node:sqlite',
    openReadOnly(file) {
      const db = new DatabaseSync(file, { readOnly: true });
      const prepared = new Map<string, NativeStatement>();
      return {
        query(sql) {
          let statement = prepared.get(sql);
          if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
          return statement;
        },
        exec: (sql) => db.exec(sql),
        close: () => db.close(),
      };
    },
  };
}

/**
 * The runtime's own SQLite engine; undefined where it has none (Node before 22.13).
 * @throws when the runtime is Bun and bun:sqlite does not load.
 */
export async function loadNativeEngine(): Promise<NativeEngine | undefined> {
  if (process.versions.bun) return loadBunSqlite();
  return loadNodeSqlite();
}

/**
 * Version-2 history stores for tests: the published schema (tests/fixtures/opencode-v2/schema.sql)
 * filled from a declarative list of sessions with typed `session_message` rows (user, agent-switched,
 * model-switched, assistant with tool content, shell, idle), written with sql.js. `session_v2`'s
 * cost and token columns hold the sum of the session's assistant rows, as OpenCode 2 keeps them.
 * Optionally on top of a version-1 image (a database holding both layouts).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sqlJs from 'sql.js';

interface Db {
  exec(sql: string): { values: unknown[][] }[];
  run(sql: string, params: unknown[]): void;
  export(): Uint8Array;
  close(): void;
}
const initSqlJs = sqlJs as unknown as (config: { locateFile: () => string }) => Promise<{ Database: new (data?: Uint8Array) => Db }>;

export const V2_SCHEMA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'opencode-v2', 'schema.sql');

export interface V2FixtureTool {
  id: string;
  name: string;
  status: 'completed' | 'error' | 'running';
  input: Record<string, unknown>;
  /** Text of the result (completed) or of the error. */
  text?: string;
  exit?: number;
}

export interface V2FixtureStep {
  id: string;
  agent: string;
  model: { providerID: string; id: string };
  created: number;
  tokens: { input: number; output: number; reasoning: number; cache: { read: number; write: number } };
  cost: number;
  tools?: V2FixtureTool[];
}

export interface V2FixtureSession {
  id: string;
  directory: string;
  parentID?: string;
  created: number;
  updated: number;
  prompt: string;
  steps: V2FixtureStep[];
  /** A `!command` the user ran in the session (a `shell` row): not the agent's work. */
  userShell?: string;
}

function toolEntry(tool: V2FixtureTool, created: number): Record<string, unknown> {
  const state =
    tool.status === 'completed'
      ? { status: 'completed', input: tool.input, content: [{ type: 'text', text: tool.text ?? '' }], ...(tool.exit !== undefined ? { metadata: { exit: tool.exit } } : {}) }
      : tool.status === 'error'
        ? { status: 'error', input: tool.input, error: { type: 'unknown', message: tool.text ?? 'failed' } }
        : { status: 'running', input: tool.input, metadata: {} };
  return { type: 'tool', id: tool.id, name: tool.name, state, time: { created, ran: created + 5, ...(tool.status === 'running' ? {} : { completed: created + 10 }) } };
}

/** The typed rows of one session, in order. */
function rowsOf(session: V2FixtureSession): { id: string; type: string; created: number; data: Record<string, unknown> }[] {
  const rows: { id: string; type: string; created: number; data: Record<string, unknown> }[] = [];
  const first = session.steps[0];
  const at = session.created;
  if (first) {
    rows.push({ id: `${session.id}-agent`, type: 'agent-switched', created: at, data: { time: { created: at }, agent: first.agent } });
    rows.push({ id: `${session.id}-model`, type: 'model-switched', created: at, data: { time: { created: at }, model: first.model } });
  }
  rows.push({ id: `${session.id}-user`, type: 'user', created: at + 1, data: { time: { created: at + 1 }, text: session.prompt } });
  if (session.userShell) {
    rows.push({ id: `${session.id}-shell`, type: 'shell', created: at + 2, data: { time: { created: at + 2, completed: at + 3 }, shellID: 'sh_1', command: session.userShell, status: 'exited', exit: 0 } });
  }
  for (const step of session.steps) {
    rows.push({
      id: step.id,
      type: 'assistant',
      created: step.created,
      data: {
        time: { created: step.created, completed: step.created + 50 },
        agent: step.agent,
        model: step.model,
        content: [{ type: 'text', text: 'working' }, ...(step.tools ?? []).map((tool) => toolEntry(tool, step.created))],
        finish: step.tools?.length ? 'tool-calls' : 'stop',
        cost: step.cost,
        tokens: step.tokens,
      },
    });
  }
  rows.push({ id: `${session.id}-idle`, type: 'idle', created: session.updated, data: { time: { created: session.updated }, outcome: 'succeeded' } });
  return rows;
}

function sum(steps: readonly V2FixtureStep[], pick: (step: V2FixtureStep) => number): number {
  return steps.reduce((total, step) => total + pick(step), 0);
}

/** Adds `sessions` to `db` (which has the version-2 tables). */
function insertSessions(db: Db, sessions: readonly V2FixtureSession[]): void {
  db.run('INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES (?,?,?,?,?)', ['prj', '/', 0, 0, '[]']);
  for (const session of sessions) {
    const first = session.steps[0];
    db.run(
      'INSERT INTO session_v2 (id, project_id, parent_id, slug, directory, title, version, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, agent, model, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
      [
        session.id, 'prj', session.parentID ?? null, 's', session.directory, session.prompt.slice(0, 40), '2.0.25',
        sum(session.steps, (s) => s.cost), sum(session.steps, (s) => s.tokens.input), sum(session.steps, (s) => s.tokens.output), sum(session.steps, (s) => s.tokens.reasoning),
        sum(session.steps, (s) => s.tokens.cache.read), sum(session.steps, (s) => s.tokens.cache.write),
        first?.agent ?? null, first ? JSON.stringify(first.model) : null, session.created, session.updated,
      ],
    );
    for (const [seq, row] of rowsOf(session).entries()) {
      db.run('INSERT INTO session_message VALUES (?,?,?,?,?,?,?)', [row.id, session.id, row.type, seq, row.created, row.created, JSON.stringify(row.data)]);
    }
  }
}

async function engine(): Promise<{ Database: new (data?: Uint8Array) => Db }> {
  const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  return initSqlJs({ locateFile: () => wasm });
}

/**
 * Writes `dataDir/opencode.db` with the version-2 tables holding `sessions`; with `v1Image` (from
 * sqliteHistoryImage), on top of that version-1 database: both layouts in one file.
 */
export async function writeV2History(dataDir: string, sessions: readonly V2FixtureSession[], v1Image?: Uint8Array): Promise<string> {
  const SQL = await engine();
  const db = new SQL.Database(v1Image);
  const schema = fs.readFileSync(V2_SCHEMA_FILE, 'utf8');
  // A version-1 database already has its `project` table (both versions share it).
  db.exec(v1Image ? schema.replace('CREATE TABLE `project`', 'CREATE TABLE IF NOT EXISTS `project`') : schema);
  insertSessions(db, sessions);
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'opencode.db');
  fs.writeFileSync(file, db.export());
  db.close();
  return file;
}

/** The database's own totals over `session_v2` (what OpenCode 2 itself reports), read with SQL. */
export async function v2StoreTotals(file: string): Promise<{ sessions: number; cost: number; input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number }> {
  const SQL = await engine();
  const db = new SQL.Database(fs.readFileSync(file));
  try {
    const [result] = db.exec('SELECT COUNT(*), TOTAL(cost), TOTAL(tokens_input), TOTAL(tokens_output), TOTAL(tokens_reasoning), TOTAL(tokens_cache_read), TOTAL(tokens_cache_write) FROM session_v2');
    const [sessions, cost, input, output, reasoning, cacheRead, cacheWrite] = (result?.values[0] ?? []).map(Number);
    return { sessions: sessions ?? 0, cost: cost ?? 0, input: input ?? 0, output: output ?? 0, reasoning: reasoning ?? 0, cacheRead: cacheRead ?? 0, cacheWrite: cacheWrite ?? 0 };
  } finally {
    db.close();
  }
}

/**
 * Fixture history stores in OpenCode's two layouts, written by the tests from a declarative list
 * of sessions: the SQLite database (the real table layout, written with sql.js) and the older
 * `storage/` JSON files. Record shapes follow what OpenCode 1.18.33 stores.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sqlJs from 'sql.js';

interface FixtureDb {
  exec(sql: string): void;
  run(sql: string, params: unknown[]): void;
  export(): Uint8Array;
  close(): void;
}
const initSqlJs = sqlJs as unknown as (config: { locateFile: () => string }) => Promise<{ Database: new () => FixtureDb }>;

export interface FixtureTool {
  callId: string;
  tool: string;
  status: 'completed' | 'error' | 'running';
  command?: string;
  output?: string;
  exit?: number;
  /** The file an editing tool's arguments name (default `x`). */
  filePath?: string;
}

export interface FixtureMessage {
  id: string;
  role: 'user' | 'assistant';
  agent?: string;
  providerID?: string;
  modelID?: string;
  tokens?: { input: number; output: number; reasoning: number; cache: { read: number; write: number } };
  cost?: number;
  created: number;
  tools?: FixtureTool[];
  /** An answer still being written: no completion time. */
  unfinished?: boolean;
  /** A user message's text parts: what the user typed, and text the host added (`synthetic`). */
  text?: string;
  syntheticText?: string;
}

/** A message's tokens as OpenCode stores them. */
export function fixtureTokens(input: number, output: number, reasoning = 0, read = 0, write = 0): NonNullable<FixtureMessage['tokens']> {
  return { input, output, reasoning, cache: { read, write } };
}

export interface FixtureSession {
  id: string;
  directory: string;
  parentID?: string;
  created: number;
  updated: number;
  messages: FixtureMessage[];
}

function messageData(message: FixtureMessage, directory: string): Record<string, unknown> {
  if (message.role === 'user') return { role: 'user', time: { created: message.created }, agent: message.agent ?? 'build' };
  return {
    role: 'assistant',
    mode: message.agent,
    ...(message.agent ? { agent: message.agent } : {}),
    path: { cwd: directory, root: directory },
    cost: message.cost ?? 0,
    tokens: { total: 0, ...(message.tokens ?? { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }) },
    ...(message.modelID ? { modelID: message.modelID } : {}),
    ...(message.providerID ? { providerID: message.providerID } : {}),
    time: message.unfinished ? { created: message.created } : { created: message.created, completed: message.created + 500 },
    ...(message.unfinished ? {} : { finish: 'stop' }),
  };
}

function partsOf(message: FixtureMessage): { id: string; data: Record<string, unknown> }[] {
  if (message.role === 'user') {
    return [
      ...(message.text === undefined ? [] : [{ id: `${message.id}-t0`, data: { type: 'text', text: message.text } }]),
      ...(message.syntheticText === undefined ? [] : [{ id: `${message.id}-t1`, data: { type: 'text', text: message.syntheticText, synthetic: true } }]),
    ];
  }
  const parts: { id: string; data: Record<string, unknown> }[] = [{ id: `${message.id}-p0`, data: { type: 'step-start', snapshot: 'x' } }];
  for (const [index, tool] of (message.tools ?? []).entries()) {
    const state =
      tool.status === 'error'
        ? { status: 'error', input: { command: tool.command }, error: 'failed', time: { start: message.created + 10, end: message.created + 20 } }
        : {
            status: tool.status,
            input: tool.command ? { command: tool.command, description: 'd' } : { filePath: tool.filePath ?? 'x' },
            output: tool.output ?? '',
            metadata: tool.exit === undefined ? {} : { output: tool.output ?? '', exit: tool.exit, truncated: false },
            time: { start: message.created + 10, end: message.created + 20 },
          };
    parts.push({ id: `${message.id}-p${index + 1}`, data: { type: 'tool', tool: tool.tool, callID: tool.callId, state } });
  }
  parts.push({ id: `${message.id}-pz`, data: { type: 'step-finish', reason: 'stop', cost: message.cost ?? 0 } });
  return parts;
}

/** Writes `sessions` as OpenCode's older JSON files under `dataDir/storage`. */
export function writeJsonHistory(dataDir: string, sessions: readonly FixtureSession[]): void {
  const storage = path.join(dataDir, 'storage');
  for (const session of sessions) {
    const info = { id: session.id, projectID: 'prj', directory: session.directory, title: 't', version: '0.9', time: { created: session.created, updated: session.updated }, ...(session.parentID ? { parentID: session.parentID } : {}) };
    writeJson(path.join(storage, 'session', 'prj', `${session.id}.json`), info);
    for (const message of session.messages) {
      writeJson(path.join(storage, 'message', session.id, `${message.id}.json`), { id: message.id, sessionID: session.id, ...messageData(message, session.directory) });
      for (const part of partsOf(message)) {
        writeJson(path.join(storage, 'part', message.id, `${part.id}.json`), { id: part.id, messageID: message.id, sessionID: session.id, ...part.data });
      }
    }
  }
}

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value));
}

/** The tables backfill reads, with the columns OpenCode 1.18.33 creates (others left out). */
const SCHEMA = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
  cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_session_idx ON part (session_id);
`;

/** `sessions` as the bytes of OpenCode's SQLite database file; `schema` replaces the table layout. */
export async function sqliteHistoryImage(sessions: readonly FixtureSession[], schema = SCHEMA): Promise<Uint8Array> {
  const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  const SQL = await initSqlJs({ locateFile: () => wasm });
  const db = new SQL.Database();
  db.exec(schema);
  for (const session of sessions) {
    db.run('INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)', [
      session.id, 'prj', session.parentID ?? null, 's', session.directory, 't', '1.18.33', session.created, session.updated,
    ]);
    for (const message of session.messages) {
      db.run('INSERT INTO message VALUES (?,?,?,?,?)', [message.id, session.id, message.created, message.created, JSON.stringify(messageData(message, session.directory))]);
      for (const part of partsOf(message)) {
        db.run('INSERT INTO part VALUES (?,?,?,?,?,?)', [part.id, message.id, session.id, message.created, message.created, JSON.stringify(part.data)]);
      }
    }
  }
  const image = db.export();
  db.close();
  return image;
}

/** Writes `sessions` as OpenCode's SQLite database `dataDir/opencode.db`; `schema` replaces the table layout. */
export async function writeSqliteHistory(dataDir: string, sessions: readonly FixtureSession[], schema = SCHEMA): Promise<void> {
  const image = await sqliteHistoryImage(sessions, schema);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'opencode.db'), image);
}

/** Offsets of the file format write/read version bytes in a SQLite header: 2 marks a WAL-mode database. */
const FORMAT_VERSION_OFFSETS = [18, 19];
const WAL_FORMAT = 2;
const WAL_MAGIC_LITTLE_ENDIAN = 0x377f0682;
const WAL_FILE_FORMAT = 3007000;

/** SQLite's WAL checksum (little-endian words) over `data`, continuing from `sum`. */
function walChecksum(data: Buffer, sum: [number, number]): [number, number] {
  let [s0, s1] = sum;
  for (let i = 0; i < data.length; i += 8) {
    s0 = (s0 + data.readUInt32LE(i) + s1) >>> 0;
    s1 = (s1 + data.readUInt32LE(i + 4) + s0) >>> 0;
  }
  return [s0, s1];
}

/** A SQLite database image marked as WAL mode, as OpenCode's file is on disk. */
export function asWalMode(image: Uint8Array): Buffer {
  const copy = Buffer.from(image);
  for (const offset of FORMAT_VERSION_OFFSETS) copy[offset] = WAL_FORMAT;
  return copy;
}

/**
 * Writes a `-wal` file whose frames are every page of each image in turn: a transaction per image,
 * committed (its last frame says the database's size) or, with `committed: false`, still being written.
 */
export function writeWal(file: string, transactions: readonly { image: Uint8Array; committed: boolean }[]): void {
  const pageSize = Buffer.from(transactions[0]?.image ?? new Uint8Array(18)).readUInt16BE(16);
  const salts = [0x1234abcd, 0x5678ef01] as const;
  const header = Buffer.alloc(32);
  header.writeUInt32BE(WAL_MAGIC_LITTLE_ENDIAN, 0);
  header.writeUInt32BE(WAL_FILE_FORMAT, 4);
  header.writeUInt32BE(pageSize, 8);
  header.writeUInt32BE(salts[0], 16);
  header.writeUInt32BE(salts[1], 20);
  let sum = walChecksum(header.subarray(0, 24), [0, 0]);
  header.writeUInt32BE(sum[0], 24);
  header.writeUInt32BE(sum[1], 28);
  const chunks: Buffer[] = [header];
  for (const { image, committed } of transactions) {
    const pages = asWalMode(image);
    const count = pages.length / pageSize;
    for (let page = 1; page <= count; page += 1) {
      const frame = Buffer.alloc(24);
      frame.writeUInt32BE(page, 0);
      frame.writeUInt32BE(committed && page === count ? count : 0, 4);
      frame.writeUInt32BE(salts[0], 8);
      frame.writeUInt32BE(salts[1], 12);
      const content = pages.subarray((page - 1) * pageSize, page * pageSize);
      sum = walChecksum(content, walChecksum(frame.subarray(0, 8), sum));
      frame.writeUInt32BE(sum[0], 16);
      frame.writeUInt32BE(sum[1], 20);
      chunks.push(frame, content);
    }
  }
  fs.writeFileSync(file, Buffer.concat(chunks));
}

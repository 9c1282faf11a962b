/**
 * Backfill of OpenCode's history: 1,000 sessions x 40 messages x 3 parts (one a tool call) in an
 * OpenCode-layout SQLite database, imported into a fresh tracker database. Time and peak memory are
 * measured in a child process each; the baseline is reading the same store without recording.
 * Also: the incremental import at plugin start when nothing is new, and when OpenCode wrote since
 * but holds no newer session (what the background import does at most starts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';
import { removeDir, tempDir } from './support.mjs';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'backfill-worker.mjs');
const MESSAGES_PER_SESSION = 40;
const T0 = Date.UTC(2025, 0, 1);

export async function writeStore(dataDir, sessions) {
  const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  const SQL = await initSqlJs({ locateFile: () => wasm });
  const db = new SQL.Database();
  db.exec(`
    CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, directory text NOT NULL, title text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
    CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
    CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
    CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
    CREATE INDEX part_session_idx ON part (session_id);`);
  db.exec('BEGIN');
  const insertSession = db.prepare('INSERT INTO session VALUES (?,?,?,?,?,?,?)');
  const insertMessage = db.prepare('INSERT INTO message VALUES (?,?,?,?,?)');
  const insertPart = db.prepare('INSERT INTO part VALUES (?,?,?,?,?,?)');
  for (let s = 0; s < sessions; s += 1) {
    const id = `ses_${String(s).padStart(6, '0')}`;
    const start = T0 + s * 3_600_000;
    const directory = `/projects/p${s % 20}`;
    insertSession.run([id, `prj${s % 20}`, null, directory, `session ${s}`, start, start + MESSAGES_PER_SESSION * 10_000]);
    for (let m = 0; m < MESSAGES_PER_SESSION; m += 1) {
      const messageId = `msg_${s}_${m}`;
      const at = start + m * 10_000;
      const agent = m % 4 === 0 ? 'plan' : 'build';
      const data = { role: 'assistant', mode: agent, agent, path: { cwd: directory, root: directory }, cost: 0.0015, tokens: { total: 1800, input: 1200, output: 300, reasoning: 50, cache: { read: 200, write: 50 } }, modelID: m % 2 ? 'claude' : 'gpt', providerID: m % 2 ? 'anthropic' : 'openai', time: { created: at, completed: at + 4000 }, finish: 'tool-calls' };
      insertMessage.run([messageId, id, at, at, JSON.stringify(data)]);
      const command = m % 10 === 9 ? `git add -A && git commit -m "change ${m}"` : `ls -la src/${m}`;
      const output = m % 10 === 9 ? `[main ${(s * 100 + m).toString(16).padStart(7, '0')}] change ${m}\n 1 file changed` : 'total 0\n'.repeat(5);
      const parts = [
        { type: 'step-start', snapshot: '4b825dc642cb6eb9a060e54bf8d69288fbee4904' },
        { type: 'tool', tool: 'bash', callID: `call_${s}_${m}`, state: { status: 'completed', input: { command, description: 'run' }, output, metadata: { output, exit: m % 7 === 6 ? 1 : 0, truncated: false }, title: command, time: { start: at + 100, end: at + 900 } } },
        { type: 'step-finish', reason: 'tool-calls', snapshot: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', tokens: data.tokens, cost: data.cost },
      ];
      parts.forEach((part, p) => insertPart.run([`prt_${s}_${m}_${p}`, messageId, id, at, at, JSON.stringify(part)]));
    }
  }
  for (const statement of [insertSession, insertMessage, insertPart]) statement.free();
  db.exec('COMMIT');
  fs.writeFileSync(path.join(dataDir, 'opencode.db'), db.export());
  db.close();
}

function measure(args) {
  const output = execFileSync(process.execPath, [WORKER, ...args], { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 20 });
  return JSON.parse(output.trim().split('\n').pop());
}

export default async function run({ quick }) {
  const sessions = quick ? 100 : 1000;
  const dataDir = tempDir('backfill-store');
  const dbDir = tempDir('backfill-db');
  const baseDir = tempDir('backfill-base');
  try {
    await writeStore(dataDir, sessions);
    const storeMiB = fs.statSync(path.join(dataDir, 'opencode.db')).size / 2 ** 20;
    const baseline = measure([dataDir, baseDir, '--read-only']);
    const full = measure([dataDir, dbDir]);
    if (full.sessions !== sessions) throw new Error(`imported ${full.sessions} of ${sessions} sessions`);
    const label = `${sessions} sessions x ${MESSAGES_PER_SESSION} msgs x 3 parts (store ${storeMiB.toFixed(0)} MiB)`;
    return [
      { name: 'backfill', metric: label, value: full.ms, unit: 'ms', baseline: baseline.ms, target: quick ? undefined : 10_000 },
      { name: 'backfill peak memory', metric: 'max RSS of the importing process', value: full.maxRssMiB, unit: 'MiB', baseline: baseline.maxRssMiB, target: 200 },
      { name: 'backfill incremental', metric: 'import at plugin start, nothing new (median of 21)', value: full.incrementalMs, unit: 'ms', target: 20 },
      { name: 'backfill incremental, store written', metric: 'OpenCode wrote since, no newer session: store opened, sessions read (median of 5)', value: full.touchedMs, unit: 'ms' },
    ];
  } finally {
    removeDir(dataDir);
    removeDir(dbDir);
    removeDir(baseDir);
  }
}

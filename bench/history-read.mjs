#!/usr/bin/env node
/**
 * Reads every session of an OpenCode store with one reader of the built package and nothing else (no
 * replay, no database): the reader's own cost, run under /usr/bin/time by native-pair.mjs.
 * Prints `{"reader","sessions","messages","toolCalls"}`.
 * Not a benchmark of the runner (not `*.bench.mjs`).
 *
 *   node bench/history-read.mjs sql.js|native OPENCODE_DB
 */
import { dist } from './support.mjs';

const [reader, database] = process.argv.slice(2);
let source;
if (reader === 'sql.js') {
  source = await (await dist('opencode/history/sqlite-store.js')).SqliteHistorySource.open(database);
} else if (reader === 'native') {
  const engine = await (await dist('opencode/history/native-engine.js')).loadNativeEngine();
  if (!engine) throw new Error(`node ${process.version} has no native SQLite engine`);
  source = (await dist('opencode/history/native-sqlite-store.js')).NativeSqliteHistorySource.open(database, engine);
} else {
  throw new Error(`usage: history-read.mjs sql.js|native OPENCODE_DB (got "${reader}")`);
}
let sessions = 0;
let messages = 0;
let toolCalls = 0;
try {
  for await (const session of source.sessions({})) {
    if (!session.messages) continue;
    sessions += 1;
    messages += session.messages.length;
    for (const message of session.messages) toolCalls += message.tools.length;
  }
} finally {
  source.close();
}
console.log(JSON.stringify({ reader: source.description, sessions, messages, toolCalls }));

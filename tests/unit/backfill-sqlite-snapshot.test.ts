/**
 * Reading OpenCode's SQLite database while OpenCode may be writing it: committed transactions of the
 * `-wal` file are read over the main file, one still being written is not, and a checkpoint that
 * rewrites the main file during a backfill leaves every session read whole from one state of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { HostSession, UnreadableSession } from '../../src/core/backfill/history.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import { PagedSnapshot } from '../../src/opencode/history/paged-file.js';
import { loadSqlJs, SqliteHistorySource } from '../../src/opencode/history/sqlite-store.js';
import type { SqlJs } from '../../src/opencode/history/sqlite-store.js';
import { readSnapshot } from '../../src/opencode/history/wal.js';
import { asWalMode, sqliteHistoryImage, writeWal } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-snapshot-');
const T0 = Date.UTC(2025, 0, 10, 9, 0, 0);

function session(index: number, messages = 2, output = 'ok'): FixtureSession {
  const id = `ses_${String(index).padStart(3, '0')}`;
  return {
    id,
    directory: '/projects/p',
    created: T0 + index * 1000,
    updated: T0 + index * 1000 + 500,
    messages: Array.from({ length: messages }, (_, m) => ({
      id: `${id}_m${m}`,
      role: 'assistant' as const,
      agent: 'build',
      providerID: 'p',
      modelID: 'm',
      tokens: { input: 10, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
      cost: 0.5,
      created: T0 + index * 1000 + m,
      tools: [{ callId: `c${m}`, tool: 'bash', status: 'completed' as const, command: 'git commit -qam wip', output, exit: 0 }],
    })),
  };
}

async function readAll(sessions: AsyncIterable<HostSession | UnreadableSession>, afterFirst?: () => void | Promise<void>): Promise<HostSession[]> {
  const read: HostSession[] = [];
  for await (const item of sessions) {
    if ('unreadable' in item) throw new Error(`unreadable: ${item.unreadable}`);
    read.push(item);
    if (read.length === 1) await afterFirst?.();
  }
  return read;
}

describe("a snapshot of OpenCode's database in WAL mode", () => {
  it('reads the transactions committed in the -wal file over the main file, and none still being written', async () => {
    const dataDir = tempDir();
    const database = path.join(dataDir, 'opencode.db');
    fs.writeFileSync(database, asWalMode(await sqliteHistoryImage([session(1)])));
    writeWal(`${database}-wal`, [
      { image: await sqliteHistoryImage([session(1), session(2, 3)]), committed: true },
      { image: await sqliteHistoryImage([session(1), session(2, 3), session(3)]), committed: false },
    ]);
    const source = await openHistory(dataDir);
    const read = await readAll(source.sessions({}));
    source.close();
    expect(read.map((s) => [s.id, s.messages.length])).toEqual([
      ['ses_001', 2],
      ['ses_002', 3],
    ]);
  });

  it('gives the same bytes read page by page from disk as the copy in memory', async () => {
    const dataDir = tempDir();
    const database = path.join(dataDir, 'opencode.db');
    fs.writeFileSync(database, asWalMode(await sqliteHistoryImage([session(1)])));
    writeWal(`${database}-wal`, [{ image: await sqliteHistoryImage([session(1), session(2, 40)]), committed: true }]);
    const paged = PagedSnapshot.open(database);
    const bytes = Buffer.from(paged.read(0, paged.size));
    paged.close();
    expect(bytes.equals(readSnapshot(database))).toBe(true);
    expect(bytes.length).toBeGreaterThan(fs.statSync(database).size);
  });

  it('reads the same sessions from a copy in memory when sql.js does not read its file through the paged view', async () => {
    const dataDir = tempDir();
    const database = path.join(dataDir, 'opencode.db');
    fs.writeFileSync(database, asWalMode(await sqliteHistoryImage([session(1)])));
    writeWal(`${database}-wal`, [{ image: await sqliteHistoryImage([session(1), session(2, 3)]), committed: true }]);
    const real = await loadSqlJs();
    const given: string[] = [];
    // A sql.js that takes only plain bytes: the paged view reaches it as an empty file.
    const bytesOnly = {
      Database: function (data: Uint8Array | object) {
        given.push(data instanceof Uint8Array ? 'bytes' : 'view');
        return new real.Database(data instanceof Uint8Array ? data : new Uint8Array(0));
      },
    } as unknown as SqlJs;
    const source = await SqliteHistorySource.open(database, bytesOnly);
    const read = await readAll(source.sessions({}));
    source.close();
    expect(given).toEqual(['view', 'bytes']);
    expect(read.map((s) => [s.id, s.messages.length])).toEqual([
      ['ses_001', 2],
      ['ses_002', 3],
    ]);
  });

  it('reads each session whole from one state of the file when a checkpoint rewrites it during a backfill', async () => {
    const dataDir = tempDir();
    const database = path.join(dataDir, 'opencode.db');
    // Enough sessions to be read in one ordered pass per table.
    const before = Array.from({ length: 60 }, (_, i) => session(i));
    fs.writeFileSync(database, asWalMode(await sqliteHistoryImage(before)));
    // What the checkpoint writes: the last session has grown by a message with a long output (a commit's: one the replay keeps).
    const after = [...before.slice(0, 59), session(59, 3, 'x'.repeat(20_000))];
    const checkpointed = asWalMode(await sqliteHistoryImage(after));
    const source = await openHistory(dataDir);
    const read = await readAll(source.sessions({}), () => fs.writeFileSync(database, checkpointed));
    source.close();
    expect(read.map((s) => s.id)).toEqual(before.map((s) => s.id));
    expect(read.slice(0, 59).every((s) => s.messages.length === 2 && s.messages.every((m) => m.tools.length === 1))).toBe(true);
    expect(read[59]?.messages.map((m) => m.tools[0]?.output?.length)).toEqual([20_000, 20_000, 20_000]);
  });
});

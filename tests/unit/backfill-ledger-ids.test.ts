/**
 * A run remembers the message ids it replayed only where the store could hold one twice: OpenCode's
 * database keys its messages by id (no two sessions share one), so a copy inside it is told by its
 * setup spans; a store without that key (hand-made, a foreign tool's) still has its in-run copies
 * told by their message ids. Fixture stores in OpenCode's SQLite layout, a temporary LMDB.
 */
import path from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { COPY_OF_RECORDED } from '../../src/core/backfill/replay-ledger.js';
import { importHistory } from '../../src/opencode/history/import.js';
import { SqliteHistorySource } from '../../src/opencode/history/sqlite-store.js';
import { writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

jest.setTimeout(60_000);

const tempDir = useTempDirs('agent-tracker-ledger-ids-');
let tracker: TempTracker | undefined;
afterEach(() => {
  tracker?.dispose();
  tracker = undefined;
});

/** OpenCode's tables with the same columns, but nothing keyed: a message id may be held twice. */
const UNKEYED_SCHEMA = `
CREATE TABLE project (id text, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
  cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
`;

const T0 = Date.UTC(2025, 5, 1, 9, 0, 0);
const DAY = 86_400_000;

function session(id: string, project: string, at: number, messageIds: readonly string[]): FixtureSession {
  return {
    id,
    directory: project,
    created: at,
    updated: at + 60_000,
    messages: messageIds.map((messageId, i) => ({
      id: messageId,
      role: 'assistant' as const,
      agent: 'build',
      providerID: 'anthropic',
      modelID: 'claude',
      tokens: { input: 100, output: 20, reasoning: 0, cache: { read: 0, write: 0 } },
      cost: 0.5,
      created: at + 1000 * (i + 1),
      tools: [{ callId: `${id}_call_${i}`, tool: 'edit', status: 'completed' as const }],
    })),
  };
}

describe('message ids a backfill run remembers', () => {
  it('tells a copy holding the same message ids at other times, in a store that may hold an id twice', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    // The copy moved a day later: its setup spans differ, only its message ids give it away.
    await writeSqliteHistory(dataDir, [session('ses_a', project, T0, ['msg_1', 'msg_2']), session('ses_b', project, T0 + DAY, ['msg_1', 'msg_2'])], UNKEYED_SCHEMA);
    tracker = tempTracker({}, project);
    const outcome = await importHistory(tracker.another(), dataDir);
    if (outcome.upToDate) throw new Error('expected an import');
    expect(outcome.summary.sessions).toBe(1);
    expect(outcome.summary.skipped[COPY_OF_RECORDED]).toBe(1);
    const usage = [...tracker.store.tables.usage.getRange({})].map(({ value }) => value);
    expect(usage.map((record) => record.sessionId)).toEqual(['ses_a']);
    expect(usage[0]?.messages).toBe(2);
  });

  it('knows which stores hold each message id once', async () => {
    const keyed = tempDir();
    const unkeyed = tempDir();
    const sessions = [session('ses_a', tempDir(), T0, ['msg_1'])];
    await writeSqliteHistory(keyed, sessions);
    await writeSqliteHistory(unkeyed, sessions, UNKEYED_SCHEMA);
    for (const [dataDir, unique] of [[keyed, true], [unkeyed, false]] as const) {
      const source = await SqliteHistorySource.open(path.join(dataDir, 'opencode.db'));
      try {
        expect(source.uniqueMessageIds).toBe(unique);
      } finally {
        source.close();
      }
    }
  });
});

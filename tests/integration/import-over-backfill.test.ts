/**
 * The same session in two databases of one machine: tracked live (and graded by the user) in one,
 * backfilled from OpenCode's history into the other (a new database path whose first start imported
 * the history). Importing the live one's export into the backfilled one must keep the user's grade on
 * the session's usage record, and count its work once, not twice and not lost.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { runBackfill } from '../../src/core/backfill/run.js';
import { exportRecords, importExport } from '../../src/core/store/transfer.js';
import { createHooks } from '../../src/opencode/hooks.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import type { UsageRecord } from '../../src/core/types.js';
import { fixtureTokens, writeJsonHistory } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { trackLive } from '../helpers/track-live.js';

const tempDir = useTempDirs('agent-tracker-import-over-backfill-');
const trackers: TempTracker[] = [];
afterEach(() => {
  for (const tracker of trackers.splice(0)) tracker.dispose();
});

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
const HASH = 'c'.repeat(40);

/** One session of build: two answers (1,000 + 500 input tokens, $0.25 + $0.125) and three tool calls. */
function history(project: string): FixtureSession {
  return {
    id: 'ses_both',
    directory: project,
    created: T0,
    updated: T0 + 60_000,
    messages: [
      { id: 'msg_u1', role: 'user', created: T0, text: 'add the cart' },
      {
        id: 'msg_a1', role: 'assistant', agent: 'build', providerID: 'fake', modelID: 'alpha', tokens: fixtureTokens(1000, 200), cost: 0.25, created: T0 + 1000,
        tools: [
          { callId: 'c1', tool: 'bash', status: 'completed', command: 'ls', output: 'src', exit: 0 },
          { callId: 'c2', tool: 'bash', status: 'completed', command: 'npm test', output: 'fail', exit: 1 },
        ],
      },
      {
        id: 'msg_a2', role: 'assistant', agent: 'build', providerID: 'fake', modelID: 'alpha', tokens: fixtureTokens(500, 100), cost: 0.125, created: T0 + 2000,
        tools: [{ callId: 'c3', tool: 'bash', status: 'completed', command: 'cat README.md', output: '# x', exit: 0 }],
      },
    ],
  };
}

/** Ten XP a tool call: the backfilled sheet levels up to SP 2 on the session's calls, so it is the one that "came furthest". */
function tracker(project: string): TempTracker {
  const made = tempTracker({ rules: { xpPerToolCall: 10 } }, project);
  trackers.push(made);
  return made;
}

function exportText(from: TempTracker): string {
  let text = '';
  exportRecords(from.store, (chunk) => (text += chunk));
  return text;
}

function usageOf(t: TempTracker): UsageRecord | undefined {
  return t.store.tables.usage.get(['ses_both', 'build', 'fake/alpha']);
}

describe('an export of live tracking imported over a backfill of the same session', () => {
  it('keeps the user\'s grade and the work counted once, in either order of import', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    const session = history(project);
    writeJsonHistory(dataDir, [session]);

    const live = tracker(project);
    await trackLive(createHooks({ service: live.service, logger: recordingLogger(live.logged), directory: live.dir, ownTools: new Set() }), session);
    live.service.recordCommits('ses_both', [{ hash: HASH, parents: ['f'.repeat(40)], message: 'feat: cart', files: ['cart.ts'], insertions: 2, deletions: 0, timestamp: new Date(T0 + 1500).toISOString() }], { eventId: 'commit_1' });
    live.service.gradeAsUser({ project, commit: HASH, grade: -1, via: 'cli' });
    live.service.reportBug({ agent: 'build', commit: HASH, sessionId: 'ses_both', project, description: 'the cart drops items' });
    expect(live.service.flush('test').ok).toBe(true);

    const backfilled = tracker(project);
    const source = await openHistory(dataDir);
    try {
      await runBackfill(backfilled.service, source, {});
    } finally {
      source.close();
    }

    // Live: 2 calls that passed (20 XP) level the sheet to SP 2, the bug takes it back to SP 1. Backfilled: SP 2, no bug.
    expect([live.store.tables.agents.get('build')?.sp, backfilled.store.tables.agents.get('build')?.sp]).toEqual([1, 2]);
    importExport(backfilled.store, exportText(live), 'laptop.ndjson');
    // Counted by hand from the fixture: 2 answers, 1,500 input tokens, $0.375, 3 tool calls (1 failing); the user's -1.
    const expected = { messages: 2, tokensInput: 1500, tokensOutput: 300, cost: 0.375, toolCalls: 3, toolFailures: 1, userGradedCommits: 1, userGradeSum: -1, bugs: 1 };
    expect(usageOf(backfilled)).toMatchObject(expected);
    expect(usageOf(live)).toMatchObject(expected);
    // The pooled sheet counts the live side's grade and bug too: CS 60 - 1 (the user's -1), one bug (SP 2 - 1).
    const sheet = backfilled.store.tables.agents.get('build');
    expect([sheet?.cs, sheet?.bugs, sheet?.sp]).toEqual([60 - 1, 1, 1]);
    // The other way round: the backfilled database's export into the live one changes nothing of the session.
    const before = usageOf(live);
    const sheetBefore = live.store.tables.agents.get('build');
    importExport(live.store, exportText(backfilled), 'desktop.ndjson');
    expect(usageOf(live)).toEqual(before);
    expect([live.store.tables.agents.get('build')?.cs, live.store.tables.agents.get('build')?.bugs]).toEqual([sheetBefore?.cs, sheetBefore?.bugs]);
  });
});

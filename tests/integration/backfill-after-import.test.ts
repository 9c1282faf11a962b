/**
 * A database restored from an export (a new database path, a second copy on the same machine) and then
 * backfilled from the same OpenCode history: the export carries the sessions' counters but not the
 * host's event ids, so the backfill must not count those sessions a second time.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { runBackfill } from '../../src/core/backfill/run.js';
import { exportRecords, importExport } from '../../src/core/store/transfer.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import type { UsageRecord } from '../../src/core/types.js';
import { fixtureTokens, writeJsonHistory } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { repoWithCommits } from '../helpers/printed-commits.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const tempDir = useTempDirs('agent-tracker-backfill-import-');
const trackers: TempTracker[] = [];
afterEach(() => {
  for (const tracker of trackers.splice(0)) tracker.dispose();
});

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);

/**
 * One session of build: two answers (1,000 + 500 input tokens, $0.25 + $0.125), three tool calls, one
 * commit, in a repository made in `project` while the call ran (a backfill credits only what git holds).
 */
function history(project: string): FixtureSession[] {
  const [printed] = repoWithCommits(project, ['feat: cart'], [T0 + 1010]).printed;
  return [
    {
      id: 'ses_restored',
      directory: project,
      created: T0,
      updated: T0 + 60_000,
      messages: [
        { id: 'msg_u1', role: 'user', created: T0, text: 'add the cart' },
        {
          id: 'msg_a1', role: 'assistant', agent: 'build', providerID: 'fake', modelID: 'alpha', tokens: fixtureTokens(1000, 200), cost: 0.25, created: T0 + 1000,
          tools: [
            { callId: 'c1', tool: 'bash', status: 'completed', command: 'git add -A && git commit -m "feat: cart"', output: printed, exit: 0 },
            { callId: 'c2', tool: 'bash', status: 'completed', command: 'ls', output: 'src', exit: 0 },
          ],
        },
        {
          id: 'msg_a2', role: 'assistant', agent: 'build', providerID: 'fake', modelID: 'alpha', tokens: fixtureTokens(500, 100), cost: 0.125, created: T0 + 2000,
          tools: [{ callId: 'c3', tool: 'bash', status: 'completed', command: 'npm test', output: 'ok', exit: 0 }],
        },
      ],
    },
  ];
}

function exportText(tracker: TempTracker): string {
  let text = '';
  exportRecords(tracker.store, (chunk) => (text += chunk));
  return text;
}

function usage(tracker: TempTracker): UsageRecord[] {
  return [...tracker.store.tables.usage.getRange()].map(({ value }) => value);
}

async function backfill(tracker: TempTracker, dataDir: string) {
  const source = await openHistory(dataDir);
  try {
    return await runBackfill(tracker.service, source, {});
  } finally {
    source.close();
  }
}

describe('backfill into a database restored from an export', () => {
  it('adds nothing for sessions the import brought, so messages, tokens, cost, tool calls and commits count once', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    writeJsonHistory(dataDir, history(project));
    const original = tempTracker({}, project);
    trackers.push(original);
    await backfill(original, dataDir);
    // Counted by hand from the fixture: 2 answers, 1,500 input tokens, $0.375, 3 tool calls, 1 commit.
    const expected = { sessionId: 'ses_restored', agent: 'build', model: 'fake/alpha', messages: 2, tokensInput: 1500, tokensOutput: 300, cost: 0.375, toolCalls: 3, commits: 1 };
    expect(usage(original)).toEqual([expect.objectContaining(expected)]);

    const restored = tempTracker({}, project);
    trackers.push(restored);
    importExport(restored.store, exportText(original), 'backup.ndjson');
    expect(usage(restored)).toEqual([expect.objectContaining(expected)]);

    const again = await backfill(restored, dataDir);
    expect(again).toMatchObject({ sessions: 0, messages: 0, toolCalls: 0, commits: 0, pushes: 0 });
    expect(usage(restored)).toEqual([expect.objectContaining(expected)]);
    expect(restored.store.tables.agents.get('build')?.commits).toBe(1);
  });
});

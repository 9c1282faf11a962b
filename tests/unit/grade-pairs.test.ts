/**
 * Commits graded by both the agent and the user, counted commit by commit: how far a setup grades itself
 * above the user is measured on those commits only, whichever grade came first, whichever process wrote
 * it, after a correction, after an upgrade of an older file and after an import. Each expected figure is
 * worked out here from the grades the test gives.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { reportAnswer } from '../../src/core/answers/report.js';
import { gradeEvidence } from '../../src/core/outcomes/counters.js';
import { recountGradePairs } from '../../src/core/store/grade-pairs.js';
import { Store, ZERO_COUNTERS } from '../../src/core/store/store.js';
import type { WritableTables } from '../../src/core/store/store.js';
import { exportRecords, importExport } from '../../src/core/store/transfer.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import type { UsageRecord } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/project';
const SESSION = 's1';
const KEY: [string, string, string] = [SESSION, 'build', 'fake/a'];
const hash = (n: number) => n.toString(16).padStart(40, 'a');
const gitCommit = (n: number, message = `feat: change ${n}`) => ({
  hash: hash(n),
  message,
  files: ['src/a.ts'],
  insertions: 3,
  deletions: 1,
  timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
});

let t: TempTracker;
afterEach(() => t?.dispose());

/** Three commits by build × fake/a in one session, each in its own turn (a turn earns for a few commits only). */
function threeCommits(tracker: TempTracker = t): void {
  tracker.service.noteModelRequest(SESSION, 'build', 'fake/a');
  for (const n of [1, 2, 3]) {
    tracker.service.recordCommits(SESSION, [gitCommit(n)]);
    tracker.service.endTurn(SESSION);
  }
}

const selfGrade = (n: number, grade: number, service = t.service) => service.gradeCommit({ sessionId: SESSION, agent: 'build', project: PROJECT, commit: hash(n), agentGrade: grade });
const userGrade = (n: number, grade: number, replace = false, service = t.service) => service.gradeAsUser({ project: PROJECT, commit: hash(n), grade, via: 'cli', replace });

/** The three commits, graded by the agent on 1 (5) and 2 (2), then by the user on 1 (-1) and 3 (5): one commit both graded. */
function gradedApart(): void {
  threeCommits();
  selfGrade(1, 5);
  selfGrade(2, 2);
  t.service.flush('test');
  userGrade(1, -1);
  userGrade(3, 5);
}

async function setupRow(store: Store) {
  const answer = await reportAnswer(store, { by: 'setup' });
  return answer.rows.find((row) => row.agent === 'build' && row.model === 'fake/a');
}

/** Leaves the test's file as a tracker before the pair counters did (schema 6, none on the record), `more` done in the same write; closes it. */
function asBeforePairs(more?: (tables: WritableTables, record: UsageRecord) => void): void {
  t.store.write((tables) => {
    const record = tables.usage.get(KEY) as UsageRecord;
    record.pairedGradedCommits = undefined;
    record.pairedGradeGapSum = undefined;
    record.pairedGradeGapSquares = undefined;
    tables.usage.putSync(KEY, record);
    more?.(tables, record);
    tables.meta.putSync('schemaVersion', 6);
  });
  t.store.close();
}

/** The test's file opened again to write (which stamps it), for `read`, then closed. */
function reopened(read: (writer: Store) => void): void {
  const writer = Store.open({ path: t.config.databasePath, maxDatabaseSize: t.config.maxDatabaseSize, indexer: termIndexer });
  try {
    read(writer);
  } finally {
    writer.close();
  }
}

function pairsOf(record: UsageRecord | undefined) {
  return { commits: record?.pairedGradedCommits, gapSum: record?.pairedGradeGapSum, gapSquares: record?.pairedGradeGapSquares };
}

describe('commits graded by both', () => {
  it('are the commits both graded, not the smaller of the two counts at the difference of the two means', async () => {
    t = tempTracker();
    // Only commit 1 has both grades: 5 against -1.
    gradedApart();
    const gap = 5 - -1;
    expect(pairsOf(t.store.tables.usage.get(KEY))).toEqual({ commits: 1, gapSum: gap, gapSquares: gap * gap });
    const row = await setupRow(t.store);
    // The two means would say (5 + 2) / 2 - (-1 + 5) / 2 = 1.5 on two commits.
    expect(row).toMatchObject({ selfUserGap: gap, meanSelfGrade: 3.5, meanUserGrade: 2 });
    // Three commits carry a grade: 1 (both), 2 (agent), 3 (user).
    expect(row?.gradedCommits).toBe(3);
  });

  it('are counted whichever grade came first', () => {
    t = tempTracker();
    threeCommits();
    userGrade(1, 2);
    userGrade(2, 5);
    selfGrade(1, 5);
    selfGrade(2, 5);
    t.service.flush('test');
    expect(pairsOf(t.store.tables.usage.get(KEY))).toEqual({ commits: 2, gapSum: 3 + 0, gapSquares: 9 + 0 });
  });

  it('move with a corrected user grade and count the commit once', () => {
    t = tempTracker();
    threeCommits();
    selfGrade(1, 5);
    t.service.flush('test');
    userGrade(1, 2);
    expect(pairsOf(t.store.tables.usage.get(KEY))).toEqual({ commits: 1, gapSum: 5 - 2, gapSquares: (5 - 2) ** 2 });
    userGrade(1, -1, true);
    expect(pairsOf(t.store.tables.usage.get(KEY))).toEqual({ commits: 1, gapSum: 5 - -1, gapSquares: (5 - -1) ** 2 });
  });

  it("leave out a commit that earned nothing (its self-grade is not counted either)", () => {
    t = tempTracker();
    t.service.noteModelRequest(SESSION, 'build', 'fake/a');
    t.service.recordCommits(SESSION, [gitCommit(1)]);
    t.service.endTurn(SESSION);
    // Reverting its own commit earns an agent nothing.
    t.service.recordCommits(SESSION, [gitCommit(2, `Revert "feat: change 1"\n\nThis reverts commit ${hash(1)}.`)]);
    t.service.endTurn(SESSION);
    selfGrade(2, 5);
    t.service.flush('test');
    userGrade(2, 1);
    const record = t.store.tables.usage.get(KEY);
    expect(record).toMatchObject({ userGradedCommits: 1, pairedGradedCommits: 0 });
    expect(record?.selfGradedCommits ?? 0).toBe(0);
  });

  it("are counted once when the agent's grade waits in one process while the user grades from another", () => {
    t = tempTracker();
    threeCommits();
    t.service.flush('test');
    // The agent's self-grade is buffered in the plugin; the user grades from the CLI before it is written.
    selfGrade(1, 5);
    const cli = t.another();
    userGrade(1, 1, false, cli);
    t.service.flush('test');
    expect(pairsOf(t.store.tables.usage.get(KEY))).toEqual({ commits: 1, gapSum: 4, gapSquares: 16 });
  });

  it('are counted from the grades when a file from before the counters is opened to write, and estimated where no grade is on record', () => {
    t = tempTracker();
    gradedApart();
    // Beside it, a record written by hand into an import file with grade sums and no grade record (its
    // pairs cannot be counted).
    asBeforePairs((tables, record) => tables.usage.putSync(['s2', 'build', 'fake/a'], { ...record, sessionId: 's2', userGradedCommits: 2, userGradeSum: 4, selfGradedCommits: 4, selfGradeSum: 16 }));
    const reader = Store.open({ path: t.config.databasePath, maxDatabaseSize: t.config.maxDatabaseSize, readOnly: true });
    expect(reader.olderSchema).toBe(true);
    reader.close();
    reopened((writer) => {
      expect(writer.meta().schemaVersion).toBeGreaterThan(6);
      expect(pairsOf(writer.tables.usage.get(KEY))).toEqual({ commits: 1, gapSum: 6, gapSquares: 36 });
      expect(pairsOf(writer.tables.usage.get(['s2', 'build', 'fake/a']))).toEqual({ commits: undefined, gapSum: undefined, gapSquares: undefined });
    });
  });

  it("are none after an upgrade where the agent and the user graded different commits (the two means would pair them)", () => {
    t = tempTracker();
    threeCommits();
    selfGrade(1, 5);
    t.service.flush('test');
    userGrade(2, -1);
    asBeforePairs();
    reopened((writer) => expect(pairsOf(writer.tables.usage.get(KEY))).toEqual({ commits: 0, gapSum: 0, gapSquares: 0 }));
  });

  it('are recounted without rewriting any record that already holds them (an upgrade of a large file writes only what changes)', () => {
    t = tempTracker();
    gradedApart();
    // A session the user graded alone, one whose agent and user graded different commits, one nobody graded,
    // one the agent graded alone.
    for (const [session, n] of [['s2', 4], ['s3', 5], ['s4', 7], ['s5', 8]] as const) {
      t.service.noteModelRequest(session, 'build', 'fake/a');
      t.service.recordCommits(session, [gitCommit(n)]);
      t.service.endTurn(session);
    }
    t.service.recordCommits('s3', [gitCommit(6)]);
    t.service.endTurn('s3');
    userGrade(4, 2);
    selfGrade(5, 5);
    t.service.gradeCommit({ sessionId: 's5', agent: 'build', project: PROJECT, commit: hash(8), agentGrade: 1 });
    t.service.flush('test');
    userGrade(6, 1);
    const rewritten: string[] = [];
    t.store.write((tables) => {
      const usage = new Proxy(tables.usage, {
        get(target, name) {
          if (name === 'putSync') return (key: string[], value: UsageRecord) => (rewritten.push(key.join(' ')), target.putSync(key as [string, string, string], value));
          const property: unknown = Reflect.get(target, name, target);
          return typeof property === 'function' ? property.bind(target) : property;
        },
      });
      recountGradePairs({ ...tables, usage });
    });
    expect(rewritten).toEqual([]);
    expect(gradeEvidence(t.store.tables.usage.get(['s3', 'build', 'fake/a']) as UsageRecord).paired).toEqual({ commits: 0, gapSum: 0, gapSquares: 0 });
  });

  it('in an import are counted from the grades the file holds, not taken from the file', () => {
    t = tempTracker();
    threeCommits();
    selfGrade(1, 5);
    selfGrade(2, 2);
    t.service.flush('test');
    userGrade(1, -1);
    // Another session whose agent graded nothing: whatever its record says, it has no pair. A third with a pair.
    t.service.noteModelRequest('s2', 'build', 'fake/a');
    t.service.recordCommits('s2', [gitCommit(9)]);
    t.service.endTurn('s2');
    userGrade(9, 2);
    t.service.noteModelRequest('s6', 'build', 'fake/a');
    t.service.recordCommits('s6', [gitCommit(10)]);
    t.service.endTurn('s6');
    t.service.gradeCommit({ sessionId: 's6', agent: 'build', project: PROJECT, commit: hash(10), agentGrade: 2 });
    // And one the agent graded alone.
    t.service.noteModelRequest('s7', 'build', 'fake/a');
    t.service.recordCommits('s7', [gitCommit(11)]);
    t.service.endTurn('s7');
    t.service.gradeCommit({ sessionId: 's7', agent: 'build', project: PROJECT, commit: hash(11), agentGrade: 5 });
    t.service.flush('test');
    userGrade(10, 5);
    let text = '';
    exportRecords(t.store, (chunk) => (text += chunk));
    // Forged: each record claims one pair, the first with a wrong sum, the third with a wrong square, the last none.
    const claims: Record<string, Record<string, number>> = {
      [SESSION]: { pairedGradedCommits: 1, pairedGradeGapSum: 0, pairedGradeGapSquares: 36 },
      s2: { pairedGradedCommits: 1, pairedGradeGapSum: 0, pairedGradeGapSquares: 0 },
      s6: { pairedGradedCommits: 1, pairedGradeGapSum: -3, pairedGradeGapSquares: 0 },
      s7: { pairedGradedCommits: 1, pairedGradeGapSum: 4, pairedGradeGapSquares: 16 },
    };
    const forged = text
      .split('\n')
      .map((line) => {
        if (!line.includes('"pairedGradedCommits"')) return line;
        const parsed = JSON.parse(line) as { key: string[]; value: Record<string, number> };
        return JSON.stringify({ ...parsed, value: { ...parsed.value, ...claims[parsed.key[0] ?? ''] } });
      })
      .join('\n');
    expect(forged).not.toBe(text);
    const other = tempTracker();
    try {
      importExport(other.store, forged, 'forged.ndjson');
      expect(pairsOf(other.store.tables.usage.get(KEY))).toEqual({ commits: 1, gapSum: 6, gapSquares: 36 });
      expect(gradeEvidence(other.store.tables.usage.get(['s2', 'build', 'fake/a']) as UsageRecord).paired).toEqual({ commits: 0, gapSum: 0, gapSquares: 0 });
      expect(pairsOf(other.store.tables.usage.get(['s6', 'build', 'fake/a']))).toEqual({ commits: 1, gapSum: 2 - 5, gapSquares: (2 - 5) ** 2 });
      expect(gradeEvidence(other.store.tables.usage.get(['s7', 'build', 'fake/a']) as UsageRecord).paired).toEqual({ commits: 0, gapSum: 0, gapSquares: 0 });
    } finally {
      other.dispose();
    }
  });

  it('in an import of usage records with no grade records beside them stay estimated from the two means', () => {
    t = tempTracker();
    const record = { ...ZERO_COUNTERS, sessionId: 'h1', agent: 'build', model: 'fake/a', project: PROJECT, firstAt: '2026-01-01T00:00:00.000Z', lastAt: '2026-01-01T01:00:00.000Z', commits: 4, userGradedCommits: 2, userGradeSum: 4, selfGradedCommits: 4, selfGradeSum: 16, pairedGradedCommits: 0, pairedGradeGapSum: 0, pairedGradeGapSquares: 0 };
    t.store.write((tables) => tables.usage.putSync(['h1', 'build', 'fake/a'], record));
    let text = '';
    exportRecords(t.store, (chunk) => (text += chunk));
    const other = tempTracker();
    try {
      importExport(other.store, text, 'hand.ndjson');
      const stored = other.store.tables.usage.get(['h1', 'build', 'fake/a']) as UsageRecord;
      expect(pairsOf(stored)).toEqual({ commits: undefined, gapSum: undefined, gapSquares: undefined });
      // The smaller count (2) at 16/4 - 4/2 = 2 each.
      expect(gradeEvidence(stored).paired).toEqual({ commits: 2, gapSum: 4, gapSquares: 8 });
    } finally {
      other.dispose();
    }
  });
});

/**
 * What the mutation run of the scoring modules found untested in how the evidence is read and how
 * the overclaim figure is shown: work spread over several projects, and the overclaim interval of a
 * setup whose own overclaim differs from its role's or rests on one commit. Expected values are
 * worked out by hand in the comments.
 */
import { describe, expect, it } from '@jest/globals';
import { recommendSetups } from '../../src/core/report/recommend.js';
import type { Recommendation, ScoredSetup } from '../../src/core/report/recommend.js';
import { selfGradeInformation } from '../../src/core/report/recommend-overclaim.js';
import { addRecord, emptyTally } from '../../src/core/report/recommend-signals.js';
import type { ProjectProfile, UsageRecord } from '../../src/core/types.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const TARGET = profile('/p/target', 'rust', 'axum', 'api', ['tokio']);
const TWIN = '/p/twin';
const Z_80 = 1.2815515655446004;
const round1 = (value: number) => Math.round(value * 10) / 10;

/** Every project in the history is as alike the target as the target itself (similarity 1). */
function recommend(usage: UsageRecord[]): Recommendation {
  const profiles = new Map<string, ProjectProfile>([[TWIN, profile(TWIN, 'rust', 'axum', 'api', ['tokio'])]]);
  return recommendSetups({ target: TARGET, history: { usage }, profiles, similarity: () => 1, prefer: 'quality' });
}

function setupOf(result: Recommendation, model: string): ScoredSetup {
  const found = result.recommendations.find((r) => r.model === model);
  if (!found) throw new Error(`no ${model}`);
  return found;
}

/** `sessions` sessions of two turns of one kind, two commits the user graded `grade` each. */
function kindWork(model: string, sessions: number, kind: 'turnsBugFix' | 'turnsDocs', grade: number, project = TARGET.path): UsageRecord[] {
  return Array.from({ length: sessions }, () =>
    usageRecord({ agent: 'build', model, project, commits: 2, turns: 2, [kind]: 2, userGradedCommits: 2, userGradeSum: 2 * grade }),
  );
}

/** `sessions` sessions of two commits, both graded by the user (`user` each) and by the setup itself (`self` each). */
function pairedWork(model: string, sessions: number, user: number, self: number, commits = 2): UsageRecord[] {
  return Array.from({ length: sessions }, () =>
    usageRecord({ agent: 'build', model, commits, userGradedCommits: commits, userGradeSum: commits * user, selfGradedCommits: commits, selfGradeSum: commits * self }),
  );
}

describe('work spread over projects', () => {
  it('answers the same when the same work of each kind is split between two projects equally alike the target', () => {
    // m/strong does 8 sessions of bug fixes and 2 of docs, m/docs the other way round. On one
    // project, or with each kind's sessions split half and half between the target and its twin
    // (similarity 1, so every record counts 1 either way), the tallies per kind are the same, and
    // so is every figure of the answer.
    const strong = (project: string, sessions: number) => [...kindWork('m/strong', sessions, 'turnsBugFix', 3, project), ...kindWork('m/strong', sessions / 4, 'turnsDocs', 5, project)];
    const docs = (project: string, sessions: number) => [...kindWork('m/docs', sessions / 4, 'turnsBugFix', 2, project), ...kindWork('m/docs', sessions, 'turnsDocs', 4, project)];
    const together = recommend([...strong(TARGET.path, 8), ...docs(TARGET.path, 8)]);
    const split = recommend([...strong(TARGET.path, 4), ...strong(TWIN, 4), ...docs(TARGET.path, 4), ...docs(TWIN, 4)]);
    expect(together.roles[0]?.pick.model).toBe('m/strong');
    expect(split.roles).toEqual(together.roles);
    expect(split.recommendations).toEqual(together.recommendations);
  });
});

describe('the overclaim shown in the answer', () => {
  it("has an interval from the spread of the setup's own pairs around its own mean, not the role's", () => {
    // m/inflater: 5 sessions self 5 against user 3 (2 over) and 5 sessions self 3 against 3 (0 over),
    // two commits each: 20 pairs, mean 1, spread (10 × 4 + 10 × 0) / 20 − 1² = 1.
    // m/honest: 10 sessions of 2 pairs 0 over. The role: 20 over 40 pairs = 0.5.
    // Shown mean: max((20 + 2 × 0.5) / 22, 1) = 1; half-width Z_80 × √(1 / (20 + 2)).
    const usage = [...pairedWork('m/inflater', 5, 3, 5), ...pairedWork('m/inflater', 5, 3, 3), ...pairedWork('m/honest', 10, 3, 3)];
    const half = Z_80 * Math.sqrt(1 / 22);
    // Its correction in the score: σ² = (40 − 20²/20) / (40 − 2) = 10/19 within, τ² = (10 − 10/19) / (40 − 800/40)
    // = 9/19 between, so 10/9 pairs of the role's 0.5: (20 + 10/9 × 0.5) / (20 + 10/9) = 0.97 → 1.
    const correction = round1((20 + (10 / 9) * 0.5) / (20 + 10 / 9));
    expect(setupOf(recommend(usage), 'm/inflater').overclaim).toEqual({ mean: 1, interval: [round1(1 - half), round1(1 + half)], commits: 20, correction });
    expect([round1(1 - half), round1(1 + half)]).toEqual([0.7, 1.3]);
  });

  it('takes a 1.5-point spread for a setup with a single commit graded by both, never a spread of zero', () => {
    // m/once: one commit, self 5 against user 3: 1 pair, 2 over. m/honest: 20 pairs, 0 over.
    // Shown mean: its own 2; one pair has no spread of its own, so the half-width is
    // Z_80 × √(1.5² / 1) = 1.92. Its self-grades do not count (no correction).
    const usage = [...pairedWork('m/once', 1, 3, 5, 1), ...pairedWork('m/honest', 10, 3, 3)];
    const half = Z_80 * 1.5;
    expect(setupOf(recommend(usage), 'm/once').overclaim).toEqual({ mean: 2, interval: [round1(2 - half), round1(2 + half)], commits: 1, correction: null });
    expect([round1(2 - half), round1(2 + half)]).toEqual([0.1, 3.9]);
  });
});

describe('what self-grades can say', () => {
  it('is nothing, not NaN, from a setup that never graded itself, in a role whose self-grades vary', () => {
    const role = emptyTally();
    // Record means 2 and 5: the role's self-grades vary.
    for (const sum of [4, 10]) addRecord(role, usageRecord({ agent: 'build', model: 'm/a', commits: 2, selfGradedCommits: 2, selfGradeSum: sum }), 1);
    const never = emptyTally();
    addRecord(never, usageRecord({ agent: 'build', model: 'm/b', commits: 2, userGradedCommits: 2, userGradeSum: 6 }), 1);
    expect(selfGradeInformation(never, role)).toBe(0);
  });
});

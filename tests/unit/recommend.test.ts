import { afterEach, describe, expect, it } from '@jest/globals';
import { loadHistory } from '../../src/core/report/history.js';
import { CREDIBILITY_COMMITS, credibilityEstimate, NO_HISTORY_MESSAGE, recommendSetups } from '../../src/core/report/recommend.js';
import type { Recommendation } from '../../src/core/report/recommend.js';
import { formatRecommendation } from '../../src/core/report/recommend-text.js';
import { scoreSimilarity } from '../../src/core/projects/similarity.js';
import type { ProjectProfile } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { block, gradePairs, profile, recordHistory, storeProfiles } from '../helpers/synthetic-history.js';
import type { WorkBlock } from '../helpers/synthetic-history.js';

const RUST_DEPS = ['tokio', 'serde', 'axum'];
const TS_DEPS = ['react', 'react-dom', 'vite'];
const PROFILES = [
  profile('/p/rust-one', 'rust', 'axum', 'api', RUST_DEPS),
  profile('/p/rust-two', 'rust', 'axum', 'api', ['tokio', 'serde']),
  profile('/p/ts-one', 'typescript', 'react', 'web', TS_DEPS),
  profile('/p/ts-two', 'typescript', 'react', 'web', ['react', 'vite']),
];
const RUST_TARGET = profile('/p/rust-new', 'rust', 'axum', 'api', ['tokio', 'axum']);
const TS_TARGET = profile('/p/ts-new', 'typescript', 'react', 'web', ['react']);

const A = { agent: 'build', model: 'anthropic/claude-sonnet' };
const B = { agent: 'build', model: 'openai/gpt-5' };
const LUCKY = { agent: 'build', model: 'lucky/tiny' };

const STRONG = { commitsPerSession: 5, failuresPerSession: 1, bugs: 2, costPerSession: 0.5, grades: [[2, 2], [5, 2], [2, 2], [2, 5]] as const };
const WEAK = { commitsPerSession: 5, failuresPerSession: 4, bugs: 10, costPerSession: 0.5, grades: [[1, 1], [-1, 1], [1, 2]] as const };

/** A strong on Rust and weak on TypeScript, B the other way round; 100 commits per project each. */
function crossedHistory(): WorkBlock[] {
  const work = (setup: typeof A, project: string, quality: typeof STRONG | typeof WEAK) =>
    block({ ...setup, project, sessions: 20, toolCallsPerSession: 10, ...quality, grades: quality.grades.map((g) => [...g] as [typeof g[0], typeof g[1]]) });
  return [
    work(A, '/p/rust-one', STRONG),
    work(A, '/p/rust-two', STRONG),
    work(B, '/p/rust-one', WEAK),
    work(B, '/p/rust-two', WEAK),
    work(A, '/p/ts-one', WEAK),
    work(A, '/p/ts-two', WEAK),
    work(B, '/p/ts-one', STRONG),
    work(B, '/p/ts-two', STRONG),
  ];
}

/** Two perfect commits on a Rust project: excellent grades, no bugs, no failures, cheap. */
const LUCKY_BLOCK = block({ ...LUCKY, project: '/p/rust-two', sessions: 1, commitsPerSession: 2, toolCallsPerSession: 4, failuresPerSession: 0, costPerSession: 0.05, grades: [[5, 5]] });

function meanGrade(blocks: readonly WorkBlock[]): number {
  const pairs = blocks.flatMap(gradePairs);
  return pairs.reduce((sum, [agent, user]) => sum + (agent + user) / 2, 0) / pairs.length;
}

describe('recommend', () => {
  let tracker: TempTracker | undefined;
  afterEach(() => {
    tracker?.dispose();
    tracker = undefined;
  });

  function recommend(blocks: readonly WorkBlock[], target: ProjectProfile): Recommendation {
    tracker ??= tempTracker();
    if (tracker.store.tables.sessions.getKeysCount() === 0) {
      storeProfiles(tracker.store, tracker.config, PROFILES);
      recordHistory(blocks, { store: tracker.store, config: tracker.config });
    }
    const profiles = new Map(PROFILES.map((p) => [p.path, p]));
    return recommendSetups({ target, history: loadHistory(tracker.store), profiles, similarity: scoreSimilarity });
  }

  const rank = (result: Recommendation, setup: typeof A) => result.recommendations.findIndex((r) => r.agent === setup.agent && r.model === setup.model);

  it('picks A for a Rust project and B for a TypeScript project', () => {
    const blocks = [...crossedHistory(), LUCKY_BLOCK];
    const rust = recommend(blocks, RUST_TARGET);
    expect(rust.recommendations[0]).toMatchObject(A);
    expect(rank(rust, B)).toBeGreaterThan(rank(rust, A));
    const ts = recommend(blocks, TS_TARGET);
    expect(ts.recommendations[0]).toMatchObject(B);
    expect(rank(ts, A)).toBeGreaterThan(rank(ts, B));
    // Overall A and B did the same work, so only the weighting by project similarity can tell them apart.
    expect(rust.recommendations[0]?.n).toBe(400);
    expect(ts.recommendations[0]?.n).toBe(400);
  });

  it('does not let two perfect commits outrank two hundred good ones', () => {
    const blocks = [...crossedHistory(), LUCKY_BLOCK];
    const result = recommend(blocks, RUST_TARGET);
    const lucky = result.recommendations[rank(result, LUCKY)];
    const best = result.recommendations[0];
    // On its raw record the lucky setup looks better than A on Rust: a naive ranking would pick it.
    const aOnRust = blocks.filter((b) => b.model === A.model && b.project.includes('rust'));
    expect(meanGrade([LUCKY_BLOCK])).toBeGreaterThan(meanGrade(aOnRust));
    expect(best).toMatchObject(A);
    expect(lucky).toBeDefined();
    expect(lucky?.n).toBe(2);
    expect(lucky?.score).toBeLessThan(best?.score ?? 0);
    expect(lucky?.why).toMatch(/^only 2 commits, so held near the overall mean; on similar projects \(2 of its 2 commits\): mean grade 5.0/);
    expect(best?.why).toMatch(/^on similar projects \(200 of its 400 commits\): mean grade 2\.\d over 200 graded commits/);
  });

  it('lets a setup with the same record win once it has the evidence', () => {
    const plenty = block({ ...LUCKY_BLOCK, sessions: 40 });
    const result = recommend([...crossedHistory(), plenty], RUST_TARGET);
    expect(result.recommendations[0]).toMatchObject(LUCKY);
    expect(result.recommendations[0]?.n).toBe(80);
  });

  it('shrinks by credibility: Z = n / (n + k) between the setup and the pooled mean', () => {
    expect(credibilityEstimate(0, 0, 0.3, CREDIBILITY_COMMITS)).toBeCloseTo(0.3, 12);
    // n = k: halfway between the setup's own 1.0 and the prior 0.2.
    expect(credibilityEstimate(CREDIBILITY_COMMITS, CREDIBILITY_COMMITS, 0.2, CREDIBILITY_COMMITS)).toBeCloseTo(0.6, 12);
    // n much larger than k: nearly the setup's own mean.
    expect(credibilityEstimate(5000, 10_000, 0.9, CREDIBILITY_COMMITS)).toBeCloseTo(0.5 + (0.4 * CREDIBILITY_COMMITS) / (10_000 + CREDIBILITY_COMMITS), 12);
  });

  it('says plainly when there is no history, and how to start', () => {
    tracker = tempTracker();
    const result = recommendSetups({ target: RUST_TARGET, history: loadHistory(tracker.store), profiles: new Map(), similarity: scoreSimilarity });
    expect(result.recommendations).toEqual([]);
    expect(result.message).toBe(NO_HISTORY_MESSAGE);
    const text = formatRecommendation(result);
    expect(text).toContain('No history yet');
    expect(text).toContain('grade-commit');
  });

  it('explains each recommendation in one line with its sample count', () => {
    const result = recommend([...crossedHistory(), LUCKY_BLOCK], RUST_TARGET);
    const text = formatRecommendation(result);
    expect(text.split('\n')[0]).toBe('Project /p/rust-new: language rust, framework axum, scope api, 2 dependencies.');
    expect(text).toContain(`Use ${A.agent} with ${A.model}`);
    for (const setup of result.recommendations) {
      expect(setup.why).not.toContain('\n');
      expect(setup.sessions).toBeGreaterThan(0);
    }
  });
});

/**
 * The recommendation over records made by the real TrackingService in a temporary LMDB, read back
 * with loadHistory. Apart from recommend.test.ts because recording the history takes seconds: the
 * mutation run of the scoring modules (stryker.groups.mjs) leaves it out, as it would run for
 * nearly every mutant.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadHistory } from '../../src/core/report/history.js';
import { recommendSetups } from '../../src/core/report/recommend.js';
import type { Recommendation } from '../../src/core/report/recommend.js';
import { formatRecommendation } from '../../src/core/report/recommend-text.js';
import { scoreSimilarity } from '../../src/core/projects/similarity.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { block, profile, recordHistory, storeProfiles } from '../helpers/synthetic-history.js';
import type { WorkBlock } from '../helpers/synthetic-history.js';

function roleOf(result: Recommendation, agent: string) {
  const found = result.roles.find((r) => r.agent === agent);
  if (!found) throw new Error(`no role ${agent}`);
  return found;
}

describe('recommend over records made by the real TrackingService', () => {
  let tracker: TempTracker | undefined;
  afterEach(() => {
    tracker?.dispose();
    tracker = undefined;
  });

  const RUST = [profile('/p/rust-one', 'rust', 'axum', 'api', ['tokio', 'serde', 'axum']), profile('/p/rust-two', 'rust', 'axum', 'api', ['tokio', 'serde'])];
  const TS = [profile('/p/ts-one', 'typescript', 'react', 'web', ['react', 'vite']), profile('/p/ts-two', 'typescript', 'react', 'web', ['react'])];
  const A = { agent: 'build', model: 'anthropic/claude-sonnet' };
  const B = { agent: 'build', model: 'openai/gpt-5' };
  const STRONG = { commitsPerSession: 5, failuresPerSession: 1, bugs: 2, grades: [[2, 2], [5, 2], [2, 2], [2, 5]] as WorkBlock['grades'] };
  const WEAK = { commitsPerSession: 5, failuresPerSession: 4, bugs: 10, grades: [[1, 1], [-1, 1], [1, 2]] as WorkBlock['grades'] };

  it('picks A for a Rust project and B for a TypeScript one (old-style grades, similarity decides)', () => {
    tracker = tempTracker();
    storeProfiles(tracker.store, tracker.config, [...RUST, ...TS]);
    const blocks = [
      ...RUST.map((p) => block({ ...A, project: p.path, sessions: 20, ...STRONG })),
      ...RUST.map((p) => block({ ...B, project: p.path, sessions: 20, ...WEAK })),
      ...TS.map((p) => block({ ...A, project: p.path, sessions: 20, ...WEAK })),
      ...TS.map((p) => block({ ...B, project: p.path, sessions: 20, ...STRONG })),
      block({ agent: 'build', model: 'lucky/tiny', project: '/p/rust-two', sessions: 1, commitsPerSession: 2, failuresPerSession: 0, costPerSession: 0.05, grades: [[5, 5]] }),
    ];
    recordHistory(blocks, { store: tracker.store, config: tracker.config });
    const profiles = new Map([...RUST, ...TS].map((p) => [p.path, p]));
    const history = loadHistory(tracker.store);
    const rust = recommendSetups({ target: profile('/p/rust-new', 'rust', 'axum', 'api', ['tokio']), history, profiles, similarity: scoreSimilarity });
    const ts = recommendSetups({ target: profile('/p/ts-new', 'typescript', 'react', 'web', ['react']), history, profiles, similarity: scoreSimilarity });
    expect(roleOf(rust, 'build').pick.model).toBe(A.model);
    expect(roleOf(ts, 'build').pick.model).toBe(B.model);
    expect(roleOf(rust, 'build').pick.n).toBe(400);
    expect(roleOf(rust, 'build').pick.why).toMatch(/agent-relayed user grade|self-grade|bugs|tool failures/);
    expect([roleOf(rust, 'build').runnerUp?.model, ...roleOf(rust, 'build').alternatives.map((a) => a.model)]).toEqual([B.model, 'lucky/tiny']);
    const text = formatRecommendation(rust);
    expect(text.split('\n')[0]).toBe('Project /p/rust-new: language rust, framework axum, scope api, 1 dependency.');
    expect(text).toContain(`- build: ${A.model} — clear`);
    expect(text).toContain(`runner-up: ${B.model}`);
    expect(text).toContain('also: lucky/tiny');
  });
});

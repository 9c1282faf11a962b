/** Similarity scoring (weights, threshold, "unknown" never matching) and the search over stored profiles. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { UNKNOWN } from '../../src/core/types.js';
import { putProject } from '../../src/core/projects/profiles.js';
import { findSimilarProjects, scoreSimilarity, SIMILARITY_THRESHOLD, SIMILARITY_WEIGHTS } from '../../src/core/projects/similarity.js';
import { Store } from '../../src/core/store/store.js';
import type { ProjectProfile } from '../../src/core/types.js';
import { termIndexer } from '../../src/core/search/indexer.js';

const W = SIMILARITY_WEIGHTS;

function profile(overrides: Partial<ProjectProfile>): ProjectProfile {
  return {
    path: '/projects/p',
    language: UNKNOWN,
    framework: UNKNOWN,
    scope: UNKNOWN,
    dependencies: [],
    manifestType: UNKNOWN,
    classifiedAt: '2025-01-01T00:00:00.000Z',
    agentsmdHash: '',
    ...overrides,
  };
}

describe('scoreSimilarity', () => {
  it('gives the language, framework and scope weights for each match', () => {
    const base = profile({ language: 'typescript', framework: 'next.js', scope: 'CMS' });
    expect(scoreSimilarity(base, profile({ language: 'typescript' }))).toBeCloseTo(W.language, 10);
    expect(scoreSimilarity(base, profile({ framework: 'next.js' }))).toBeCloseTo(W.framework, 10);
    expect(scoreSimilarity(base, profile({ scope: 'cms' }))).toBeCloseTo(W.scope, 10);
    expect(scoreSimilarity(base, profile({ language: 'typescript', framework: 'next.js' }))).toBeCloseTo(W.language + W.framework, 10);
  });

  it('scales the dependency weight by shared / the larger dependency list', () => {
    const a = profile({ dependencies: ['react', 'next', 'zod', 'prisma'] });
    const b = profile({ dependencies: ['React', 'next'] });
    expect(scoreSimilarity(a, b)).toBeCloseTo(W.dependencies * (2 / 4), 10);
    expect(scoreSimilarity(a, profile({ dependencies: [] }))).toBe(0);
  });

  it('scores identical known profiles exactly 1', () => {
    const p = profile({ language: 'rust', framework: 'axum', scope: 'API', dependencies: ['axum', 'tokio'] });
    expect(scoreSimilarity(p, { ...p, path: '/other' })).toBe(1);
  });

  it('never counts "unknown" (or empty) fields as a match', () => {
    expect(scoreSimilarity(profile({}), profile({}))).toBe(0);
    expect(scoreSimilarity(profile({ scope: '' }), profile({ scope: '' }))).toBe(0);
  });

  it('is symmetric and stays within 0..1', () => {
    const names = fc.constantFrom('a', 'b', UNKNOWN);
    const deps = fc.uniqueArray(fc.constantFrom('x', 'y', 'z', 'w'), { maxLength: 4 });
    const arbitrary = fc.record({ language: names, framework: names, scope: names, dependencies: deps }).map((p) => profile(p));
    fc.assert(
      fc.property(arbitrary, arbitrary, (a, b) => {
        const score = scoreSimilarity(a, b);
        expect(score).toBe(scoreSimilarity(b, a));
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('puts a framework-only match at the threshold, a scope-only match below it, scope plus all dependencies on it', () => {
    const deps = ['a', 'b'];
    const base = profile({ language: 'ruby', framework: 'rails', scope: 'API', dependencies: deps });
    expect(scoreSimilarity(base, profile({ framework: 'rails' }))).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
    expect(scoreSimilarity(base, profile({ scope: 'API' }))).toBeLessThan(SIMILARITY_THRESHOLD);
    // 0.2 + 0.1 is 0.30000000000000004 in floating point; the score is rounded so it is exactly 0.3.
    expect(scoreSimilarity(base, profile({ scope: 'API', dependencies: deps }))).toBe(SIMILARITY_THRESHOLD);
  });
});

describe('findSimilarProjects', () => {
  let dir: string;
  let store: Store;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-similar-'));
    store = Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer });
  });

  afterAll(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('returns stored projects at or above the threshold, most similar first, without the project itself', () => {
    const current = profile({ path: '/p/current', language: 'typescript', framework: 'next.js', scope: 'CMS', dependencies: ['next', 'react'] });
    const stored = [
      current,
      profile({ path: '/p/twin', language: 'typescript', framework: 'next.js', scope: 'CMS', dependencies: ['next', 'react'] }),
      profile({ path: '/p/same-language', language: 'typescript', framework: 'express' }),
      profile({ path: '/p/same-framework', language: 'javascript', framework: 'next.js' }),
      profile({ path: '/p/same-scope', language: 'php', framework: 'laravel', scope: 'CMS', dependencies: ['react'] }),
      profile({ path: '/p/unrelated', language: 'go', framework: 'gin' }),
    ];
    for (const p of stored) putProject(store, p);

    const similar = findSimilarProjects(store, current);
    const expected = stored
      .filter((p) => p.path !== current.path)
      .map((p) => ({ path: p.path, score: scoreSimilarity(current, p) }))
      .filter((p) => p.score >= SIMILARITY_THRESHOLD)
      .sort((a, b) => b.score - a.score);
    expect(similar.map((s) => ({ path: s.profile.path, score: s.score }))).toEqual(expected);
    expect(similar.map((s) => s.profile.path)).toEqual(['/p/twin', '/p/same-language', '/p/same-framework']);
    expect(findSimilarProjects(store, current, { limit: 1 }).map((s) => s.profile.path)).toEqual(['/p/twin']);
  });
});

/**
 * A temporary store seeded with prior-art entries through the real flush path (`applyBatch`), so
 * the term index is built exactly as the plugin builds it. Removed by `dispose`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIB } from '../../src/core/config.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import type { Mutation } from '../../src/core/store/mutations.js';
import { Store } from '../../src/core/store/store.js';
import type { Grade, ProjectProfile } from '../../src/core/types.js';
import { termIndexer } from '../../src/core/search/indexer.js';

export type Seed =
  /** `userGrade` is the grade an agent relayed as the user's (old records); without it the retrospective is self-graded only. */
  | { kind: 'retrospective'; id: string; task: string; userGrade?: Grade; agentGrade?: Grade; agentNote?: string; userNote?: string; agent?: string; project?: string; at?: string }
  | { kind: 'activity'; id: string; task: string; outcome?: string; decisions?: string; automatic?: boolean; agent?: string; project?: string; at?: string }
  | { kind: 'commit'; id: string; message: string; files?: string[]; agent?: string; project?: string; at?: string }
  /** The user's own grade (`/grade`) of the commit or retrospective seeded with the same id. */
  | { kind: 'userGrade'; id: string; grade: Grade; note?: string; agent?: string; project?: string; at?: string };

export const DEFAULT_PROJECT = '/projects/alpha';
export const DEFAULT_AGENT = 'build';
const BASE_TIME = Date.UTC(2025, 0, 1);

/** A 40-character hex hash unique to a seed id. */
export function hashOf(id: string): string {
  let hex = '';
  for (const char of id) hex += char.charCodeAt(0).toString(16);
  return hex.padEnd(40, '0').slice(0, 40);
}

/** A distinct, increasing time per call when the seed does not give one. */
let clock = 0;
function timeOf(seed: Seed): string {
  clock += 1;
  return seed.at ?? new Date(BASE_TIME + clock * 60_000).toISOString();
}

/** The mutation that writes one seed, as TrackingService would buffer it. */
export function mutationOf(seed: Seed): Mutation {
  const agent = seed.agent ?? DEFAULT_AGENT;
  const project = seed.project ?? DEFAULT_PROJECT;
  const timestamp = timeOf(seed);
  switch (seed.kind) {
    case 'retrospective':
      return {
        table: 'agents',
        key: agent,
        ops: [{
          kind: 'grade',
          delta: 0,
          retrospective: {
            commit: hashOf(seed.id), timestamp, task: seed.task, agent_grade: seed.agentGrade ?? seed.userGrade ?? 1,
            ...(seed.userGrade === undefined ? { provenance: 'self' as const } : { user_grade: seed.userGrade }),
            agent_note: seed.agentNote ?? '', user_note: seed.userNote ?? '', agent, model: 'fake/m', project,
          },
        }],
      };
    case 'activity':
      return {
        table: 'activities',
        key: [agent, timestamp, seed.id],
        value: {
          timestamp, task: seed.task, actions: '', outcome: seed.outcome ?? '', decisions: seed.decisions ?? '',
          agent, model: 'fake/m', project, automatic: seed.automatic ?? false,
        },
      };
    case 'userGrade':
      return {
        table: 'agents',
        key: agent,
        ops: [{
          kind: 'grade',
          delta: 0,
          userGrade: {
            commit: hashOf(seed.id), project, agent, model: 'fake/m', sessionId: 's', grade: seed.grade, note: seed.note ?? '',
            timestamp, provenance: 'user', via: 'cli',
          },
        }],
      };
    case 'commit':
      return {
        table: 'commits',
        key: [project, hashOf(seed.id)],
        value: {
          hash: hashOf(seed.id), project, agent, model: 'fake/m', sessionId: 's', message: seed.message,
          files: seed.files ?? [], insertions: 1, deletions: 0, timestamp,
        },
      };
  }
}

/** A project profile with the given scope. */
export function profile(projectPath: string, scope: string): ProjectProfile {
  return {
    path: projectPath, language: 'typescript', framework: 'unknown', scope, dependencies: [],
    manifestType: 'package.json', classifiedAt: new Date(BASE_TIME).toISOString(), agentsmdHash: '',
  };
}

export interface PriorArtStore {
  dir: string;
  store: Store;
  /** Writes the seeds in one flush. */
  write(seeds: readonly Seed[]): void;
  /** Stores project profiles (as the classifier would). */
  classify(profiles: readonly ProjectProfile[]): void;
  dispose(): void;
}

export function priorArtStore(): PriorArtStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-prior-art-'));
  const store = Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: 256 * MIB, indexer: termIndexer });
  const now = new Date(BASE_TIME).toISOString();
  return {
    dir,
    store,
    write: (seeds) => void store.applyBatch(seeds.map(mutationOf), DEFAULT_RULES, now),
    classify: (profiles) =>
      void store.applyBatch(profiles.map((value) => ({ table: 'projects', key: value.path, value })), DEFAULT_RULES, now),
    dispose: () => {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

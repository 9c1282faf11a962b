/**
 * Writes a database in the legacy layout the old per-project plugin used: ONE root database
 * (lmdb-js's default single file plus `-lock`), string keys `agent:<id>`, `commit:<project>:<hash>`,
 * `communication:<agent>:<commit>:<time>`, snake_case msgpack values, compression on. Test-only:
 * tests may import lmdb directly; src never does outside the store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';

/** A description long enough that lmdb-js stores it compressed (its threshold is about 1 KB). */
export const LONG_TASK = `Rewrite the ingestion pipeline: ${'parse, validate, normalise and store every record; '.repeat(60)}`;

export interface LegacyAgent {
  id: string;
  name: string;
  model: string;
  scope: string;
  skill_points: number;
  experience_points: number;
  communication_score: number;
  total_commits: number;
  total_bugs: number;
  active: boolean;
  created_at: string;
  updated_at: string;
}

export interface LegacyCommit {
  agent_id: string;
  commit_hash: string;
  project_path: string;
  task_description: string;
  experience_gained: number;
  communication_score_change: number;
  timestamp: string;
}

export interface LegacyCommunication {
  agent_id: string;
  commit_hash: string;
  project_path: string;
  grade: number;
  timestamp: string;
  reason?: string;
}

export interface LegacyFixture {
  agents: LegacyAgent[];
  commits: LegacyCommit[];
  communication: LegacyCommunication[];
  /** Entries under keys the old plugin never wrote, to check they are counted and left out. */
  extra?: Record<string, unknown>;
}

/** The fixture used by unit and end-to-end tests: two agents, one halted; one compressed commit. */
export function sampleLegacyFixture(projectPath: string): LegacyFixture {
  return {
    agents: [
      {
        id: 'legacy-coder',
        name: 'Legacy Coder',
        model: 'anthropic/claude-old',
        scope: 'backend',
        skill_points: 3,
        experience_points: 17,
        communication_score: 72,
        total_commits: 2,
        total_bugs: 1,
        active: true,
        created_at: '2025-01-02T03:04:05.000Z',
        updated_at: '2025-02-03T04:05:06.000Z',
      },
      {
        id: 'legacy-halted',
        name: 'Legacy Halted',
        model: 'openai/gpt-old',
        scope: 'frontend',
        skill_points: 0,
        experience_points: 4,
        communication_score: 35,
        total_commits: 1,
        total_bugs: 3,
        active: false,
        created_at: '2025-01-05T00:00:00.000Z',
        updated_at: '2025-01-06T00:00:00.000Z',
      },
    ],
    commits: [
      {
        agent_id: 'legacy-coder',
        commit_hash: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
        project_path: projectPath,
        task_description: LONG_TASK,
        experience_gained: 5,
        communication_score_change: 3,
        timestamp: '2025-01-10T10:00:00.000Z',
      },
      {
        agent_id: 'legacy-halted',
        commit_hash: 'ffeeddccbbaa00998877665544332211ffeeddcc',
        project_path: projectPath,
        task_description: 'Fix the login form',
        experience_gained: 5,
        communication_score_change: -2,
        timestamp: '2025-01-06T00:00:00.000Z',
      },
    ],
    communication: [
      {
        agent_id: 'legacy-coder',
        commit_hash: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
        project_path: projectPath,
        grade: 2,
        timestamp: '2025-01-10T10:05:00.000Z',
        reason: 'clear plan, asked before deleting data',
      },
      {
        agent_id: 'legacy-halted',
        commit_hash: 'ffeeddccbbaa00998877665544332211ffeeddcc',
        project_path: projectPath,
        grade: -1,
        timestamp: '2025-01-06T00:05:00.000Z',
      },
    ],
  };
}

/** Writes `fixture` at `file` in the legacy layout; returns the file path. */
export async function writeLegacyDatabase(file: string, fixture: LegacyFixture): Promise<string> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = open({ path: file, compression: true });
  try {
    await db.transaction(() => {
      for (const agent of fixture.agents) void db.put(`agent:${agent.id}`, agent);
      for (const commit of fixture.commits) void db.put(`commit:${commit.project_path}:${commit.commit_hash}`, commit);
      for (const event of fixture.communication) {
        void db.put(`communication:${event.agent_id}:${event.commit_hash}:${event.timestamp}`, event);
      }
      for (const [key, value] of Object.entries(fixture.extra ?? {})) void db.put(key, value);
    });
  } finally {
    await db.close();
  }
  return file;
}

/** The legacy location inside a folder the old plugin ran in (a literal `~` folder). */
export function legacyFileIn(directory: string): string {
  return path.join(directory, '~', '.config', 'opencode', 'agent-tracker.lmdb');
}

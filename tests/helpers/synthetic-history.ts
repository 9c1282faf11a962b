/**
 * Synthetic history for report and recommendation tests, recorded through the real TrackingService
 * (tool calls, commits, assistant messages, bug reports, grades, turn ends that flush) into a temp
 * LMDB. Each block describes one setup's work on one project; tests compute expected figures from
 * the blocks themselves, never from the store.
 */
import type { Store } from '../../src/core/store/store.js';
import type { TrackerConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { Grade, ProjectProfile } from '../../src/core/types.js';

export interface WorkBlock {
  agent: string;
  model: string;
  project: string;
  sessions: number;
  commitsPerSession: number;
  toolCallsPerSession: number;
  /** Failed tool calls per session (part of toolCallsPerSession). */
  failuresPerSession: number;
  /** Bug reports in the whole block, spread over its first sessions. */
  bugs: number;
  pushesPerSession: number;
  costPerSession: number;
  tokensPerSession: { input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number };
  /** Grades (agent, user) given to the block's commits in order, cycled; empty = none graded. */
  grades: readonly [Grade, Grade][];
  /** Graded commits in the block; defaults to all of them. */
  gradedCommits?: number;
}

export const TOKENS = { input: 1000, output: 200, reasoning: 50, cacheRead: 300, cacheWrite: 20 };

/** A block with defaults a test overrides. */
export function block(overrides: Partial<WorkBlock> & Pick<WorkBlock, 'agent' | 'model' | 'project'>): WorkBlock {
  return {
    sessions: 4,
    commitsPerSession: 2,
    toolCallsPerSession: 10,
    failuresPerSession: 1,
    bugs: 0,
    pushesPerSession: 0,
    costPerSession: 0.25,
    tokensPerSession: TOKENS,
    grades: [[2, 2]],
    ...overrides,
  };
}

export function totalCommits(b: WorkBlock): number {
  return b.sessions * b.commitsPerSession;
}

export function gradedCount(b: WorkBlock): number {
  return b.grades.length === 0 ? 0 : Math.min(b.gradedCommits ?? totalCommits(b), totalCommits(b));
}

/** The grade pairs the block's graded commits received, in order. */
export function gradePairs(b: WorkBlock): [Grade, Grade][] {
  return Array.from({ length: gradedCount(b) }, (_, i) => b.grades[i % b.grades.length] as [Grade, Grade]);
}

export interface RecordOptions {
  store: Store;
  config: TrackerConfig;
  /** The first session's start; every session starts one hour after the previous. */
  start?: Date;
  /** Hours between sessions. */
  stepHours?: number;
}

const HOUR_MS = 3_600_000;

/** Records every block through one TrackingService (flushing at each turn end). */
export function recordHistory(blocks: readonly WorkBlock[], options: RecordOptions): void {
  let clock = (options.start ?? new Date('2025-03-01T09:00:00Z')).getTime();
  const step = (options.stepHours ?? 1) * HOUR_MS;
  const service = new TrackingService({
    store: options.store,
    config: options.config,
    logger: silentLogger,
    project: '/nowhere',
    now: () => new Date(clock),
  });
  let sessionNumber = 0;
  let hashNumber = 0;
  blocks.forEach((work, blockIndex) => {
    const pairs = gradePairs(work);
    let commitIndex = 0;
    for (let s = 0; s < work.sessions; s += 1) {
      sessionNumber += 1;
      const sessionId = `ses_${blockIndex}_${s}_${sessionNumber}`;
      service.noteSession(sessionId, { project: work.project });
      service.noteModelRequest(sessionId, work.agent, work.model);
      service.noteTurnTask(sessionId, `task ${sessionNumber} for ${work.agent}`);
      for (let c = 0; c < work.toolCallsPerSession; c += 1) {
        service.recordToolCall(sessionId, `call_${c}`, 'bash', c >= work.failuresPerSession);
      }
      const commits = Array.from({ length: work.commitsPerSession }, () => {
        hashNumber += 1;
        return {
          hash: hashNumber.toString(16).padStart(40, '0'),
          message: `change ${hashNumber}`,
          files: ['src/main.rs'],
          insertions: 3,
          deletions: 1,
          timestamp: new Date(clock).toISOString(),
        };
      });
      service.recordCommits(sessionId, commits);
      service.recordAssistantMessage(sessionId, `msg_${sessionId}`, work, work.tokensPerSession, work.costPerSession);
      if (s < work.bugs) service.reportBug({ agent: work.agent, sessionId, project: work.project, description: 'broke the build' });
      for (let p = 0; p < work.pushesPerSession; p += 1) service.recordPush(sessionId);
      for (const commit of commits) {
        const pair = pairs[commitIndex];
        commitIndex += 1;
        if (!pair) continue;
        service.gradeCommit({ sessionId, agent: work.agent, project: work.project, commit: commit.hash, agentGrade: pair[0] });
        service.gradeAsUser({ project: work.project, commit: commit.hash, grade: pair[1], via: 'cli' });
      }
      const outcome = service.endTurn(sessionId);
      if (!outcome.ok) throw outcome.error;
      clock += step;
    }
  });
}

/** A stored project profile, as init-project would write it. */
export function profile(path: string, language: string, framework: string, scope: string, dependencies: string[] = []): ProjectProfile {
  return {
    path,
    language,
    framework,
    scope,
    dependencies,
    manifestType: 'test',
    classifiedAt: '2025-01-01T00:00:00.000Z',
    agentsmdHash: '',
  };
}

/** Stores profiles through the same one-transaction batch as the tracker's flush. */
export function storeProfiles(store: Store, config: TrackerConfig, profiles: readonly ProjectProfile[]): void {
  store.applyBatch(
    profiles.map((value) => ({ table: 'projects' as const, key: value.path, value })),
    config.rules,
    new Date().toISOString(),
  );
}

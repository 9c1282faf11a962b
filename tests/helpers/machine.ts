/**
 * One machine's tracker for import tests: a temporary LMDB store written through the real tracking
 * service with a clock the test moves, its export as NDJSON text, and imports into it in-process
 * (the code behind `agent-tracker export` and `import`, without the CLI). Removed after each test.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { exportRecords, exportTextSource, importExportFrom } from '../../src/core/store/transfer.js';
import type { ImportResult } from '../../src/core/store/transfer.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { AgentRecord, CommitRecord, Grade, UserActionProvenance } from '../../src/core/types.js';

export const PROJECT = '/p/shop';
const MODEL = 'anthropic/claude';
const HOUR = 3_600_000;

/** One turn of one agent's session, in the order the tracker meets it: tool calls, commits, bugs, grades. */
export interface TurnWork {
  agent: string;
  toolCalls: number;
  /** Commits that change files (each earns, within the per-turn limit). */
  commits: number;
  /** Merge commits: recorded, but they earn nothing (`noCredit: 'merge'`). */
  merges?: number;
  bugs?: number;
  /** The agent's self-grade and the user's grade of each commit that changes files. */
  grades?: [Grade, Grade];
}

export interface Machine {
  name: string;
  store: Store;
  service: TrackingService;
  /** Records one session of `turn` (a new session id each call), an hour after the last. */
  work(turn: TurnWork): CommitRecord[];
  /** The agent's sheet as stored. */
  sheet(agent: string): AgentRecord;
  /** The whole database as an export file. */
  exportText(): string;
  /** Imports an export file the way `agent-tracker import` does. */
  importText(text: string, provenance?: UserActionProvenance): ImportResult;
  /** Moves the clock on by an hour and returns the time. */
  tick(): Date;
}

const open: { store: Store; dir: string }[] = [];
afterEach(() => {
  for (const { store, dir } of open.splice(0)) {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A machine whose clock starts at `start`; each machine has its own temp folder as HOME. */
export function machine(name: string, start: string): Machine {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agent-tracker-${name}-`));
  const config = resolveConfig({ options: { databasePath: path.join(dir, 'db.lmdb') }, env: {}, home: dir });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  open.push({ store, dir });
  let clock = Date.parse(start);
  const service = new TrackingService({ store, config, logger: silentLogger, project: PROJECT, now: () => new Date(clock) });
  let sessions = 0;
  let hashes = 0;
  const hash = () => createHash('sha1').update(`${name}:${(hashes += 1)}`).digest('hex');
  return {
    name,
    store,
    service,
    work(turn) {
      const sessionId = `ses_${name}_${(sessions += 1)}`;
      service.noteSession(sessionId, { project: PROJECT });
      service.noteModelRequest(sessionId, turn.agent, MODEL);
      for (let call = 0; call < turn.toolCalls; call += 1) service.recordToolCall(sessionId, `prt_${sessionId}_${call}`, 'bash', true);
      const at = new Date(clock).toISOString();
      const made = (n: number, merge: boolean) => ({
        hash: hash(),
        message: `${merge ? 'merge' : 'change'} ${n} of ${sessionId}`,
        files: [`src/${sessionId}-${n}.ts`],
        insertions: 3,
        deletions: 1,
        timestamp: at,
        ...(merge ? { parents: [hash(), hash()] } : {}),
      });
      const commits = [...Array.from({ length: turn.commits }, (_v, n) => made(n, false)), ...Array.from({ length: turn.merges ?? 0 }, (_v, n) => made(n, true))];
      const recorded = service.recordCommits(sessionId, commits);
      for (let bug = 0; bug < (turn.bugs ?? 0); bug += 1) service.reportBug({ agent: turn.agent, sessionId, project: PROJECT, description: 'broke the build' });
      if (turn.grades) {
        const [self, user] = turn.grades;
        for (const commit of recorded.filter((record) => record.noCredit === undefined)) {
          service.gradeCommit({ sessionId, agent: turn.agent, project: PROJECT, commit: commit.hash, agentGrade: self });
          service.gradeAsUser({ project: PROJECT, commit: commit.hash, grade: user, via: 'cli' });
        }
      }
      const outcome = service.endTurn(sessionId);
      if (!outcome.ok) throw outcome.error;
      clock += HOUR;
      return recorded;
    },
    sheet(agent) {
      const sheet = store.tables.agents.get(agent);
      if (!sheet) throw new Error(`${name} holds no sheet of ${agent}`);
      return sheet;
    },
    exportText() {
      let text = '';
      exportRecords(store, (chunk) => (text += chunk), () => new Date(clock));
      return text;
    },
    importText(text, provenance) {
      return importExportFrom(store, exportTextSource(text), `${name}-import.ndjson`, () => new Date(clock), provenance);
    },
    tick() {
      clock += HOUR;
      return new Date(clock);
    },
  };
}

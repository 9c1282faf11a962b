/**
 * Grades of commits: an agent's self-grade with its retrospective, and the user's grade (`/grade`,
 * `agent-tracker grade`), each moving the maker's CS and counted on the usage record of the setup
 * that made the commit, with a grade event kept for each.
 *
 * A commit that earned nothing (its record has `noCredit`) is graded and recorded like any other,
 * but its grades earn nothing: a self-grade moves no CS, earns no XP and is not counted in the
 * self-grade sums (a claim, and one an agent could farm: amend, then grade 5); the user's grade is
 * evidence, so it is counted in the user-grade sums and a bad one still costs CS, but a good one
 * earns no CS and grading it earns no XP (src/core/rules.ts, uncreditedGradeDelta).
 */
import { latestUngradedCommit, SHORT_HASH_LENGTH } from '../outcomes/grades.js';
import { uncreditedGradeDelta } from '../rules.js';
import type { AgentStatus, CommitRecord, CounterDeltas, Grade, NoCreditReason, RetrospectiveEntry, UserGradeRecord } from '../types.js';
import { UNKNOWN } from '../types.js';
import * as valid from '../validation.js';
import { InputError } from '../validation.js';
import type { Agents } from './agents.js';
import type { Commits } from './commits.js';
import type { TrackingContext } from './context.js';

export interface GradeInput {
  sessionId?: string;
  /** The agent asking; used when the commit was not made by a tracked agent. */
  agent: string;
  project: string;
  commit: unknown;
  agentGrade: unknown;
  task?: unknown;
  agentNote?: unknown;
}

/** The user's grade: from the `/grade` slash command or `agent-tracker grade`. */
export interface UserGradeInput {
  project: string;
  /** A full or unambiguous short hash; absent: the most recent commit the user has not graded. */
  commit?: unknown;
  grade: unknown;
  note?: unknown;
  via: UserGradeRecord['via'];
  /** Correct an earlier grade of the same commit: the later one counts, the journal keeps both. */
  replace?: boolean;
}

/** A self-grade as recorded, and why the commit earned nothing when it did not (its grade then earned nothing). */
export type SelfGradeResult = RetrospectiveEntry & { noCredit?: NoCreditReason };

/** The user's grade as recorded, the maker's status after it, and why the commit earned nothing when it did not. */
export interface UserGradeResult {
  grade: UserGradeRecord;
  status: AgentStatus;
  noCredit?: NoCreditReason;
}

/** The CS move a user's grade asks for: the grade itself, or what an uncredited commit's grade may move. */
function userGradeDelta(grade: Grade, made: CommitRecord): number {
  return made.noCredit === undefined ? grade : uncreditedGradeDelta(grade, 'user');
}

export class Grading {
  constructor(
    private readonly ctx: TrackingContext,
    private readonly agents: Agents,
    private readonly commits: Commits,
  ) {}

  /**
   * The agent's self-grade of a commit, with its retrospective: moves CS (bounded) and earns the
   * graded-commit XP. Counted as a self-grade on the usage record of the setup that made the commit.
   * No agent tool can give the user's grade: the user grades with `/grade` or `agent-tracker grade`.
   */
  gradeCommit(input: GradeInput): SelfGradeResult {
    const { ctx } = this;
    const commit = valid.commitHash(input.commit);
    const agentGrade = valid.grade(input.agentGrade, 'agent grade');
    const task = valid.text(input.task, 'task');
    const agentNote = valid.text(input.agentNote, 'agent note');
    const caller = valid.agentName(input.agent);
    const made = this.commits.find(input.project, commit);
    if (!made) {
      throw new InputError(
        `commit ${commit.slice(0, 12)} was not made by a tracked session in this project; only commits the tracker recorded can be graded (nothing was written)`,
      );
    }
    const agent = made.agent !== UNKNOWN ? made.agent : caller;
    // A self-grade is an agent's word on its own work: another agent (a subagent, say) grading it
    // would be stored as the maker's self-grade and take the maker's own grade away.
    if (agent !== caller) {
      throw new InputError(`commit ${made.hash.slice(0, 12)} was made by ${agent}, not ${caller}: an agent grades only its own commits (use report-bug with the commit for a problem in it; nothing was written)`);
    }
    const fullHash = made.hash;
    if (this.isSelfGraded(agent, fullHash)) throw new InputError(`commit ${fullHash.slice(0, 12)} was already graded for ${agent}`);

    const timestamp = ctx.now().toISOString();
    const before = this.agents.status(agent);
    const draft = {
      commit: fullHash,
      timestamp,
      task: ctx.maskText(task || made.message.split('\n')[0] || ''),
      agent_grade: agentGrade,
      agent_note: ctx.maskText(agentNote),
      user_note: '',
      agent,
      model: made.model,
      project: input.project,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      provenance: 'self' as const,
    };
    const credited = made.noCredit === undefined;
    ctx.buffer.addAgentOp(agent, credited ? { kind: 'grade', delta: agentGrade, retrospective: draft } : { kind: 'grade', delta: uncreditedGradeDelta(agentGrade, 'agent'), earnsXp: false, retrospective: draft });
    const after = this.agents.status(agent);
    ctx.buffer.put({
      table: 'gradeEvents',
      key: ctx.journal.key(agent, timestamp),
      value: { agent, commit: fullHash, project: input.project, source: 'agent', provenance: 'self', grade: agentGrade, timestamp },
    });
    if (credited) {
      // The pair with the user's grade, if any, is counted by the write (grade-pairs.ts); 0 says the record's pairs are counted.
      const counters: CounterDeltas = { selfGradedCommits: 1, selfGradeSum: agentGrade, pairedGradedCommits: 0, csDelta: after.cs - before.cs };
      ctx.ledger.judge(made.sessionId, { agent: made.agent, model: made.model, project: made.project }, counters);
    }
    ctx.flusher.afterRecord();
    return { ...draft, score_before: before.cs, score_after: after.cs, ...(credited ? {} : { noCredit: made.noCredit }) };
  }

  /**
   * The user's grade of a commit a tracked session made (`/grade`, `agent-tracker grade`): moves the
   * maker's CS, is counted as a user grade on the maker's usage record, and is flushed at once.
   * Without a commit, the most recent commit of the project the user has not graded yet.
   * @throws InputError (bad grade, unknown/ambiguous commit, already graded, nothing to grade); the flush error.
   */
  gradeAsUser(input: UserGradeInput): UserGradeResult {
    const { ctx } = this;
    const grade = valid.grade(input.grade, 'grade');
    const note = valid.text(input.note, 'note');
    const made = input.commit === undefined || input.commit === '' ? this.latestUserUngraded(input.project) : this.commits.tracked(input.project, valid.commitHash(input.commit));
    const previous = this.userGradeOf(made.project, made.hash);
    if (previous && !input.replace) {
      throw new InputError(
        `you already graded commit ${made.hash.slice(0, SHORT_HASH_LENGTH)} (${made.agent}, ${made.model}) ${previous.grade}; to correct it, grade it again with --replace`,
      );
    }
    const record: UserGradeRecord = {
      commit: made.hash,
      project: made.project,
      agent: made.agent,
      model: made.model,
      sessionId: made.sessionId,
      grade,
      note: ctx.maskText(note),
      timestamp: ctx.now().toISOString(),
      provenance: 'user',
      via: input.via,
    };
    const before = this.agents.status(made.agent);
    // A correction moves CS and the sums by the difference; the count of graded commits stays.
    const delta = userGradeDelta(grade, made) - (previous ? userGradeDelta(previous.grade, made) : 0);
    // Grading earns XP once per commit: a correction earns none again.
    const earns = made.noCredit === undefined && !previous ? {} : { earnsXp: false as const };
    ctx.buffer.addAgentOp(made.agent, previous ? { kind: 'grade', delta, ...earns, userGrade: record, replaces: previous.grade } : { kind: 'grade', delta, ...earns, userGrade: record });
    const after = this.agents.status(made.agent);
    ctx.buffer.put({
      table: 'gradeEvents',
      key: ctx.journal.key(made.agent, record.timestamp),
      value: { agent: made.agent, commit: made.hash, project: made.project, source: 'user', provenance: 'user', grade, timestamp: record.timestamp },
    });
    ctx.ledger.judge(made.sessionId, { agent: made.agent, model: made.model, project: made.project }, {
      userGradedCommits: previous ? 0 : 1,
      userGradeSum: grade - (previous?.grade ?? 0),
      pairedGradedCommits: 0,
      csDelta: after.cs - before.cs,
    });
    const outcome = ctx.flusher.flush('user grade');
    if (!outcome.ok) throw outcome.error;
    return { grade: record, status: this.agents.status(made.agent), ...(made.noCredit === undefined ? {} : { noCredit: made.noCredit }) };
  }

  /** @throws InputError when every tracked commit of the project is graded (or there is none). */
  private latestUserUngraded(project: string): CommitRecord {
    const latest = latestUngradedCommit(this.commits.all(project), (commit) => this.userGradeOf(commit.project, commit.hash) !== undefined);
    if (!latest) throw new InputError(`no commit made by a tracked session in ${project} is left for you to grade; name one: /grade N COMMIT`);
    return latest;
  }

  /** The user's grade of a commit as it stands: the latest in the buffer, else the stored one. */
  private userGradeOf(project: string, commit: string): UserGradeRecord | undefined {
    let pending: UserGradeRecord | undefined;
    for (const m of this.ctx.buffer.mutations()) {
      if (m.table !== 'agents') continue;
      for (const op of m.ops) if (op.kind === 'grade' && 'userGrade' in op && op.userGrade.project === project && op.userGrade.commit === commit) pending = op.userGrade;
    }
    return pending ?? this.ctx.store.tables.userGrades.get([project, commit]);
  }

  private isSelfGraded(agent: string, commit: string): boolean {
    if (this.ctx.store.tables.retrospectives.doesExist([agent, commit])) return true;
    return this.ctx.buffer.agentOps(agent).some((op) => op.kind === 'grade' && 'retrospective' in op && op.retrospective.commit === commit);
  }
}

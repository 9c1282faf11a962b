/**
 * The grade that judges a prior-art candidate (see service.ts's module comment for the rules), read
 * with keyed reads (and one read of a project's user grades per query, where the user graded any),
 * and only for candidates that could make a board:
 * - a retrospective or a commit: the user's grade of the commit, else (retrospectives) the grade an
 *   agent relayed, else the self-grade; a positive self-grade of a commit that earned no credit (a
 *   self-revert, an empty commit) judges nothing;
 * - an activity: a bug report it records, as the index holds it (a verified one is a mistake, an
 *   unverified one is left out), else the user's grades of the commits its session made, else nothing;
 * - without any grade, a commit that git shows reverted later (the project's git-signal cache), and an
 *   activity of a session that made one, are mistakes: work that was not kept is no pattern to follow.
 */
import { gitSignalCacheKey } from '../../contract/git-signal-cache.js';
import type { GitSignalCache } from '../../contract/git-signal-cache.js';
import type { Store } from '../store/store.js';
import type { Grade, RetrospectiveEntry, UserGradeRecord } from '../types.js';
import type { EntryKind } from './documents.js';
import type { TermIndexReader } from './index/reader.js';
import { UNJUDGED } from './ranking.js';
import type { Judgement } from './ranking.js';

/** A candidate that is neither a positive pattern nor a mistake: it is not shown. */
export const LEFT_OUT = null;

const POSITIVE_GRADES: ReadonlySet<Grade> = new Set<Grade>([2, 5]);

/** The judgement of a verified bug report: a mistake, by the report and not by anyone's grade. */
const REPORTED_BUG: Judgement = { grade: -1, judgedBy: 'reported-bug' };

/** The judgement of ungraded work git shows reverted: a mistake, by the revert and not by anyone's grade. */
const REVERTED: Judgement = { grade: -1, judgedBy: 'reverted' };

/** A project's reverted commits (full hashes) and the sessions that made them. */
interface Reverted {
  commits: Set<string>;
  sessions: Set<string>;
}

/** A path or session id holds no NUL: `[x + NUL, '']` sorts after every key that starts with x. */
const AFTER = '\u0000';

/** Judges candidates for one query; keeps what it read for the query's other candidates. */
export class Judge {
  /** Per project: its user grades by session, read once for the query. */
  private readonly projectSessions = new Map<string, Map<string, Grade[]>>();
  /** Per project: what git shows reverted, read once for the query. */
  private readonly projectReverts = new Map<string, Reverted>();

  constructor(
    private readonly store: Store,
    private readonly index: TermIndexReader,
    /** The projects (index ids) with a commit the user graded: elsewhere no judgement reads an entry to look one up. */
    private readonly userGradedProjects: ReadonlySet<number>,
  ) {}

  /**
   * The grade that judges a document, or LEFT_OUT. Reads at most a few records, and only for
   * documents that could make the boards.
   */
  judge(document: number, kind: EntryKind, indexedGrade: Grade | undefined, projectId: number): Judgement | typeof LEFT_OUT {
    const userGraded = this.userGradedProjects.has(projectId);
    // In a project without user grades a commit is ungraded, and a retrospective the index holds a grade for has it: no entry to read.
    if (!userGraded && kind === 'commit') return this.unkept(document, projectId);
    if (!userGraded && kind === 'retrospective' && indexedGrade !== undefined) return { grade: indexedGrade, gradedBy: 'agent-reported' };
    if (kind === 'activity') {
      // The index holds a bug report's grade (index/writer.ts): a verified one is a mistake; an unverified
      // one is an accusation the tracker could not tie to the agent's work (and any agent can write one).
      if (indexedGrade === -1) return REPORTED_BUG;
      if (indexedGrade !== undefined) return LEFT_OUT;
      if (!userGraded) return this.unkept(document, projectId);
    }
    const ref = this.index.documentRef(document);
    if (ref === undefined) return UNJUDGED;
    const t = this.store.tables;
    if (ref[0] === 'activity') {
      const entry = t.activities.get([ref[1], ref[2], ref[3]]);
      if (!entry?.sessionId) return UNJUDGED;
      const judged = this.session(entry.project, entry.sessionId);
      return judged.grade === undefined && this.reverted(entry.project).sessions.has(entry.sessionId) ? REVERTED : judged;
    }
    const project = ref[0] === 'commit' ? ref[1] : this.index.nameOf('project', projectId);
    const userGrade = userGraded && project !== undefined ? t.userGrades.get([project, ref[2]]) : undefined;
    if (userGrade) return { grade: userGrade.grade, gradedBy: 'user', userNote: userGrade.note };
    if (ref[0] === 'commit') return this.reverted(ref[1]).commits.has(ref[2]) ? REVERTED : UNJUDGED;
    // Relayed grades are on records from before provenance, which also predate credit marks: no commit to read.
    if (indexedGrade !== undefined) return { grade: indexedGrade, gradedBy: 'agent-reported' };
    const retrospective: RetrospectiveEntry | undefined = t.retrospectives.get([ref[1], ref[2]]);
    if (!retrospective) return UNJUDGED;
    // The agent's praise of work git shows reverted is outweighed by the revert.
    if (this.reverted(retrospective.project).commits.has(retrospective.commit)) return REVERTED;
    const grade = retrospective.agent_grade;
    // A commit that earned nothing earns nothing from the agent's praise either (grading.ts): it is no pattern to follow.
    if (POSITIVE_GRADES.has(grade) && t.commits.get([retrospective.project, retrospective.commit])?.noCredit !== undefined) return LEFT_OUT;
    return { grade, gradedBy: 'self' };
  }

  /**
   * An activity by the lowest grade the user gave a commit of its session: one commit graded bad
   * makes the session's journal a mistake, not a pattern to follow. The project's user grades are
   * read once for the query, and only in a project the user graded something in.
   */
  private session(project: string, sessionId: string): Judgement {
    const grades = this.bySession(project).get(sessionId);
    if (grades === undefined) return UNJUDGED;
    return { grade: Math.min(...grades) as Grade, gradedBy: 'user', judgedBy: 'session-commits' };
  }

  /**
   * An ungraded commit or activity: a mistake when git shows its commit (its session's) reverted, else
   * unjudged. In a project where git shows nothing reverted, no entry is read.
   */
  private unkept(document: number, projectId: number): Judgement {
    const project = this.index.nameOf('project', projectId);
    if (project === undefined || this.reverted(project).commits.size === 0) return UNJUDGED;
    const ref = this.index.documentRef(document);
    if (ref?.[0] === 'commit') return this.reverted(ref[1]).commits.has(ref[2]) ? REVERTED : UNJUDGED;
    if (ref?.[0] !== 'activity') return UNJUDGED;
    const entry = this.store.tables.activities.get([ref[1], ref[2], ref[3]]);
    return entry?.sessionId && this.reverted(entry.project).sessions.has(entry.sessionId) ? REVERTED : UNJUDGED;
  }

  /** The project's commits that git shows reverted (its git-signal cache), and their sessions. */
  private reverted(project: string): Reverted {
    let found = this.projectReverts.get(project);
    if (found) return found;
    found = { commits: new Set(), sessions: new Set() };
    const cache = this.store.tables.meta.get(gitSignalCacheKey(project)) as GitSignalCache | undefined;
    for (const [hash, fate] of Object.entries(cache?.counted ?? {})) {
      if (!fate.reverted) continue;
      found.commits.add(hash);
      const sessionId = this.store.tables.commits.get([project, hash])?.sessionId;
      if (sessionId) found.sessions.add(sessionId);
    }
    this.projectReverts.set(project, found);
    return found;
  }

  /** The project's user grades by the session that made each commit. */
  private bySession(project: string): Map<string, Grade[]> {
    let sessions = this.projectSessions.get(project);
    if (sessions) return sessions;
    sessions = new Map();
    const range = this.store.tables.userGrades.getRange({ start: [project, ''], end: [`${project}${AFTER}`, ''] });
    for (const { value } of range as Iterable<{ value: UserGradeRecord }>) {
      const grades = sessions.get(value.sessionId);
      if (grades) grades.push(value.grade);
      else sessions.set(value.sessionId, [value.grade]);
    }
    this.projectSessions.set(project, sessions);
    return sessions;
  }
}

/**
 * Commits made by tracked sessions: recording new ones (each one a fact; only work earns, within the
 * turn's limit) and finding tracked commits by hash or prefix, in the buffer and the database.
 */
import { commitCreditDenial, revertedHash } from '../integrity/commit-credit.js';
import { CreditedChanges } from '../integrity/credited-changes.js';
import { pickTrackedCommit } from '../outcomes/grades.js';
import type { AgentOp, CommitRecord } from '../types.js';
import type { GitCommit, HostEvent } from '../../contract/host-events.js';
import type { TrackingContext } from './context.js';
import { GIT_ABBREVIATION_LENGTH, storedCommitStartsWith } from './commit-prefix.js';
import { commitsEventId } from './event-ids.js';

/** The subject `git revert` gives its commit, when that is the whole message (a replayed revert keeps only its summary line). */
const REVERT_SUBJECT = /^Revert "(.+)"$/;

export class Commits {
  /** Changes of content that already earned, per project (src/core/integrity/credited-changes.ts). */
  private readonly creditedChanges: CreditedChanges;

  constructor(private readonly ctx: TrackingContext) {
    this.creditedChanges = new CreditedChanges((key) => ctx.store.tables.meta.get(key));
  }

  /**
   * New commits made by the session's agent. Commits already recorded are ignored. With the host's
   * call id (`event.eventId`) the call's commits count once however often it is replayed; `count`
   * then says how many commits the call made when not all of them are in `commits`: those are
   * counted and earn nothing (a replay hands over only the commits git holds, commit-witness.ts).
   */
  record(sessionId: string, commits: readonly GitCommit[], event: HostEvent & { count?: number } = {}): CommitRecord[] {
    const { ctx } = this;
    const setup = ctx.sessions.setupOf(sessionId);
    const recorded: CommitRecord[] = [];
    const turn = ctx.sessions.turn(sessionId);
    // The per-turn limit is the user's turn: a subagent's commits count in its root session's turn.
    const credit = ctx.sessions.turn(ctx.sessions.rootSession(sessionId));
    // Every commit is a recorded fact; only work earns (src/core/integrity/commit-credit.ts).
    let earned = 0;
    for (const commit of commits) {
      const key: [string, string] = [setup.project, commit.hash];
      // A hash `git commit` printed is abbreviated: a stored commit it abbreviates is the same commit.
      if (ctx.buffer.has('commits', key) || storedCommitStartsWith(ctx.store.tables.commits, setup.project, commit.hash)) continue;
      const { parents, patchId, whitespaceOnly } = commit;
      const revertOf = revertedHash(commit.message) ?? this.revertedBySubject(setup.project, commit);
      const denial = commitCreditDenial(
        // A commit replayed from the host's history may come without its file list: that check is not made.
        { filesChanged: event.at !== undefined ? undefined : commit.files.length, parentCount: parents?.length ?? 1, ...(revertOf ? { revertOf } : {}), ...(whitespaceOnly !== undefined ? { whitespaceOnly } : {}) },
        {
          earnedThisTurn: credit.earned,
          revertsOwnCommit: revertOf !== undefined && this.find(setup.project, revertOf)?.agent === setup.agent,
          sameChangeCredited: this.creditedChanges.has(setup.project, patchId),
        },
      );
      // The record says why a commit earned nothing, so its grades earn nothing either (grading.ts).
      // Field by field: on Node 20, a spread followed by new fields costs microseconds per field.
      const value: CommitRecord = {
        hash: commit.hash,
        message: ctx.maskText(commit.message),
        files: commit.files,
        insertions: commit.insertions,
        deletions: commit.deletions,
        timestamp: commit.timestamp,
        project: setup.project,
        agent: setup.agent,
        model: setup.model,
        sessionId,
      };
      if (denial !== undefined) value.noCredit = denial;
      ctx.buffer.put({ table: 'commits', key, value });
      if (denial === undefined) {
        earned += 1;
        credit.earned += 1;
        if (patchId !== undefined) ctx.buffer.put({ table: 'meta', ...this.creditedChanges.add(setup.project, patchId) });
      }
      if (!event.eventId) ctx.ledger.count(sessionId, setup, { commits: 1 }, event.at);
      turn.commits.push(commit.hash);
      recorded.push(value);
    }
    const ops: AgentOp[] = earned > 0 ? [{ kind: 'commits', amount: earned }, { kind: 'xp', amount: ctx.config.rules.xpPerCommit * earned }] : [];
    const made = Math.max(event.count ?? 0, commits.length);
    if (event.eventId && made > 0) {
      ctx.ledger.replay(sessionId, setup, commitsEventId(event.eventId), { commits: made }, ops, { at: event.at });
    } else {
      for (const op of ops) ctx.buffer.addAgentOp(setup.agent, op);
    }
    ctx.flusher.afterRecord();
    return recorded;
  }

  /**
   * A tracked commit by full hash or unique prefix, from the buffer or the database; else one recorded
   * under an abbreviation of the hash (a backfilled commit keeps the seven characters git printed).
   */
  find(project: string, hashOrPrefix: string): CommitRecord | undefined {
    for (const mutation of this.ctx.buffer.mutations()) {
      if (mutation.table === 'commits' && mutation.key[0] === project && mutation.key[1].startsWith(hashOrPrefix)) return mutation.value;
    }
    for (const { key, value } of this.ctx.store.tables.commits.getRange({ start: [project, hashOrPrefix], limit: 1 })) {
      if (key[0] === project && key[1].startsWith(hashOrPrefix)) return value;
    }
    return this.abbreviating(project, hashOrPrefix)[0];
  }

  /**
   * The tracked commit a revert undoes when its message gives no hash: a replayed `git revert` keeps only
   * the summary line git printed, `Revert "SUBJECT"`, so it is the latest earlier commit of the project
   * with that subject. Undefined for any other commit (most commits: no project read).
   */
  private revertedBySubject(project: string, commit: GitCommit): string | undefined {
    const subject = REVERT_SUBJECT.exec(commit.message)?.[1];
    if (subject === undefined) return undefined;
    let latest: CommitRecord | undefined;
    for (const made of this.all(project)) {
      if (made.message.split('\n', 1)[0] !== subject || made.timestamp > commit.timestamp) continue;
      if (latest === undefined || made.timestamp > latest.timestamp) latest = made;
    }
    return latest?.hash;
  }

  /** Whether the project has any tracked commit, in the buffer or the database (one seek). */
  any(project: string): boolean {
    return this.startingWith(project, '', 1).length > 0;
  }

  /** Every tracked commit of a project, from the buffer and the database. */
  all(project: string): CommitRecord[] {
    return this.startingWith(project, '', Number.MAX_SAFE_INTEGER);
  }

  /** @throws InputError when no tracked session made the commit or the prefix is ambiguous. */
  tracked(project: string, hashOrPrefix: string): CommitRecord {
    const found = this.startingWith(project, hashOrPrefix, 2);
    return pickTrackedCommit(found.length > 0 ? found : this.abbreviating(project, hashOrPrefix), hashOrPrefix);
  }

  /**
   * Tracked commits recorded under an abbreviation of `hash` (shorter, at least GIT_ABBREVIATION_LENGTH
   * characters): how a backfill records a commit, from the hash `git commit` printed. Every such key
   * starts with the hash's first characters, so one short range of keys holds them all.
   */
  private abbreviating(project: string, hash: string): CommitRecord[] {
    if (hash.length <= GIT_ABBREVIATION_LENGTH) return [];
    const abbreviates = (key: string): boolean => key.length >= GIT_ABBREVIATION_LENGTH && key.length < hash.length && hash.startsWith(key);
    const found: CommitRecord[] = [];
    for (const mutation of this.ctx.buffer.mutations()) {
      if (mutation.table === 'commits' && mutation.key[0] === project && abbreviates(mutation.key[1])) found.push(mutation.value);
    }
    const shortest = hash.slice(0, GIT_ABBREVIATION_LENGTH);
    for (const { key, value } of this.ctx.store.tables.commits.getRange({ start: [project, shortest] })) {
      if (key[0] !== project || !key[1].startsWith(shortest)) break;
      if (abbreviates(key[1])) found.push(value);
    }
    return found;
  }

  /** The tracked commits of a project whose hash starts with `prefix`, from the buffer and the database. */
  private startingWith(project: string, prefix: string, limit: number): CommitRecord[] {
    const found: CommitRecord[] = [];
    for (const mutation of this.ctx.buffer.mutations()) {
      if (mutation.table === 'commits' && mutation.key[0] === project && mutation.key[1].startsWith(prefix)) found.push(mutation.value);
    }
    for (const { key, value } of this.ctx.store.tables.commits.getRange({ start: [project, prefix] })) {
      if (key[0] !== project || !key[1].startsWith(prefix) || found.length >= limit) break;
      found.push(value);
    }
    return found;
  }
}

/**
 * What happened to a commit after it was made, from the branch's own history: reverted later (a
 * revert commit naming it), or followed within the next FOLLOW_UP_WINDOW commits by a fix to the
 * same lines (a fix-like message) or a fixup!/squash! commit aimed at it. Pure functions over git facts.
 */

/** How many commits after a commit a fix still counts as its follow-up fix. */
import type { CountedFate } from '../../contract/git-signal-cache.js';

export const FOLLOW_UP_WINDOW = 10;

/** Lines `start..end` (1-based, inclusive) of one file. */
export interface LineRange {
  file: string;
  start: number;
  end: number;
}

/** A commit of the branch as the signals need it. */
export interface BranchCommit {
  hash: string;
  subject: string;
  body: string;
  /** Lines as numbered BEFORE the commit that it removed or changed (hunk `-a,b`). */
  oldLines: LineRange[];
  /** Lines as numbered AFTER the commit that it wrote (hunk `+c,d`). */
  newLines: LineRange[];
}

export interface CommitFate {
  reverted: boolean;
  followUpFix: boolean;
}

// The patterns below are written where they are used, not as module constants: mutation testing can
// then tell which tests reach each one (a module constant is built at load, outside every test).

/** Whether a commit message reads as a fix. `revert` is left out: reverts are their own signal. */
export function isFixLike(subject: string): boolean {
  return /\b(?:fix(?:e[sd])?|fixing|bug(?:fix)?|hotfix|repair(?:s|ed)?|correct(?:s|ed|ion)?|regression|broken|oops|typo)\b/i.test(subject);
}

/** Whether `later` reverts `commit`: it names its hash in "This reverts commit …", or its subject is `Revert "<subject>"`. */
export function reverts(later: Pick<BranchCommit, 'subject' | 'body'>, commit: Pick<BranchCommit, 'hash' | 'subject'>): boolean {
  for (const match of `${later.subject}\n${later.body}`.matchAll(/This reverts commit ([0-9a-f]{7,64})/gi)) {
    const named = (match[1] ?? '').toLowerCase();
    if (commit.hash.toLowerCase().startsWith(named)) return true;
  }
  const subject = /^Revert "(.*)"$/.exec(later.subject.trim());
  return subject !== null && subject[1] === commit.subject.trim();
}

/** Whether `later` is a fixup!/squash! commit aimed at `commit` (by its subject or a hash prefix). */
export function isFixupOf(later: Pick<BranchCommit, 'subject'>, commit: Pick<BranchCommit, 'hash' | 'subject'>): boolean {
  const fixupPrefix = /^(?:fixup|squash|amend)!\s+/i;
  const prefix = fixupPrefix.exec(later.subject);
  if (!prefix) return false;
  let target = later.subject.slice(prefix[0].length).trim();
  // git nests prefixes ("fixup! fixup! x") when fixing a fixup: aim at the innermost subject.
  for (let inner = fixupPrefix.exec(target); inner; inner = fixupPrefix.exec(target)) target = target.slice(inner[0].length).trim();
  if (target === commit.subject.trim()) return true;
  return /^[0-9a-f]{7,64}$/i.test(target) && commit.hash.toLowerCase().startsWith(target.toLowerCase());
}

/** Whether two sets of line ranges share a line of one file. */
export function touchesSameLines(written: readonly LineRange[], changed: readonly LineRange[]): boolean {
  return written.some((a) => changed.some((b) => a.file === b.file && a.start <= b.end && b.start <= a.end));
}

/**
 * The positions of the commits that revert anything: a message naming a hash ("This reverts commit …")
 * or a `Revert "<subject>"` subject. Every commit `reverts` holds true for is among them, so a commit's
 * fate asks only these, not every later commit (a branch of 300 has a handful).
 */
export function revertingCommits(branch: readonly BranchCommit[]): number[] {
  const positions: number[] = [];
  branch.forEach((commit, index) => {
    if (/This reverts commit [0-9a-f]{7,64}/i.test(`${commit.subject}\n${commit.body}`) || /^Revert ".*"$/.test(commit.subject.trim())) positions.push(index);
  });
  return positions;
}

/**
 * The fate of `branch[index]`, given the branch oldest first. Any later commit may revert it; only the
 * next FOLLOW_UP_WINDOW commits can be its follow-up fix (a commit that reverts it is not one). Line
 * numbers are compared as each diff states them (not shifted through the commits between): close
 * enough for "the same lines". `reverters` is revertingCommits(branch), computed once per branch.
 */
export function commitFate(branch: readonly BranchCommit[], index: number, reverters: readonly number[] = revertingCommits(branch)): CommitFate {
  const commit = branch[index];
  if (!commit) return { reverted: false, followUpFix: false };
  const reverted = reverters.some((position) => position > index && reverts(branch[position] as BranchCommit, commit));
  let followUpFix = false;
  for (let i = index + 1; i < branch.length && i - index <= FOLLOW_UP_WINDOW; i += 1) {
    const later = branch[i] as BranchCommit;
    if (reverts(later, commit)) continue;
    if (isFixupOf(later, commit) || (isFixLike(later.subject) && touchesSameLines(commit.newLines, later.oldLines))) followUpFix = true;
  }
  return { reverted, followUpFix };
}

/** Whether the follow-up window of `branch[index]` is closed: FOLLOW_UP_WINDOW commits came after it. */
export function followUpWindowClosed(branch: readonly BranchCommit[], index: number): boolean {
  return branch.length - 1 - index >= FOLLOW_UP_WINDOW;
}

export type { CountedFate };

/**
 * The counter changes a commit's fate asks for, given what was counted before: each signal is counted
 * once, when it first shows (never taken back: a revert of a revert does not un-revert the evidence).
 */
export function newlyCounted(fate: CommitFate, before: CountedFate | undefined): { revertedCommits: number; followUpFixCommits: number } {
  return {
    revertedCommits: fate.reverted && !before?.reverted ? 1 : 0,
    followUpFixCommits: fate.followUpFix && !before?.followUpFix ? 1 : 0,
  };
}

// ---- parsing `git log -p -U0` -------------------------------------------------------------------

export const RECORD_SEPARATOR = '\u001e';
export const FIELD_SEPARATOR = '\u001f';

/** A hunk side `start,count` as a range; a count of 0 (pure insertion/removal) is the point where it happened. */
function range(file: string, start: string, count: string | undefined): LineRange {
  const first = Number(start);
  const length = count === undefined ? 1 : Number(count);
  return { file, start: first, end: first + Math.max(length, 1) - 1 };
}

/**
 * Parses `git log --format=%x1e%H%x1f%s%x1f%b%x1f -p -U0` output (newest first, as git prints it) into
 * branch commits, oldest first.
 */
export function parseBranchLog(output: string): BranchCommit[] {
  const diffFile = /^diff --git a\/(.+) b\/(.+)$/;
  const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
  const commits: BranchCommit[] = [];
  for (const record of output.split(RECORD_SEPARATOR)) {
    const [hash, subject, body, diff] = record.split(FIELD_SEPARATOR);
    if (!hash || !/^[0-9a-f]{7,64}$/.test(hash.trim())) continue;
    const commit: BranchCommit = { hash: hash.trim(), subject: (subject ?? '').trim(), body: (body ?? '').trim(), oldLines: [], newLines: [] };
    let oldFile = '';
    let newFile = '';
    for (const line of (diff ?? '').split('\n')) {
      const file = diffFile.exec(line);
      if (file) {
        oldFile = file[1] ?? '';
        newFile = file[2] ?? '';
        continue;
      }
      const hunk = hunkHeader.exec(line);
      if (!hunk) continue;
      commit.oldLines.push(range(oldFile, hunk[1] ?? '0', hunk[2]));
      commit.newLines.push(range(newFile, hunk[3] ?? '0', hunk[4]));
    }
    commits.push(commit);
  }
  return commits.reverse();
}

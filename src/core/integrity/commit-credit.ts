/**
 * Whether a recorded commit earns XP/SP. Commits are always recorded (they are facts); only work
 * earns: a commit must change files, must change more than whitespace, must not be a change of
 * content already credited in the project (an amend or a re-commit of the same change), must not
 * be a merge that adds nothing of its own, must not undo the same agent's own earlier commit, and
 * must be among the first few of its turn.
 */
import type { NoCreditReason } from '../../contract/records.js';

/**
 * At most this many commits of one turn earn. A turn is one user request; honest work rarely
 * needs more than a handful of commits for it, while a loop of commits (`for i in …; git commit`)
 * is the cheapest way to farm credit. Five leaves room for "fix, test, docs, lint, follow-up".
 */
export const EARNING_COMMITS_PER_TURN = 5;

/** What git says about one commit, as far as credit is concerned. */
export interface CommitFacts {
  /** Files the commit changes (against its first parent); undefined when not known (a backfilled commit). */
  filesChanged: number | undefined;
  /** How many parents it has: 2 or more is a merge. */
  parentCount: number;
  /** The commit it says it reverts ("This reverts commit X."), when it says so. */
  revertOf?: string;
  /** Whether no line changes once whitespace is ignored (`git diff -w`); undefined when not known. */
  whitespaceOnly?: boolean;
}

export interface CreditContext {
  /** How many commits of this turn already earned. */
  earnedThisTurn: number;
  /** Whether `revertOf` names a commit the same agent made (as recorded). */
  revertsOwnCommit: boolean;
  /** Whether the same change of content (its patch id) already earned in this project. */
  sameChangeCredited?: boolean;
}

/** The reason a commit earns nothing, or undefined when it earns XP/SP. */
export function commitCreditDenial(facts: CommitFacts, context: CreditContext): NoCreditReason | undefined {
  if (facts.parentCount > 1) return 'merge';
  if (facts.filesChanged !== undefined && facts.filesChanged <= 0) return 'no-file-changes';
  if (facts.whitespaceOnly === true) return 'whitespace-only';
  if (context.sameChangeCredited === true) return 'same-change';
  if (facts.revertOf !== undefined && context.revertsOwnCommit) return 'self-revert';
  if (context.earnedThisTurn >= EARNING_COMMITS_PER_TURN) return 'turn-limit';
  return undefined;
}

const REVERT_LINE = /This reverts commit ([0-9a-f]{7,64})/;

/** The hash a commit message says it reverts (git revert's standard line), if any. */
export function revertedHash(message: string): string | undefined {
  return REVERT_LINE.exec(message)?.[1];
}

/** Why a commit earned nothing, as the user reads it after "not credited: ". */
const NO_CREDIT_TEXT: Readonly<Record<NoCreditReason, string>> = {
  'no-file-changes': 'it changes no file',
  merge: 'a merge adds nothing of its own',
  'whitespace-only': 'it changes only whitespace',
  'same-change': 'the same change already earned (an amend or a re-commit of it)',
  'self-revert': "it undoes the agent's own commit",
  'turn-limit': `past the ${EARNING_COMMITS_PER_TURN} commits a turn can earn`,
};

/** "not credited: <why>", shown wherever a commit that earned nothing is listed or graded. */
export function notCreditedText(reason: NoCreditReason): string {
  return `not credited: ${NO_CREDIT_TEXT[reason]}`;
}

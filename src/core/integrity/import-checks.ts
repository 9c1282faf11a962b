/**
 * What import checks beyond types, so an import cannot write what the live path never would:
 * value ranges from the rules, text limits of the tools, dates that parse, and only known keys.
 * A pure check of one record's value; transfer.ts calls it per line and names the first bad one.
 */
import { WHOLE_COUNTER_NAMES } from '../../contract/counters.js';
import { TASK_KIND_COUNTERS } from '../outcomes/task-kind.js';
import { DEFAULT_RULES, HALT_AT_SP, MIN_CS } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from '../validation.js';

/**
 * The highest SP an imported agent may have. SP grows by one per level and each level costs
 * xpPerLevelFactor x SP XP, so a few hundred levels is already years of daily work; anything above
 * is a forged record, not history.
 */
export const MAX_IMPORTED_SP = 1000;
/** SP falls one per bug and halts at 0; a bug reported on a halted agent can take it one lower at most per bug. */
export const MIN_IMPORTED_SP = -MAX_IMPORTED_SP;
/** A commit message comes from git, not from a tool: a generous cap that still refuses a 10 MB text. */
export const MAX_COMMIT_MESSAGE_LENGTH = 64 * 1024;

/** The largest count any counter may hold: a trillion tool calls or tokens is beyond any history, and sums of them stay exact. */
export const MAX_IMPORTED_COUNT = 1e12;
/** The largest cost (in the provider's currency) one usage record may carry. */
export const MAX_IMPORTED_COST = 1e9;
/** Text fields without a tool limit (paths, models, languages, hashes): PATH_MAX, not 10 MB. */
export const MAX_IMPORTED_FIELD_LENGTH = 4096;
/** Items of a list field (files of a commit, dependencies of a project). */
export const MAX_IMPORTED_LIST_LENGTH = 100_000;
/** The largest CS move one graded commit can make: both grades excellent (5 + 5). */
const MAX_CS_MOVE_PER_GRADE = 10;
/** The grade range: a sum of N grades lies within N x these. */
const LOWEST_GRADE = -1;
const HIGHEST_GRADE = 5;
/** Grade sums and the count of grades each sums, with how many grades one counted commit adds. */
const GRADE_SUMS: readonly { sum: string; count: string; gradesPerCommit: number }[] = [
  { sum: 'userGradeSum', count: 'userGradedCommits', gradesPerCommit: 1 },
  { sum: 'selfGradeSum', count: 'selfGradedCommits', gradesPerCommit: 1 },
  { sum: 'reportedGradeSum', count: 'reportedGradedCommits', gradesPerCommit: 1 },
  // Before provenance, gradeSum added the agent's grade and the relayed user grade of each commit.
  { sum: 'gradeSum', count: 'gradedCommits', gradesPerCommit: 2 },
];
/** Counters whose every count can carry a CS move (csDelta stays within MAX_CS_MOVE_PER_GRADE of each). */
const CS_MOVING_COUNTS = ['gradedCommits', 'userGradedCommits', 'selfGradedCommits', 'reportedGradedCommits'];
/** CS values a retrospective records before and after its grade. */
const CS_FIELDS = new Set(['score_before', 'score_after']);

/** Counters that are counts (non-negative integers), wherever they appear. */
const COUNT_FIELDS = new Set<string>(['xp', 'commits', 'bugs', 'insertions', 'deletions', ...WHOLE_COUNTER_NAMES]);
/** Fields that hold an ISO date. */
const DATE_FIELDS = new Set(['createdAt', 'updatedAt', 'firstAt', 'lastAt', 'timestamp', 'classifiedAt']);
/** Free text the tools cap at MAX_TEXT_LENGTH. */
const TEXT_FIELDS = new Set(['task', 'actions', 'outcome', 'decisions', 'agent_note', 'user_note']);
/** Names the tools cap at MAX_NAME_LENGTH. */
const NAME_FIELDS = new Set(['agent', 'id']);
/** Fields written by other parts of the tracker (outcome counters, sources, provenance) that a record may carry. */
const SHARED_OPTIONAL = [...COUNT_FIELDS, 'userGradeSum', 'selfGradeSum', 'reportedGradeSum', 'pairedGradeGapSum', 'source', 'userAction', 'gradedBy', 'provenance'];

/** A whole number within [min, max]. */
function isWholeIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** The first problem with a text or list field's length, or undefined. */
function lengthProblem(kind: string, field: string, item: unknown): string | undefined {
  if (TEXT_FIELDS.has(field) && typeof item === 'string' && item.length > MAX_TEXT_LENGTH) {
    return `${kind} field "${field}" is ${item.length} characters long; the tools accept at most ${MAX_TEXT_LENGTH}`;
  }
  if (NAME_FIELDS.has(field) && typeof item === 'string' && item.length > MAX_NAME_LENGTH) {
    return `${kind} field "${field}" is longer than ${MAX_NAME_LENGTH} characters`;
  }
  if (field !== 'message' && typeof item === 'string' && item.length > MAX_IMPORTED_FIELD_LENGTH) {
    return `${kind} field "${field}" is ${item.length} characters long; at most ${MAX_IMPORTED_FIELD_LENGTH} are accepted`;
  }
  if (Array.isArray(item)) {
    if (item.length > MAX_IMPORTED_LIST_LENGTH) return `${kind} field "${field}" lists ${item.length} items; at most ${MAX_IMPORTED_LIST_LENGTH} are accepted`;
    const long = item.find((entry) => typeof entry === 'string' && entry.length > MAX_IMPORTED_FIELD_LENGTH) as string | undefined;
    if (long !== undefined) return `${kind} field "${field}" holds an item of ${long.length} characters; at most ${MAX_IMPORTED_FIELD_LENGTH} are accepted`;
  }
  return undefined;
}

/**
 * An agent's numbers as the live rules keep them: a halted agent has SP at or below the halt line;
 * CS lies within 0 and the cap of the highest SP the agent can have had (its SP plus one per bug);
 * XP below the cost of that SP's next level (revival keeps XP, so the highest SP counts).
 */
function agentProblem(value: Record<string, unknown>, rules: ScoringRules): string | undefined {
  const sp = value.sp;
  if (!isWholeIn(sp, MIN_IMPORTED_SP, MAX_IMPORTED_SP)) {
    return `agents field "sp" must be a whole number from ${MIN_IMPORTED_SP} to ${MAX_IMPORTED_SP}, got ${JSON.stringify(sp)}`;
  }
  if (value.halted === true && sp > HALT_AT_SP) return `agents field "sp" is ${sp} on a halted agent; an agent halts at SP ${HALT_AT_SP} or below`;
  const highestSp = Math.max(1, sp + numberOr0(value.bugs), rules.initialSp);
  const maxCs = Math.max(rules.initialCs, highestSp * rules.csCapPerSp);
  if (typeof value.cs === 'number' && !(value.cs >= MIN_CS && value.cs <= maxCs)) {
    return `agents field "cs" must be from ${MIN_CS} to ${maxCs} (SP ${sp} with ${numberOr0(value.bugs)} bugs), got ${JSON.stringify(value.cs)}`;
  }
  const maxXp = Math.max(rules.initialXp, rules.xpPerLevelFactor * highestSp);
  if (typeof value.xp === 'number' && value.xp > maxXp) {
    return `agents field "xp" must be at most ${maxXp} (SP ${sp} with ${numberOr0(value.bugs)} bugs levels up before), got ${JSON.stringify(value.xp)}`;
  }
  return undefined;
}

/** Grade sums within what their counts allow, and a CS change within what the grades allow. */
function sumProblem(kind: string, value: Record<string, unknown>): string | undefined {
  for (const { sum, count, gradesPerCommit } of GRADE_SUMS) {
    if (value[sum] === undefined) continue;
    const grades = numberOr0(value[count]) * gradesPerCommit;
    const total = value[sum];
    if (!(typeof total === 'number' && Number.isInteger(total) && total >= LOWEST_GRADE * grades && total <= HIGHEST_GRADE * grades)) {
      return `${kind} field "${sum}" must be a whole number from ${LOWEST_GRADE * grades} to ${HIGHEST_GRADE * grades} (${grades} grades of ${LOWEST_GRADE}..${HIGHEST_GRADE}), got ${JSON.stringify(total)}`;
    }
  }
  if (value.csDelta !== undefined) {
    const moves = CS_MOVING_COUNTS.reduce((total, field) => total + numberOr0(value[field]), 0) * MAX_CS_MOVE_PER_GRADE;
    if (!(typeof value.csDelta === 'number' && Math.abs(value.csDelta) <= moves)) {
      return `${kind} field "csDelta" must be from ${-moves} to ${moves} (its graded commits), got ${JSON.stringify(value.csDelta)}`;
    }
  }
  return undefined;
}

/** Each turn is of one kind of task, so the turns counted per kind add up to at most the turns worked. */
function taskKindProblem(kind: string, value: Record<string, unknown>): string | undefined {
  const counters = Object.values(TASK_KIND_COUNTERS);
  const classified = counters.reduce((sum, name) => sum + numberOr0(value[name]), 0);
  const turns = numberOr0(value.turns);
  if (classified <= turns) return undefined;
  return `${kind} fields ${counters.join(', ')} count ${classified} turns together; the record worked only ${turns} ("turns")`;
}

/**
 * The first problem with one record's values, or undefined. `known` lists the fields its kind defines;
 * `rules` are the importing database's (an agent's ranges follow them).
 */
export function importValueProblem(kind: string, value: Record<string, unknown>, known: readonly string[], rules: ScoringRules = DEFAULT_RULES): string | undefined {
  const allowed = new Set([...known, ...SHARED_OPTIONAL]);
  for (const [field, item] of Object.entries(value)) {
    if (!allowed.has(field)) return `${kind} field "${field}" is not a field of a ${kind} record`;
    if (COUNT_FIELDS.has(field) && !isWholeIn(item, 0, MAX_IMPORTED_COUNT)) {
      return `${kind} field "${field}" must be a whole number from 0 to ${MAX_IMPORTED_COUNT}, got ${JSON.stringify(item)}`;
    }
    if (DATE_FIELDS.has(field) && !(typeof item === 'string' && Number.isFinite(Date.parse(item)))) {
      return `${kind} field "${field}" must be a date, got ${JSON.stringify(item)}`;
    }
    if (CS_FIELDS.has(field) && !(typeof item === 'number' && item >= MIN_CS && item <= MAX_IMPORTED_SP * rules.csCapPerSp)) {
      return `${kind} field "${field}" must be a CS from ${MIN_CS} to ${MAX_IMPORTED_SP * rules.csCapPerSp}, got ${JSON.stringify(item)}`;
    }
    const length = lengthProblem(kind, field, item);
    if (length) return length;
  }
  if (kind === 'agents') {
    const agent = agentProblem(value, rules);
    if (agent) return agent;
  }
  const sums = sumProblem(kind, value) ?? taskKindProblem(kind, value);
  if (sums) return sums;
  if (kind === 'commits' && typeof value.message === 'string' && value.message.length > MAX_COMMIT_MESSAGE_LENGTH) {
    return `commits field "message" is ${value.message.length} characters long; at most ${MAX_COMMIT_MESSAGE_LENGTH} are accepted`;
  }
  if (kind === 'sessions' && typeof value.cost === 'number' && !(value.cost >= 0 && value.cost <= MAX_IMPORTED_COST)) {
    return `sessions field "cost" must be from 0 to ${MAX_IMPORTED_COST}, got ${JSON.stringify(value.cost)}`;
  }
  return undefined;
}

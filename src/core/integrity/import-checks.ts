/**
 * What import checks beyond types, so an import cannot write what the live path never would:
 * value ranges from the rules, text limits of the tools, dates that parse, and only known keys.
 * A pure check of one record's value; transfer.ts calls it per line and names the first bad one.
 */
import { WHOLE_COUNTER_NAMES } from '../../contract/counters.js';
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

/** Counters that are counts (non-negative integers), wherever they appear. */
const COUNT_FIELDS = new Set<string>(['xp', 'commits', 'bugs', 'insertions', 'deletions', ...WHOLE_COUNTER_NAMES]);
/** Fields that hold an ISO date. */
const DATE_FIELDS = new Set(['createdAt', 'updatedAt', 'firstAt', 'lastAt', 'timestamp', 'classifiedAt']);
/** Free text the tools cap at MAX_TEXT_LENGTH. */
const TEXT_FIELDS = new Set(['task', 'actions', 'outcome', 'decisions', 'agent_note', 'user_note']);
/** Names the tools cap at MAX_NAME_LENGTH. */
const NAME_FIELDS = new Set(['agent', 'id']);
/** Fields written by other parts of the tracker (outcome counters, sources, provenance) that a record may carry. */
const SHARED_OPTIONAL = [...COUNT_FIELDS, 'userGradeSum', 'selfGradeSum', 'reportedGradeSum', 'source', 'userAction', 'gradedBy', 'provenance'];

/** The first problem with one record's values, or undefined. `known` lists the fields its kind defines. */
export function importValueProblem(kind: string, value: Record<string, unknown>, known: readonly string[]): string | undefined {
  const allowed = new Set([...known, ...SHARED_OPTIONAL]);
  for (const [field, item] of Object.entries(value)) {
    if (!allowed.has(field)) return `${kind} field "${field}" is not a field of a ${kind} record`;
    if (COUNT_FIELDS.has(field) && !(typeof item === 'number' && Number.isInteger(item) && item >= 0)) {
      return `${kind} field "${field}" must be a whole number of 0 or more, got ${JSON.stringify(item)}`;
    }
    if (DATE_FIELDS.has(field) && !(typeof item === 'string' && Number.isFinite(Date.parse(item)))) {
      return `${kind} field "${field}" must be a date, got ${JSON.stringify(item)}`;
    }
    if (TEXT_FIELDS.has(field) && typeof item === 'string' && item.length > MAX_TEXT_LENGTH) {
      return `${kind} field "${field}" is ${item.length} characters long; the tools accept at most ${MAX_TEXT_LENGTH}`;
    }
    if (NAME_FIELDS.has(field) && typeof item === 'string' && item.length > MAX_NAME_LENGTH) {
      return `${kind} field "${field}" is longer than ${MAX_NAME_LENGTH} characters`;
    }
  }
  if (kind === 'agents') {
    const sp = value.sp;
    if (!(typeof sp === 'number' && Number.isInteger(sp) && sp >= MIN_IMPORTED_SP && sp <= MAX_IMPORTED_SP)) {
      return `agents field "sp" must be a whole number from ${MIN_IMPORTED_SP} to ${MAX_IMPORTED_SP}, got ${JSON.stringify(sp)}`;
    }
  }
  if (kind === 'commits' && typeof value.message === 'string' && value.message.length > MAX_COMMIT_MESSAGE_LENGTH) {
    return `commits field "message" is ${value.message.length} characters long; at most ${MAX_COMMIT_MESSAGE_LENGTH} are accepted`;
  }
  if (kind === 'sessions' && typeof value.cost === 'number' && value.cost < 0) return 'sessions field "cost" must not be negative';
  return undefined;
}

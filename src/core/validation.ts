/**
 * Validation of what agents and users hand to the tracker. Each check throws an InputError whose
 * message says what was wrong and what is accepted; nothing is written when one throws.
 */
import { isGrade } from './rules.js';
import type { Grade } from './types.js';
import { GRADES } from './types.js';

export const MAX_NAME_LENGTH = 64;
export const MAX_TEXT_LENGTH = 4000;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/;
const COMMIT_PATTERN = /^[0-9a-f]{7,64}$/;
/** Control characters other than tab, line feed and carriage return: never meaningful in a note. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Input that cannot be used; the message is meant to be shown as it is. */
export class InputError extends Error {
  override name = 'InputError';
}

/** A trimmed agent name: letters, digits and `. _ - : @ /`, at most MAX_NAME_LENGTH characters. */
export function agentName(value: unknown, field = 'agent'): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InputError(`${field} must be a non-empty name such as "build"`);
  const name = value.trim();
  if (name.length > MAX_NAME_LENGTH) throw new InputError(`${field} is longer than ${MAX_NAME_LENGTH} characters`);
  if (!NAME_PATTERN.test(name)) {
    throw new InputError(`${field} ${JSON.stringify(name)} may contain only letters, digits and . _ - : @ / (and must start with a letter or digit)`);
  }
  return name;
}

/** A lower-case commit hash (7 to 64 hex digits: an abbreviation or a full SHA-1/SHA-256). */
export function commitHash(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InputError('commit must be a commit hash (7 to 64 hex digits)');
  const hash = value.trim().toLowerCase();
  if (!COMMIT_PATTERN.test(hash)) throw new InputError(`commit "${value.slice(0, 80)}" is not a commit hash (7 to 64 hex digits)`);
  return hash;
}

/** One of the four grades; a numeric string such as "5" is accepted too. */
export function grade(value: unknown, field: string): Grade {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (!isGrade(number)) {
    throw new InputError(`${field} must be one of ${GRADES.join(', ')} (bad, neutral, good, excellence), got ${JSON.stringify(value)}`);
  }
  return number;
}

/** Trimmed free text of at most `max` characters without control characters; '' when absent. */
export function text(value: unknown, field: string, options: { required?: boolean; max?: number } = {}): string {
  const max = options.max ?? MAX_TEXT_LENGTH;
  if (value === undefined || value === null) {
    if (options.required) throw new InputError(`${field} is required`);
    return '';
  }
  if (typeof value !== 'string') throw new InputError(`${field} must be text`);
  const trimmed = value.trim();
  if (options.required && trimmed === '') throw new InputError(`${field} must not be empty`);
  if (trimmed.length > max) {
    throw new InputError(`${field} is ${trimmed.length} characters long; at most ${max} are accepted, shorten it`);
  }
  if (CONTROL_CHARACTERS.test(trimmed)) {
    throw new InputError(`${field} contains control characters; use plain text (tabs and line breaks are fine)`);
  }
  return trimmed;
}

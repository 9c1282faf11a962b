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

/** Input that cannot be used; the message is meant to be shown as it is. */
export class InputError extends Error {
  override name = 'InputError';
}

export function agentName(value: unknown, field = 'agent'): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InputError(`${field} must be a non-empty name such as "build"`);
  const name = value.trim();
  if (name.length > MAX_NAME_LENGTH) throw new InputError(`${field} is longer than ${MAX_NAME_LENGTH} characters`);
  if (!NAME_PATTERN.test(name)) {
    throw new InputError(`${field} "${name}" may contain only letters, digits and . _ - : @ / (and must start with a letter or digit)`);
  }
  return name;
}

export function commitHash(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InputError('commit must be a commit hash (7 to 64 hex digits)');
  const hash = value.trim().toLowerCase();
  if (!COMMIT_PATTERN.test(hash)) throw new InputError(`commit "${value.slice(0, 80)}" is not a commit hash (7 to 64 hex digits)`);
  return hash;
}

export function grade(value: unknown, field: string): Grade {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (!isGrade(number)) {
    throw new InputError(`${field} must be one of ${GRADES.join(', ')} (bad, neutral, good, excellence), got ${JSON.stringify(value)}`);
  }
  return number;
}

export function text(value: unknown, field: string, options: { required?: boolean; max?: number } = {}): string {
  const max = options.max ?? MAX_TEXT_LENGTH;
  if (value === undefined || value === null) {
    if (options.required) throw new InputError(`${field} is required`);
    return '';
  }
  if (typeof value !== 'string') throw new InputError(`${field} must be text`);
  const trimmed = value.trim();
  if (options.required && trimmed === '') throw new InputError(`${field} must not be empty`);
  if (trimmed.length > max) throw new InputError(`${field} is ${trimmed.length} characters long; at most ${max} are kept`);
  return trimmed;
}

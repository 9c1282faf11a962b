/**
 * A COMMIT named by the user (`grade HEAD 5`, `HEAD~2`, a short hash) or by an agent's tool call,
 * resolved to the full hash by git in the project, so the record always keeps the whole hash.
 */
import { InputError } from '../validation.js';
import { runGit } from './git.js';

/** What may be named: HEAD or @ with ~N / ^ steps, or 4 to 64 hex digits. Never an option-like word. */
const COMMIT_REF = /^(?:(?:HEAD|@)(?:[~^]\d{0,4}){0,8}|[0-9a-f]{4,64})$/i;
/** A word the store can still match by prefix when git does not know it (a commit rebased away). */
const STORED_HASH_PREFIX = /^[0-9a-f]{7,64}$/i;
const FULL_HASH = /^[0-9a-f]{40,64}$/;

/** Whether `word` has the form of a commit name (it may still name no commit). */
export function namesCommit(word: string): boolean {
  return COMMIT_REF.test(word.trim());
}

export type GitRunner = (directory: string, args: string[]) => Promise<string>;

/** The `git` arguments that turn `ref` into a full commit hash, printing nothing when it names none. */
export function revParseArgs(ref: string): string[] {
  return ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`];
}

/**
 * The full hash `ref` names in `project`. A hash git does not know is passed on as typed (lower
 * case), for the store to match against the commits it recorded, unless `inGit` asks for a commit
 * of the project's git history (an agent's tool call: a typo is never taken).
 * @throws InputError when `ref` is not a commit name, or names no commit here.
 */
export async function resolveCommitRef(project: string, ref: string, run: GitRunner = runGit, inGit = false): Promise<string> {
  const word = ref.trim();
  if (word === '') throw new InputError('commit must name a commit: its hash (or a unique prefix), HEAD or HEAD~N');
  if (!namesCommit(word)) throw new InputError(`"${ref.slice(0, 80)}" is not a commit hash, a short hash, HEAD or HEAD~N`);
  let resolved = '';
  try {
    resolved = (await run(project, revParseArgs(word))).trim();
  } catch {
    resolved = '';
  }
  if (FULL_HASH.test(resolved)) return resolved;
  if (!inGit && STORED_HASH_PREFIX.test(word)) return word.toLowerCase();
  throw new InputError(`"${word}" names no commit in ${project}; name one with a hash, HEAD or HEAD~N (git log --oneline lists them)`);
}

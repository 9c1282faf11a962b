/**
 * The arguments of the `/grade N [COMMIT] [note…]` slash command, as OpenCode passes them (one
 * string). Pure: the adapter hands over the text, the service decides.
 */
import { InputError } from '../validation.js';

/** The name of the provisioned slash command. */
export const GRADE_COMMAND_NAME = 'grade';

/**
 * Whether a slash command is the tracker's own: the user's `/grade` judges the agent, so it is not the
 * agent's use of a command and earns it nothing (as the tracker's own tools earn nothing).
 */
export function isTrackerCommand(name: string): boolean {
  return name.trim().replace(/^\//, '') === GRADE_COMMAND_NAME;
}

/** A word that is a commit hash: 7 to 64 hex digits with at least one digit (so "deadbeef" notes need a hash first). */
const HASH_WORD = /^(?=[0-9a-f]*[0-9])[0-9a-f]{7,64}$/i;

/** `opencode run --command` hands the message over in quotes ("5 good work"): one surrounding pair is dropped. */
function unquoted(text: string): string {
  const first = text[0];
  return text.length >= 2 && (first === '"' || first === "'") && text.endsWith(first) ? text.slice(1, -1).trim() : text;
}

export interface GradeCommandArguments {
  grade: string;
  commit?: string;
  note: string;
}

/**
 * Splits `N [COMMIT] [note…]`: the first word is the grade, a second word that looks like a commit
 * hash is the commit, the rest is the note.
 * @throws InputError when no grade was given.
 */
export function parseGradeArguments(text: string): GradeCommandArguments {
  const words = unquoted(text.trim()).split(/\s+/).filter((word) => word !== '');
  const [grade, second, ...rest] = words;
  if (grade === undefined) throw new InputError('give a grade: /grade N [COMMIT] [note], N one of -1 bad, 1 neutral, 2 good, 5 excellence');
  if (second !== undefined && HASH_WORD.test(second)) return { grade, commit: second.toLowerCase(), note: rest.join(' ') };
  return { grade, note: [second, ...rest].filter((word) => word !== undefined).join(' ') };
}

/**
 * The commit HEAD names, read from the repository's own files (`.git/HEAD`, the branch's loose ref or
 * its line in `packed-refs`) instead of a `git rev-parse` process: a few small reads where git costs a
 * process start, asked of every project before each `report`. Only the plain layout, where those files
 * say it unambiguously, is read; anything else (a `.git` file of a worktree or submodule, the reftable
 * format, an unborn branch, GIT_DIR set, a name that is not a regular file) gives undefined, and the
 * caller asks git (`currentHead`, which loads the git module only then). Reading the files runs no
 * program; a FIFO planted at one of the names is not waited on.
 */
import path from 'node:path';
import { readOwnFileText } from '../fs/read-bounded.js';

/** `.git/HEAD` and a loose ref are one line; anything larger is not what git writes there. */
const REF_FILE_BYTES = 4096;
/** A `packed-refs` past this is left to git (a repository with tens of thousands of tags). */
const PACKED_REFS_BYTES = 1024 * 1024;
/** A full object name: SHA-1 or SHA-256. */
const FULL_HASH = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Settings under which git would read another repository than `<project>/.git`. */
const REPOSITORY_OVERRIDES = ['GIT_DIR', 'GIT_COMMON_DIR'];

/** What refFileText gives when nothing is at the name (as against something that cannot be read). */
const MISSING = Symbol('missing');

/** A file's text; MISSING when nothing is at the name; undefined when something is there that is not a small regular file. */
function refFileText(file: string, maxBytes: number): string | typeof MISSING | undefined {
  try {
    return readOwnFileText(file, maxBytes);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? MISSING : undefined;
  }
}

/** The hash the branch `ref` has in `packed-refs` (lines "<hash> <name>"), or undefined. */
function packedRef(gitDir: string, ref: string): string | undefined {
  const packed = refFileText(path.join(gitDir, 'packed-refs'), PACKED_REFS_BYTES);
  if (typeof packed !== 'string') return undefined;
  for (const line of packed.split('\n')) {
    const space = line.indexOf(' ');
    if (line.slice(space + 1) === ref) return line.slice(0, space);
  }
  return undefined;
}

/**
 * The full hash HEAD of the repository at `directory` names, when its files alone tell it; undefined
 * when only git can (see the module comment). It is the commit `git rev-parse HEAD` prints, but for a
 * HEAD naming a tag object, which git would peel: a caller comparing it with a commit it kept sees a
 * difference and asks git.
 */
export function headFromFiles(directory: string): string | undefined {
  if (REPOSITORY_OVERRIDES.some((name) => process.env[name])) return undefined;
  const gitDir = path.join(directory, '.git');
  const head = refFileText(path.join(gitDir, 'HEAD'), REF_FILE_BYTES);
  if (typeof head !== 'string') return undefined;
  const named = head.trim();
  if (FULL_HASH.test(named)) return named;
  const ref = /^ref: (refs\/heads\/\S+)$/.exec(named)?.[1];
  // A name with an empty, `.` or `..` part would lead elsewhere than git looks; git refuses such names.
  if (ref === undefined || ref.split('/').some((part) => part === '' || part === '.' || part === '..')) return undefined;
  const loose = refFileText(path.join(gitDir, ref), REF_FILE_BYTES);
  const hash = loose === MISSING ? packedRef(gitDir, ref) : loose?.trim();
  return hash !== undefined && FULL_HASH.test(hash) ? hash : undefined;
}

/** The commit HEAD points at: from the repository's files where they tell it, from `git rev-parse` otherwise. */
export async function currentHead(directory: string): Promise<string | undefined> {
  return headFromFiles(directory) ?? (await import('./git.js')).readHead(directory);
}

/**
 * The HEAD of `directory` when it is not `known` (the HEAD something was computed at); undefined when it
 * is, or when the folder is no readable repository. Asked of every project before each `report`, so the
 * usual answer costs a few small reads and no process.
 */
export async function headIfMoved(directory: string, known: string | undefined): Promise<string | undefined> {
  const head = await currentHead(directory);
  return head === known ? undefined : head;
}

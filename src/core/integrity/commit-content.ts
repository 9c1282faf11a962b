/**
 * What a commit changes in CONTENT, in git's own terms, so credit can tell new work from the same
 * work again: the id of its change (as `git patch-id --stable` makes it: the same change has the same
 * id whatever its hash, message or parent, and whitespace does not count) and whether any line changes once
 * whitespace is ignored (`git log -w --numstat`). Read once per bash call that made commits.
 */
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';

/** Runs `git <args>` in a folder and returns its output (the project's runner: simple-git, argument arrays). */
export type GitRunner = (directory: string, args: string[], timeoutMs: number) => Promise<string>;

/** What credit needs to know about one commit's content. */
export interface CommitContent {
  /** The id of its change (`patchIdsOf`); absent for a commit with no changed line (empty, merge). */
  patchId?: string;
  /** No line changes once whitespace is ignored (an empty file added counts as no line). */
  whitespaceOnly: boolean;
}

const RECORD_SEPARATOR = '\u001e';
const CONTENT_TIMEOUT_MS = 5000;

function range(from: string | undefined, to: string): string {
  return from ? `${from}..${to}` : to;
}

/** The `git log` arguments whose output `parseWhitespaceFreeStat` reads. */
export function whitespaceFreeStatArgs(from: string | undefined, to: string, max: number): string[] {
  return ['log', '-w', '--numstat', '--no-renames', `--max-count=${max}`, `--format=${RECORD_SEPARATOR}%H`, range(from, to), '--'];
}

/** The `git log` arguments whose output `patchIdsOf` reads (no external diff or textconv program: see branchLogArgs). */
export function patchLogArgs(from: string | undefined, to: string, max: number): string[] {
  return ['log', '-p', '--no-color', '--no-ext-diff', '--no-textconv', '--submodule=short', '--no-renames', `--max-count=${max}`, '--format=commit %H', range(from, to), '--'];
}

/**
 * Per commit hash, whether no line changes once whitespace is ignored. `git log -w --numstat`
 * leaves out files whose changes are all whitespace and prints `0 0` for an empty file; a binary
 * file prints `- -`, which is content.
 */
export function parseWhitespaceFreeStat(output: string): Map<string, boolean> {
  const result = new Map<string, boolean>();
  for (const record of output.split(RECORD_SEPARATOR)) {
    const [hash = '', ...lines] = record.split('\n');
    if (!/^[0-9a-f]{40,64}$/.test(hash.trim())) continue;
    const changesLines = lines.some((line) => {
      const match = /^(\d+|-)\t(\d+|-)\t/.exec(line);
      return match !== null && (match[1] !== '0' || match[2] !== '0');
    });
    result.set(hash.trim(), !changesLines);
  }
  return result;
}

/**
 * Per commit hash, the id of its change from `git log -p` output, computed here the way
 * `git patch-id --stable` does: each file's diff lines (the file names and the added and removed
 * lines, all whitespace removed; hunk positions and context left out) hashed on their own, and the
 * files' hashes combined in name order, so the same change has the same id whatever its hash,
 * message, parent, line numbers or file order. A commit with no changed line has none.
 */
export function patchIdsOf(output: string): Map<string, string> {
  const result = new Map<string, string>();
  let commit: string | undefined;
  let files = new Map<string, Hash>();
  let file: Hash | undefined;
  let changed = false;
  const close = () => {
    if (commit === undefined || !changed) return;
    const whole = createHash('sha1');
    for (const name of [...files.keys()].sort()) whole.update((files.get(name) as Hash).digest('hex'));
    result.set(commit, whole.digest('hex'));
  };
  for (const line of output.split('\n')) {
    const header = /^commit ([0-9a-f]{40,64})$/.exec(line);
    if (header) {
      close();
      commit = header[1];
      files = new Map();
      file = undefined;
      changed = false;
    } else if (line.startsWith('diff --git ')) {
      file = createHash('sha1').update(line.replace(/\s/g, ''));
      files.set(line, file);
    } else if (file && (line.startsWith('+') || line.startsWith('-')) && !line.startsWith('+++ ') && !line.startsWith('--- ')) {
      file.update(line.replace(/\s/g, ''));
      file.update('\n');
      changed = true;
    }
  }
  close();
  return result;
}

/**
 * The content facts of the commits after `from` up to `to` (at most `max`), by hash. A commit git
 * could not describe in time is absent: its credit is then judged without these facts.
 */
export async function readCommitContent(runGit: GitRunner, directory: string, from: string | undefined, to: string, max: number): Promise<Map<string, CommitContent>> {
  const content = new Map<string, CommitContent>();
  try {
    const [stat, ids] = await Promise.all([
      runGit(directory, whitespaceFreeStatArgs(from, to, max), CONTENT_TIMEOUT_MS),
      runGit(directory, patchLogArgs(from, to, max), CONTENT_TIMEOUT_MS),
    ]);
    const patchIdOf = patchIdsOf(ids);
    for (const [hash, whitespaceOnly] of parseWhitespaceFreeStat(stat)) {
      const patchId = patchIdOf.get(hash);
      content.set(hash, { whitespaceOnly, ...(patchId ? { patchId } : {}) });
    }
  } catch {
    // Credit facts are extra evidence: without them the commit is judged as before, and tracking goes on.
  }
  return content;
}

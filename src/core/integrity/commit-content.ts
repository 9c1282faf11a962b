/**
 * What a commit changes in CONTENT, in git's own terms, so credit can tell new work from the same
 * work again: the patch id (`git patch-id --stable`: the same change has the same id whatever its
 * hash, message or parent, and whitespace does not count) and whether any line changes once
 * whitespace is ignored (`git log -w --numstat`). Read once per bash call that made commits.
 */
import { spawn } from 'node:child_process';

/** Runs `git <args>` in a folder and returns its output (the project's runner: simple-git, argument arrays). */
export type GitRunner = (directory: string, args: string[], timeoutMs: number) => Promise<string>;

/** What credit needs to know about one commit's content. */
export interface CommitContent {
  /** `git patch-id --stable` of its change; absent for a commit with no textual change (empty, merge). */
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

/** The `git log` arguments whose output `git patch-id --stable` reads. */
export function patchLogArgs(from: string | undefined, to: string, max: number): string[] {
  return ['log', '-p', '--no-color', '--no-ext-diff', '--no-renames', `--max-count=${max}`, '--format=commit %H', range(from, to), '--'];
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

/** Per commit hash, its patch id, from `git patch-id` output (`<patch id> <commit>` per line). */
export function parsePatchIds(output: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const line of output.split('\n')) {
    const match = /^([0-9a-f]{40,64}) ([0-9a-f]{40,64})$/.exec(line.trim());
    if (match) result.set(match[2] as string, match[1] as string);
  }
  return result;
}

/**
 * `git log -p … | git patch-id --stable`, as two processes with argument arrays joined by a pipe
 * (no shell): the diff streams through and is never held whole. Both are stopped after the timeout.
 */
function patchIds(directory: string, logArgs: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const log = spawn('git', logArgs, { cwd: directory, stdio: ['ignore', 'pipe', 'ignore'] });
    const ids = spawn('git', ['patch-id', '--stable'], { cwd: directory, stdio: ['pipe', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      log.kill('SIGKILL');
      ids.kill('SIGKILL');
      reject(new Error(`git patch-id gave no answer in ${timeoutMs} ms`));
    }, timeoutMs);
    const chunks: Buffer[] = [];
    // patch-id ending first (an error) must not turn the pipe's EPIPE into an unhandled error.
    ids.stdin.on('error', () => undefined);
    log.on('error', reject);
    ids.on('error', reject);
    log.stdout.pipe(ids.stdin);
    ids.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    ids.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(new Error(`git patch-id exited with ${String(code)}`));
    });
  });
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
      patchIds(directory, patchLogArgs(from, to, max), CONTENT_TIMEOUT_MS),
    ]);
    const patchIdOf = parsePatchIds(ids);
    for (const [hash, whitespaceOnly] of parseWhitespaceFreeStat(stat)) {
      const patchId = patchIdOf.get(hash);
      content.set(hash, { whitespaceOnly, ...(patchId ? { patchId } : {}) });
    }
  } catch {
    // Credit facts are extra evidence: without them the commit is judged as before, and tracking goes on.
  }
  return content;
}

/**
 * The git-history fallback of prior-art search: keyword matches in the recent commit messages of
 * known project folders. Git runs through simple-git with argument arrays, at most
 * MAX_COMMITS_PER_PROJECT commits and GIT_LOG_TIMEOUT_MS per project; a folder that is missing,
 * is not a repository or times out gives no matches, never an error.
 */
import fs from 'node:fs/promises';
import { runGit } from './git.js';
import type { GitLogMatch } from '../../contract/answers.js';
export type { GitLogMatch } from '../../contract/answers.js';

export const MAX_COMMITS_PER_PROJECT = 200;
export const GIT_LOG_TIMEOUT_MS = 5000;
/** Projects searched at once: bounded so a long list does not start dozens of git processes. */
const CONCURRENT_PROJECTS = 4;
const RECORD_SEPARATOR = '\u001e';
const FIELD_SEPARATOR = '\u001f';

/** The arguments of the `git log` that lists a project's recent commits (hash and subject). */
export function gitLogArgs(maxCommits = MAX_COMMITS_PER_PROJECT): string[] {
  return [
    '-c',
    'log.showSignature=false',
    'log',
    `--max-count=${maxCommits}`,
    '--no-color',
    `--format=%H${FIELD_SEPARATOR}%s${RECORD_SEPARATOR}`,
  ];
}

/** Parses the output of `gitLogArgs` into hash and subject pairs, newest first. */
export function parseGitLog(output: string): { hash: string; message: string }[] {
  const commits: { hash: string; message: string }[] = [];
  for (const record of output.split(RECORD_SEPARATOR)) {
    const [hash = '', message = ''] = record.split(FIELD_SEPARATOR);
    const trimmed = hash.trim();
    if (/^[0-9a-f]{40,64}$/.test(trimmed)) commits.push({ hash: trimmed, message: message.trim() });
  }
  return commits;
}

/** Lowercased words of a text (letters and digits of any script). */
function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
}

/** The keywords as searched: lowercased single words, without repeats. */
export function normalizeKeywords(keywords: readonly string[]): string[] {
  return [...new Set(keywords.flatMap(wordsOf))];
}

/**
 * The share of keywords found in a message. A keyword matches a word it equals or begins
 * ("migrat" matches "migration"), so stems from a tokenizer still find their words.
 */
export function keywordRelevance(message: string, keywords: readonly string[]): number {
  if (keywords.length === 0) return 0;
  const words = wordsOf(message);
  const found = keywords.filter((keyword) => words.some((word) => word.startsWith(keyword))).length;
  return found / keywords.length;
}

/** A project's recent commits, or none when the folder is missing, not a repository, or git is too slow. */
async function recentCommits(projectPath: string, timeoutMs: number): Promise<{ hash: string; message: string }[]> {
  const stats = await fs.stat(projectPath).catch(() => undefined);
  if (!stats?.isDirectory()) return [];
  try {
    return parseGitLog(await runGit(projectPath, gitLogArgs(), timeoutMs, AbortSignal.timeout(timeoutMs)));
  } catch {
    return [];
  }
}

export interface GitLogSearchOptions {
  /** Per project; defaults to GIT_LOG_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Searches the recent history of each project for commits whose message contains the keywords.
 * Returns at most `limit` matches, most relevant first (then newest first within a project, and
 * in the order the projects were given).
 */
export async function searchGitLog(
  projectPaths: readonly string[],
  keywords: readonly string[],
  limit: number,
  options: GitLogSearchOptions = {},
): Promise<GitLogMatch[]> {
  const terms = normalizeKeywords(keywords);
  const paths = [...new Set(projectPaths)];
  if (terms.length === 0 || paths.length === 0 || limit <= 0) return [];
  const timeoutMs = options.timeoutMs ?? GIT_LOG_TIMEOUT_MS;

  const perProject: GitLogMatch[][] = new Array(paths.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const index = next;
      next += 1;
      const projectPath = paths[index] as string;
      const matches: GitLogMatch[] = [];
      for (const commit of await recentCommits(projectPath, timeoutMs)) {
        const relevanceScore = keywordRelevance(commit.message, terms);
        if (relevanceScore > 0) matches.push({ projectPath, commitHash: commit.hash, message: commit.message, relevanceScore });
      }
      perProject[index] = matches;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_PROJECTS, paths.length) }, worker));

  // A stable sort keeps project order and newest-first within a project among equal scores.
  return perProject
    .flat()
    .sort((a, b) => b.relevanceScore - a.relevanceScore)
    .slice(0, limit);
}

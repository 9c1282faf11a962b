/**
 * The git-history fallback on real temporary repositories: one with 500 commits (made with
 * `git fast-import`), one small one, a plain folder and a missing path.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  gitLogArgs,
  keywordRelevance,
  MAX_COMMITS_PER_PROJECT,
  normalizeKeywords,
  parseGitLog,
  searchGitLog,
} from '../../src/core/projects/git-log-search.js';
import { git } from '../helpers/sandbox.js';

const BIG_REPO_COMMITS = 500;
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };

/** The message of commit `i` (0 = oldest) in the big repository. */
function bigMessage(i: number): string {
  if (i === 10) return 'Add legacy importer';
  if (i % 50 === 0) return `Fix parser crash on empty input #${i}`;
  if (i % 25 === 0) return `Refactor parser tables #${i}`;
  return `chore: bump counter to ${i}`;
}

/** A repository with `count` commits, written in one `git fast-import` run. */
function makeBigRepo(dir: string, count: number): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '--quiet', '--initial-branch=main'], env);
  const parts: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const message = Buffer.from(bigMessage(i));
    const content = Buffer.from(`${i}\n`);
    parts.push(
      'commit refs/heads/main',
      `mark :${i + 1}`,
      `committer t <t@example.test> ${1_700_000_000 + i} +0000`,
      `data ${message.length}`,
      message.toString(),
      ...(i > 0 ? [`from :${i}`] : []),
      'M 644 inline counter.txt',
      `data ${content.length}`,
      content.toString(),
    );
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, env, input: `${parts.join('\n')}\n`, timeout: 60_000 });
  git(dir, ['checkout', '--quiet', 'main'], env);
}

function makeSmallRepo(dir: string, messages: string[]): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '--quiet', '--initial-branch=main'], env);
  for (const message of messages) git(dir, ['commit', '--quiet', '--allow-empty', '-m', message], env);
}

describe('git log fallback', () => {
  let root: string;
  let big: string;
  let small: string;
  let plain: string;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-gitlog-'));
    big = path.join(root, 'big repo');
    small = path.join(root, "small 'repo'");
    plain = path.join(root, 'not-a-repo');
    makeBigRepo(big, BIG_REPO_COMMITS);
    makeSmallRepo(small, ['Initial commit', 'Fix parser crash when the file is empty', 'Write docs']);
    fs.mkdirSync(plain);
  });

  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('made the big repository with all its commits', () => {
    expect(Number(git(big, ['rev-list', '--count', 'HEAD'], env).trim())).toBe(BIG_REPO_COMMITS);
  });

  it('reads at most 200 recent commits per project and keeps only keyword matches', async () => {
    const matches = await searchGitLog([big], ['parser'], 1000);
    const recent = Array.from({ length: BIG_REPO_COMMITS }, (_, i) => i).slice(-MAX_COMMITS_PER_PROJECT);
    const expected = recent.filter((i) => /parser/i.test(bigMessage(i))).reverse().map(bigMessage);
    expect(matches.map((m) => m.message)).toEqual(expected);
    expect(matches.every((m) => m.projectPath === big && /^[0-9a-f]{40}$/.test(m.commitHash))).toBe(true);
    // An old commit beyond the 200 most recent is not searched.
    expect(await searchGitLog([big], ['legacy', 'importer'], 10)).toEqual([]);
  });

  it('ranks by the share of keywords matched, across projects, and honours the limit', async () => {
    const matches = await searchGitLog([big, small], ['parser', 'crash', 'empty'], 3);
    expect(matches).toHaveLength(3);
    for (const match of matches) expect(match.relevanceScore).toBe(1);
    expect(matches.map((m) => m.projectPath)).toEqual([big, big, big]);
    const all = await searchGitLog([big, small], ['parser', 'crash', 'empty'], 1000);
    const scores = all.map((m) => m.relevanceScore);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(all.find((m) => m.projectPath === small)).toMatchObject({ message: 'Fix parser crash when the file is empty', relevanceScore: 1 });
    const tables = all.find((m) => m.message.startsWith('Refactor parser tables'));
    expect(tables?.relevanceScore).toBeCloseTo(keywordRelevance('Refactor parser tables', ['parser', 'crash', 'empty']), 10);
  });

  it('gives no matches, and no error, for a plain folder or a missing path', async () => {
    const missing = path.join(root, 'gone');
    await expect(searchGitLog([plain, missing], ['parser'], 10)).resolves.toEqual([]);
    const mixed = await searchGitLog([plain, small, missing], ['docs'], 10);
    expect(mixed.map((m) => [m.projectPath, m.message])).toEqual([[small, 'Write docs']]);
  });

  it('returns nothing without keywords or with a zero limit', async () => {
    expect(await searchGitLog([small], [' ', ''], 10)).toEqual([]);
    expect(await searchGitLog([small], ['docs'], 0)).toEqual([]);
  });
});

describe('git log parsing and matching', () => {
  it('passes git an argument array with the commit bound', () => {
    const args = gitLogArgs();
    expect(args).toContain('log');
    expect(args).toContain(`--max-count=${MAX_COMMITS_PER_PROJECT}`);
    expect(args.every((arg) => typeof arg === 'string')).toBe(true);
  });

  it('parses hash and subject records and skips anything else', () => {
    const hash = 'a'.repeat(40);
    expect(parseGitLog(`${hash}\u001fFix it\u001e\nfatal: nonsense\u001e`)).toEqual([{ hash, message: 'Fix it' }]);
  });

  it('matches keywords as words or word prefixes, case-insensitively', () => {
    expect(normalizeKeywords(['Parser', 'parser', 'db-migration'])).toEqual(['parser', 'db', 'migration']);
    expect(keywordRelevance('Add DB migrations', ['migration', 'db'])).toBe(1);
    expect(keywordRelevance('Add DB migrations', ['migration', 'cache'])).toBe(0.5);
    expect(keywordRelevance('remigration', ['migration'])).toBe(0);
  });
});

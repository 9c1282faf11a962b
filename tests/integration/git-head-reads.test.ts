/**
 * The git the plugin runs around a bash call. Around one that may make a commit it reads HEAD before and
 * after and records the commits in between; around read-only git (`git status`, `git diff`, `git log`)
 * it runs no git of its own, so the agent's call waits for no extra process. The built plugin runs in a
 * child whose PATH starts with a `git` that logs each run before it hands over to the real one (a child,
 * because git is spawned with the process's real environment, which a test file cannot change).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import { makeRepo, makeSandbox, removeSandbox, ROOT } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

const BUILT_ENTRY = path.join(ROOT, 'dist', 'opencode', 'plugin.js');
const CHILD_TIMEOUT_MS = 60_000;
const MARK = 'GIT-RUNS ';
const HEAD_READ = 'rev-parse --verify --quiet HEAD^{commit}';

/** Each command as one bash call through the plugin's hooks; prints the plugin's git runs per call. */
const SCRIPT = `
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
const client = { app: { log: async () => ({}) }, tui: { showToast: async () => ({}) } };
const directory = process.cwd();
const { default: plugin } = await import(${JSON.stringify(pathToFileURL(BUILT_ENTRY).href)});
const hooks = await plugin.server({ client, project: { id: 'p', worktree: directory }, directory, worktree: directory, serverUrl: new URL('http://127.0.0.1:1'), $: undefined }, {});
const runs = [];
for (const [index, command] of JSON.parse(process.env.CALLS).entries()) {
  fs.rmSync(process.env.RUNS_LOG, { force: true });
  const call = { tool: 'bash', sessionID: 'ses_1', callID: 'call_' + index };
  await hooks['tool.execute.before'](call, { args: { command } });
  execFileSync('/bin/sh', ['-c', command], { cwd: directory, env: { ...process.env, PATH: process.env.REAL_PATH }, stdio: 'ignore' });
  await hooks['tool.execute.after']({ ...call, args: { command } }, { title: command, output: '', metadata: { exit: 0 } });
  runs.push(fs.existsSync(process.env.RUNS_LOG) ? fs.readFileSync(process.env.RUNS_LOG, 'utf8').trim().split('\\n') : []);
}
console.log(${JSON.stringify(MARK)} + JSON.stringify(runs));
`;

let sandbox: Sandbox;
let repo: string;
beforeAll(() => {
  sandbox = makeSandbox();
  repo = makeRepo(sandbox);
});
afterAll(() => removeSandbox(sandbox));

/** The real git: the first executable `git` on PATH. */
function realGit(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'git');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  throw new Error('git is not on PATH');
}

/** Runs the commands as bash calls of one session in the built plugin; the plugin's own git runs per call. */
function bashCalls(commands: string[], cwd = repo): string[][] {
  const bin = path.join(sandbox.root, 'logging-bin');
  const log = path.join(sandbox.root, 'git-runs.log');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit()}' "$@"\n`, { mode: 0o755 });
  const script = path.join(sandbox.root, 'calls.mjs');
  fs.writeFileSync(script, SCRIPT);
  const env = {
    ...sandbox.env,
    PATH: `${bin}${path.delimiter}${sandbox.env.PATH ?? ''}`,
    REAL_PATH: sandbox.env.PATH,
    RUNS_LOG: log,
    AGENT_TRACKER_DB_PATH: sandbox.dbPath,
    CALLS: JSON.stringify(commands),
    AGENT_TRACKER_IMPORT_HISTORY: '0',
    AGENT_TRACKER_SKIP_SETUP: '1',
  };
  const result = spawnSync(process.execPath, [script], { cwd, env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  const line = result.stdout.split('\n').find((text) => text.startsWith(MARK));
  if (!line) throw new Error(`the built plugin did not run (exit ${result.status}): ${result.stderr}`);
  // The settings every tracker git call starts with (`-c core.fsmonitor=false …`) are left out.
  return (JSON.parse(line.slice(MARK.length)) as string[][]).map((lines) => lines.map((text) => text.replace(/^(-c \S+ )+/, '')));
}

function recordedCommitMessages(): string[] {
  const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: 64 * 1024 * 1024, readOnly: true });
  try {
    return [...store.tables.commits.getRange()].map(({ value }) => value.message);
  } finally {
    store.close();
  }
}

describe('the git the plugin runs around a bash call', () => {
  it('none around read-only git; around a call that may commit, only the log of what it made, HEAD being read from the files', () => {
    const runs = bashCalls([
      'git status --short && git log --oneline -1 | head -1; git -C . diff HEAD',
      'git status --short && echo two > two.txt && git add two.txt && git commit -q -m "add two"',
      'git -c color.ui=never branch --list',
    ]);
    expect(runs[0]).toEqual([]);
    // HEAD before and after comes from .git/HEAD and the branch's ref; git runs only to read what was
    // made in between, and only when HEAD moved.
    expect(runs[1]?.filter((line) => line === HEAD_READ)).toEqual([]);
    expect(runs[1]?.some((line) => line.startsWith('log '))).toBe(true);
    expect(runs[2]?.filter((line) => line === HEAD_READ || line.startsWith('log '))).toEqual([]);
    expect(recordedCommitMessages()).toEqual(['add two']);
  });

  it('asks git for HEAD where the files do not tell it (a worktree), and records the commit all the same', () => {
    const worktree = path.join(sandbox.root, 'worktree');
    spawnSync('git', ['worktree', 'add', '-q', worktree, '-b', 'side'], { cwd: repo, env: sandbox.env, encoding: 'utf8' });
    const runs = bashCalls(['echo three > three.txt && git add three.txt && git commit -q -m "add three"', 'git branch --list'], worktree);
    expect(runs[0]?.filter((line) => line === HEAD_READ)).toHaveLength(2);
    expect(runs[0]?.some((line) => line.startsWith('log '))).toBe(true);
    expect(runs[1]?.filter((line) => line === HEAD_READ)).toHaveLength(2);
    expect(runs[1]?.some((line) => line.startsWith('log '))).toBe(false);
    expect(recordedCommitMessages()).toContain('add three');
  });
});

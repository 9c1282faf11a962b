/**
 * Programs an agent can name in a project's `.git/config` (a textconv filter, a signature verifier, a
 * file-system monitor, a content filter) and git would run during the tracker's own reads: after an agent's commit, at a
 * session's start, and from `agent-tracker report`/`recommend`/`status` in the user's terminal, where
 * such a program would act with the user's terminal (a revive the record takes as the user's). A temp
 * repository with each one planted; every tracker read still answers, and none of them runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { commitsSince, readWorkingTreeChanges } from '../../src/core/projects/git.js';
import { readBranch } from '../../src/core/outcomes/git-outcomes.js';
import { git, makeRepo, makeSandbox, removeSandbox } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let repo: string;
/** Every planted program appends its name here when git runs it. */
let ranLog: string;
let first: string;
let head: string;

/** A shell command that notes `name` in the log, then passes its input through as a filter would. */
function planted(name: string): string {
  return `sh -c 'echo ${name} >> ${ranLog}; cat "$1" 2>/dev/null' --`;
}

/** A commit object carrying a signature header: `log.showSignature` makes git hand it to `gpg.program`. */
function signedLookingCommit(message: string): string {
  const tree = git(repo, ['rev-parse', 'HEAD^{tree}']).trim();
  const parent = git(repo, ['rev-parse', 'HEAD']).trim();
  const stamp = `${Math.floor(Date.now() / 1000)} +0000`;
  const body = `tree ${tree}\nparent ${parent}\nauthor A <a@example.test> ${stamp}\ncommitter A <a@example.test> ${stamp}\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\n${message}\n`;
  const file = path.join(sandbox.root, 'commit-object');
  fs.writeFileSync(file, body);
  const hash = git(repo, ['hash-object', '-t', 'commit', '-w', file]).trim();
  git(repo, ['update-ref', 'HEAD', hash]);
  return hash;
}

beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-git-planted-');
  repo = makeRepo(sandbox, 'planted');
  ranLog = path.join(sandbox.root, 'ran.log');
  first = git(repo, ['rev-parse', 'HEAD']).trim();
  // What an agent's bash can do without a word git status shows: config and info/attributes live in .git.
  git(repo, ['config', 'diff.shown.textconv', planted('textconv')]);
  fs.appendFileSync(path.join(repo, '.git', 'info', 'attributes'), '* diff=shown\n');
  git(repo, ['config', 'core.fsmonitor', planted('fsmonitor')]);
  const verifier = path.join(sandbox.root, 'verifier.sh');
  fs.writeFileSync(verifier, `#!/bin/sh\necho gpg >> ${ranLog}\n`, { mode: 0o755 });
  git(repo, ['config', 'gpg.program', verifier]);
  git(repo, ['config', 'log.showSignature', 'true']);
  fs.writeFileSync(path.join(repo, 'work.txt'), 'one\n');
  git(repo, ['add', 'work.txt'], sandbox.env);
  git(repo, ['commit', '-q', '-m', 'feat: work'], sandbox.env);
  fs.appendFileSync(path.join(repo, 'work.txt'), 'two\n');
  git(repo, ['commit', '-q', '-am', 'fix: more work'], sandbox.env);
  head = signedLookingCommit('chore: signed');
  // A content filter, run by status on a file whose stat changed: as a plain program and as a long-running one.
  git(repo, ['config', 'filter.cleaned.clean', `sh -c 'echo clean >> ${ranLog}; cat'`]);
  git(repo, ['config', 'filter.served.process', `sh -c 'echo process >> ${ranLog}; exit 1'`]);
  fs.appendFileSync(path.join(repo, '.git', 'info', 'attributes'), '*.txt filter=cleaned\nwork.txt filter=served\n');
  fs.writeFileSync(path.join(repo, 'pending.txt'), 'not committed\n');
  fs.rmSync(ranLog, { force: true });
});

afterAll(() => removeSandbox(sandbox));

/** What the planted programs noted while `read` ran. */
async function ranDuring(read: () => Promise<unknown>): Promise<string[]> {
  fs.rmSync(ranLog, { force: true });
  await read();
  return fs.existsSync(ranLog) ? fs.readFileSync(ranLog, 'utf8').trim().split('\n') : [];
}

describe("the tracker's git reads in a repository whose config names programs", () => {
  it('reads the commits a call made, with their content, and runs none of them', async () => {
    let commits: Awaited<ReturnType<typeof commitsSince>> = [];
    expect(await ranDuring(async () => (commits = await commitsSince(repo, first, head, 0)))).toEqual([]);
    expect(commits.map((commit) => commit.message.trim())).toEqual(['feat: work', 'fix: more work', 'chore: signed']);
    expect(commits[0]?.patchId).toMatch(/^[0-9a-f]{40}$/);
  });

  it('reads the branch for the git signals, with its diffs, and runs none of them', async () => {
    let branch: Awaited<ReturnType<typeof readBranch>>;
    expect(await ranDuring(async () => (branch = await readBranch(repo)))).toEqual([]);
    expect(branch?.map((commit) => commit.subject)).toEqual(['initial commit', 'feat: work', 'fix: more work', 'chore: signed']);
  });

  /** A repository (under the sandbox, named by `name`) whose submodule `sub` has one commit of inner.txt. */
  function superprojectWithSubmodule(name: string): string {
    const sub = path.join(sandbox.root, `sub-${name}`);
    fs.mkdirSync(sub);
    git(sub, ['init', '-q', '-b', 'main'], sandbox.env);
    fs.writeFileSync(path.join(sub, 'inner.txt'), 'inner\n');
    git(sub, ['add', 'inner.txt'], sandbox.env);
    git(sub, ['commit', '-q', '-m', 'inner'], sandbox.env);
    const top = path.join(sandbox.root, `top-${name}`);
    fs.mkdirSync(top);
    git(top, ['init', '-q', '-b', 'main'], sandbox.env);
    git(top, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'sub'], sandbox.env);
    git(top, ['commit', '-q', '-m', 'add sub'], sandbox.env);
    return top;
  }

  it("reads a submodule's change as its commit line, never diffing inside it under its own config", async () => {
    const top = superprojectWithSubmodule('diffed');
    const before = git(top, ['rev-parse', 'HEAD']).trim();
    // The superproject asks for submodule diffs; the submodule's own config names a textconv program.
    git(top, ['config', 'diff.submodule', 'diff']);
    const inner = path.join(top, 'sub');
    git(inner, ['config', 'diff.inner.textconv', planted('submodule textconv')]);
    fs.appendFileSync(path.join(git(inner, ['rev-parse', '--absolute-git-dir']).trim(), 'info', 'attributes'), '* diff=inner\n');
    fs.appendFileSync(path.join(inner, 'inner.txt'), 'more\n');
    git(inner, ['commit', '-q', '-am', 'more inner'], sandbox.env);
    git(top, ['commit', '-q', '-am', 'bump sub'], sandbox.env);
    const after = git(top, ['rev-parse', 'HEAD']).trim();
    expect(await ranDuring(() => readBranch(top))).toEqual([]);
    expect(await ranDuring(() => commitsSince(top, before, after, 0))).toEqual([]);
  });

  it("does not go into a submodule, whose own config names a filter", async () => {
    const top = superprojectWithSubmodule('filtered');
    const inner = path.join(top, 'sub');
    git(inner, ['config', 'filter.inner.clean', `sh -c 'echo submodule >> ${ranLog}; cat'`]);
    fs.appendFileSync(path.join(git(inner, ['rev-parse', '--absolute-git-dir']).trim(), 'info', 'attributes'), '* filter=inner\n');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(inner, 'inner.txt'), later, later);
    expect(await ranDuring(() => readWorkingTreeChanges(top))).toEqual([]);
  });

  it('reads the pending changes for the status sheet and runs none of them, a file touched since included', async () => {
    // A stat that no longer matches the index makes status read the file through its filter.
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(repo, 'work.txt'), later, later);
    let changes: Awaited<ReturnType<typeof readWorkingTreeChanges>>;
    expect(await ranDuring(async () => (changes = await readWorkingTreeChanges(repo)))).toEqual([]);
    expect(changes).toEqual([{ code: '??', path: 'pending.txt' }]);
  });
});

/**
 * A replayed commit is recorded, and earns, only when the project's git holds it, made while the call
 * that claims it ran (src/core/backfill/commit-witness.ts): OpenCode's history is a file an agent can
 * write, so a session made up there must not earn. Real repositories, a temporary LMDB; the expected
 * figures are counted from the commits each test makes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { oldestWitnessable, readProjectCommits } from '../../src/core/backfill/commit-witness.js';
import type { HostSession, HostToolCall } from '../../src/core/backfill/history.js';
import { ReplayLedger } from '../../src/core/backfill/replay-ledger.js';
import { replaySession } from '../../src/core/backfill/replay-session.js';
import { repoWithCommits } from '../helpers/printed-commits.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const tempDir = useTempDirs('agent-tracker-commit-witness-');
let tracker: TempTracker | undefined;
afterEach(() => {
  tracker?.dispose();
  tracker = undefined;
});

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const NO_TOKENS = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
const USAGE_KEY = ['ses_past', 'build', 'anthropic/claude'] as const;
const dated = (at: number) => ({ ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_DATE: `@${Math.floor(at / 1000)} +0000`, GIT_COMMITTER_DATE: `@${Math.floor(at / 1000)} +0000` });

/** One past session of `build` whose bash calls are `calls`. */
function pastSession(repo: string, calls: HostToolCall[]): HostSession {
  return {
    id: 'ses_past',
    directory: repo,
    title: 'past work',
    createdAt: T0,
    updatedAt: T0 + 600_000,
    messages: [{ id: 'msg_1', role: 'assistant', agent: 'build', model: 'anthropic/claude', tokens: NO_TOKENS, cost: 0, createdAt: T0 + 1000, tools: calls }],
  };
}

/** A bash call that ran from `from` to `to` and printed `output`. */
const call = (id: string, command: string, output: string, from: number, to: number): HostToolCall => ({ callId: id, tool: 'bash', status: 'completed', command, output, exit: 0, startedAt: from, endedAt: to });

async function replay(repo: string, session: HostSession): Promise<TempTracker> {
  const made = tempTracker({}, repo);
  replaySession(made.service, session, repo, undefined, await readProjectCommits(repo));
  made.service.flush('backfill');
  return made;
}

describe('a replayed commit the project\'s git does not hold', () => {
  it('is counted, not recorded, and earns nothing when the hash it printed names no commit', async () => {
    const { repo } = repoWithCommits(tempDir(), ['feat: real work'], [T0 + 2000]);
    const forged = call('prt_forged', 'git commit -am "feat: forged"', '[main abc00f1] feat: forged\n 1 file changed', T0 + 3000, T0 + 4000);
    tracker = await replay(repo, pastSession(repo, [forged]));

    expect(tracker.store.tables.usage.get([...USAGE_KEY])).toMatchObject({ commits: 1 });
    expect([...tracker.store.tables.commits.getKeys()]).toEqual([]);
    // The sheet is that of the same call making no commit: the tool call earned, the claim nothing.
    const control = await replay(repo, pastSession(repo, [{ ...forged, command: 'git status', output: undefined }]));
    try {
      const { sp, xp, commits } = control.store.tables.agents.get('build') ?? {};
      expect(tracker.store.tables.agents.get('build')).toMatchObject({ sp, xp, commits });
    } finally {
      control.dispose();
    }
  });

  it('earns nothing when the commit it names was made outside the call (the user\'s own commit, an hour before)', async () => {
    const { repo, printed } = repoWithCommits(tempDir(), ['feat: the user\'s work'], [T0 - 3_600_000]);
    const claim = call('prt_claim', 'git commit -am "feat: the user\'s work"', printed[0] ?? '', T0 + 3000, T0 + 4000);
    tracker = await replay(repo, pastSession(repo, [claim]));

    expect(tracker.store.tables.usage.get([...USAGE_KEY])).toMatchObject({ commits: 1 });
    expect([...tracker.store.tables.commits.getKeys()]).toEqual([]);
    expect(tracker.store.tables.agents.get('build')?.commits ?? 0).toBe(0);
  });

  it('earns nothing when the project\'s folder is gone (nothing to check it against)', async () => {
    const { repo, printed } = repoWithCommits(tempDir(), ['feat: parser'], [T0 + 3500]);
    const session = pastSession(repo, [call('prt_1', 'git commit -am "feat: parser"', printed[0] ?? '', T0 + 3000, T0 + 4000)]);
    fs.rmSync(repo, { recursive: true, force: true });
    tracker = await replay(repo, session);

    expect(tracker.store.tables.usage.get([...USAGE_KEY])).toMatchObject({ commits: 1 });
    expect([...tracker.store.tables.commits.getKeys()]).toEqual([]);
    expect(tracker.store.tables.agents.get('build')?.commits ?? 0).toBe(0);
  });
});

describe('a replayed commit the project\'s git holds', () => {
  it('is recorded under the hash it printed and earns, as live tracking would', async () => {
    const { repo, printed } = repoWithCommits(tempDir(), ['feat: parser', 'feat: lexer'], [T0 + 3500, T0 + 5500]);
    const calls = printed.map((output, i) => call(`prt_${i}`, `git commit -am "change ${i}"`, output, T0 + 3000 + 2000 * i, T0 + 4000 + 2000 * i));
    tracker = await replay(repo, pastSession(repo, calls));

    const heads = ['HEAD~1', 'HEAD'].map((ref) => execFileSync('git', ['rev-parse', '--short=7', ref], { cwd: repo, encoding: 'utf8' }).trim());
    expect([...tracker.store.tables.commits.getKeys()].map(([, hash]) => hash).sort()).toEqual([...heads].sort());
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(2);
  });

  it('made by `git commit -q` (no hash printed) is found by its time, recorded under its full hash, and takes the user\'s grade', async () => {
    const { repo } = repoWithCommits(tempDir(), ['chore: start'], [T0 - 60_000]);
    fs.writeFileSync(path.join(repo, 'quiet.txt'), 'quiet\n');
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['commit', '-q', '-m', 'feat: quiet work'], { cwd: repo, env: dated(T0 + 3500) });
    const full = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    tracker = await replay(repo, pastSession(repo, [{ ...call('prt_q', 'git add -A && git commit -q -m "feat: quiet work"', '', T0 + 3000, T0 + 4000), output: undefined }]));

    // Its file list is not read (a replayed commit's never is): none is made up either.
    expect(tracker.store.tables.commits.get([repo, full])).toMatchObject({ message: 'feat: quiet work', agent: 'build', sessionId: 'ses_past', files: [] });
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(1);
    const graded = tracker.service.gradeAsUser({ project: repo, commit: full, grade: 5, note: 'fine', via: 'cli' });
    expect(graded.grade).toMatchObject({ commit: full, grade: 5 });
  });

  it('takes for a quiet commit only one no other call claimed, whichever was made in the same seconds', async () => {
    const { repo, printed } = repoWithCommits(tempDir(), ['feat: named'], [T0 + 3200]);
    fs.writeFileSync(path.join(repo, 'quiet.txt'), 'quiet\n');
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['commit', '-q', '-m', 'feat: quiet'], { cwd: repo, env: dated(T0 + 3600) });
    const quiet = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    const named = call('prt_named', 'git commit -am "feat: named"', printed[0] ?? '', T0 + 3000, T0 + 3300);
    const unnamed = { ...call('prt_quiet', 'git commit -q -am "feat: quiet"', '', T0 + 3000, T0 + 4000), output: undefined };
    tracker = await replay(repo, pastSession(repo, [named, unnamed]));

    const named7 = execFileSync('git', ['rev-parse', '--short=7', 'HEAD~1'], { cwd: repo, encoding: 'utf8' }).trim();
    expect([...tracker.store.tables.commits.getKeys()].map(([, hash]) => hash).sort()).toEqual([named7, quiet].sort());
    expect(tracker.store.tables.usage.get([...USAGE_KEY])).toMatchObject({ commits: 2 });
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(2);
  });
});

describe('a commit git made during a quiet call, already claimed', () => {
  it('by the same call, which printed it: the call\'s quiet commit is the other one', async () => {
    // The named one first (the older: the first a quiet commit's lookup would find), the quiet one a second later.
    const { repo, printed } = repoWithCommits(tempDir(), ['feat: named'], [T0 + 2200]);
    fs.writeFileSync(path.join(repo, 'quiet.txt'), 'quiet\n');
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['commit', '-q', '-m', 'feat: quiet'], { cwd: repo, env: dated(T0 + 3600) });
    const quiet = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    const named7 = execFileSync('git', ['rev-parse', '--short=7', 'HEAD~1'], { cwd: repo, encoding: 'utf8' }).trim();
    const both = call('prt_both', 'git commit -am "feat: named" && git commit -qam "feat: quiet"', printed[0] ?? '', T0 + 2000, T0 + 4000);
    tracker = await replay(repo, pastSession(repo, [both]));

    expect([...tracker.store.tables.commits.getKeys()].map(([, hash]) => hash).sort()).toEqual([named7, quiet].sort());
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(2);
  });

  /** A repository whose one commit after its start was made quietly at `at`; its full hash. */
  function quietRepo(at: number): { repo: string; quiet: string } {
    const { repo } = repoWithCommits(tempDir(), ['chore: start'], [T0 - 60_000]);
    fs.writeFileSync(path.join(repo, 'quiet.txt'), 'quiet\n');
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['commit', '-q', '-m', 'feat: quiet'], { cwd: repo, env: dated(at) });
    return { repo, quiet: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim() };
  }
  const quietCall = (id: string, from: number, to: number): HostToolCall => ({ ...call(id, 'git commit -qam "feat: quiet"', '', from, to), output: undefined });
  const session = (id: string, repo: string, calls: HostToolCall[]): HostSession => ({ ...pastSession(repo, calls), id });

  it('by an earlier session of the same run is not taken again (both counted, one recorded and credited)', async () => {
    const { repo, quiet } = quietRepo(T0 + 3500);
    tracker = tempTracker({}, repo);
    const ledger = new ReplayLedger(tracker.store, true);
    const witness = await readProjectCommits(repo);
    for (const id of ['ses_first', 'ses_second']) replaySession(tracker.service, session(id, repo, [quietCall(`prt_${id}`, T0 + 3000, T0 + 4000)]), repo, ledger, witness);
    tracker.service.flush('backfill');

    expect([...tracker.store.tables.commits.getKeys()]).toEqual([[repo, quiet]]);
    expect(tracker.store.tables.commits.get([repo, quiet])?.sessionId).toBe('ses_first');
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(1);
  });

  it('by a session an earlier run recorded under the seven characters git printed is not taken again', async () => {
    const { repo, quiet } = quietRepo(T0 + 3500);
    tracker = tempTracker({}, repo);
    const printed = `[main ${quiet.slice(0, 7)}] feat: quiet\n 1 file changed\n`;
    replaySession(tracker.service, session('ses_printed', repo, [call('prt_printed', 'git commit -am "feat: quiet"', printed, T0 + 3000, T0 + 4000)]), repo, new ReplayLedger(tracker.store, true), await readProjectCommits(repo));
    tracker.service.flush('backfill');
    replaySession(tracker.service, session('ses_quiet', repo, [quietCall('prt_quiet', T0 + 3000, T0 + 4000)]), repo, new ReplayLedger(tracker.store, true), await readProjectCommits(repo));
    tracker.service.flush('backfill');

    expect([...tracker.store.tables.commits.getKeys()]).toEqual([[repo, quiet.slice(0, 7)]]);
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(1);
  });

  it('is not taken by a call that printed all its commits, even when git made another one in the same seconds', async () => {
    const { repo } = quietRepo(T0 + 3500);
    const start = execFileSync('git', ['rev-parse', '--short=7', 'HEAD~1'], { cwd: repo, encoding: 'utf8' }).trim();
    // One call from before the first commit to after the quiet one, that printed the first only.
    tracker = await replay(repo, pastSession(repo, [call('prt_named', 'git commit -am "chore: start"', `[main ${start}] chore: start\n`, T0 - 61_000, T0 + 4000)]));

    expect([...tracker.store.tables.commits.getKeys()]).toEqual([[repo, start]]);
  });
});

describe("a repository's past", () => {
  it('is read from the given time on: a commit git made a second before it is not held, one made in that second is', async () => {
    const { repo } = repoWithCommits(tempDir(), ['chore: old', 'feat: edge', 'feat: new'], [T0 - 1000, T0, T0 + 60_000]);
    const anyTime = { from: T0 - 3_600_000, to: T0 + 3_600_000 };
    const subjects = (commits: { subject: string }[] | undefined) => commits?.map((commit) => commit.subject);

    expect(subjects((await readProjectCommits(repo))?.madeDuring(anyTime))).toEqual(['chore: old', 'feat: edge', 'feat: new']);
    expect(subjects((await readProjectCommits(repo, T0 + 999))?.madeDuring(anyTime))).toEqual(['feat: edge', 'feat: new']);
  });

  it('is read whole from a bound git cannot read as a time: a session of a damaged store created at 0 hides no commit', async () => {
    const { repo } = repoWithCommits(tempDir(), ['chore: old', 'feat: new'], [T0 - 1000, T0 + 60_000]);
    const commits = await readProjectCommits(repo, oldestWitnessable(0));
    expect(commits?.madeDuring({ from: T0 - 3_600_000, to: T0 + 3_600_000 }).map((commit) => commit.subject)).toEqual(['chore: old', 'feat: new']);
  });
});

describe('a folder that is no git repository', () => {
  it('has nothing to check a replayed commit against: it is counted and earns nothing', async () => {
    const folder = fs.realpathSync(tempDir());
    const claim = call('prt_1', 'git commit -am "feat: parser"', '[main 1a2b3c4] feat: parser\n', T0 + 3000, T0 + 4000);
    expect(await readProjectCommits(folder)).toBeUndefined();
    tracker = await replay(folder, pastSession(folder, [claim]));

    expect(tracker.store.tables.usage.get([...USAGE_KEY])).toMatchObject({ commits: 1 });
    expect(tracker.store.tables.commits.getKeysCount()).toBe(0);
  });
});

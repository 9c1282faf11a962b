/**
 * The routes an agent (the same OS user) used to store clean user records, replayed with real
 * processes against the built CLI and modules (needs `npm run build`): a faked terminal, a direct
 * write through the tracker's own modules, a detached process planted to revive a halted agent
 * after the session, and a write straight into LMDB around the tracker. Each is now stored as
 * suspect (or named by `doctor`) instead of clean.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { run as review } from '../../src/cli/commands/review.js';
import { compressionOf } from '../../src/core/store/compression.js';
import { silentLogger } from '../../src/core/logger.js';
import { resolveConfig } from '../../src/core/config.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { ActivityEntry, AgentRecord } from '../../src/core/types.js';
import { CLI, ROOT, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

const SESSION = 'ses_forge';
/** The variables OpenCode's bash tool gives its commands (HOST-FACTS.md); the pid is any live one. */
const AGENT_ENV = { OPENCODE_PID: String(process.pid), OPENCODE: '1', AGENT: '1' };
const CHILD_TIMEOUT_MS = 30_000;

let sandbox: Sandbox;
let repo: string;
let dbPath: string;
let commit: string;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS }).trim();
}

function openStore(readOnly = false): Store {
  return Store.open({ path: dbPath, maxDatabaseSize: 1 << 26, indexer: termIndexer, ...(readOnly ? { readOnly } : {}) });
}

function withStore<T>(action: (store: Store, service: TrackingService) => T): T {
  const store = openStore();
  try {
    const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home: sandbox.home });
    return action(store, new TrackingService({ store, config, logger: silentLogger, project: repo }));
  } finally {
    store.close();
  }
}

/** A tool call of the agent's running session: moves the session's last record to now. */
function sessionActivity(): void {
  withStore((_store, service) => {
    service.noteModelRequest(SESSION, 'build', 'fake/fake-model');
    service.recordToolCall(SESSION, `call_${Date.now()}`, 'bash', true);
    service.flush('test');
  });
}

function userActions(): NonNullable<ActivityEntry['userAction']>[] {
  const store = openStore(true);
  try {
    return [...store.tables.activities.getRange({})].flatMap(({ value }) => (value.userAction ? [value.userAction] : []));
  } finally {
    store.close();
  }
}

function agent(id: string): AgentRecord | undefined {
  const store = openStore(true);
  try {
    return store.tables.agents.get(id);
  } finally {
    store.close();
  }
}

function suspectList(): { id: string; action: string; agent?: string; signs?: string[] }[] {
  const result = runCli(sandbox, ['report', '--json', '--db', dbPath], {}, repo);
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { suspectUserActions: { id: string; action: string; agent?: string; signs?: string[] }[] }).suspectUserActions;
}

/** A shell word for `script -c`, which takes one command string (the attack's own shape). */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

beforeEach(() => {
  sandbox = makeSandbox('agent-tracker-forge-');
  repo = fs.realpathSync(fs.mkdtempSync(path.join(sandbox.root, 'repo-')));
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'T');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git('add', '-A');
  git('commit', '-qm', 'feat: a');
  commit = git('rev-parse', 'HEAD');
  dbPath = path.join(sandbox.root, 'db.lmdb');
  withStore((_store, service) => {
    service.noteModelRequest(SESSION, 'build', 'fake/fake-model');
    service.recordCommits(SESSION, [{ hash: commit, message: 'feat: a', files: [], insertions: 1, deletions: 0, timestamp: new Date().toISOString() }]);
    service.flush('test');
  });
});
afterEach(() => removeSandbox(sandbox));

describe('forged user records', () => {
  it('a) a faked terminal (script -qec) under the agent shell, variables stripped: the grade is stored as suspect, and cannot be confirmed that way', () => {
    const cli = [process.execPath, CLI, 'grade', commit, '5', '--db', dbPath].map(shellWord).join(' ');
    // Two commands, so bash stays the parent (a lone command is exec'ed in its place), as the tool's shell does.
    const attack = `env -u OPENCODE_PID -u OPENCODE -u AGENT script -qec ${shellWord(cli)} /dev/null; exit $?`;
    const result = spawnSync('bash', ['-c', attack], { cwd: repo, env: { ...sandbox.env, ...AGENT_ENV }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
    expect(result.stdout).toMatch(/Your grade 5 .* is recorded/);
    const [grade] = userActions();
    expect(grade).toMatchObject({ action: 'grade', via: 'terminal-tty', suspect: true });
    expect(grade?.signs).toEqual(expect.arrayContaining([expect.stringMatching(/\(bash\) among its parents carries OPENCODE_PID, OPENCODE, AGENT/), expect.stringMatching(/terminal was made by process \d+ \(script\)/)]));
    const [listed] = suspectList();
    expect(listed).toEqual(expect.objectContaining({ action: 'grade', agent: 'build' }));

    // The same faked terminal cannot settle its own record: the review is refused and nothing changes.
    const confirm = [process.execPath, CLI, 'review', '--confirm', listed?.id ?? '', '--db', dbPath].map(shellWord).join(' ');
    const settle = spawnSync('bash', ['-c', `env -u OPENCODE_PID -u OPENCODE -u AGENT script -qec ${shellWord(confirm)} /dev/null; exit $?`], { cwd: repo, env: { ...sandbox.env, ...AGENT_ENV }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
    expect(settle.status).toBe(1);
    expect(settle.stdout).toMatch(/a review settles suspect records, so it is refused when it comes the way an agent's would \(.*carries OPENCODE_PID/);
    expect(suspectList()).toEqual([listed]);
  });

  it('an ordinary process outside any session, with no session running, grades clean', () => {
    const stale = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.rmSync(dbPath, { force: true });
    fs.rmSync(`${dbPath}-lock`, { force: true });
    withStore((store) => {
      const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home: sandbox.home });
      const service = new TrackingService({ store, config, logger: silentLogger, project: repo, now: () => stale });
      service.noteModelRequest(SESSION, 'build', 'fake/fake-model');
      service.recordCommits(SESSION, [{ hash: commit, message: 'feat: a', files: [], insertions: 1, deletions: 0, timestamp: stale.toISOString() }]);
      service.flush('test');
    });
    const result = runCli(sandbox, ['grade', commit, '5', '--db', dbPath], {}, repo);
    expect(result.stderr).toBe('');
    expect(userActions()).toEqual([{ action: 'grade', via: 'terminal-no-tty', suspect: false }]);
    expect(suspectList()).toEqual([]);
  });

  it("c) a direct write through the tracker's own modules from the agent's shell: stored with its provenance, listed as suspect", () => {
    // The attack's script is fixed text; what it needs comes in the environment.
    const script = `
      const { Store } = await import(process.env.DIST + '/core/store/store.js');
      const { TrackingService } = await import(process.env.DIST + '/core/tracking/service.js');
      const { resolveConfig } = await import(process.env.DIST + '/core/config.js');
      const { silentLogger } = await import(process.env.DIST + '/core/logger.js');
      const { termIndexer } = await import(process.env.DIST + '/core/search/indexer.js');
      const { DEFAULT_RULES } = await import(process.env.DIST + '/core/rules.js');
      const store = Store.open({ path: process.env.DB, maxDatabaseSize: 1 << 26, indexer: termIndexer });
      const config = resolveConfig({ options: { databasePath: process.env.DB }, env: {}, home: process.env.HOME });
      const service = new TrackingService({ store, config, logger: silentLogger, project: process.env.REPO });
      service.gradeAsUser({ project: process.env.REPO, commit: process.env.COMMIT, grade: '5', note: '', via: 'cli' });
      store.applyBatch([{ table: 'agents', key: 'build', ops: [{ kind: 'xp', amount: 500 }] }], DEFAULT_RULES, new Date().toISOString());
      store.close();`;
    const env = { ...sandbox.env, ...AGENT_ENV, DIST: path.join(ROOT, 'dist'), DB: dbPath, REPO: repo, COMMIT: commit };
    const before = agent('build');
    const result = spawnSync('bash', ['-c', 'exec node --input-type=module -e "$ATTACK"'], { cwd: repo, env: { ...env, ATTACK: script }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
    expect(result.stderr).toBe('');
    // The 500 XP landed (XP turns into SP levels, so the record as a whole changed).
    expect(agent('build')).not.toEqual(before);
    const suspects = suspectList();
    expect(suspects).toEqual([expect.objectContaining({ action: 'direct write', agent: 'build' })]);
    expect(suspects[0]?.signs).toEqual(expect.arrayContaining([expect.stringMatching(/\(node\) was started with .*OPENCODE_PID.* \(from inside an agent session\)/)]));
    const doctor = runCli(sandbox, ['doctor', '--db', dbPath], {}, repo);
    expect(doctor.stdout).toMatch(/record chain +holds \(\d+ entries\); 2 written from inside an agent session/);
  });

  it('d) a detached process planted during the session (setsid, variables stripped, cwd /) revives nothing; review --confirm lifts the halt', async () => {
    withStore((store) => {
      const bugs = Array.from({ length: DEFAULT_RULES.initialSp + 1 }, () => ({ kind: 'bug' as const }));
      store.applyBatch([{ table: 'agents', key: 'build', ops: bugs }], DEFAULT_RULES, new Date().toISOString());
    });
    expect(agent('build')?.halted).toBe(true);
    const done = path.join(sandbox.root, 'planted.done');
    const out = path.join(sandbox.root, 'planted.out');
    // Planted now, while the session runs; it waits for the session's next records, then revives.
    const planted = spawnSync('setsid', ['--fork', 'sh', '-c', 'sleep 2; "$NODE" "$CLI" revive build --db "$DB" > "$OUT" 2>&1; touch "$DONE"'], {
      cwd: '/',
      env: { ...sandbox.env, NODE: process.execPath, CLI, DB: dbPath, OUT: out, DONE: done },
      stdio: 'ignore',
      timeout: CHILD_TIMEOUT_MS,
    });
    expect(planted.status).toBe(0);
    sessionActivity();
    const deadline = Date.now() + CHILD_TIMEOUT_MS;
    while (!fs.existsSync(done) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.readFileSync(out, 'utf8')).toMatch(/build stays halted: .*recorded as suspect ([0-9a-f]{8})/);
    expect(agent('build')?.halted).toBe(true);
    const [revive] = userActions();
    expect(revive).toMatchObject({ action: 'revive', via: 'terminal-no-tty', suspect: true });
    expect(revive?.signs).toEqual([expect.stringMatching(/its session was started by process \d+ \(sh\) without a terminal while an agent session ran/)]);
    const id = /recorded as suspect ([0-9a-f]{8})/.exec(fs.readFileSync(out, 'utf8'))?.[1] ?? '';

    const lines: string[] = [];
    await review(['--confirm', id, '--db', dbPath], { out: (text) => void lines.push(text), err: () => undefined }, { ask: () => Promise.resolve(undefined), facts: { env: {}, hasTty: true, opencodeAncestor: false } });
    expect(lines.join('\n')).toMatch(new RegExp(`${id} revive build .*confirmed; it no longer warns\\. build is revived\\.`));
    expect(agent('build')).toMatchObject({ halted: false, sp: 1 });
  });

  it('doctor names the agent record a direct LMDB write changed around the tracker, also after a later write through it', () => {
    sessionActivity();
    expect(runCli(sandbox, ['doctor', '--db', dbPath], {}, repo).stdout).toMatch(/record chain +holds \(\d+ entries\)\n/);
    const root = open({ path: dbPath, maxDbs: 16, compression: true });
    const agents = root.openDB<AgentRecord, string>({ name: 'agents', compression: compressionOf('agents') });
    const stored = agents.get('build') as AgentRecord;
    agents.putSync('build', { ...stored, xp: stored.xp + 500 });
    void root.close();

    const doctor = runCli(sandbox, ['doctor', '--db', dbPath], {}, repo);
    expect(doctor.stdout).toMatch(/record chain +BROKEN: agents record "build" was changed around the tracker after chain entry \d+/);
    // A later write through the tracker records the change it found instead of sealing it.
    sessionActivity();
    expect(runCli(sandbox, ['doctor', '--db', dbPath], {}, repo).stdout).toMatch(/record chain +BROKEN: agents "build" was changed around the tracker before chain entry \d+/);
  });
});

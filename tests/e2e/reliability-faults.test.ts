/**
 * Fault injection against the real `opencode` binary: damaged pages (a seeded sweep), a truncated
 * file, an unwritable folder without a lock file, a file the user cannot read, a full disk, a file of
 * a newer schema, and `kill -9` mid-turn. Each row checks what a user would notice: OpenCode finishes
 * its scripted tool calls, the user got ONE clear line with the right advice, and after the advised
 * fix (`agent-tracker repair`, a chown, freeing room) and the next start every record from before
 * the fault is back (except what repair's report names as lost), the faulted session's own record too.
 *
 * Runs as root in CI: permission rows run OpenCode as the unprivileged user 65534 through `setpriv`
 * (root ignores permission bits); the full disk is a 1 MiB tmpfs the test mounts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { open } from 'lmdb';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { CLI, makeRepo, makeSandbox, OPENCODE_BIN, removeSandbox, runBounded, runCli, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { RunResult, Sandbox } from '../helpers/sandbox.js';
import { startServe } from '../helpers/serve.js';
import { seededRandom } from '../helpers/synthetic-truth.js';

jest.setTimeout(900_000);

const REPLY = 'Finished the file.';
const PAGE_SIZE = 4096;
const SWEEP_SEED = 22;
const SWEEP_PAGES = 2;
const NOBODY = 65534;
const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
const HISTORY_KINDS = ['agents', 'sessions', 'commits', 'communication', 'retrospectives', 'activities', 'projects'];

interface RepairJson {
  tables: Record<string, { kept: number; recovered: number; lost: number | null; skippedRanges: number }>;
  snapshot: string | null;
  damagedFileKeptAt: string | null;
}

function cli(sandbox: Sandbox, db: string, args: string[], uid?: number): RunResult {
  if (uid === undefined) return runCli(sandbox, [...args, '--db', db]);
  const result = spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', process.execPath, CLI, ...args, '--db', db], {
    cwd: sandbox.root,
    env: sandbox.env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Records per kind, from `agent-tracker export`. */
function recordsOf(sandbox: Sandbox, db: string): { counts: Record<string, number>; lines: string[] } {
  const result = cli(sandbox, db, ['export']);
  if (result.code !== 0) throw new Error(`export failed: ${result.stderr}`);
  const counts: Record<string, number> = Object.fromEntries(HISTORY_KINDS.map((kind) => [kind, 0]));
  const lines = result.stdout.split('\n').filter(Boolean);
  for (const line of lines) {
    const kind = (JSON.parse(line) as { kind: string }).kind;
    if (kind in counts) counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return { counts, lines };
}

/** The lines of OpenCode's log that carry the tracker's message matching `pattern`. */
function linesMatching(run: RunResult, pattern: RegExp): string[] {
  return run.stderr.split('\n').filter((line) => /agent-tracker/.test(line) && pattern.test(line));
}

/**
 * Copies the base database to `db`, with its snapshot and its `.verified` record (renamed for the
 * copy), as if the fault had happened to the file in place.
 */
function copyBase(base: string, db: string): void {
  fs.mkdirSync(path.dirname(db), { recursive: true });
  fs.copyFileSync(base, db);
  fs.copyFileSync(`${base}.verified`, `${db}.verified`);
  for (const name of fs.readdirSync(path.dirname(base))) {
    const prefix = `${path.basename(base)}.snapshot-`;
    if (name.startsWith(prefix)) fs.copyFileSync(path.join(path.dirname(base), name), `${db}.snapshot-${name.slice(prefix.length)}`);
  }
}

function runAs(uid: number | undefined, sandbox: Sandbox, repo: string, promptText: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  if (uid === undefined) return runOpencode(sandbox, repo, promptText, { env });
  const args = [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', OPENCODE_BIN, 'run', '--format', 'json', '--print-logs', promptText];
  return runBounded('setpriv', args, { cwd: repo, env: { ...sandbox.env, ...env }, timeoutMs: 150_000 });
}

function chownTree(target: string, uid: number): void {
  execFileSync('chown', ['-R', `${uid}:${uid}`, target]);
}

describe('a damaged, full or locked database never takes OpenCode down, and no record is lost for good', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let base: string;
  let before: Record<string, number>;
  /** A one-session database for the page sweep: few pages, so every page can be tried. */
  let small: string;
  let beforeSmall: Record<string, number>;

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-faults-');
    // The unprivileged rows' user must reach its HOME and repositories inside the sandbox.
    fs.chmodSync(sandbox.root, 0o755);
    model = await startFakeModel(
      scriptByPrompt({
        'FAULT-TURN': [bash('echo works > proof.txt'), say(REPLY)],
        'SEED-TURN': [bash('echo seed > seed.txt && git add seed.txt && git commit -q -m "seed the history"'), bash('echo two > two.txt'), say(REPLY)],
        'NEXT-TURN': [bash('echo next > next.txt'), say(REPLY)],
        'KILLED-TURN': [bash('echo killed > killed.txt && git add killed.txt && git commit -q -m "a commit before the kill"'), bash('sleep 60'), say(REPLY)],
      }),
      // The whole table takes several minutes on a loaded machine: the model outlives it.
      { lifetimeMs: 40 * 60_000, maxRequests: 1000 },
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    // The history every row starts from: three real sessions, with a commit and a snapshot.
    small = path.join(sandbox.root, 'small', 'agent-tracker.lmdb');
    base = path.join(sandbox.root, 'base', 'agent-tracker.lmdb');
    const first = await runOpencode(sandbox, makeRepo(sandbox, 'seed-a'), 'SEED-TURN: seed the history', { env: { AGENT_TRACKER_DB_PATH: small } });
    expect(first.code).toBe(0);
    beforeSmall = recordsOf(sandbox, small).counts;
    copyBase(small, base);
    for (const name of ['seed-b', 'seed-c']) {
      const run = await runOpencode(sandbox, makeRepo(sandbox, name), 'SEED-TURN: seed the history', { env: { AGENT_TRACKER_DB_PATH: base } });
      expect(run.code).toBe(0);
    }
    before = recordsOf(sandbox, base).counts;
    expect(before).toMatchObject({ commits: 3, sessions: expect.any(Number) });
    expect(fs.readdirSync(path.dirname(base)).some((name) => name.includes('.snapshot-'))).toBe(true);
    // Only a clean copy is used from here on: the base's own snapshot is copied beside each row's file.
  });

  afterAll(async () => {
    await model.close();
    const mounted = path.join(sandbox.root, 'full');
    if (fs.existsSync(mounted)) spawnSync('umount', [mounted]);
    removeSandbox(sandbox);
  });

  /** Every record from before is back, except those repair named lost; the faulted turn is recorded too. */
  function expectEverythingBack(db: string, marker: string, repaired?: RepairJson, from: Record<string, number> = before): void {
    const after = recordsOf(sandbox, db);
    for (const kind of HISTORY_KINDS) {
      const lost = repaired?.tables[kind]?.lost ?? 0;
      expect({ kind, backOrNamedLost: (after.counts[kind] ?? 0) + lost >= (from[kind] ?? 0) }).toEqual({ kind, backOrNamedLost: true });
    }
    expect(after.lines.some((line) => line.includes(marker))).toBe(true);
  }

  it('a seeded sweep of damaged pages: the CLI never dies by a signal on any page, and sampled pages under OpenCode come back after repair', async () => {
    const pages = fs.statSync(small).size / PAGE_SIZE;
    const random = seededRandom(SWEEP_SEED);
    const garbage = (): Buffer => Buffer.from(Array.from({ length: PAGE_SIZE }, () => Math.floor(random() * 256)));
    // Every page, through the CLI (fast): exit 0, or exit 1 with one line naming repair.
    const detected: number[] = [];
    for (let page = 0; page < pages; page += 1) {
      const db = path.join(sandbox.root, 'sweep-cli', `page-${page}.lmdb`);
      copyBase(small, db);
      const fd = fs.openSync(db, 'r+');
      fs.writeSync(fd, garbage(), 0, PAGE_SIZE, page * PAGE_SIZE);
      fs.closeSync(fd);
      const result = cli(sandbox, db, ['status', '--json']);
      expect({ page, signal: result.code === null }).toEqual({ page, signal: false });
      if (result.code !== 0) {
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toMatch(/is damaged .*agent-tracker repair/);
        detected.push(page);
      }
    }
    expect(detected.length).toBeGreaterThan(0);

    // Seeded sample of the pages the CLI found damaged, under the real OpenCode.
    const sample = [...detected].sort(() => random() - 0.5).slice(0, SWEEP_PAGES);
    for (const page of sample) {
      const db = path.join(sandbox.root, 'sweep', `page-${page}.lmdb`);
      copyBase(small, db);
      const fd = fs.openSync(db, 'r+');
      fs.writeSync(fd, garbage(), 0, PAGE_SIZE, page * PAGE_SIZE);
      fs.closeSync(fd);
      const env = { AGENT_TRACKER_DB_PATH: db };
      const repo = makeRepo(sandbox, `sweep-${page}`);
      const run = await runOpencode(sandbox, repo, `FAULT-TURN page-${page}: write the proof file`, { env });
      expect({ page, code: run.code, proof: fs.existsSync(path.join(repo, 'proof.txt')), replied: run.stdout.includes(REPLY) }).toEqual({ page, code: 0, proof: true, replied: true });
      expect(linesMatching(run, /agent-tracker repair/)).toHaveLength(1);

      const repair = cli(sandbox, db, ['repair', '--json']);
      expect(repair.code).toBe(0);
      const report = JSON.parse(repair.stdout) as RepairJson;
      expect(report.damagedFileKeptAt && fs.existsSync(report.damagedFileKeptAt)).toBeTruthy();
      const next = await runOpencode(sandbox, repo, 'NEXT-TURN: one more file', { env });
      expect(next.code).toBe(0);
      expect(linesMatching(next, /damaged|repair/)).toHaveLength(0);
      expectEverythingBack(db, `FAULT-TURN page-${page}`, report, beforeSmall);
    }
  });

  it('a truncated file: one line naming repair; repair takes what the file and the snapshot still hold and names the rest as lost', async () => {
    const db = path.join(sandbox.root, 'truncated', 'agent-tracker.lmdb');
    copyBase(base, db);
    fs.truncateSync(db, Math.floor(fs.statSync(db).size / 2));
    const repo = makeRepo(sandbox, 'truncated-repo');
    const run = await runOpencode(sandbox, repo, 'FAULT-TURN truncated: write the proof file', { env: { AGENT_TRACKER_DB_PATH: db } });
    expect({ code: run.code, proof: fs.existsSync(path.join(repo, 'proof.txt')) }).toEqual({ code: 0, proof: true });
    const lines = linesMatching(run, /is damaged \(it is truncated/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/agent-tracker repair/);
    const report = JSON.parse(cli(sandbox, db, ['repair', '--json']).stdout) as RepairJson;
    expect(report.snapshot).not.toBeNull();
    // The snapshot (taken after the first seed session) gave back what the cut-off half held.
    expect(Object.values(report.tables).reduce((sum, counts) => sum + counts.recovered, 0)).toBeGreaterThan(0);
    await runOpencode(sandbox, repo, 'NEXT-TURN: one more file', { env: { AGENT_TRACKER_DB_PATH: db } });
    expectEverythingBack(db, 'FAULT-TURN truncated', report);
  });

  it('a file of a newer schema: read, never written, one line saying to update', async () => {
    const db = path.join(sandbox.root, 'newer', 'agent-tracker.lmdb');
    copyBase(base, db);
    const root = open({ path: db, maxDbs: 16, compression: true });
    root.openDB({ name: 'meta', compression: true }).putSync('schemaVersion', 99);
    await root.close();
    fs.rmSync(`${db}-lock`, { force: true });
    const bytes = fs.readFileSync(db);
    const repo = makeRepo(sandbox, 'newer-repo');
    const run = await runOpencode(sandbox, repo, 'FAULT-TURN newer: write the proof file', { env: { AGENT_TRACKER_DB_PATH: db } });
    expect({ code: run.code, proof: fs.existsSync(path.join(repo, 'proof.txt')) }).toEqual({ code: 0, proof: true });
    expect(linesMatching(run, /written by a newer agent-tracker.*update it/)).toHaveLength(1);
    expect(fs.readFileSync(db).equals(bytes)).toBe(true);
    // The session waits in a spill file beside it for an agent-tracker that knows the schema.
    expect(fs.readdirSync(path.dirname(db)).some((name) => name.includes('.spill-'))).toBe(true);
    const status = cli(sandbox, db, ['status', '--json']);
    expect(status.code).toBe(0);
    expect(status.stderr).toMatch(/newer agent-tracker/);
    // A command that writes (a project profile) is refused with the same line.
    const write = cli(sandbox, db, ['init-project', repo]);
    expect(write.code).toBe(1);
    expect(write.stderr).toMatch(/newer agent-tracker/);
    expect(fs.readFileSync(db).equals(bytes)).toBe(true);
  });

  it('kill -9 of opencode serve mid-turn: the file stays sound and everything from before is there at the next start', async () => {
    const db = path.join(sandbox.root, 'killed', 'agent-tracker.lmdb');
    copyBase(base, db);
    const env = { AGENT_TRACKER_DB_PATH: db };
    const repo = makeRepo(sandbox, 'killed-repo');
    const served = await startServe(sandbox, repo, { env });
    try {
      const session = await served.request<{ id: string }>('POST', '/session', {});
      void served.request('POST', `/session/${session.id}/message`, { parts: [{ type: 'text', text: 'KILLED-TURN: commit, then wait' }] }).catch(() => undefined);
      await served.waitForEvent((event) => {
        const part = event.properties.part as { tool?: string; state?: { status?: string; input?: { command?: string } } } | undefined;
        return event.type === 'message.part.updated' && part?.tool === 'bash' && part.state?.status === 'running' && part.state.input?.command === 'sleep 60';
      }, 120_000);
    } finally {
      await served.kill('SIGKILL');
    }
    expect(fs.existsSync(path.join(repo, 'killed.txt'))).toBe(true);
    const next = await runOpencode(sandbox, repo, 'NEXT-TURN after the kill: one more file', { env });
    expect(next.code).toBe(0);
    expect(linesMatching(next, /damaged|repair/)).toHaveLength(0);
    expectEverythingBack(db, 'NEXT-TURN after the kill');
  });

  it('a full disk (a 1 MiB tmpfs): one line saying how much room is needed; the session is kept and merged once there is room', async () => {
    expect(IS_ROOT).toBe(true);
    const mounted = path.join(sandbox.root, 'full');
    fs.mkdirSync(mounted);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mounted]);
    const db = path.join(mounted, 'agent-tracker.lmdb');
    copyBase(base, db);
    const filler = path.join(mounted, 'filler');
    spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4096']);
    const repo = makeRepo(sandbox, 'full-repo');
    const run = await runOpencode(sandbox, repo, 'FAULT-TURN full: write the proof file', { env: { AGENT_TRACKER_DB_PATH: db } });
    expect({ code: run.code, proof: fs.existsSync(path.join(repo, 'proof.txt')) }).toEqual({ code: 0, proof: true });
    const lines = linesMatching(run, /is full: .* free, the next write needs at least/);
    expect(lines).toHaveLength(1);
    const status = cli(sandbox, db, ['status', '--json']);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/is full/);
    fs.rmSync(filler);
    const next = await runOpencode(sandbox, repo, 'NEXT-TURN: one more file', { env: { AGENT_TRACKER_DB_PATH: db } });
    expect(next.code).toBe(0);
    expectEverythingBack(db, 'FAULT-TURN full');
  });

  describe('as an unprivileged user (root ignores permission bits)', () => {
    beforeAll(() => {
      expect(IS_ROOT).toBe(true);
      chownTree(sandbox.home, NOBODY);
    });

    it('an unwritable folder without a lock file: one line naming the chown to run; after it, the session is merged', async () => {
      const folder = path.join(sandbox.root, 'locked');
      const db = path.join(folder, 'agent-tracker.lmdb');
      copyBase(base, db);
      fs.chownSync(db, NOBODY, NOBODY);
      fs.chmodSync(folder, 0o755);
      const repo = makeRepo(sandbox, 'locked-repo');
      chownTree(repo, NOBODY);
      const run = await runAs(NOBODY, sandbox, repo, 'FAULT-TURN locked: write the proof file', { AGENT_TRACKER_DB_PATH: db });
      expect({ code: run.code, proof: fs.existsSync(path.join(repo, 'proof.txt')), log: run.code === 0 ? '' : run.stderr.slice(-2000) }).toEqual({ code: 0, proof: true, log: '' });
      const lines = linesMatching(run, /not writable/);
      expect({ lines: lines.length, log: lines.length === 1 ? '' : run.stderr.slice(-3000) }).toEqual({ lines: 1, log: '' });
      expect(lines[0]).toContain(`chown 65534 '${folder}'`);
      const status = cli(sandbox, db, ['status', '--json'], NOBODY);
      expect(status.code).toBe(1);
      expect(status.stderr).toMatch(/chown/);
      chownTree(folder, NOBODY);
      const next = await runAs(NOBODY, sandbox, repo, 'NEXT-TURN: one more file', { AGENT_TRACKER_DB_PATH: db });
      expect(next.code).toBe(0);
      expectEverythingBack(db, 'FAULT-TURN locked');
    });

    it('a file the user cannot read: one line naming the chown; after it, the session is merged', async () => {
      const folder = path.join(sandbox.root, 'unreadable');
      const db = path.join(folder, 'agent-tracker.lmdb');
      copyBase(base, db);
      chownTree(folder, NOBODY);
      fs.chownSync(db, 0, 0);
      fs.chmodSync(db, 0o600);
      const repo = makeRepo(sandbox, 'unreadable-repo');
      chownTree(repo, NOBODY);
      const run = await runAs(NOBODY, sandbox, repo, 'FAULT-TURN unreadable: write the proof file', { AGENT_TRACKER_DB_PATH: db });
      expect({ code: run.code, proof: fs.existsSync(path.join(repo, 'proof.txt')) }).toEqual({ code: 0, proof: true });
      const lines = linesMatching(run, /cannot be opened by .*uid 65534/);
      expect({ lines: lines.length, log: lines.length === 1 ? '' : run.stderr.slice(-3000) }).toEqual({ lines: 1, log: '' });
      expect(lines[0]).toContain(`chown 65534 '${db}'`);
      fs.chownSync(db, NOBODY, NOBODY);
      const next = await runAs(NOBODY, sandbox, repo, 'NEXT-TURN: one more file', { AGENT_TRACKER_DB_PATH: db });
      expect(next.code).toBe(0);
      expectEverythingBack(db, 'FAULT-TURN unreadable');
    });
  });
});

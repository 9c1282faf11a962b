/**
 * The plugin provisioning itself at start (installed the OpenCode way, postinstall never ran): real
 * temporary config folders, the package's shipped agents and skills, a temporary LMDB. Only the toast
 * is captured instead of shown.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { planProvisioning, provisionedMessage } from '../../src/core/provisioning/plan.js';
import type { ItemState } from '../../src/core/provisioning/plan.js';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { Channel } from '../../src/opencode/remote/channel.js';
import { RemoteStore } from '../../src/opencode/remote/client.js';
import { SELF_PROVISION_DELAY_MS, startSelfProvisioning } from '../../src/opencode/self-provision.js';
import { selfProvision } from '../../src/opencode/self-provision-run.js';
import type { SelfProvisionToast } from '../../src/opencode/self-provision-run.js';
import { BEGIN_PREFIX } from '../../src/provisioning/agents-md.js';
import { readShippedAgents } from '../../src/provisioning/agents.js';
import { inspectItems } from '../../src/provisioning/presence.js';
import { shippedSkills } from '../../src/provisioning/skills.js';
import { treeHash } from '../helpers/compare-files.js';
import { ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const SHIPPED_AGENTS = Object.keys(readShippedAgents(ROOT));
const SHIPPED_SKILLS = shippedSkills(ROOT);
const ALL_ITEMS = [...SHIPPED_AGENTS.map((name) => `agent:${name}`), ...SHIPPED_SKILLS.map((name) => `skill:${name}`), 'agents-md'];

/** A config the user wrote: installed the OpenCode way (a package name with options), with a comment. */
const USER_CONFIG = `{
  // mine
  "$schema": "https://opencode.ai/config.json",
  "plugin": [["opencode-agent-tracker", { "flushMaxMutations": 100 }]]
}
`;

describe('the selfProvision setting', () => {
  it.each([
    ['on by default', {}, {}, true],
    ['off by the plugin option', { selfProvision: false }, {}, false],
    ['on by the plugin option', { selfProvision: true }, {}, true],
    ['off by AGENT_TRACKER_SKIP_SETUP=1', {}, { AGENT_TRACKER_SKIP_SETUP: '1' }, false],
    ['off by the variable even when the option says on', { selfProvision: true }, { AGENT_TRACKER_SKIP_SETUP: '1' }, false],
    ['on when the variable is anything but 1', {}, { AGENT_TRACKER_SKIP_SETUP: '0' }, true],
  ])('%s', (_name, options, env, expected) => {
    expect(resolveConfig({ options, env, home: '/home/u' }).selfProvision).toBe(expected);
  });

  it('refuses a value that is not true or false', () => {
    expect(() => resolveConfig({ options: { selfProvision: 'no' }, env: {}, home: '/home/u' })).toThrow('option "selfProvision" must be true or false, got "no"');
  });
});

describe('planProvisioning', () => {
  const item = (id: string, present: boolean): ItemState => ({ id, present });
  it.each([
    ['missing and never recorded: provision', [item('a', false)], [], { provision: ['a'], removedByUser: [], record: [] }],
    ['missing but recorded: the user removed it', [item('a', false)], ['a'], { provision: [], removedByUser: ['a'], record: [] }],
    ['present, not recorded: record it', [item('a', true)], [], { provision: [], removedByUser: [], record: ['a'] }],
    ['present and recorded: nothing', [item('a', true)], ['a'], { provision: [], removedByUser: [], record: [] }],
    [
      'a mix keeps item order',
      [item('b', false), item('a', false), item('c', true), item('d', false)],
      ['d', 'x'],
      { provision: ['b', 'a'], removedByUser: ['d'], record: ['c'] },
    ],
  ])('%s', (_name, items, recorded, expected) => {
    expect(planProvisioning(items, new Set(recorded))).toEqual(expected);
  });

  it('says what was added and that a restart shows it', () => {
    expect(provisionedMessage(['agent x', 'skill y'])).toBe(
      'agent-tracker added agent x, skill y to your OpenCode config. Restart OpenCode to see the new agents, skills and commands.',
    );
  });
});

describe('inspectItems', () => {
  const tempDir = useTempDirs('agent-tracker-presence-');

  it('lists every shipped agent, skill and command and the AGENTS.md section, each present or not', () => {
    const root = tempDir();
    for (const entry of ['agents', 'skills']) fs.cpSync(path.join(ROOT, entry), path.join(root, entry), { recursive: true });
    fs.mkdirSync(path.join(root, 'commands'));
    fs.writeFileSync(path.join(root, 'commands', 'grade.md'), 'Grade the last commit.\n');
    fs.writeFileSync(path.join(root, 'commands', 'notes.txt'), 'not a command');
    const configDir = tempDir();
    const missing = inspectItems(configDir, root);
    expect(missing.map((entry) => [entry.id, entry.present])).toEqual([...ALL_ITEMS.slice(0, -1), 'command:grade', 'agents-md'].map((id) => [id, false]));

    fs.writeFileSync(path.join(configDir, 'opencode.jsonc'), `{ // mine\n "agent": { "${SHIPPED_AGENTS[0]}": {} }, "mode": { "${SHIPPED_AGENTS[1]}": {} } }`);
    fs.mkdirSync(path.join(configDir, 'agent'));
    fs.writeFileSync(path.join(configDir, 'agent', `${SHIPPED_AGENTS[2]}.md`), '---\n---\n');
    fs.mkdirSync(path.join(configDir, 'skill', SHIPPED_SKILLS[0] as string), { recursive: true });
    fs.mkdirSync(path.join(configDir, 'command'));
    fs.writeFileSync(path.join(configDir, 'command', 'grade.md'), 'mine');
    fs.writeFileSync(path.join(configDir, 'AGENTS.md'), `# mine\n${BEGIN_PREFIX} old wording -->\nold\n<!-- END opencode-agent-tracker -->\n`);
    const present = new Map(inspectItems(configDir, root).map((entry) => [entry.id, entry.present]));
    expect(present).toEqual(
      new Map([
        ...SHIPPED_AGENTS.map((name, index): [string, boolean] => [`agent:${name}`, index < 3]),
        ...SHIPPED_SKILLS.map((name, index): [string, boolean] => [`skill:${name}`, index === 0]),
        ['command:grade', true],
        ['agents-md', true],
      ]),
    );
  });

  it('counts the agents of a config that does not parse as missing (the agents step then says why)', () => {
    const configDir = tempDir();
    fs.writeFileSync(path.join(configDir, 'opencode.json'), `{ "agent": { "${SHIPPED_AGENTS[0]}": {} `);
    expect(inspectItems(configDir, ROOT).find((entry) => entry.id === `agent:${SHIPPED_AGENTS[0]}`)?.present).toBe(false);
  });

  it('does not count an AGENTS.md folder as the section', () => {
    const configDir = tempDir();
    fs.mkdirSync(path.join(configDir, 'AGENTS.md'));
    expect(inspectItems(configDir, ROOT).find((entry) => entry.id === 'agents-md')?.present).toBe(false);
  });
});

describe('selfProvision', () => {
  const tempDir = useTempDirs('agent-tracker-self-');
  const trackers: TempTracker[] = [];
  afterEach(() => {
    for (const tracker of trackers.splice(0)) tracker.dispose();
  });

  function setup(): { tracker: TempTracker; configDir: string; toasts: SelfProvisionToast[]; run: (root?: string) => ReturnType<typeof selfProvision> } {
    const tracker = tempTracker();
    trackers.push(tracker);
    const configDir = path.join(tempDir(), 'opencode');
    fs.mkdirSync(configDir);
    const toasts: SelfProvisionToast[] = [];
    const run = (root = ROOT) =>
      selfProvision({ service: tracker.service, logger: { info: () => undefined, warn: () => undefined, error: (message) => tracker.logged.push({ level: 'error', message }) }, configDir, root, showToast: async (toast) => toasts.push(toast) });
    return { tracker, configDir, toasts, run };
  }

  it("adds the agents, skills and AGENTS.md section, leaves the user's plugin entry alone, toasts once and records the items", async () => {
    const { tracker, configDir, toasts, run } = setup();
    fs.writeFileSync(path.join(configDir, 'opencode.json'), USER_CONFIG);
    const outcome = await run();
    expect(outcome.failures).toEqual([]);
    expect(outcome.added).toEqual([...SHIPPED_AGENTS.map((name) => `agent ${name}`), ...SHIPPED_SKILLS.map((name) => `skill ${name}`), 'the scoring rules in AGENTS.md']);
    expect(inspectItems(configDir, ROOT).every((entry) => entry.present)).toBe(true);
    const config = fs.readFileSync(path.join(configDir, 'opencode.json'), 'utf8');
    expect(config).toContain('// mine');
    expect(config).toContain('"plugin": [["opencode-agent-tracker", { "flushMaxMutations": 100 }]]');
    expect(fs.existsSync(path.join(configDir, 'plugins'))).toBe(false);
    expect(toasts).toHaveLength(1);
    expect(toasts[0]).toMatchObject({ variant: 'info', message: expect.stringContaining('Restart OpenCode') });
    expect(toasts[0]?.message).toContain(`agent ${SHIPPED_AGENTS[0]}`);
    expect(tracker.store.provisionedItems(path.resolve(configDir)).sort()).toEqual([...ALL_ITEMS].sort());
  });

  it('says in the log when its first provisioning starts, and not on later starts', async () => {
    const { tracker, configDir } = setup();
    const logged: string[] = [];
    const logger = { info: (message: string) => void logged.push(message), warn: () => undefined, error: () => undefined };
    const start = () => selfProvision({ service: tracker.service, logger, configDir, root: ROOT, showToast: async () => undefined });
    await start();
    expect(logged[0]).toBe(`agent-tracker: first start in ${path.resolve(configDir)}: setting up its ${ALL_ITEMS.join(', ')} (once; a toast says what was added)`);
    logged.length = 0;
    fs.rmSync(path.join(configDir, 'AGENTS.md'));
    await start();
    expect(logged.filter((message) => message.includes('first start'))).toEqual([]);
  });

  it('changes nothing and shows no toast when everything is in place', async () => {
    const { configDir, toasts, run } = setup();
    await run();
    const before = treeHash(configDir);
    const outcome = await run();
    expect(outcome).toEqual({ added: [], removedByUser: [], failures: [] });
    expect(treeHash(configDir)).toEqual(before);
    expect(toasts).toHaveLength(1);
  });

  it('does not put back what the user removed, even in a later process, but adds what a newer version ships', async () => {
    const { tracker, configDir, toasts, run } = setup();
    await run();
    // The user deletes one agent, one skill and the AGENTS.md section.
    const configFile = path.join(configDir, 'opencode.json');
    const config = JSON.parse(fs.readFileSync(configFile, 'utf8')) as { agent: Record<string, unknown> };
    delete config.agent[SHIPPED_AGENTS[0] as string];
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
    fs.rmSync(path.join(configDir, 'skills', SHIPPED_SKILLS[0] as string), { recursive: true });
    fs.writeFileSync(path.join(configDir, 'AGENTS.md'), '# only mine\n');
    // A newer version of the package ships one more skill.
    const newer = tempDir();
    for (const entry of ['agents', 'skills', 'package.json']) fs.cpSync(path.join(ROOT, entry), path.join(newer, entry), { recursive: true });
    fs.mkdirSync(path.join(newer, 'skills', 'new-skill'));
    fs.writeFileSync(path.join(newer, 'skills', 'new-skill', 'SKILL.md'), '---\nname: new-skill\ndescription: New.\n---\n\nNew.\n');
    const before = { config: fs.readFileSync(configFile, 'utf8'), agentsMd: fs.readFileSync(path.join(configDir, 'AGENTS.md'), 'utf8') };

    // A later process: a fresh service on the same database.
    const outcome = await selfProvision({ service: tracker.another(), logger: { info: () => undefined, warn: () => undefined, error: () => undefined }, configDir, root: newer, showToast: async (toast) => toasts.push(toast) });
    expect(outcome.added).toEqual(['skill new-skill']);
    expect(outcome.removedByUser).toEqual([`agent:${SHIPPED_AGENTS[0]}`, `skill:${SHIPPED_SKILLS[0]}`, 'agents-md']);
    expect(fs.readFileSync(configFile, 'utf8')).toBe(before.config);
    expect(fs.readFileSync(path.join(configDir, 'AGENTS.md'), 'utf8')).toBe(before.agentsMd);
    expect(fs.existsSync(path.join(configDir, 'skills', SHIPPED_SKILLS[0] as string))).toBe(false);
    expect(fs.existsSync(path.join(configDir, 'skills', 'new-skill', 'SKILL.md'))).toBe(true);
    expect(toasts.map((toast) => toast.message)).toEqual([expect.any(String), expect.stringContaining('skill new-skill')]);
  });

  it("waits for the plugin's store to open before it decides: a removal recorded in a file still being checked stays removed", async () => {
    const { tracker, configDir, run } = setup();
    await run();
    const configFile = path.join(configDir, 'opencode.json');
    const config = JSON.parse(fs.readFileSync(configFile, 'utf8')) as { agent: Record<string, unknown> };
    delete config.agent[SHIPPED_AGENTS[0] as string];
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
    const before = fs.readFileSync(configFile, 'utf8');
    // The next OpenCode start: the plugin's worker checks the file (written by another process) before it opens it.
    const file = tracker.store.path;
    tracker.store.close();
    const store = new RemoteStore(file, tracker.config.maxDatabaseSize, new Channel(), silentLogger);
    store.join(path.dirname(file), tracker.config.rules, { problem: () => undefined, ready: () => undefined });
    try {
      expect(store.attached).toBe(false);
      const service = new TrackingService({ store, config: tracker.config, logger: silentLogger, project: path.dirname(file) });
      const outcome = await selfProvision({ service, logger: silentLogger, configDir, root: ROOT, showToast: async () => undefined });
      expect(outcome).toEqual({ added: [], removedByUser: [`agent:${SHIPPED_AGENTS[0]}`], failures: [] });
      expect(fs.readFileSync(configFile, 'utf8')).toBe(before);
    } finally {
      store.leave();
    }
  });

  it('adds nothing while it cannot read what the user removed (the database could not be opened)', async () => {
    const { tracker, configDir } = setup();
    const store = new RemoteStore(path.join(tracker.dir, 'unused.lmdb'), tracker.config.maxDatabaseSize, new Channel(path.join(tracker.dir, 'missing-host.js')), silentLogger);
    store.join(tracker.dir, tracker.config.rules, { problem: () => undefined, ready: () => undefined });
    const logged: string[] = [];
    const logger = { info: (message: string) => void logged.push(message), warn: () => undefined, error: () => undefined };
    const service = new TrackingService({ store, config: tracker.config, logger, project: tracker.dir });
    const outcome = await selfProvision({ service, logger, configDir, root: ROOT, showToast: async () => undefined });
    expect(outcome).toEqual({ added: [], removedByUser: [], failures: [] });
    expect(fs.readdirSync(configDir)).toEqual([]);
    expect(logged).toEqual([`agent-tracker: the database is not open, so it cannot tell what you removed from ${configDir}; nothing is added at this start`]);
  });

  it('records what was already there, so removing it later counts as the user\'s choice', async () => {
    const { tracker, configDir, toasts, run } = setup();
    fs.mkdirSync(path.join(configDir, 'skills', SHIPPED_SKILLS[0] as string), { recursive: true });
    await run();
    tracker.service.flush('test');
    expect(tracker.store.provisionedItems(path.resolve(configDir))).toContain(`skill:${SHIPPED_SKILLS[0]}`);
    fs.rmSync(path.join(configDir, 'skills', SHIPPED_SKILLS[0] as string), { recursive: true });
    const outcome = await run();
    expect(outcome.removedByUser).toEqual([`skill:${SHIPPED_SKILLS[0]}`]);
    expect(toasts).toHaveLength(1);
  });

  it('leaves an opencode.json that does not parse byte-identical, says so in one line, adds the rest and tracking goes on', async () => {
    const { tracker, configDir, toasts, run } = setup();
    const broken = '{\n  "plugin": [ "opencode-agent-tracker",\n  oops\n';
    fs.writeFileSync(path.join(configDir, 'opencode.json'), broken);
    const outcome = await run();
    expect(outcome.failures).toHaveLength(1);
    expect(outcome.failures[0]).toMatch(/^agent-tracker could not set up its agents in .*opencode\.json does not parse .*left untouched\. Fix it, then run "agent-tracker setup"\.$/);
    expect(tracker.logged.filter((entry) => entry.level === 'error')).toHaveLength(1);
    expect(fs.readFileSync(path.join(configDir, 'opencode.json'), 'utf8')).toBe(broken);
    expect(fs.readdirSync(configDir).filter((name) => name.includes('backup'))).toEqual([]);
    expect(outcome.added).toContain(`skill ${SHIPPED_SKILLS[0]}`);
    expect(toasts[0]?.variant).toBe('warning');
    tracker.service.noteModelRequest('s1', 'build', 'fake/m');
    tracker.service.recordToolCall('s1', 'c1', 'bash', true);
    expect(tracker.service.flush('test').ok).toBe(true);
    expect(tracker.service.getAgentStatus('build').xp).toBe(1);
  });

  it('leaves an AGENTS.md that is a directory alone, says so in one line, and adds the rest', async () => {
    const { tracker, configDir, run } = setup();
    fs.mkdirSync(path.join(configDir, 'AGENTS.md', 'inside'), { recursive: true });
    const outcome = await run();
    expect(outcome.failures).toEqual([expect.stringMatching(/AGENTS\.md is not a file; it was left untouched\. Move it aside, then run "agent-tracker setup"\.$/)]);
    expect(tracker.logged.filter((entry) => entry.level === 'error')).toHaveLength(1);
    expect(fs.readdirSync(path.join(configDir, 'AGENTS.md'))).toEqual(['inside']);
    expect(outcome.added).toContain(`agent ${SHIPPED_AGENTS[0]}`);
  });

  it('in a config folder it may not write to, changes nothing, reports one line and keeps recording', () => {
    // Root may write anywhere, so the run happens in a child process as an unprivileged user when the
    // tests run as root; the built code (dist) is what it runs.
    const base = tempDir();
    fs.chmodSync(base, 0o755);
    const configDir = path.join(base, 'opencode');
    fs.mkdirSync(configDir);
    fs.writeFileSync(path.join(configDir, 'opencode.json'), USER_CONFIG);
    fs.chmodSync(configDir, 0o555);
    const dbDir = path.join(base, 'db');
    fs.mkdirSync(dbDir, { mode: 0o777 });
    fs.chmodSync(dbDir, 0o777);
    const before = treeHash(configDir);
    const script = `
      const { resolveConfig } = await import(${JSON.stringify(path.join(ROOT, 'dist/core/config.js'))});
      const { Store } = await import(${JSON.stringify(path.join(ROOT, 'dist/core/store/store.js'))});
      const { termIndexer } = await import(${JSON.stringify(path.join(ROOT, 'dist/core/search/indexer.js'))});
      const { TrackingService } = await import(${JSON.stringify(path.join(ROOT, 'dist/core/tracking/service.js'))});
      const { selfProvision } = await import(${JSON.stringify(path.join(ROOT, 'dist/opencode/self-provision-run.js'))});
      const config = resolveConfig({ options: { databasePath: ${JSON.stringify(path.join(dbDir, 'db.lmdb'))} }, env: {} });
      const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
      const errors = [];
      const logger = { info() {}, warn() {}, error: (m) => errors.push(m) };
      const service = new TrackingService({ store, config, logger, project: '/p' });
      const toasts = [];
      const outcome = await selfProvision({ service, logger, configDir: ${JSON.stringify(configDir)}, root: ${JSON.stringify(ROOT)}, showToast: async (t) => toasts.push(t) });
      service.noteModelRequest('s1', 'build', 'fake/m');
      service.recordToolCall('s1', 'c1', 'bash', true);
      const flushed = service.flush('test').ok;
      console.log(JSON.stringify({ outcome, errors, toasts, flushed, xp: service.getAgentStatus('build').xp }));
      store.close();`;
    const unprivileged = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, cwd: base, env: { PATH: process.env.PATH, HOME: base }, ...unprivileged });
    fs.chmodSync(configDir, 0o755);
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout) as { outcome: { added: string[]; failures: string[] }; errors: string[]; toasts: SelfProvisionToast[]; flushed: boolean; xp: number };
    expect(result.outcome.added).toEqual([]);
    expect(result.errors).toEqual(result.outcome.failures);
    expect(result.outcome.failures).toEqual([
      `agent-tracker cannot write to the OpenCode config folder ${configDir} (EACCES), so it added nothing; tracking goes on. Make the folder writable and restart OpenCode, or run "agent-tracker setup".`,
    ]);
    expect(result.toasts).toHaveLength(1);
    expect({ flushed: result.flushed, xp: result.xp }).toEqual({ flushed: true, xp: 1 });
    expect(treeHash(configDir)).toEqual(before);
  });

  it('reads a store written by another process: the record survives a reopen', async () => {
    const { tracker, configDir, run } = setup();
    await run();
    const reopened = Store.open({ path: tracker.config.databasePath, maxDatabaseSize: tracker.config.maxDatabaseSize, readOnly: true });
    try {
      expect(reopened.provisionedItems(path.resolve(configDir)).length).toBe(ALL_ITEMS.length);
    } finally {
      reopened.close();
    }
    expect(fs.readFileSync(path.join(configDir, 'AGENTS.md'), 'utf8')).toContain(BEGIN_PREFIX);
  });
});

describe('startSelfProvisioning (as the plugin calls it)', () => {
  const tempDir = useTempDirs('agent-tracker-self-start-');
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** A host client that records toasts: the one part of OpenCode this needs. */
  function recordingClient(toasts: unknown[]): Parameters<typeof startSelfProvisioning>[0] {
    return { client: { tui: { showToast: async (request: unknown) => toasts.push(request) } } } as unknown as Parameters<typeof startSelfProvisioning>[0];
  }

  it('returns at once and provisions later in the background, once per config folder and process', async () => {
    const tracker = tempTracker();
    try {
      const configDir = path.join(tempDir(), 'opencode');
      const toasts: unknown[] = [];
      const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
      startSelfProvisioning(recordingClient(toasts), { service: tracker.service, logger, configDir, root: ROOT });
      // Nothing yet: start is not delayed by it.
      expect(fs.existsSync(configDir)).toBe(false);
      const second = startSelfProvisioning(recordingClient(toasts), { service: tracker.service, logger, configDir, root: ROOT });
      await wait(SELF_PROVISION_DELAY_MS * 3);
      expect(inspectItems(configDir, ROOT).every((entry) => entry.present)).toBe(true);
      expect(toasts).toEqual([{ body: expect.objectContaining({ title: 'agent-tracker set up OpenCode', variant: 'info', duration: expect.any(Number) }) }]);
      second();
    } finally {
      tracker.dispose();
    }
  });

  it('does nothing when stopped (dispose) before it ran', async () => {
    const tracker = tempTracker();
    try {
      const configDir = path.join(tempDir(), 'opencode');
      const toasts: unknown[] = [];
      const stop = startSelfProvisioning(recordingClient(toasts), { service: tracker.service, logger: { info: () => undefined, warn: () => undefined, error: () => undefined }, configDir, root: ROOT });
      stop();
      await wait(SELF_PROVISION_DELAY_MS * 2);
      expect({ exists: fs.existsSync(configDir), toasts }).toEqual({ exists: false, toasts: [] });
    } finally {
      tracker.dispose();
    }
  });
});

/**
 * Installed the OpenCode way: the packed package named in the `"plugin"` array as
 * `opencode-agent-tracker@file:/abs/path/pkg.tgz`, so OpenCode's own installer puts it into its
 * cache (`$XDG_CACHE_HOME/opencode/packages/…`) with lifecycle scripts off — our postinstall never
 * runs. Then real `opencode run`s with the fake model: the plugin loads from that cache, provisions
 * itself, and records the session into the central database.
 *
 * What is true here (opencode 1.18.33): OpenCode's installer reads the package itself from the
 * tarball, and resolves its dependencies through the npm registry configuration it finds in the
 * environment (`npm_config_registry`, as npm does). So that no test reaches beyond 127.0.0.1, the
 * registry is a small server on 127.0.0.1 (tests/helpers/local-registry.ts) serving exactly the
 * dependency closure this checkout's `npm install` already put in node_modules. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MAX_DATABASE_SIZE } from '../../src/core/config.js';
import { Store } from '../../src/core/store/store.js';
import { BEGIN_PREFIX } from '../../src/provisioning/agents-md.js';
import { readShippedAgents } from '../../src/provisioning/agents.js';
import { parseJsonc } from '../../src/provisioning/opencode-json.js';
import { shippedSkills } from '../../src/provisioning/skills.js';
import { treeHash } from '../helpers/compare-files.js';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { serveRegistry } from '../helpers/local-registry.js';
import type { LocalRegistry } from '../helpers/local-registry.js';
import { packedPackage } from '../helpers/packed-package.js';
import { makeRepo, makeSandbox, opencodeConfig, removeSandbox, ROOT, runBounded, runOpencode } from '../helpers/sandbox.js';
import type { RunResult, Sandbox, StatusJson } from '../helpers/sandbox.js';

jest.setTimeout(900_000);

const NPM_TIMEOUT_MS = 300_000;
const OPENCODE_TIMEOUT_MS = 240_000;
const PACKAGE_NAME = 'opencode-agent-tracker';

/** Every file below `dir` whose path ends with `suffix`. */
function findFiles(dir: string, suffix: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && full.endsWith(suffix)) found.push(full);
  }
  return found;
}

describe('installed by OpenCode itself (a package spec in the "plugin" array)', () => {
  let sandbox: Sandbox;
  let env: NodeJS.ProcessEnv;
  let registry: LocalRegistry;
  let model: FakeModel;
  let tarball: string;
  let spec: string;
  let repo: string;
  let configFile: string;
  let firstRun: RunResult;

  beforeAll(async () => {
    expect(fs.existsSync(path.join(ROOT, 'dist', 'opencode', 'plugin.js'))).toBe(true);
    sandbox = makeSandbox('agent-tracker-oc-install-');
    // `npm pack` of this checkout and its dependencies' tarballs, shared with install.test.ts.
    const packed = await packedPackage(sandbox.root);
    tarball = packed.tarball;
    spec = `${PACKAGE_NAME}@file:${tarball}`;
    registry = await serveRegistry(packed.registry);
    env = { ...sandbox.env, npm_config_registry: registry.url, npm_config_cache: path.join(sandbox.root, 'npm-cache'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
    // The plugin provisions itself on this path: the switch the other tests use to keep it off goes
    // (undefined, not deleted: runOpencode lays this env over the sandbox's, and spawn drops undefined).
    env.AGENT_TRACKER_SKIP_SETUP = undefined;

    // The first turn waits (at most 60 s) for the plugin's background self-provisioning to write
    // AGENTS.md, so the run does not end before it; the second waits as long as the first run took.
    const agentsMd = path.join(sandbox.configDir, 'AGENTS.md');
    const waitForAgentsMd = `for i in $(seq 1 120); do [ -f '${agentsMd}' ] && break; sleep 0.5; done; sleep 1`;
    model = await startFakeModel(
      scriptByPrompt({
        'OC-TURN': [bash(`${waitForAgentsMd} && echo one > one.txt && git add one.txt && git commit -q -m "add one"`), say('Done.')],
        'OC-SECOND': [bash('sleep 4 && echo two > two.txt && git add two.txt && git commit -q -m "add two"'), say('Done.')],
      }),
    );
    repo = makeRepo(sandbox, 'oc-project');
    // The user's global config, as `opencode plugin` or a hand edit leaves it: the package spec, a comment.
    const config = opencodeConfig({ modelUrl: model.url, pluginSpec: spec });
    configFile = path.join(sandbox.configDir, 'opencode.json');
    fs.writeFileSync(configFile, `// my config\n${JSON.stringify(config, null, 2)}\n`);
    firstRun = await runOpencode(sandbox, repo, 'OC-TURN: add a file and commit it', { env, timeoutMs: OPENCODE_TIMEOUT_MS });
  });

  afterAll(async () => {
    await model?.close();
    await registry?.close();
    if (sandbox) removeSandbox(sandbox);
  });

  function installedPackage(): string {
    const manifests = findFiles(path.join(sandbox.home, '.cache', 'opencode'), path.join('node_modules', PACKAGE_NAME, 'package.json'));
    expect(manifests).toHaveLength(1);
    return path.dirname(manifests[0] as string);
  }

  it('installs the package into its cache through its own installer (no postinstall) and runs the session', () => {
    expect({ code: firstRun.code, stderrTail: firstRun.code === 0 ? '' : firstRun.stderr.slice(-3000) }).toEqual({ code: 0, stderrTail: '' });
    const installed = installedPackage();
    expect(fs.existsSync(path.join(installed, 'dist', 'opencode', 'plugin.js'))).toBe(true);
    // Its dependencies came from the loopback registry, lmdb's prebuilt binary included.
    expect(registry.requested).toEqual(expect.arrayContaining(['lmdb', '@lmdb/lmdb-linux-x64', 'jsonc-parser']));
    // The postinstall would have created the self-contained plugin folder: it did not run.
    expect(fs.existsSync(path.join(sandbox.configDir, 'plugins'))).toBe(false);
  });

  it('provisions its agents, skills and AGENTS.md section by itself, leaving the plugin entry the user wrote', () => {
    const text = fs.readFileSync(configFile, 'utf8');
    expect(text.startsWith('// my config\n')).toBe(true);
    const parsed = parseJsonc(text, configFile) as { plugin: unknown[]; agent?: Record<string, unknown> };
    expect(parsed.plugin).toEqual([spec]);
    expect(Object.keys(parsed.agent ?? {}).sort()).toEqual(Object.keys(readShippedAgents(ROOT)).sort());
    for (const skill of shippedSkills(ROOT)) expect(fs.existsSync(path.join(sandbox.configDir, 'skills', skill, 'SKILL.md'))).toBe(true);
    expect(fs.readFileSync(path.join(sandbox.configDir, 'AGENTS.md'), 'utf8')).toContain(BEGIN_PREFIX);
    expect(fs.readdirSync(path.join(sandbox.configDir, 'agent-tracker-backups')).filter((name) => name.startsWith('opencode-opencode.json.agent-tracker-backup-'))).toHaveLength(1);
    // What the toast says also goes to OpenCode's log (printed with --print-logs).
    expect(firstRun.stderr).toMatch(/agent-tracker added agent [a-z-]+, .*Restart OpenCode/);
  });

  it('records the session into the central database, as the installed CLI shows', () => {
    const cli = path.join(installedPackage(), 'dist', 'cli', 'main.js');
    const status = spawnSync(process.execPath, [cli, 'status', '--json'], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
    expect(status.status).toBe(0);
    const build = (JSON.parse(status.stdout) as StatusJson).agents.find((agent) => agent.id === 'build');
    expect(build).toMatchObject({ commits: 1 });
    const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: DEFAULT_MAX_DATABASE_SIZE, readOnly: true });
    try {
      expect(store.provisionedItems(sandbox.configDir)).toEqual(expect.arrayContaining(['agents-md', `skill:${shippedSkills(ROOT)[0]}`]));
    } finally {
      store.close();
    }
  });

  it('does not put back an agent the user removed, and changes nothing else on the next start', async () => {
    const removed = Object.keys(readShippedAgents(ROOT))[0] as string;
    const parsed = parseJsonc(fs.readFileSync(configFile, 'utf8'), configFile) as { agent: Record<string, unknown> };
    delete parsed.agent[removed];
    fs.writeFileSync(configFile, `${JSON.stringify(parsed, null, 2)}\n`);
    const skillsBefore = treeHash(path.join(sandbox.configDir, 'skills'));
    const agentsMdBefore = fs.readFileSync(path.join(sandbox.configDir, 'AGENTS.md'), 'utf8');
    const configBefore = fs.readFileSync(configFile, 'utf8');

    const second = await runOpencode(sandbox, repo, 'OC-SECOND: add another file and commit it', { env, timeoutMs: OPENCODE_TIMEOUT_MS });
    expect(second.code).toBe(0);
    expect(second.stderr).not.toMatch(/agent-tracker added/);
    expect(fs.readFileSync(configFile, 'utf8')).toBe(configBefore);
    expect(treeHash(path.join(sandbox.configDir, 'skills'))).toEqual(skillsBefore);
    expect(fs.readFileSync(path.join(sandbox.configDir, 'AGENTS.md'), 'utf8')).toBe(agentsMdBefore);
    // doctor, run from where OpenCode installed the package, says why the agent stays away.
    const cli = path.join(installedPackage(), 'dist', 'cli', 'main.js');
    const doctor = spawnSync(process.execPath, [cli, 'doctor', '--json'], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
    expect(doctor.status).toBe(0);
    expect(JSON.parse(doctor.stdout)).toMatchObject({ removedByUser: [`agent:${removed}`], cli: `node ${fs.realpathSync(cli)}` });
    // It knows OpenCode manages this install: the package in OpenCode's cache, and no advice to run setup
    // (which would replace the user's entry).
    const text = spawnSync(process.execPath, [cli, 'doctor'], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 }).stdout;
    expect(text).toContain(`plugin entry   OpenCode-managed "${spec}"`);
    expect(text).toContain(`\n  installed      ${installedPackage()} (version `);
    expect(text).not.toMatch(/run "agent-tracker setup"|"agent-tracker setup" adds/);
    // A half-installed cache (a dependency gone, as an interrupted install leaves it) is named with its fix.
    const lmdb = path.join(installedPackage(), '..', 'lmdb');
    fs.renameSync(lmdb, `${lmdb}.aside`);
    try {
      // This checkout's CLI: the cached one cannot load without its lmdb.
      const broken = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli', 'main.js'), 'doctor'], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
      expect(`${broken.stdout}${broken.stderr}`).toMatch(/HALF-INSTALLED .*lmdb missing.*Fix: rm -rf '/);
    } finally {
      fs.renameSync(`${lmdb}.aside`, lmdb);
    }
  });

  it('runs its CLI as `npx opencode-agent-tracker` from the packed package', async () => {
    const run = await runBounded('npx', ['--yes', `--package=${tarball}`, '--', PACKAGE_NAME, 'status', '--json'], { cwd: repo, env, timeoutMs: NPM_TIMEOUT_MS });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as StatusJson).agents.find((agent) => agent.id === 'build')).toMatchObject({ commits: 2 });
  });
});

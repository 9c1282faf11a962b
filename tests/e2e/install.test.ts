/**
 * The real install path: `npm pack` this package, `npm install` the tarball into throwaway projects
 * with a temporary HOME (and npm cache), then delete those projects and drive the real `opencode`
 * binary against what was provisioned. Needs `npm run build` first. The dependencies come from a
 * registry on 127.0.0.1 serving what this checkout's node_modules holds (tests/helpers/local-registry.ts).
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { renderSection, TRACK_AGENTS_FILE } from '../../src/provisioning/agents-md.js';
import { readShippedAgents } from '../../src/provisioning/agents.js';
import { parseJsonc } from '../../src/provisioning/opencode-json.js';
import { PLUGIN_SPEC } from '../../src/provisioning/plugin-entry.js';
import { PLUGIN_FOLDER } from '../../src/provisioning/plugin-folder.js';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { git, makeRepo, makeSandbox, opencodeConfig, OPENCODE_BIN, removeSandbox, ROOT, runBounded, runOpencode } from '../helpers/sandbox.js';
import type { RunResult, Sandbox } from '../helpers/sandbox.js';
import { treeHash, withoutValues } from '../helpers/compare-files.js';
import { serveRegistry } from '../helpers/local-registry.js';
import type { LocalRegistry } from '../helpers/local-registry.js';
import { packedPackage } from '../helpers/packed-package.js';

jest.setTimeout(900_000);

const NPM_TIMEOUT_MS = 300_000;
const OPENCODE_TIMEOUT_MS = 150_000;

const ODD_CONFIG = `// my global config
{
    "$schema": "https://opencode.ai/config.json",   // keep this
  "autoupdate":false ,
    /* plugins I use */
    "plugin": [
        ["file:///home/me/src/opencode-agent-tracker/dist/opencode/plugin.js", { "flushMaxMutations": 100 }],   // old dev copy
    ],
    "agent": {
        "brainstorm": { "description": "MY brainstorm", "mode": "subagent", "prompt": "Mine." },   // keep mine
    },
}
`;
const MY_SKILL = '---\nname: structured-review\ndescription: My own review skill, not the shipped one.\n---\n\nMine.\n';
const USER_BEFORE = '# My rules\n\nAnswer briefly.\n\n';
const USER_AFTER = '\n\n## Also mine\n\nRun the tests.\n';
const OLD_SECTION = '<!-- BEGIN opencode-agent-tracker: scoring rules -->\nOld rules: commit +1 XP.\n<!-- END opencode-agent-tracker: scoring rules -->';
const BROKEN_CONFIG = '{\n  "plugin": [ "x",\n  oops\n';

/** A second HOME next to the sandbox's, sharing its npm cache. */
function secondHome(sandbox: Sandbox, name: string): { env: NodeJS.ProcessEnv; configDir: string } {
  const home = path.join(sandbox.root, name);
  const configDir = path.join(home, '.config', 'opencode');
  fs.mkdirSync(configDir, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...sandbox.env, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config') };
  delete env.AGENT_TRACKER_SKIP_SETUP;
  return { env, configDir };
}

describe('npm install of the packed package', () => {
  let sandbox: Sandbox;
  let env: NodeJS.ProcessEnv;
  let tarball: string;
  let firstInstall: RunResult;
  let registry: LocalRegistry;
  const projects: string[] = [];

  function npm(args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<RunResult> {
    return runBounded('npm', args, { cwd, env: { ...env, ...extraEnv }, timeoutMs: NPM_TIMEOUT_MS });
  }

  /** A new project folder with the tarball installed into it (postinstall in the foreground, as in CI). */
  async function installInNewProject(name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<RunResult> {
    const project = path.join(sandbox.root, name);
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
    projects.push(project);
    return npm(['install', tarball, '--no-audit', '--no-fund', '--foreground-scripts'], project, extraEnv);
  }

  beforeAll(async () => {
    expect(fs.existsSync(path.join(ROOT, 'dist', 'provisioning', 'index.js'))).toBe(true);
    sandbox = makeSandbox('agent-tracker-install-');
    // `npm pack` of this checkout and its dependencies' tarballs, shared with opencode-install.test.ts.
    const packed = await packedPackage(sandbox.root);
    tarball = packed.tarball;
    registry = await serveRegistry(packed.registry);
    env = { ...sandbox.env, npm_config_registry: registry.url, npm_config_cache: path.join(sandbox.root, 'npm-cache'), npm_config_update_notifier: 'false', CI: 'true' };
    delete env.AGENT_TRACKER_SKIP_SETUP;

    const config = sandbox.configDir;
    fs.writeFileSync(path.join(config, 'opencode.json'), ODD_CONFIG);
    fs.mkdirSync(path.join(config, 'skills', 'structured-review'), { recursive: true });
    fs.writeFileSync(path.join(config, 'skills', 'structured-review', 'SKILL.md'), MY_SKILL);
    fs.writeFileSync(path.join(config, 'AGENTS.md'), `${USER_BEFORE}${OLD_SECTION}${USER_AFTER}`);
    firstInstall = await installInNewProject('project-one');
  });

  afterAll(async () => {
    await registry?.close();
    if (sandbox) removeSandbox(sandbox);
  });

  it('exits 0 and provisions the plugin folder, its entry, the skills, the agents and the AGENTS.md section', () => {
    // Our script's own problems would be lines starting "agent-tracker"; npm's notices start "npm".
    expect({ code: firstInstall.code, problems: firstInstall.stderr.match(/^agent-tracker\b.*$/gm) }).toEqual({ code: 0, problems: null });
    expect(firstInstall.stdout).toMatch(/agent-tracker setup: .* 6 changed, 0 unchanged, 0 failed/);
    const config = sandbox.configDir;
    for (const file of ['package.json', 'dist/opencode/plugin.js', 'dist/cli/main.js', 'node_modules/lmdb/package.json', 'node_modules/zod/package.json']) {
      expect(fs.existsSync(path.join(config, PLUGIN_FOLDER, file))).toBe(true);
    }
    expect(fs.existsSync(path.join(config, 'skills', 'agile-spec-to-build', 'SKILL.md'))).toBe(true);
    const parsed = parseJsonc(fs.readFileSync(path.join(config, 'opencode.json'), 'utf8'), 'opencode.json') as { plugin: unknown[]; agent: Record<string, unknown> };
    expect(parsed.plugin).toEqual([[PLUGIN_SPEC, { flushMaxMutations: 100 }]]);
    expect(Object.keys(parsed.agent).sort()).toEqual(Object.keys(readShippedAgents(ROOT)).sort());
  });

  it('changes opencode.json only in the edited spots, keeping comments and odd formatting, after one backup', () => {
    const after = fs.readFileSync(path.join(sandbox.configDir, 'opencode.json'), 'utf8');
    expect(withoutValues(after, [['plugin'], ['agent']])).toBe(withoutValues(ODD_CONFIG, [['plugin'], ['agent']]));
    expect(after).toContain('{ "flushMaxMutations": 100 }');
    expect(after).toContain('"brainstorm": { "description": "MY brainstorm", "mode": "subagent", "prompt": "Mine." },   // keep mine');
    // Backups live in the config folder's backups folder, named after the file's folder and name.
    const folder = path.join(sandbox.configDir, 'agent-tracker-backups');
    const backups = fs.readdirSync(folder).filter((name) => name.startsWith('opencode-opencode.json.agent-tracker-backup-'));
    expect(backups).toHaveLength(1);
    expect(fs.readFileSync(path.join(folder, backups[0] as string), 'utf8')).toBe(ODD_CONFIG);
  });

  it("leaves the user's own skill folder and agent alone", () => {
    const mine = path.join(sandbox.configDir, 'skills', 'structured-review');
    expect(fs.readdirSync(mine)).toEqual(['SKILL.md']);
    expect(fs.readFileSync(path.join(mine, 'SKILL.md'), 'utf8')).toBe(MY_SKILL);
    expect(firstInstall.stdout).not.toMatch(/added agent "brainstorm"/);
  });

  it("replaces the old AGENTS.md section and keeps the user's text around it", () => {
    const shipped = fs.readFileSync(path.join(ROOT, TRACK_AGENTS_FILE), 'utf8');
    expect(fs.readFileSync(path.join(sandbox.configDir, 'AGENTS.md'), 'utf8')).toBe(`${USER_BEFORE}${renderSection(shipped)}${USER_AFTER}`);
  });

  it('changes no byte in the config folder when installed a second time', async () => {
    const before = treeHash(sandbox.configDir);
    const second = await installInNewProject('project-two');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/agent-tracker setup: .* 0 changed, 6 unchanged, 0 failed/);
    expect(treeHash(sandbox.configDir)).toEqual(before);
  });

  it('folds two copies of the plugin written on one line into the provisioned entry; the config still parses, and setup from the provisioned copy keeps it whole', async () => {
    const other = secondHome(sandbox, 'home-two-copies');
    const file = path.join(other.configDir, 'opencode.json');
    fs.writeFileSync(file, '{ "plugin": ["opencode-agent-tracker", ["opencode-agent-tracker@0.0.9", { "haltBlocksTools": false }]] }\n');
    const run = await installInNewProject('project-two-copies', other.env);
    expect(run.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).plugin).toEqual([['./plugins/agent-tracker', { haltBlocksTools: false }]]);
    // The provisioned copy's own CLI, as README and doctor name it: its setup leaves the folder it runs from as it is.
    const cli = path.join(other.configDir, PLUGIN_FOLDER, 'dist', 'cli', 'main.js');
    const setup = await runBounded(process.execPath, [cli, 'setup'], { cwd: sandbox.root, env: other.env, timeoutMs: NPM_TIMEOUT_MS });
    expect({ code: setup.code, stderr: setup.stderr }).toEqual({ code: 0, stderr: '' });
    expect(fs.existsSync(path.join(other.configDir, PLUGIN_FOLDER, 'node_modules', 'lmdb', 'package.json'))).toBe(true);
  });

  it('leaves an opencode.json that does not parse byte-identical, and the install still exits 0', async () => {
    const other = secondHome(sandbox, 'home-broken');
    fs.writeFileSync(path.join(other.configDir, 'opencode.json'), BROKEN_CONFIG);
    const run = await installInNewProject('project-three', other.env);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/plugin-entry failed: .*does not parse.*left untouched/);
    expect(fs.readFileSync(path.join(other.configDir, 'opencode.json'), 'utf8')).toBe(BROKEN_CONFIG);
    expect(fs.readdirSync(other.configDir).filter((name) => name.includes('backup'))).toEqual([]);
    expect(fs.existsSync(path.join(other.configDir, PLUGIN_FOLDER, 'dist', 'opencode', 'plugin.js'))).toBe(true);
  });

  describe('the real opencode binary, after the install folders are deleted', () => {
    let model: FakeModel;
    let cwd: string;

    beforeAll(async () => {
      for (const project of projects) fs.rmSync(project, { recursive: true, force: true });
      model = await startFakeModel(scriptByPrompt({ 'INSTALL-TURN': [bash('echo one > a.txt && git add a.txt && git commit -q -m "add a"'), say('Done.')] }));
      cwd = makeRepo(sandbox, 'fresh');
    });

    afterAll(async () => {
      await model.close();
    });

    /** `opencode debug ...` in the fresh project with the provisioned global config. */
    function debug(args: string[]): Promise<RunResult> {
      return runBounded(OPENCODE_BIN, ['debug', ...args], { cwd, env: sandbox.env, timeoutMs: OPENCODE_TIMEOUT_MS });
    }

    it('starts cleanly with the provisioned config and loads the plugin folder with the kept options', async () => {
      const run = await debug(['config']);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const resolved = JSON.parse(run.stdout) as { plugin: unknown[] };
      expect(resolved.plugin).toEqual([[`file://${path.join(sandbox.configDir, PLUGIN_FOLDER)}`, { flushMaxMutations: 100 }]]);
    });

    it('shows the engineer-build agent with only real fields (nothing left over in options)', async () => {
      const run = await debug(['agent', 'engineer-build']);
      expect(run.code).toBe(0);
      const agent = JSON.parse(run.stdout) as Record<string, unknown>;
      const shipped = readShippedAgents(ROOT)['engineer-build'] as Record<string, unknown>;
      expect(agent).toMatchObject({ name: 'engineer-build', mode: shipped.mode, description: shipped.description, prompt: shipped.prompt, temperature: shipped.temperature, options: {} });
    });

    it('lists both skills (the user\'s own structured-review included)', async () => {
      const run = await debug(['skill']);
      expect(run.code).toBe(0);
      const skills = JSON.parse(run.stdout) as { name: string; description: string; location: string }[];
      const byName = new Map(skills.map((skill) => [skill.name, skill]));
      expect(byName.get('agile-spec-to-build')?.location).toBe(path.join(sandbox.configDir, 'skills', 'agile-spec-to-build', 'SKILL.md'));
      expect(byName.get('structured-review')?.description).toBe('My own review skill, not the shipped one.');
    });

    it('records a session through the provisioned plugin, as the provisioned CLI shows', async () => {
      const content = opencodeConfig({ modelUrl: model.url });
      delete content.plugin;
      const run = await runOpencode(sandbox, cwd, 'INSTALL-TURN: add a file and commit it', { env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(content) } });
      expect(run.code).toBe(0);
      expect(git(cwd, ['log', '--format=%s', '-n', '1']).trim()).toBe('add a');

      const cli = path.join(sandbox.configDir, PLUGIN_FOLDER, 'dist', 'cli', 'main.js');
      const status = spawnSync(process.execPath, [cli, 'status', '--json'], { cwd, env: sandbox.env, encoding: 'utf8', timeout: 60_000 });
      expect({ code: status.status, stderr: status.stderr }).toEqual({ code: 0, stderr: '' });
      const agents = (JSON.parse(status.stdout) as { agents: { id: string; commits: number }[] }).agents;
      expect(agents.find((agent) => agent.id === 'build')).toMatchObject({ commits: 1 });

      const doctor = spawnSync(process.execPath, [cli, 'doctor', '--json'], { cwd, env: sandbox.env, encoding: 'utf8', timeout: 60_000 });
      expect(doctor.status).toBe(0);
      const provisioning = (JSON.parse(doctor.stdout) as { provisioning: Record<string, unknown> }).provisioning;
      expect(provisioning).toMatchObject({ registered: true, pluginFolder: { present: true }, agentsMd: 'current', configError: null });
      expect(Object.values(provisioning.skills as Record<string, boolean>).every(Boolean)).toBe(true);
      expect(Object.values(provisioning.agents as Record<string, boolean>).every(Boolean)).toBe(true);
    });
  });
});

/** What `agent-tracker doctor` reports about provisioning, read from temporary config folders. */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { installAgentsMd, renderSection } from '../../src/provisioning/agents-md.js';
import { installAgents } from '../../src/provisioning/agents.js';
import { createContext } from '../../src/provisioning/context.js';
import { describeProvisioning, inspectProvisioning } from '../../src/provisioning/inspect.js';
import { PLUGIN_SPEC, registerPlugin } from '../../src/provisioning/plugin-entry.js';
import { PLUGIN_FOLDER } from '../../src/provisioning/plugin-folder.js';
import { installSkills } from '../../src/provisioning/skills.js';
import { ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const configFolder = useTempDirs('agent-tracker-inspect-');

describe('inspectProvisioning', () => {
  it('reports everything missing in an empty config folder, each with the command that fixes it', () => {
    const state = inspectProvisioning(configFolder(), ROOT);
    expect(state).toMatchObject({
      configFile: null,
      configError: null,
      pluginFolder: { present: false, version: null },
      pluginEntries: [],
      registered: false,
      skills: { 'agile-spec-to-build': false, 'structured-review': false },
      agentsMd: 'no-file',
    });
    expect(Object.values(state.agents)).toEqual([false, false, false, false]);
    const text = describeProvisioning(state).join('\n');
    expect(text).toMatch(/plugin folder {2}missing \(run "agent-tracker setup"\)/);
    expect(text).toMatch(/skills {9}agile-spec-to-build MISSING/);
  });

  it('reports a provisioned folder as complete', () => {
    const dir = configFolder();
    const context = createContext(dir);
    for (const step of [registerPlugin, installSkills, installAgents, installAgentsMd]) step(context, ROOT);
    fs.mkdirSync(path.join(dir, PLUGIN_FOLDER), { recursive: true });
    fs.writeFileSync(path.join(dir, PLUGIN_FOLDER, 'package.json'), JSON.stringify({ version: '9.9.9' }));
    const state = inspectProvisioning(dir, ROOT);
    expect(state).toMatchObject({ pluginFolder: { present: true, version: '9.9.9' }, pluginEntries: [PLUGIN_SPEC], registered: true, agentsMd: 'current' });
    expect(Object.values(state.skills).every(Boolean)).toBe(true);
    expect(Object.values(state.agents).every(Boolean)).toBe(true);
  });

  it('names the dependencies a plugin folder lacks: such a copy loads nothing in OpenCode', () => {
    const dir = configFolder();
    registerPlugin(createContext(dir));
    const folder = path.join(dir, PLUGIN_FOLDER);
    fs.mkdirSync(path.join(folder, 'node_modules', 'figlet'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ version: '9.9.9' }));
    fs.writeFileSync(path.join(folder, 'node_modules', 'figlet', 'package.json'), '{}');
    const state = inspectProvisioning(dir, ROOT);
    expect(state.pluginFolder.missing).toContain('lmdb');
    expect(state.pluginFolder.missing).not.toContain('figlet');
    expect(describeProvisioning(state).join('\n')).toMatch(/plugin folder {2}.* \(version 9\.9\.9\) INCOMPLETE: .*\blmdb\b.* missing, so OpenCode cannot load it \(run "agent-tracker setup" from the installed package\)/);
  });

  it('tells an outdated section, two entries and an unreadable config apart', () => {
    const dir = configFolder();
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), `mine\n${renderSection('old rules')}\n`);
    fs.writeFileSync(path.join(dir, 'opencode.json'), JSON.stringify({ plugin: [PLUGIN_SPEC, 'opencode-agent-tracker'] }));
    expect(inspectProvisioning(dir, ROOT)).toMatchObject({ agentsMd: 'outdated', registered: false, pluginEntries: [PLUGIN_SPEC, 'opencode-agent-tracker'] });

    fs.writeFileSync(path.join(dir, 'opencode.json'), '{ nope');
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), '<!-- BEGIN opencode-agent-tracker -->\nno end\n');
    const state = inspectProvisioning(dir, ROOT);
    expect(state.configError).toMatch(/does not parse/);
    expect(state.agentsMd).toBe('malformed');
  });
});

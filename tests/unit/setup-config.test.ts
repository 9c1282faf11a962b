/**
 * The global config edits: the plugin entry and the agents, in temporary config folders. Comments,
 * order and formatting outside the edited spots survive; a file that does not parse is left
 * byte-identical; backups are made once, before the first change; dry runs write nothing.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { readShippedAgents } from '../../src/provisioning/agents.js';
import { installAgents } from '../../src/provisioning/agents.js';
import { assertInsideConfig, createContext } from '../../src/provisioning/context.js';
import { parseJsonc, readPluginOptions } from '../../src/provisioning/opencode-json.js';
import { PLUGIN_SPEC, registerPlugin } from '../../src/provisioning/plugin-entry.js';
import { ROOT } from '../helpers/sandbox.js';
import { treeHash, withoutValues } from '../helpers/compare-files.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempHome = useTempDirs('agent-tracker-config-');

/** A temporary HOME-like folder holding an empty OpenCode config folder. */
function configFolder(): string {
  const root = tempHome();
  const dir = path.join(root, '.config', 'opencode');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

const SHIPPED_AGENTS = Object.keys(readShippedAgents(ROOT));

function parse(file: string): { plugin?: unknown[]; agent?: Record<string, unknown> } {
  return parseJsonc(fs.readFileSync(file, 'utf8'), file) as { plugin?: unknown[]; agent?: Record<string, unknown> };
}

const ODD_CONFIG = `// my global opencode config
{
    "$schema": "https://opencode.ai/config.json",   // keep this
  "theme":"tokyonight" ,
    /* plugins I use */
    "plugin": [ "opencode-wakatime",   // time tracking
        ["file:///home/me/src/opencode-agent-tracker/dist/opencode/plugin.js", { "flushMaxMutations": 100 }],
      "opencode-agent-tracker@0.0.9",
    ],
    "agent": {
        "brainstorm": { "description": "MY brainstorm", "mode": "subagent" },   // mine, keep
    },
  "autoupdate": false,
}
`;

describe('registering the plugin', () => {
  it('creates a minimal opencode.json with the entry when there is none, without a backup', () => {
    const dir = configFolder();
    const result = registerPlugin(createContext(dir));
    expect(result.status).toBe('changed');
    expect(parse(path.join(dir, 'opencode.json')).plugin).toEqual([PLUGIN_SPEC]);
    expect(fs.readdirSync(dir)).toEqual(['opencode.json']);
  });

  it('folds old copies into one entry, keeps their options and changes nothing else', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, ODD_CONFIG);
    const context = createContext(dir);
    const result = registerPlugin(context);
    const after = fs.readFileSync(file, 'utf8');

    expect(result.status).toBe('changed');
    expect(parse(file).plugin).toEqual(['opencode-wakatime', [PLUGIN_SPEC, { flushMaxMutations: 100 }]]);
    expect(withoutValues(after, [['plugin']])).toBe(withoutValues(ODD_CONFIG, [['plugin']]));
    // Inside the array, the other entry's comment and the options' own text survive.
    expect(after).toContain('"opencode-wakatime",   // time tracking');
    expect(after).toContain('{ "flushMaxMutations": 100 }');
    expect(result.messages.join('\n')).toMatch(/removed "opencode-agent-tracker@0.0.9"/);
    // One backup, of the original, named with the run's time.
    const backup = context.backups.get(file);
    expect(backup).toMatch(/opencode\.json\.agent-tracker-backup-\d{8}T\d{6}Z$/);
    expect(fs.readFileSync(backup as string, 'utf8')).toBe(ODD_CONFIG);
  });

  it.each([
    ['two names on one line', '{ "plugin": ["opencode-agent-tracker", "opencode-agent-tracker@0.0.9"] }', [PLUGIN_SPEC]],
    ['the older copy last, with options', '{ "plugin": ["opencode-wakatime", "opencode-agent-tracker", ["opencode-agent-tracker@0.0.9", { "haltBlocksTools": false }]] }', ['opencode-wakatime', [PLUGIN_SPEC, { haltBlocksTools: false }]]],
    ['the copy with options first', '{"plugin":[["opencode-agent-tracker",{"a":1}],"opencode-agent-tracker@0.0.9"]}', [[PLUGIN_SPEC, { a: 1 }]]],
    ['three copies', '{ "plugin": ["opencode-agent-tracker@0.0.8", "x", "opencode-agent-tracker@0.0.9", "opencode-agent-tracker"] }', [PLUGIN_SPEC, 'x']],
  ])('folds copies written on one line into one entry and leaves a file that parses (%s)', (_name, text, plugins) => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, text);
    expect(registerPlugin(createContext(dir)).status).toBe('changed');
    expect(parse(file).plugin).toEqual(plugins);
  });

  it('folds copies in OpenCode 2\'s "plugins" written on one line and leaves a file that parses', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, '{ "plugins": [{ "package": "opencode-agent-tracker" }, { "package": "opencode-agent-tracker@0.0.9" }] }');
    // As under OpenCode 2 (`npm test` puts the pinned version-1 binary on PATH, which would say 1.x).
    registerPlugin(createContext(dir, { configShape: 'v2' }));
    expect(parseJsonc(fs.readFileSync(file, 'utf8'), file)).toEqual({ plugins: [{ package: PLUGIN_SPEC }] });
  });

  it('reads and edits a config saved with a byte-order mark and CRLF line ends (as OpenCode reads it), keeping both', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, '\ufeff{\r\n  "plugin": [["opencode-agent-tracker", { "haltBlocksTools": false }]],\r\n  "theme": "x"\r\n}\r\n');
    expect(readPluginOptions(dir)).toEqual({ haltBlocksTools: false });
    expect(registerPlugin(createContext(dir)).status).toBe('changed');
    expect(installAgents(createContext(dir), ROOT).status).toBe('changed');
    const after = fs.readFileSync(file, 'utf8');
    expect(after.startsWith('\ufeff{\r\n')).toBe(true);
    expect(after.replace(/\r\n/g, '').includes('\n')).toBe(false);
    expect(parse(file).plugin).toEqual([[PLUGIN_SPEC, { haltBlocksTools: false }]]);
  });

  it('treats a file:// entry pointing at a source checkout of this package as an old copy', () => {
    const dir = configFolder();
    const checkout = path.join(path.dirname(path.dirname(dir)), 'work', 'tracker-checkout');
    fs.mkdirSync(path.join(checkout, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(checkout, 'package.json'), JSON.stringify({ name: 'opencode-agent-tracker' }));
    const other = path.join(path.dirname(path.dirname(dir)), 'work', 'other-plugin');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'package.json'), JSON.stringify({ name: 'someone-elses-plugin' }));
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, JSON.stringify({ plugin: [`file://${other}`, `file://${checkout}`] }, null, 2));

    registerPlugin(createContext(dir));
    expect(parse(file).plugin).toEqual([`file://${other}`, PLUGIN_SPEC]);
  });

  it('leaves a registered entry, its options and the file alone (no write, no backup)', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    const text = `{\n  "plugin": [["${PLUGIN_SPEC}", { "haltBlocksTools": false }]] // mine\n}\n`;
    fs.writeFileSync(file, text);
    const before = treeHash(dir);
    expect(registerPlugin(createContext(dir)).status).toBe('unchanged');
    expect(treeHash(dir)).toEqual(before);
  });

  it('edits opencode.jsonc when that is the file in use, in its tab indentation', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.jsonc');
    fs.writeFileSync(file, '{\n\t// tabs here\n\t"theme": "x"\n}\n');
    registerPlugin(createContext(dir));
    expect(fs.existsSync(path.join(dir, 'opencode.json'))).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(`{\n\t"plugin": [\n\t\t"${PLUGIN_SPEC}"\n\t],\n\t// tabs here\n\t"theme": "x"\n}\n`);
  });

  it('leaves a file that does not parse byte-identical and says so', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, '{ "plugin": [ "a", }  oops');
    const before = treeHash(dir);
    expect(() => registerPlugin(createContext(dir))).toThrow(/opencode\.json does not parse .*left untouched/);
    expect(() => installAgents(createContext(dir), ROOT)).toThrow(/left untouched/);
    expect(treeHash(dir)).toEqual(before);
  });

  it('leaves a "plugin" that is not a list alone', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, '{ "plugin": "x" }');
    expect(() => registerPlugin(createContext(dir))).toThrow(/"plugin" .* is not a list/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "plugin": "x" }');
  });
});

describe('adding the agents', () => {
  it('adds the shipped agents, keeps the user\'s own agent of the same name byte for byte', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, ODD_CONFIG);
    const result = installAgents(createContext(dir), ROOT);
    const after = fs.readFileSync(file, 'utf8');

    expect(result.status).toBe('changed');
    expect(Object.keys(parse(file).agent ?? {}).sort()).toEqual([...SHIPPED_AGENTS].sort());
    expect(after).toContain('"brainstorm": { "description": "MY brainstorm", "mode": "subagent" },   // mine, keep');
    expect(withoutValues(after, [['agent']])).toBe(withoutValues(ODD_CONFIG, [['agent']]));
    expect(result.messages).toContain('agent "brainstorm" is already there, left as it is');
  });

  it('keeps an agent the user wrote as a markdown file', () => {
    const dir = configFolder();
    fs.mkdirSync(path.join(dir, 'agents'));
    fs.writeFileSync(path.join(dir, 'agents', 'engineer-build.md'), '---\ndescription: mine\n---\nMine.\n');
    installAgents(createContext(dir), ROOT);
    expect(Object.keys(parse(path.join(dir, 'opencode.json')).agent ?? {})).not.toContain('engineer-build');
  });

  it('makes one backup per file per run, even when two steps edit it', () => {
    const dir = configFolder();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, ODD_CONFIG);
    const context = createContext(dir);
    registerPlugin(context);
    installAgents(context, ROOT);
    expect(fs.readdirSync(dir).filter((name) => name.includes('backup'))).toHaveLength(1);
    expect(fs.readFileSync(context.backups.get(file) as string, 'utf8')).toBe(ODD_CONFIG);

    // A later run that changes nothing makes no backup.
    const again = createContext(dir, { now: new Date(context.now.getTime() + 60_000) });
    expect(registerPlugin(again).status).toBe('unchanged');
    expect(installAgents(again, ROOT).status).toBe('unchanged');
    expect(again.backups.size).toBe(0);
  });

  it('in a dry run reports the changes, writes nothing, and later steps see the earlier ones', () => {
    const dir = configFolder();
    fs.writeFileSync(path.join(dir, 'opencode.json'), ODD_CONFIG);
    const before = treeHash(dir);
    const context = createContext(dir, { dryRun: true });
    expect(registerPlugin(context).status).toBe('changed');
    expect(installAgents(context, ROOT).status).toBe('changed');
    const planned = context.pendingText.get(path.join(dir, 'opencode.json')) as string;
    expect(parseJsonc(planned, 'planned')).toMatchObject({ plugin: ['opencode-wakatime', [PLUGIN_SPEC, { flushMaxMutations: 100 }]] });
    expect(treeHash(dir)).toEqual(before);
  });
});

describe('the config folder boundary', () => {
  it('refuses to write anywhere outside the config folder', () => {
    const context = createContext(configFolder());
    for (const target of [path.join(context.configDir, '..', 'x'), context.configDir, '/etc/passwd', path.join(context.configDir, 'a', '..', '..', 'b')]) {
      expect(() => assertInsideConfig(context, target)).toThrow(/outside the OpenCode config folder/);
    }
    expect(() => assertInsideConfig(context, path.join(context.configDir, 'skills', 'x', 'SKILL.md'))).not.toThrow();
  });
});

/**
 * The config shape setup and `recommend --apply` write: OpenCode 2's `"plugins": [{ package, options }]`
 * and `"agents"`, or version 1's `"plugin": [[spec, options]]` and `"agent"`, decided from the OpenCode
 * on PATH (a real executable that prints a version, in a temporary folder) and from the file itself;
 * one shape, never both. Real files in temporary folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { applyRecommendation } from '../../src/cli/commands/recommend-apply.js';
import { recommendSetups } from '../../src/core/report/recommend.js';
import { createContext } from '../../src/provisioning/context.js';
import { decideShape, opencodeMajorVersion } from '../../src/provisioning/host-version.js';
import { pluginOptionsIn } from '../../src/provisioning/opencode-json.js';
import { PLUGIN_SPEC, registerPlugin } from '../../src/provisioning/plugin-entry.js';
import { profile } from '../helpers/synthetic-history.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { usageRecord } from '../helpers/usage-record.js';

const tempDir = useTempDirs('agent-tracker-shape-');
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

/** Puts an `opencode` that prints `version` first on PATH (only a folder of ours on it). */
function opencodeOnPath(version: string): void {
  const bin = tempDir();
  const file = path.join(bin, 'opencode');
  fs.writeFileSync(file, `#!/bin/sh\necho "${version}"\n`, { mode: 0o755 });
  process.env.PATH = `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`;
}

function noOpencodeOnPath(): void {
  process.env.PATH = `${tempDir()}${path.delimiter}/usr/bin${path.delimiter}/bin`;
}

function configIn(dir: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(dir, 'opencode.json'), 'utf8')) as Record<string, unknown>;
}

describe('decideShape', () => {
  it.each([
    [{}, undefined, 'v1'],
    [{ plugin: [] }, undefined, 'v1'],
    [{ plugins: [] }, undefined, 'v2'],
    [{ agents: {} }, undefined, 'v2'],
    [{ plugin: [], plugins: [] }, undefined, 'v1'],
    [{ plugin: ['x'] }, 2, 'v2'],
    [{ plugins: [] }, 1, 'v1'],
    [{}, 2, 'v2'],
  ] as const)('config %j with opencode %s on PATH: %s', (config, major, shape) => {
    expect(decideShape(config, major).shape).toBe(shape);
  });

  it('reads the major version from the opencode on PATH, and nothing when there is none', () => {
    opencodeOnPath('2.0.25');
    expect(opencodeMajorVersion()).toBe(2);
    noOpencodeOnPath();
    expect(opencodeMajorVersion()).toBeUndefined();
  });
});

describe('registerPlugin', () => {
  it('writes OpenCode 2\'s "plugins" entry when the config already uses it, and nothing the second time', () => {
    noOpencodeOnPath();
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'opencode.json'), '{\n  "plugins": ["other-plugin"]\n}\n');
    expect(registerPlugin(createContext(dir)).status).toBe('changed');
    expect(configIn(dir)).toEqual({ plugins: [{ package: PLUGIN_SPEC }, 'other-plugin'] });
    expect(registerPlugin(createContext(dir)).status).toBe('unchanged');
  });

  it('writes the version-2 entry, carrying the version-1 options, when opencode 2 is on PATH; the old list is left as it is', () => {
    opencodeOnPath('2.0.25');
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'opencode.json'), JSON.stringify({ plugin: [[PLUGIN_SPEC, { haltBlocksTools: false }]] }, null, 2));
    const result = registerPlugin(createContext(dir));
    expect(result.messages[0]).toMatch(/OpenCode 2 shape.*opencode --version says 2\.x/);
    const config = configIn(dir);
    expect(config).toEqual({ plugin: [[PLUGIN_SPEC, { haltBlocksTools: false }]], plugins: [{ package: PLUGIN_SPEC, options: { haltBlocksTools: false } }] });
    // The options version 2 hands the plugin are the ones the trust check reads as the user's.
    expect(pluginOptionsIn(config)).toEqual({ haltBlocksTools: false });
  });

  it('keeps writing version 1\'s "plugin" entry when nothing says version 2', () => {
    noOpencodeOnPath();
    const dir = tempDir();
    registerPlugin(createContext(dir));
    expect(configIn(dir)).toMatchObject({ plugin: [PLUGIN_SPEC] });
    expect(configIn(dir)).not.toHaveProperty('plugins');
  });

  it('follows the host the caller names over the file', () => {
    noOpencodeOnPath();
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'opencode.json'), '{ "plugin": [] }');
    registerPlugin(createContext(dir, { configShape: 'v2' }));
    expect(configIn(dir)).toEqual({ plugin: [], plugins: [{ package: PLUGIN_SPEC }] });
  });
});

describe('recommend --apply', () => {
  const recommendation = () =>
    recommendSetups({
      target: profile('/p/target', 'rust', 'axum', 'api'),
      history: {
        usage: [
          ...Array.from({ length: 40 }, () => usageRecord({ agent: 'build', model: 'good/model', commits: 2, userGradedCommits: 2, userGradeSum: 10, toolCalls: 10 })),
          ...Array.from({ length: 40 }, () => usageRecord({ agent: 'build', model: 'poor/model', commits: 2, userGradedCommits: 2, userGradeSum: -2, revertedCommits: 1, toolCalls: 10 })),
        ],
      },
      profiles: new Map(),
      similarity: () => 1,
    });
  const options = (configDir: string) => ({ configDir, dryRun: false, yes: true, includeUncertain: false, now: new Date('2026-11-26T00:00:00Z'), backupDir: path.join(configDir, 'backups') });
  const noTerminal = { interactive: false, confirm: async () => true };

  it('writes the pick under "agents" for OpenCode 2 and under "agent" for version 1', async () => {
    opencodeOnPath('2.1.0');
    const v2 = tempDir();
    fs.writeFileSync(path.join(v2, 'opencode.json'), '{}\n');
    await applyRecommendation(recommendation(), options(v2), noTerminal, () => undefined);
    expect(configIn(v2)).toEqual({ agents: { build: { model: 'good/model' } } });

    opencodeOnPath('1.18.33');
    const v1 = tempDir();
    fs.writeFileSync(path.join(v1, 'opencode.json'), '{}\n');
    await applyRecommendation(recommendation(), options(v1), noTerminal, () => undefined);
    expect(configIn(v1)).toEqual({ agent: { build: { model: 'good/model' } } });
  });
});

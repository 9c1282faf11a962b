/** How doctor and the agent-status tool tell the user to run the CLI from where the package really is. */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { Store } from '../../src/core/store/store.js';
import { readShippedAgents } from '../../src/provisioning/agents.js';
import { cliCommand, cliHint } from '../../src/provisioning/cli-location.js';
import { shippedSkills } from '../../src/provisioning/skills.js';
import { makeSandbox, removeSandbox, ROOT, runCli } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { termIndexer } from '../../src/core/search/indexer.js';

const tempDir = useTempDirs('agent-tracker-cli-location-');

describe('cliCommand', () => {
  it('names the real file behind a symlinked package folder, and that command runs the CLI', () => {
    const link = path.join(tempDir(), 'linked-package');
    fs.symlinkSync(ROOT, link);
    const command = cliCommand(link);
    expect(command).toBe(`node ${path.join(fs.realpathSync(ROOT), 'dist', 'cli', 'main.js')}`);
    const [, entry] = command.split(' ');
    const run = spawnSync(process.execPath, [entry as string, '--help'], { encoding: 'utf8', timeout: 60_000 });
    expect({ code: run.status, usage: run.stdout.includes('usage: agent-tracker <command>') }).toEqual({ code: 0, usage: true });
  });

  it('quotes a path with a space so it can be pasted into a shell', () => {
    const root = path.join(tempDir(), 'my packages');
    fs.mkdirSync(root);
    expect(cliCommand(root)).toBe(`node ${JSON.stringify(path.join(fs.realpathSync(root), 'dist', 'cli', 'main.js'))}`);
  });

  it('mentions the bin names for installs that put them on PATH', () => {
    expect(cliHint(ROOT)).toContain('npx opencode-agent-tracker');
  });

  it('ships a bin named after the package beside agent-tracker, both on the CLI', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(manifest.bin).toEqual({ 'agent-tracker': './dist/cli/main.js', 'opencode-agent-tracker': './dist/cli/main.js' });
  });
});

describe('agent-tracker doctor', () => {
  it('names what the plugin provisioned and the user removed since (it is not put back)', () => {
    const sandbox = makeSandbox('agent-tracker-doctor-removed-');
    try {
      const config = resolveConfig({ env: {}, home: sandbox.home });
      const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
      const agent = Object.keys(readShippedAgents(ROOT))[0] as string;
      const skill = shippedSkills(ROOT)[0] as string;
      store.applyBatch([{ table: 'provisioned', key: sandbox.configDir, items: [`agent:${agent}`, `skill:${skill}`] }], config.rules, new Date().toISOString());
      store.close();
      // The skill is still there; the agent is not (the config folder has no opencode.json).
      fs.mkdirSync(path.join(sandbox.configDir, 'skills', skill), { recursive: true });
      const json = runCli(sandbox, ['doctor', '--json']);
      expect((JSON.parse(json.stdout) as { removedByUser: string[] }).removedByUser).toEqual([`agent:${agent}`]);
      expect(runCli(sandbox, ['doctor']).stdout).toContain(`  removed by you agent:${agent} (not put back at start; "agent-tracker setup" adds them again)`);
    } finally {
      removeSandbox(sandbox);
    }
  });

  it('says how to run the CLI from where this package is', () => {
    const sandbox = makeSandbox('agent-tracker-doctor-cli-');
    try {
      // doctor reads the database; a reader creates none.
      Store.open({ path: sandbox.dbPath, maxDatabaseSize: 2 ** 24 }).close();
      const json = runCli(sandbox, ['doctor', '--json']);
      expect(json.code).toBe(0);
      expect((JSON.parse(json.stdout) as { cli: string }).cli).toBe(cliCommand(ROOT));
      const text = runCli(sandbox, ['doctor']);
      expect(text.stdout).toContain(`cli             ${cliCommand(ROOT)} <command>`);
      expect(text.stdout).toContain('  removed by you nothing');
    } finally {
      removeSandbox(sandbox);
    }
  });
});

/** How doctor and the agent-status tool tell the user to run the CLI from where the package really is. */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliCommand, cliHint } from '../../src/setup/cli-location.js';
import { makeSandbox, removeSandbox, ROOT, runCli } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

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
  it('says how to run the CLI from where this package is', () => {
    const sandbox = makeSandbox('agent-tracker-doctor-cli-');
    try {
      const json = runCli(sandbox, ['doctor', '--json']);
      expect(json.code).toBe(0);
      expect((JSON.parse(json.stdout) as { cli: string }).cli).toBe(cliCommand(ROOT));
      const text = runCli(sandbox, ['doctor']);
      expect(text.stdout).toContain(`cli             ${cliCommand(ROOT)} <command>`);
    } finally {
      removeSandbox(sandbox);
    }
  });
});

/** Provisioning the /grade slash command into a temporary OpenCode config folder. */
import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GRADE_COMMAND_FILE, installCommands } from '../../src/provisioning/commands.js';
import { createContext } from '../../src/provisioning/context.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = () => path.join(dir, 'commands', 'grade.md');

describe('the /grade command file', () => {
  it('is written once, then left unchanged; a dry run writes nothing', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-commands-'));
    expect(installCommands(createContext(dir, { dryRun: true })).status).toBe('changed');
    expect(fs.existsSync(file())).toBe(false);
    expect(installCommands(createContext(dir))).toMatchObject({ step: 'commands', status: 'changed' });
    expect(fs.readFileSync(file(), 'utf8')).toBe(GRADE_COMMAND_FILE);
    expect(installCommands(createContext(dir)).status).toBe('unchanged');
  });

  it('updates its own older file with a backup, and keeps a grade command the user wrote', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-commands-'));
    fs.mkdirSync(path.join(dir, 'commands'));
    fs.writeFileSync(file(), '---\ndescription: old (agent-tracker)\n---\nold\n');
    const context = createContext(dir);
    expect(installCommands(context).status).toBe('changed');
    expect(fs.readFileSync(file(), 'utf8')).toBe(GRADE_COMMAND_FILE);
    expect(context.backups.size).toBe(1);
    fs.writeFileSync(file(), 'my own grade command\n');
    const kept = installCommands(createContext(dir));
    expect(kept.status).toBe('unchanged');
    expect(kept.messages[0]).toMatch(/kept your own \/grade command/);
    expect(fs.readFileSync(file(), 'utf8')).toBe('my own grade command\n');
  });
});

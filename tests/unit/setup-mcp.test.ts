/**
 * `setup --mcp`: registering the MCP server with OpenCode (global config's `mcp` section) and with
 * Claude Code (`~/.claude.json`, user scope). Comments and the user's other entries survive, a
 * backup comes before the first change, a second run changes nothing, a dry run writes nothing, and
 * a file that does not parse is left byte-identical.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { parseJsonc } from '../../src/provisioning/opencode-json.js';
import { MCP_ENTRY_NAME, registerMcpServer } from '../../src/provisioning/mcp-clients.js';
import { treeHash } from '../helpers/compare-files.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempHome = useTempDirs('agent-tracker-mcp-setup-');
const COMMAND = ['/usr/bin/node', '/opt/tracker/dist/cli/main.js', 'mcp'];

function home(): { home: string; configDir: string } {
  const root = tempHome();
  const configDir = path.join(root, '.config', 'opencode');
  fs.mkdirSync(configDir, { recursive: true });
  return { home: root, configDir };
}

describe('setup --mcp opencode', () => {
  it('adds a local server to the mcp section, keeping comments and other servers', () => {
    const { configDir } = home();
    const file = path.join(configDir, 'opencode.jsonc');
    fs.writeFileSync(file, '{\n  // my servers\n  "mcp": {\n    "docs": { "type": "remote", "url": "http://127.0.0.1:9/mcp" } // keep me\n  }\n}\n');
    const result = registerMcpServer('opencode', { configDir, command: COMMAND });
    expect(result).toMatchObject({ client: 'opencode', status: 'changed', file });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('// my servers');
    expect(text).toContain('// keep me');
    const config = parseJsonc(text, file) as { mcp: Record<string, unknown> };
    expect(config.mcp.docs).toEqual({ type: 'remote', url: 'http://127.0.0.1:9/mcp' });
    expect(config.mcp[MCP_ENTRY_NAME]).toEqual({ type: 'local', command: COMMAND, enabled: true });
    expect(result.backup && fs.existsSync(result.backup)).toBe(true);

    const before = treeHash(configDir);
    expect(registerMcpServer('opencode', { configDir, command: COMMAND }).status).toBe('unchanged');
    expect(treeHash(configDir)).toEqual(before);
  });

  it('creates the config when there is none, and a dry run writes nothing', () => {
    const { configDir } = home();
    const dry = registerMcpServer('opencode', { configDir, command: COMMAND, dryRun: true });
    expect(dry).toMatchObject({ status: 'changed', dryRun: true });
    expect(fs.readdirSync(configDir)).toEqual([]);
    registerMcpServer('opencode', { configDir, command: COMMAND });
    const config = JSON.parse(fs.readFileSync(path.join(configDir, 'opencode.json'), 'utf8')) as { mcp: Record<string, unknown> };
    expect(config.mcp[MCP_ENTRY_NAME]).toEqual({ type: 'local', command: COMMAND, enabled: true });
  });

  it('updates an entry whose command moved', () => {
    const { configDir } = home();
    registerMcpServer('opencode', { configDir, command: ['/old/node', '/old/main.js', 'mcp'] });
    expect(registerMcpServer('opencode', { configDir, command: COMMAND }).status).toBe('changed');
    const config = JSON.parse(fs.readFileSync(path.join(configDir, 'opencode.json'), 'utf8')) as { mcp: Record<string, { command: string[] }> };
    expect(config.mcp[MCP_ENTRY_NAME]?.command).toEqual(COMMAND);
  });

  it.each([
    ['does not parse', '{ "mcp": { '],
    ['has an mcp that is not an object', '{ "mcp": [1, 2] }'],
  ])('leaves a config that %s byte-identical and says so', (_case, text) => {
    const { configDir } = home();
    const file = path.join(configDir, 'opencode.json');
    fs.writeFileSync(file, text);
    expect(() => registerMcpServer('opencode', { configDir, command: COMMAND })).toThrow(/left untouched/);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.readdirSync(configDir)).toEqual(['opencode.json']);
  });
});

describe('setup --mcp claude-code', () => {
  it('adds a user-scope stdio server to ~/.claude.json, keeping everything else', () => {
    const { home: folder, configDir } = home();
    const file = path.join(folder, '.claude.json');
    const original = { numStartups: 3, projects: { '/p': { mcpServers: {} } }, mcpServers: { other: { type: 'stdio', command: 'x', args: [] } } };
    fs.writeFileSync(file, JSON.stringify(original, null, 2));
    const result = registerMcpServer('claude-code', { configDir, home: folder, command: COMMAND });
    expect(result).toMatchObject({ client: 'claude-code', status: 'changed', file });
    const config = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof original & { mcpServers: Record<string, unknown> };
    expect(config.numStartups).toBe(3);
    expect(config.projects).toEqual(original.projects);
    expect(config.mcpServers.other).toEqual(original.mcpServers.other);
    expect(config.mcpServers[MCP_ENTRY_NAME]).toEqual({ type: 'stdio', command: COMMAND[0], args: COMMAND.slice(1), env: {} });
    expect(JSON.parse(fs.readFileSync(result.backup as string, 'utf8'))).toEqual(original);
    expect(registerMcpServer('claude-code', { configDir, home: folder, command: COMMAND }).status).toBe('unchanged');
  });

  it('creates ~/.claude.json when it is missing and writes nothing else in the home folder', () => {
    const { home: folder, configDir } = home();
    const before = fs.readdirSync(folder);
    registerMcpServer('claude-code', { configDir, home: folder, command: COMMAND });
    expect(fs.readdirSync(folder).sort()).toEqual([...before, '.claude.json'].sort());
  });

  it('leaves a ~/.claude.json that does not parse byte-identical', () => {
    const { home: folder, configDir } = home();
    const file = path.join(folder, '.claude.json');
    fs.writeFileSync(file, '{"mcpServers": ');
    expect(() => registerMcpServer('claude-code', { configDir, home: folder, command: COMMAND })).toThrow(/left untouched/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"mcpServers": ');
  });
});

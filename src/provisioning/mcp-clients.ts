/**
 * `agent-tracker setup --mcp CLIENT`: registers the tracker's MCP server (`agent-tracker mcp`) with
 * an MCP client, with setup's care: comments and formatting kept (jsonc-parser), a backup before the
 * first change, an atomic write, nothing written when the entry is already right, and a file that
 * does not parse left untouched.
 * - OpenCode: the `mcp` section of the global opencode.json(c), as a local command.
 * - Claude Code: the user-level `mcpServers` of `~/.claude.json` (Claude Code's "user" scope).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createContext, readText, writeText } from './context.js';
import { openGlobalConfig, saveGlobalConfig } from './global-config.js';
import { editJsonc, isJsonObject, parseJsonc } from './opencode-json.js';
import { packageRoot } from './package-root.js';
import { PLUGIN_FOLDER } from './plugin-folder.js';

export const MCP_CLIENTS = ['opencode', 'claude-code'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** The server's name in every client's config. */
export const MCP_ENTRY_NAME = 'agent-tracker';

export interface McpRegistration {
  client: McpClient;
  file: string;
  status: 'changed' | 'unchanged';
  dryRun: boolean;
  backup?: string;
  message: string;
}

export interface McpRegistrationOptions {
  /** The OpenCode config folder. */
  configDir: string;
  /** Where Claude Code keeps `.claude.json`; defaults to the home folder. */
  home?: string;
  dryRun?: boolean;
  now?: Date;
  /** The server's command line; defaults to `mcpCommand(configDir)`. */
  command?: string[];
}

/**
 * This Node running the provisioned plugin folder's CLI (it keeps working when the install folder is
 * deleted), else this package's own CLI.
 */
export function mcpCommand(configDir: string): string[] {
  const provisioned = path.join(configDir, PLUGIN_FOLDER, 'dist', 'cli', 'main.js');
  const cli = fs.existsSync(provisioned) ? provisioned : path.join(packageRoot(), 'dist', 'cli', 'main.js');
  return [process.execPath, cli, 'mcp'];
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Registers the server with one client. @throws Error (nothing written) when the client's file cannot be edited. */
export function registerMcpServer(client: McpClient, options: McpRegistrationOptions): McpRegistration {
  const command = options.command ?? mcpCommand(options.configDir);
  return client === 'opencode' ? registerWithOpencode(options, command) : registerWithClaudeCode(options, command);
}

function registerWithOpencode(options: McpRegistrationOptions, command: string[]): McpRegistration {
  const context = createContext(options.configDir, { dryRun: options.dryRun ?? false, ...(options.now ? { now: options.now } : {}) });
  const editable = openGlobalConfig(context);
  const section = editable.config.mcp;
  if (section !== undefined && !isJsonObject(section)) {
    throw new Error(`"mcp" in ${editable.file} is not an object; it was left untouched. Fix it, then run "agent-tracker setup --mcp opencode".`);
  }
  const wanted = { type: 'local', command, enabled: true };
  const current = section?.[MCP_ENTRY_NAME];
  const text = sameJson(current, wanted) ? editable.text : editJsonc(editable.text, ['mcp', MCP_ENTRY_NAME], wanted);
  const changed = saveGlobalConfig(context, editable, text);
  return outcome('opencode', editable.file, changed, context.dryRun, context.backups.get(editable.file));
}

function registerWithClaudeCode(options: McpRegistrationOptions, command: string[]): McpRegistration {
  const home = path.resolve(options.home ?? os.homedir());
  // The context's folder is the one setup may write in: here only ~/.claude.json is touched.
  const context = createContext(home, { dryRun: options.dryRun ?? false, ...(options.now ? { now: options.now } : {}) });
  const file = path.join(home, '.claude.json');
  const existing = readText(context, file);
  const before = existing ?? '{}\n';
  let config: unknown;
  try {
    config = parseJsonc(before, file);
  } catch (error) {
    throw new Error(`${(error as Error).message}; it was left untouched. Fix it, then run "agent-tracker setup --mcp claude-code".`);
  }
  if (!isJsonObject(config)) throw new Error(`${file} is not a JSON object; it was left untouched.`);
  const servers = config.mcpServers;
  if (servers !== undefined && !isJsonObject(servers)) throw new Error(`"mcpServers" in ${file} is not an object; it was left untouched.`);
  const [executable, ...args] = command;
  const wanted = { type: 'stdio', command: executable, args, env: {} };
  const text = sameJson(servers?.[MCP_ENTRY_NAME], wanted) ? before : editJsonc(before, ['mcpServers', MCP_ENTRY_NAME], wanted);
  const changed = text === existing ? false : writeText(context, file, text);
  return outcome('claude-code', file, changed, context.dryRun, context.backups.get(file));
}

function outcome(client: McpClient, file: string, changed: boolean, dryRun: boolean, backup: string | undefined): McpRegistration {
  const verb = dryRun ? 'would register' : 'registered';
  const message = changed ? `${verb} the "${MCP_ENTRY_NAME}" MCP server in ${file}` : `the "${MCP_ENTRY_NAME}" MCP server is registered in ${file}`;
  return { client, file, status: changed ? 'changed' : 'unchanged', dryRun, ...(backup ? { backup } : {}), message };
}

/**
 * `agent-tracker mcp`: a stdio MCP server that lets any agent read the tracker's answers. Its tools
 * are read-only views of the CLI: each runs the CLI command of the same name with `--json` and
 * returns that JSON, so the arguments and the answer are exactly the CLI's. Nothing here can grade,
 * revive, import or write history: those stay with the user.
 */
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { targetProfile } from '../core/report/recommend-project.js';
import { findSimilarProjects } from '../core/projects/similarity.js';
import { InputError } from '../core/validation.js';
import { CliError, loadConfig, withStore } from '../cli/context.js';
import type { Output } from '../cli/context.js';
import { REPORT_GROUPINGS } from '../core/report/report.js';

export const MCP_SERVER_NAME = 'agent-tracker';
const SIMILAR_SHOWN = 5;
const MAX_PRIOR_ART_RESULTS = 50;

export interface McpServerOptions {
  /** `--db PATH` of `agent-tracker mcp`, handed to every command. */
  db?: string;
  version: string;
}

type CliCommand = { run: (args: string[], output: Output) => Promise<void> };

function text(value: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) };
}

/** A bad argument or a refusal is the caller's to fix: a tool error, never a crash of the server. */
function failure(error: unknown): CallToolResult {
  const known = error instanceof CliError || error instanceof InputError;
  const message = error instanceof Error ? error.message : String(error);
  return text(known ? message : `agent-tracker failed: ${message}`, true);
}

/** Runs a CLI command with `--json` and returns what it printed. */
async function runJson(load: () => Promise<CliCommand>, args: string[], db: string | undefined): Promise<CallToolResult> {
  const printed: string[] = [];
  const output: Output = { out: (line) => printed.push(line), err: (line) => printed.push(line) };
  try {
    const command = await load();
    await command.run([...args, '--json', ...(db ? ['--db', db] : [])], output);
    return text(printed.join('\n'));
  } catch (error) {
    return failure(error);
  }
}

/** `--name value` pairs for the options that are set. */
function flags(values: Record<string, string | number | undefined>): string[] {
  return Object.entries(values).flatMap(([name, value]) => (value === undefined ? [] : [`--${name}`, String(value)]));
}

const project = z.string().min(1).optional().describe('Absolute path of the project folder; default: the folder the server runs in');

/** The server with its tools registered, not yet connected. */
export function createTrackerMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: options.version });
  const { db } = options;

  server.registerTool(
    'report',
    {
      description: 'Outcomes per agent x model setup (sessions, tool calls, failures, commits, grades, tokens, cost), as `agent-tracker report --json`.',
      inputSchema: {
        project,
        since: z.string().optional().describe('ISO date or time: only work active since then'),
        by: z.enum(REPORT_GROUPINGS as unknown as [string, ...string[]]).optional().describe('Group rows by setup (default), agent, model or project'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => runJson(() => import('../cli/commands/report.js'), flags(args), db),
  );

  server.registerTool(
    'recommend',
    {
      description: 'The agent x model setup to use on a project, ranked from the recorded history, as `agent-tracker recommend --json`.',
      inputSchema: { project },
      annotations: { readOnlyHint: true },
    },
    (args) => runJson(() => import('../cli/commands/recommend.js'), flags(args), db),
  );

  server.registerTool(
    'prior_art',
    {
      description: 'What worked and what failed before on work like the given task, from past sessions, as `agent-tracker prior-art --json`.',
      inputSchema: {
        text: z.string().min(1).describe('The task to look for, in words'),
        project,
        scope: z.string().optional(),
        agent: z.string().optional(),
        max: z.number().int().min(1).max(MAX_PRIOR_ART_RESULTS).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    ({ text: task, ...rest }) => runJson(() => import('../cli/commands/prior-art.js'), [task, ...flags(rest)], db),
  );

  server.registerTool(
    'status',
    {
      description: "Agents' player sheets (SP, XP, CS, trust tier, commits, bugs, halted), as `agent-tracker status --json`.",
      inputSchema: { agent: z.string().min(1).optional().describe('One agent; default: all') },
      annotations: { readOnlyHint: true },
    },
    ({ agent }) => runJson(() => import('../cli/commands/status.js'), agent ? [agent] : [], db),
  );

  server.registerTool(
    'project_profile',
    {
      description: "A project's classification (language, framework, scope, dependencies) and the most similar recorded projects. Reads only: nothing is stored.",
      inputSchema: { project },
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      try {
        const projectPath = path.resolve(args.project ?? process.cwd());
        const config = loadConfig(db);
        const answer = await withStore(config, async (store) => {
          const profile = await targetProfile(store, projectPath);
          const similar = findSimilarProjects(store, profile, { limit: SIMILAR_SHOWN }).map(({ profile: other, score }) => ({ ...other, score }));
          return { project: profile, similar };
        }, 'read');
        return text(JSON.stringify(answer, null, 2));
      } catch (error) {
        return failure(error);
      }
    },
  );
  return server;
}

/** Serves on stdin/stdout until the client closes the pipe. */
export async function serveStdio(options: McpServerOptions): Promise<void> {
  const server = createTrackerMcpServer(options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

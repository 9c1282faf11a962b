/**
 * `agent-tracker mcp`: a stdio MCP server that lets any agent read the tracker's answers. Its tools
 * call the same answer builders as the CLI (src/core/answers), in this process, and return the same
 * JSON as the CLI's `--json`. Nothing here can grade, revive, import or write history: those stay
 * with the user.
 */
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { targetProfile } from '../core/report/recommend-project.js';
import { findSimilarProjects } from '../core/projects/similarity.js';
import { InputError } from '../core/validation.js';
import type { Store } from '../core/store/store.js';
import { refreshProjectGitSignals } from '../cli/git-signals.js';
import type { TrackerConfig } from '../core/config.js';
import { CliError, loadConfig, withStore } from '../cli/context.js';
import { parseGrouping, parseSince, parseTimeZone } from '../cli/report-args.js';
import { REPORT_GROUPINGS } from '../core/report/report.js';

export const MCP_SERVER_NAME = 'agent-tracker';
const SIMILAR_SHOWN = 5;
const MAX_PRIOR_ART_RESULTS = 50;

export interface McpServerOptions {
  /** `--db PATH` of `agent-tracker mcp`, used for every tool call. */
  db?: string;
  version: string;
}

function text(value: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) };
}

/** A bad argument or a refusal is the caller's to fix: a tool error, never a crash of the server. */
function failure(error: unknown): CallToolResult {
  const known = error instanceof CliError || error instanceof InputError;
  const message = error instanceof Error ? error.message : String(error);
  return text(known ? message : `agent-tracker failed: ${message}`, true);
}

/**
 * Runs `prepare` (the writes an answer needs first, as the CLI does them: git signals, a stale index),
 * then opens the database read-only for one call, builds the answer and returns it as the CLI's
 * `--json` prints it.
 */
async function answer(db: string | undefined, build: (store: Store, config: TrackerConfig) => unknown, prepare?: (config: TrackerConfig) => Promise<void>): Promise<CallToolResult> {
  try {
    const config = loadConfig(db);
    await prepare?.(config);
    const result = await withStore(config, (store) => build(store, config), 'read');
    return text(JSON.stringify(result, null, 2));
  } catch (error) {
    return failure(error);
  }
}

/** Git signals brought up to date before a report or a recommendation, as the CLI does. */
const freshSignals = (project?: string) => (config: TrackerConfig) => refreshProjectGitSignals(config, project ? [project] : undefined);

/** A prior-art index left by an earlier version is rebuilt first, in a write of its own, as the CLI does. */
async function currentIndex(config: TrackerConfig): Promise<void> {
  const { rebuildStaleTermIndex, termIndexIsCurrent } = await import('../core/search/reindex.js');
  if (!(await withStore(config, termIndexIsCurrent, 'read'))) await withStore(config, (store) => rebuildStaleTermIndex(store));
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
        since: z.string().optional().describe('ISO date or time: only work that began then or later'),
        until: z.string().optional().describe('ISO date or time: only work that began before then'),
        period: z.enum(['day', 'week', 'month']).optional().describe('Rows per calendar period too'),
        tz: z.string().optional().describe('IANA time zone of the periods; default: the server machine\'s'),
        by: z.enum(REPORT_GROUPINGS as unknown as [string, ...string[]]).optional().describe('Group rows by setup (default), agent, model, project or session'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      answer(db, async (store) => {
        const { reportAnswer } = await import('../core/answers/report.js');
        const since = parseSince(args.since);
        const until = parseSince(args.until, 'until');
        const timeZone = parseTimeZone(args.tz);
        return reportAnswer(store, {
          by: parseGrouping(args.by),
          ...(args.project ? { project: path.resolve(args.project) } : {}),
          ...(since ? { since } : {}),
          ...(until ? { until } : {}),
          ...(args.period ? { period: args.period } : {}),
          ...(timeZone ? { timeZone } : {}),
        });
      }, freshSignals(args.project ? path.resolve(args.project) : undefined)),
  );

  server.registerTool(
    'recommend',
    {
      description: 'The agent x model setup to use on a project, ranked from the recorded history, as `agent-tracker recommend --json`.',
      inputSchema: {
        project,
        prefer: z.enum(['quality', 'balanced', 'cheap']).optional().describe('Trade outcome against cost per accepted commit, as `recommend --prefer`; default balanced'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      answer(db, async (store) => {
        const { recommendAnswer } = await import('../core/answers/recommend.js');
        return recommendAnswer(store, { project: path.resolve(args.project ?? process.cwd()), ...(args.prefer ? { prefer: args.prefer } : {}) });
      }, freshSignals()),
  );

  server.registerTool(
    'prior_art',
    {
      description: 'What worked and what failed before on work like the given task, from past sessions, as `agent-tracker prior-art --json`.',
      inputSchema: {
        task: z.string().min(1).optional().describe('The task or feature being planned, in a sentence: its keywords are the query (as the prior-art tool in OpenCode)'),
        text: z.string().min(1).optional().describe('The older name of task, still taken'),
        project,
        scope: z.string().optional(),
        agent: z.string().optional(),
        max: z.number().int().min(1).max(MAX_PRIOR_ART_RESULTS).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => {
      const task = args.task ?? args.text;
      if (!task) return Promise.resolve(failure(new CliError('prior_art needs task: the task or feature being planned, in a sentence')));
      return answer(db, async (store) => {
        const { priorArtAnswer } = await import('../core/answers/prior-art.js');
        const query = {
          taskDescription: task,
          ...(args.scope ? { scope: args.scope } : {}),
          ...(args.agent ? { agentId: args.agent } : {}),
          ...(args.max === undefined ? {} : { maxResults: args.max }),
        };
        return priorArtAnswer(store, query, path.resolve(args.project ?? process.cwd()));
      }, async (config) => {
        // Work reverted since the last look is a mistake, not a pattern: git's word first, as the CLI does.
        await freshSignals()(config);
        await currentIndex(config);
      });
    },
  );

  server.registerTool(
    'status',
    {
      description: "Agents' player sheets (SP, XP, CS, trust tier, commits, bugs, halted, models), as `agent-tracker status --json`.",
      inputSchema: { agent: z.string().min(1).optional().describe('One agent; default: all') },
      annotations: { readOnlyHint: true },
    },
    ({ agent }) =>
      answer(db, async (store, config) => {
        const { statusAnswer } = await import('../core/answers/status.js');
        const result = statusAnswer(store, config.rules, agent);
        if (agent && result.agents.length === 0) throw new CliError(`no agent named "${agent}" has been tracked yet`);
        return result;
      }),
  );

  server.registerTool(
    'project_profile',
    {
      description: "A project's classification (language, framework, scope, dependencies) and the most similar recorded projects. Reads only: nothing is stored.",
      inputSchema: { project },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      answer(db, async (store) => {
        const profile = await targetProfile(store, path.resolve(args.project ?? process.cwd()));
        const similar = findSimilarProjects(store, profile, { limit: SIMILAR_SHOWN }).map(({ profile: other, score }) => ({ ...other, score }));
        return { project: profile, similar };
      }),
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

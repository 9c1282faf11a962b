/**
 * The player sheet in OpenCode: rendered for the `agent-status` tool, and shown as a toast after
 * commits and pushes and when a session starts. Toasts are fire and forget: a hook never waits
 * for one, and a failing toast is logged once, then stays quiet.
 *
 * The renderer (figlet and its fonts) is imported on first need, not at plugin start: the first
 * model request of a session or the `agent-status` call loads it, before it is used.
 */
import type { Hooks, PluginInput } from '@opencode-ai/plugin';
import type { Logger } from '../core/logger.js';
import { readWorkingTreeChanges } from '../core/projects/git.js';
import type { WorkingTreeChange } from '../core/projects/git.js';
import type { TrackingService } from '../core/tracking/service.js';
import { storeOpening } from '../core/store/access.js';
import type { StoreAccess } from '../core/store/access.js';
import type { AgentStatus, CommitRecord } from '../core/types.js';

/** How long a sheet toast stays up. */
export const SHEET_TOAST_DURATION_MS = 10_000;
/** The tool whose output is the sheet: pending changes are read fresh before it runs. */
const STATUS_TOOL = 'agent-status';
/** The agent name OpenCode uses for title generation: not work, no greeting. */
const TITLE_AGENT = 'title';
/** Sessions remembered as greeted; past this the memory starts over (a session greeted twice is harmless). */
const MAX_GREETED_SESSIONS = 10_000;
const SHORT_HASH_LENGTH = 7;
/** What a hook that has nothing to wait for returns. */
const DONE: Promise<void> = Promise.resolve();

/** The hooks the sheet adds its moments to. */
type SheetHooks = Pick<Hooks, 'chat.params' | 'tool.execute.before'>;

type SheetRenderer = typeof import('../core/report/sheet.js').formatHealthStatus;

type ToastVariant = 'info' | 'success' | 'warning' | 'error';

export interface SheetToastDeps {
  client: PluginInput['client'];
  service: TrackingService<StoreAccess>;
  logger: Logger;
  /** The project whose `git status` the sheet lists. */
  project: string;
}

/** The sheet wired into OpenCode: the tool's renderer, the commit callback and the hook wrappers. */
export interface StatusSheets {
  /** Renders a sheet with the latest known pending changes and, when given, the agent's models (synchronous, for the tool). */
  renderStatus(status: AgentStatus, models?: readonly string[]): string;
  /** Shows the committing agent's sheet as a toast; matches HookContext.onCommits. */
  onCommits(agent: string, commits: CommitRecord[], pushed: boolean): void;
  /** The tracking hooks plus the sheet's own moments: session start and before `agent-status`. */
  wrapHooks<H extends SheetHooks>(hooks: H): H & Required<SheetHooks>;
}

/** The toast title after commits and pushes, e.g. `build: commit 1a2b3c4 + push`. */
export function commitToastTitle(agent: string, commits: readonly CommitRecord[], pushed: boolean): string {
  const parts: string[] = [];
  const uncredited = commits.filter((commit) => commit.noCredit !== undefined).length;
  if (commits.length === 1) parts.push(`commit ${(commits[0] as CommitRecord).hash.slice(0, SHORT_HASH_LENGTH)}${uncredited > 0 ? ' (not credited)' : ''}`);
  else if (commits.length > 1) parts.push(`${commits.length} commits${uncredited > 0 ? ` (${uncredited} not credited)` : ''}`);
  if (pushed) parts.push('push');
  return `${agent}: ${parts.join(' + ')}`;
}

export function createStatusSheets(deps: SheetToastDeps): StatusSheets {
  const { client, service, logger, project } = deps;
  let pendingChanges: WorkingTreeChange[] | undefined;
  let renderer: SheetRenderer | undefined;
  let rendererLoading: Promise<SheetRenderer> | undefined;
  let toastFailureLogged = false;
  const greetedSessions = new Set<string>();

  const refreshPendingChanges = async (): Promise<void> => {
    pendingChanges = await readWorkingTreeChanges(project);
  };

  const loadRenderer = (): Promise<SheetRenderer> =>
    (rendererLoading ??= import('../core/report/sheet.js').then((sheet) => (renderer = sheet.formatHealthStatus)));

  /** Before any tool call the sheet is loaded by the hooks below; this never runs ahead of them. */
  const renderStatus = (status: AgentStatus, models?: readonly string[]): string => {
    if (!renderer) throw new Error('the status sheet is still loading; call agent-status again');
    return renderer(status, { ...(pendingChanges ? { pendingChanges } : {}), ...(models ? { models } : {}) });
  };

  const reportToastFailure = (reason: string): void => {
    if (toastFailureLogged) return;
    toastFailureLogged = true;
    logger.warn(`agent-tracker: the status toast could not be shown (${reason}); further toast failures are not logged`);
  };

  /** Reads pending changes and loads the renderer before agent-status runs; never fails the hook. */
  const prepareSheet = async (): Promise<void> => {
    try {
      await Promise.all([refreshPendingChanges(), loadRenderer()]);
    } catch (error) {
      // The tool itself then reports that the sheet is unavailable; the hook never fails.
      logger.error(`agent-tracker: the status sheet could not be loaded: ${(error as Error).message}`);
    }
  };

  const showSheet = (agent: string, title: string, variant: ToastVariant): void => {
    void (async () => {
      try {
        // The agent's record, not the empty store of a file still opening (the greeting comes at a session's first request).
        await Promise.all([refreshPendingChanges(), loadRenderer(), storeOpening(service.store)]);
        const status = service.getAgentStatus(agent);
        const result = await client.tui.showToast({
          body: {
            title,
            message: renderStatus(status),
            variant: status.halted ? 'warning' : variant,
            duration: SHEET_TOAST_DURATION_MS,
          },
        });
        if (result.error !== undefined) reportToastFailure(JSON.stringify(result.error));
      } catch (error) {
        reportToastFailure((error as Error).message);
      }
    })();
  };

  const greet = (sessionId: string, agent: string): void => {
    if (agent === TITLE_AGENT || greetedSessions.has(sessionId)) return;
    // Subagent sessions belong to their parent's work: no greeting of their own.
    if (service.setupOf(sessionId).parentId) return;
    if (greetedSessions.size >= MAX_GREETED_SESSIONS) greetedSessions.clear();
    greetedSessions.add(sessionId);
    showSheet(agent, `${agent}: session start`, 'info');
  };

  return {
    renderStatus,
    onCommits: (agent, commits, pushed) => showSheet(agent, commitToastTitle(agent, commits, pushed), 'success'),
    wrapHooks(hooks) {
      const chatParams = hooks['chat.params'];
      const toolBefore = hooks['tool.execute.before'];
      return {
        ...hooks,
        'chat.params': async (input, output) => {
          await chatParams?.(input, output);
          try {
            greet(input.sessionID, input.agent);
          } catch (error) {
            reportToastFailure((error as Error).message);
          }
        },
        // Every tool call passes here: only agent-status waits for the sheet, the rest cost no promise of their own.
        'tool.execute.before': (input, output) => {
          if (input.tool !== STATUS_TOOL) return toolBefore ? toolBefore(input, output) : DONE;
          return prepareSheet().then(() => toolBefore?.(input, output));
        },
      };
    },
  };
}

/**
 * What the user must know at plugin start (options set aside, restraining options that differ from
 * their pins): one log line and one warning toast. A failing toast is only logged.
 */
export function showStartWarnings(client: PluginInput['client'], logger: Logger, lines: readonly string[]): void {
  const message = lines.join('\n');
  logger.warn(message);
  client.tui
    .showToast({ body: { title: 'agent-tracker', message, variant: 'warning' } })
    .catch((error: unknown) => logger.warn(`agent-tracker: toast failed: ${(error as Error).message}`));
}

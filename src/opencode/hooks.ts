/**
 * The OpenCode hooks: translate host events into TrackingService calls, never decide. Every
 * handler is wrapped so a tracking problem is logged and never turns into a failed tool call;
 * only a deliberate refusal (a halted agent) reaches the host.
 */
import type { Hooks } from '@opencode-ai/plugin';
import type { Logger } from '../core/logger.js';
import { commitsSince, mayMoveHead, readHead, runsGitPush } from '../core/projects/git.js';
import { currentHead, headFromFiles } from '../core/projects/head-files.js';
import type { CommitRecord } from '../core/types.js';
import type { TrackingService } from '../core/tracking/service.js';
import { storeOpening } from '../core/store/access.js';
import type { StoreAccess } from '../core/store/access.js';
import { asBusEvent, assistantUsage, commandNameOf, sessionIdOf, sessionInfo, toolPartOf } from './events.js';
import { revertPoint } from './outcome-events.js';
import { EDITING_TOOLS } from './editing-tools.js';
import { GRADE_COMMAND_NAME } from '../core/outcomes/grade-command.js';
import { backgroundProfiler } from './project-profile.js';
import type { ToolOutput } from './guards/output-mask.js';
import { backgroundGitSignals } from './git-signals-background.js';
import { callEnded, callStarted, runningCallCount, runningCallKey, sessionCallsEnded } from './running-calls.js';

/** A tool call the tracker refuses on purpose; its message reaches the model. */
export class RefusalError extends Error {
  override name = 'RefusalError';
}

/** The agent name OpenCode uses for title generation: not work, not tracked. */
const TITLE_AGENT = 'title';
export { EDITING_TOOLS };

export interface HookContext {
  service: TrackingService<StoreAccess>;
  logger: Logger;
  /** The project folder git runs in. */
  directory: string;
  /** The tracker's own tools: never refused, even for a halted agent. */
  ownTools: ReadonlySet<string>;
  /** Checks run before a tool call; a returned string refuses the call with that reason. */
  guards?: ((tool: string, args: unknown) => string | undefined)[];
  /** Run after the guards pass: may narrow the arguments the host runs the call with. */
  argumentRewriters?: ((tool: string, args: unknown) => void)[];
  /** Rewrites every tool's output before the model sees it (secret masking); must never throw. A promise only when it must wait. */
  maskOutput?: (output: ToolOutput) => void | Promise<void>;
  /** Whether a tool call edits what configures the tracker (counted as `trackerFileEdits`). */
  editsTrackerFiles?: (tool: string, args: unknown) => boolean;
  /** Called after commits were recorded and after a push (e.g. to show the status sheet). */
  onCommits?: (agent: string, commits: CommitRecord[], pushed: boolean) => void;
  /** Records a `/grade` slash command from its arguments (the user's grade; the model plays no part), with the agent tool calls running when it came. */
  onGradeCommand?: (argumentsText: string, runningCalls: number) => void;
}

type Handler<A extends unknown[]> = (...args: A) => void | Promise<void>;
type ToolAfter = NonNullable<Hooks['tool.execute.after']>;
type ToolAfterInput = Parameters<ToolAfter>[0];
type ToolAfterOutput = Parameters<ToolAfter>[1];

/** What a hook that finished synchronously returns: one settled promise, shared. */
const DONE: Promise<void> = Promise.resolve();

/**
 * Wraps a handler so a failure is logged and never reaches the host, except a refusal. A handler
 * that finishes synchronously (most do) costs no promise of its own.
 */
export function guarded<A extends unknown[]>(logger: Logger, name: string, handler: Handler<A>): (...args: A) => Promise<void> {
  const failed = (error: unknown): Promise<void> => {
    if (error instanceof RefusalError) return Promise.reject(error);
    logger.error(`agent-tracker: ${name} failed: ${(error as Error).message}`);
    return DONE;
  };
  return (...args: A) => {
    try {
      const pending = handler(...args);
      return pending ? pending.catch(failed) : DONE;
    } catch (error) {
      return failed(error);
    }
  };
}

/**
 * Runs the checks that protect (refusals, argument narrowing) so that they fail CLOSED: a check that
 * throws refuses the call with one line instead of letting it run unchecked.
 */
export function protect(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof RefusalError) throw error;
    throw new RefusalError(`agent-tracker could not check this tool call (${(error as Error).message}), so it was refused to be safe. Tell the user; \`agent-tracker doctor\` shows what is wrong.`);
  }
}

/** Why the session's agent may not work, when it is halted. */
export function haltMessage(service: TrackingService<StoreAccess>, sessionId: string): string | undefined {
  const agent = service.setupOf(sessionId).agent;
  if (!service.isHalted(agent)) return undefined;
  const status = service.getAgentStatus(agent);
  return (
    `Agent "${agent}" is halted: its SP fell to ${status.sp} after ${status.bugs} reported bug(s). ` +
    `Ask the user to review the work and run: agent-tracker revive ${agent}`
  );
}

/**
 * Runs `then` once the store's open has ended (bounded): a hook that reads the record (a halted
 * agent's first tool call, `/grade` finding its commit) reads it as later ones do, not the empty store
 * of a file still being opened or checked. No promise once the store is open.
 */
export function onceStoreOpen(store: StoreAccess, then: () => void | Promise<void>): void | Promise<void> {
  const opening = storeOpening(store);
  return opening ? opening.then(then) : then();
}

/**
 * The checks before a tool call runs, for either host's adapter: the guards (a reason refuses), the
 * argument rewriters, and the halt (refused, or a warning with `haltBlocksTools: false`). They fail
 * CLOSED; the tracker's own tools are never checked.
 */
export function checkToolCall(ctx: Pick<HookContext, 'service' | 'logger' | 'ownTools' | 'guards' | 'argumentRewriters'>, sessionId: string, tool: string, args: unknown): void {
  if (ctx.ownTools.has(tool)) return;
  protect(() => {
    for (const guard of ctx.guards ?? []) {
      const reason = guard(tool, args);
      if (reason) throw new RefusalError(reason);
    }
    for (const rewrite of ctx.argumentRewriters ?? []) rewrite(tool, args);
    const halt = haltMessage(ctx.service, sessionId);
    if (halt) {
      if (ctx.service.config.haltBlocksTools) throw new RefusalError(halt);
      ctx.logger.warn(halt);
    }
  });
}

function stringArg(args: unknown, name: string): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const value = (args as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** HEAD before a bash call and what the call made, for either host's adapter. */
export interface BashGitEffects {
  /** Before a call: notes HEAD when the command may move it (`mayMoveHead`); the promise to wait for, if any. */
  before(key: string, command: string | undefined): Promise<void> | undefined;
  /** After it: records the commits made since HEAD was noted, and a push that exited 0. */
  after(key: string, sessionId: string, command: string | undefined, ok: boolean, eventId: string): Promise<void> | undefined;
}

export function bashGitEffects(ctx: Pick<HookContext, 'service' | 'directory' | 'onCommits'>): BashGitEffects {
  const { service } = ctx;
  /** HEAD noted before each call that may move it, by the adapter's call key, with the call's start (seconds). */
  const headBefore = new Map<string, { head: string | undefined; startedAt: number }>();
  const record = async (sessionId: string, command: string, ok: boolean, eventId: string, before: { head: string | undefined; startedAt: number }): Promise<void> => {
    const head = await currentHead(ctx.directory);
    let commits: CommitRecord[] = [];
    if (head && head !== before.head) {
      commits = service.recordCommits(sessionId, await commitsSince(ctx.directory, before.head, head, before.startedAt), { eventId });
    }
    const pushed = ok && runsGitPush(command);
    if (pushed) service.recordPush(sessionId, { eventId });
    if (commits.length > 0 || pushed) ctx.onCommits?.(service.setupOf(sessionId).agent, commits, pushed);
  };
  return {
    before(key, command) {
      if (!command || !mayMoveHead(command)) return undefined;
      const startedAt = Math.floor(Date.now() / 1000) - 1;
      // Where the repository's files tell HEAD, the call starts without waiting for a git process.
      const known = headFromFiles(ctx.directory);
      if (known !== undefined) {
        headBefore.set(key, { head: known, startedAt });
        return undefined;
      }
      return readHead(ctx.directory).then((head) => {
        headBefore.set(key, { head, startedAt });
      });
    },
    after(key, sessionId, command, ok, eventId) {
      const before = headBefore.get(key);
      if (!before) return undefined;
      headBefore.delete(key);
      return record(sessionId, command ?? '', ok, eventId, before);
    },
  };
}

export function createHooks(ctx: HookContext): Omit<Hooks, 'tool' | 'dispose'> {
  const { service, logger } = ctx;
  /** Registers the project's profile after the first session starts, off the hook's path. */
  const profileProject = backgroundProfiler({ store: service.store, project: ctx.directory, logger });
  const refreshGitSignals = backgroundGitSignals(service, ctx.directory, logger);
  const gitEffects = bashGitEffects(ctx);
  /** Per session, the slash commands that came while agents' tool calls ran and have not been reported executed yet. */
  const commandsWhileCallsRan = new Map<string, number>();
  /**
   * The host's own id (tool part id) of each running call, by session and provider call id: the hook
   * carries only the provider's id, which some providers restart in every response. The part's
   * pending/running event comes before the call runs, so the hook finds its part here.
   */
  const partOfCall = new Map<string, string>();
  const callKey = (sessionId: string, callId: string) => `${sessionId}\u0000${callId}`;
  /** The id a finished call is counted under: its part id, else (never seen) the provider's. */
  const hostCallId = (sessionId: string, callId: string): string => {
    const key = callKey(sessionId, callId);
    const partId = partOfCall.get(key);
    partOfCall.delete(key);
    return partId ?? callId;
  };

  /** Records a finished tool call: success or failure, edited files, and the commits and push it made. */
  const trackToolCall = guarded(logger, 'tool.execute.after', (input: ToolAfterInput, output: ToolAfterOutput) => {
    const metadata = (output.metadata ?? {}) as Record<string, unknown>;
    const exit = typeof metadata.exit === 'number' ? metadata.exit : undefined;
    const ok = exit === undefined || exit === 0;
    // With haltBlocksTools off the call ran; the warning rides along in its output so the model sees it.
    const halt = ctx.ownTools.has(input.tool) || service.config.haltBlocksTools ? undefined : haltMessage(service, input.sessionID);
    if (halt && typeof output.output === 'string') output.output = `${output.output}\n\n[agent-tracker warning] ${halt}`;
    const eventId = hostCallId(input.sessionID, input.callID);
    const command = input.tool === 'bash' ? stringArg(input.args, 'command') : undefined;
    service.recordToolCall(input.sessionID, eventId, input.tool, ok, command === undefined ? {} : { command });
    if (input.tool === 'bash') service.recordShellCommand(input.sessionID, command ?? '', exit, { eventId });
    const file = EDITING_TOOLS.has(input.tool) ? stringArg(input.args, 'filePath') : undefined;
    if (file) service.noteFileEdited(input.sessionID, file);
    if (ctx.editsTrackerFiles?.(input.tool, input.args)) service.noteTrackerFileEdit(input.sessionID);

    return gitEffects.after(input.callID, input.sessionID, command, ok, eventId);
  });

  return {
    'chat.params': guarded(logger, 'chat.params', (input) => {
      if (input.agent === TITLE_AGENT) return;
      service.noteModelRequest(input.sessionID, input.agent, `${input.model.providerID}/${input.model.id}`);
    }),

    'chat.message': guarded(logger, 'chat.message', (_input, output) => {
      const prompt = output.parts
        .flatMap((part) => (part.type === 'text' && !part.synthetic ? [part.text] : []))
        .join(' ');
      if (prompt) service.noteTurnTask(output.message.sessionID, prompt, output.message.id);
    }),

    // Every tool, the tracker's own included (they read the record), runs once the store's open has ended.
    'tool.execute.before': guarded(logger, 'tool.execute.before', (input, output) =>
      onceStoreOpen(service.store, () => {
        if (ctx.ownTools.has(input.tool)) return undefined;
        callStarted(runningCallKey(input.sessionID, input.callID));
        checkToolCall(ctx, input.sessionID, input.tool, output.args);
        const command = input.tool === 'bash' ? stringArg(output.args, 'command') : undefined;
        return gitEffects.before(input.callID, command);
      }),
    ),

    // Masking comes first and outside the guard: it fails closed on its own, tracking fails open.
    'tool.execute.after': (input, output) => {
      callEnded(runningCallKey(input.sessionID, input.callID));
      const masking = ctx.maskOutput?.(output);
      return masking ? masking.then(() => trackToolCall(input, output)) : trackToolCall(input, output);
    },

    // The user's /grade is recorded here, before the model sees the command: the host awaits this hook
    // (the command.executed event comes after the model's turn, and `opencode run` may end first).
    'command.execute.before': guarded(logger, 'command.execute.before', (input) => {
      const runningCalls = runningCallCount();
      if (runningCalls > 0) commandsWhileCallsRan.set(input.sessionID, (commandsWhileCallsRan.get(input.sessionID) ?? 0) + 1);
      if (input.command === GRADE_COMMAND_NAME) {
        return onceStoreOpen(service.store, () => ctx.onGradeCommand?.(input.arguments, runningCalls));
      }
      return undefined;
    }),

    // The host does not await event handlers: everything that must reach the disk happens
    // synchronously, before any await.
    event: guarded(logger, 'event', ({ event: raw }) => {
      const event = asBusEvent(raw);
      if (!event) return;
      switch (event.type) {
        case 'session.created':
        case 'session.updated': {
          const info = sessionInfo(event);
          if (info) service.noteSession(info.id, info.parentId ? { parentId: info.parentId } : {});
          if (info && event.type === 'session.updated') service.recordRevert(info.id, revertPoint(event));
          if (event.type === 'session.created') {
            profileProject();
            refreshGitSignals();
          }
          break;
        }
        case 'session.idle': {
          const sessionId = sessionIdOf(event);
          if (sessionId) {
            service.endTurn(sessionId);
            sessionCallsEnded(sessionId);
            for (const key of partOfCall.keys()) if (key.startsWith(callKey(sessionId, ''))) partOfCall.delete(key);
          }
          break;
        }
        case 'session.deleted':
          service.flush('session deleted');
          break;
        case 'message.updated': {
          const usage = assistantUsage(event);
          if (usage && usage.agent !== TITLE_AGENT) {
            service.recordAssistantMessage(usage.sessionId, usage.messageId, usage, usage.tokens, usage.cost);
          }
          break;
        }
        case 'message.part.updated': {
          const part = toolPartOf(event);
          if (!part) break;
          // A call that threw never reaches tool.execute.after: its error state is the only report of it.
          if (part.status === 'error' || part.status === 'completed') callEnded(runningCallKey(part.sessionId, part.callId));
          if (part.status === 'error') service.recordToolCall(part.sessionId, part.partId, part.tool, false);
          else if (part.status === 'pending' || part.status === 'running') partOfCall.set(callKey(part.sessionId, part.callId), part.partId);
          break;
        }
        case 'command.executed': {
          const sessionId = sessionIdOf(event);
          if (!sessionId) break;
          const whileCallsRan = commandsWhileCallsRan.get(sessionId) ?? 0;
          if (whileCallsRan > 1) commandsWhileCallsRan.set(sessionId, whileCallsRan - 1);
          else commandsWhileCallsRan.delete(sessionId);
          const command = commandNameOf(event);
          service.recordCommand(sessionId, { ...(command === undefined ? {} : { command }), ...(whileCallsRan > 0 ? { whileToolCallsRan: true } : {}) });
          break;
        }
        case 'message.removed': {
          const sessionId = sessionIdOf(event);
          if (sessionId) service.confirmRevert(sessionId);
          break;
        }
      }
    }),
  };
}

/**
 * Replays one past session through the same TrackingService calls the live hooks make, keyed by the
 * host's own ids and times: a session recorded live, backfilled before, or both, counts once.
 */
import type { TrackingService } from '../tracking/service.js';
import type { GitCommit } from '../../contract/host-events.js';
import { GIT_ABBREVIATION_LENGTH } from '../tracking/commit-prefix.js';
import { bashGitFacts } from './bash-facts.js';
import type { CallTime, ProjectCommits, WitnessedCommit } from './commit-witness.js';
import type { HostMessage, HostSession } from './history.js';

/** The agent name the host uses for title generation: not work, not tracked (as live). */
const TITLE_AGENT = 'title';
/** Tool call states that are finished; a pending or running call of a live session is left for later. */
const FINISHED = new Set(['completed', 'error']);

/** Reasons a part of a session was left out, counted in the summary. */
export const SKIP_REASONS = {
  unknownModel: 'message without agent or model',
  unnamedTool: 'tool call without a tool name or call id',
  unfinishedTool: 'tool call not finished yet',
} as const;

/** What a replay records into: the TrackingService, or something that only looks at what it would record. */
export type ReplayTarget = Pick<
  TrackingService,
  'noteSession' | 'noteModelRequest' | 'recordAssistantMessage' | 'recordToolCall' | 'recordShellCommand' | 'recordTurn' | 'recordCommits' | 'recordPush' | 'forgetSession'
>;

export interface ReplayedSession {
  messages: number;
  toolCalls: number;
  commits: number;
  pushes: number;
  /** Finished turns replayed (a user's prompt and its answers). */
  turns: number;
  /** Parts left out, by reason. */
  skipped: Map<string, number>;
}

const DAY_MS = 86_400_000;
/** The last moment `YYYY-MM-DD` covers (9999-12-31): beyond it, and before 1970, Date formats it. */
const LAST_FOUR_DIGIT_MS = 253_402_300_799_999;
/** `YYYY-MM-DDT` of the day last formatted: a session's events fall on a few days. */
let formattedDay = { day: Number.NaN, prefix: '' };

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** `new Date(epochMs).toISOString()`, without a Date per event (one per day). */
export function iso(epochMs: number): string {
  if (!Number.isInteger(epochMs) || epochMs < 0 || epochMs > LAST_FOUR_DIGIT_MS) return new Date(epochMs).toISOString();
  const day = Math.floor(epochMs / DAY_MS);
  if (day !== formattedDay.day) formattedDay = { day, prefix: new Date(day * DAY_MS).toISOString().slice(0, 11) };
  const ms = epochMs - day * DAY_MS;
  return `${formattedDay.prefix}${pad(Math.floor(ms / 3_600_000), 2)}:${pad(Math.floor(ms / 60_000) % 60, 2)}:${pad(Math.floor(ms / 1000) % 60, 2)}.${pad(ms % 1000, 3)}Z`;
}

function bump(map: Map<string, number>, reason: string): void {
  map.set(reason, (map.get(reason) ?? 0) + 1);
}

/** Whether a message is work the tracker counts: an assistant message that names its agent and model. */
export function isTrackedMessage(message: HostMessage): message is HostMessage & { agent: string; model: string } {
  return message.role === 'assistant' && message.agent !== undefined && message.agent !== TITLE_AGENT && message.model !== undefined;
}

/** The first and last event time (epoch ms) of one setup in a session. */
export interface SetupSpan {
  agent: string;
  model: string;
  first: number;
  last: number;
}

/**
 * Per agent × model, the span of the events `replaySession` records for it (the message times and
 * the times of its finished tool calls): the `firstAt`/`lastAt` its usage record will hold.
 */
export function setupSpans(session: HostSession): SetupSpan[] {
  // A session has a few setups: a short list searched in place, no key string built per event.
  const spans: SetupSpan[] = [];
  let current: SetupSpan | undefined;
  const widen = (agent: string, model: string, at: number): void => {
    const span = current?.agent === agent && current.model === model ? current : spans.find((s) => s.agent === agent && s.model === model);
    if (!span) spans.push((current = { agent, model, first: at, last: at }));
    else {
      span.first = Math.min(span.first, at);
      span.last = Math.max(span.last, at);
      current = span;
    }
  };
  for (const message of session.messages) {
    if (!isTrackedMessage(message)) continue;
    const at = message.completedAt ?? message.createdAt;
    widen(message.agent, message.model, at);
    for (const call of message.tools) {
      if (call.tool && call.callId && FINISHED.has(call.status)) widen(message.agent, message.model, call.endedAt ?? at);
    }
  }
  return spans;
}

/** The turn being replayed: from a user's message to the next. */
interface OpenTurn {
  messageId: string;
  prompt: string;
  filesEdited: string[];
  answeredBy: string[];
  /** The time of its last answer. */
  at: string;
  /** Whether every answer so far has finished. */
  finished: boolean;
  /** What its answers' tool calls did, for its journal entry (ReplayedTurn). */
  tools: Map<string, number>;
  failures: number;
  commits: number;
  commitHashes: string[];
}

/** Commits already recorded in a project (by this run or before it), by hash or abbreviation. */
export interface KnownCommits {
  knownCommit(project: string, hash: string): boolean;
  noteCommit(project: string, hash: string): void;
}

/**
 * The commits of a call the project's git holds (commit-witness.ts): each printed one it holds, made
 * during the call, and for the `unnamed` ones git printed no hash for, as many of the commits git made
 * during the call as no one has claimed. Only these are recorded, and so only these earn; the call's
 * other commits are counted and earn nothing. With no repository to read (`witness` undefined), none.
 */
function witnessed(witness: ProjectCommits | undefined, printed: readonly { hash: string; message: string }[], unnamed: number, time: CallTime, known: (hash: string) => boolean): GitCommit[] {
  if (!witness) return [];
  const commit = (held: WitnessedCommit, hash: string, message: string): GitCommit => ({ hash, parents: held.parents, message, files: [], insertions: 0, deletions: 0, timestamp: iso(held.committedAt) });
  const commits: GitCommit[] = [];
  for (const { hash, message } of printed) {
    const held = witness.printed(hash, time);
    if (held) commits.push(commit(held, hash, message));
  }
  if (unnamed <= 0) return commits;
  const claimed = (hash: string): boolean =>
    printed.some((named) => hash.startsWith(named.hash)) || known(hash) || known(hash.slice(0, GIT_ABBREVIATION_LENGTH));
  for (const held of witness.madeDuring(time)) {
    if (unnamed <= 0) break;
    if (claimed(held.hash)) continue;
    commits.push(commit(held, held.hash, held.subject));
    unnamed -= 1;
  }
  return commits;
}

/**
 * Records `session` into the service's buffer (memory only; the caller flushes). With `record` false
 * it only counts what would be recorded (`--dry-run`). A commit `known` already holds is left out of
 * the call's commits: whichever session claims it, it was counted and credited once.
 */
export function replaySession(service: ReplayTarget | undefined, session: HostSession, project: string, known?: KnownCommits, witness?: ProjectCommits): ReplayedSession {
  const result: ReplayedSession = { messages: 0, toolCalls: 0, commits: 0, pushes: 0, turns: 0, skipped: new Map() };
  service?.noteSession(session.id, { project, source: 'backfill', ...(session.parentId ? { parentId: session.parentId } : {}) });
  let turn: OpenTurn | undefined;
  const endTurn = (): void => {
    // Live counts a turn when the session goes idle: one no answer finished yet is left for later.
    if (turn && turn.finished && turn.answeredBy.length > 0) {
      const { messageId, prompt, filesEdited, answeredBy, at, tools, failures, commits, commitHashes } = turn;
      service?.recordTurn(session.id, { messageId, prompt, filesEdited, answeredBy, at, tools, failures, commits, commitHashes });
      result.turns += 1;
    }
    turn = undefined;
  };
  for (const message of session.messages) {
    if (message.role === 'user') {
      endTurn();
      turn = { messageId: message.id, prompt: message.prompt ?? '', filesEdited: [], answeredBy: [], at: '', finished: true, tools: new Map(), failures: 0, commits: 0, commitHashes: [] };
      continue;
    }
    if (!isTrackedMessage(message)) {
      if (message.agent !== TITLE_AGENT) bump(result.skipped, SKIP_REASONS.unknownModel);
      continue;
    }
    const atMs = message.completedAt ?? message.createdAt;
    const at = iso(atMs);
    service?.noteModelRequest(session.id, message.agent, message.model);
    service?.recordAssistantMessage(session.id, message.id, { agent: message.agent, model: message.model }, message.tokens, message.cost, { at });
    result.messages += 1;
    if (turn) {
      turn.answeredBy.push(message.id);
      turn.at = at;
      if (message.completedAt === undefined) turn.finished = false;
    }
    for (const call of message.tools) {
      if (!call.tool || !call.callId) {
        bump(result.skipped, SKIP_REASONS.unnamedTool);
        continue;
      }
      if (!FINISHED.has(call.status)) {
        bump(result.skipped, SKIP_REASONS.unfinishedTool);
        continue;
      }
      const ok = call.status === 'completed' && (call.exit === undefined || call.exit === 0);
      const callAt = call.endedAt === undefined ? at : iso(call.endedAt);
      service?.recordToolCall(session.id, call.callId, call.tool, ok, {
        at: callAt,
        ...(call.providerCallId && call.providerCallId !== call.callId ? { legacyEventId: call.providerCallId } : {}),
        ...(call.command !== undefined ? { command: call.command } : {}),
      });
      result.toolCalls += 1;
      if (turn) {
        turn.tools.set(call.tool, (turn.tools.get(call.tool) ?? 0) + 1);
        if (!ok) turn.failures += 1;
      }
      // As live: an edit noted when the call completed, a shell command (a test run?) with its exit code.
      if (turn && call.editedFile !== undefined && call.status === 'completed') turn.filesEdited.push(call.editedFile);
      if (call.tool === 'bash' && call.status === 'completed' && call.command) {
        service?.recordShellCommand(session.id, call.command, call.exit, { eventId: call.callId, at: callAt, ...(call.providerCallId && call.providerCallId !== call.callId ? { legacyEventId: call.providerCallId } : {}) });
      }
      if (call.tool !== 'bash' || !ok || !call.command) continue;
      const git = bashGitFacts(call.command, call.exit, call.output ?? '');
      // The turn's journal tells what the call did, whether or not its commits were recorded before.
      if (turn && git.commits > 0) {
        turn.commits += git.commits;
        for (const commit of git.printed) turn.commitHashes.push(commit.hash);
      }
      const fresh = git.printed.filter((commit) => !known?.knownCommit(project, commit.hash));
      const count = git.commits - (git.printed.length - fresh.length);
      if (count > 0) {
        const time = { ...(call.startedAt !== undefined ? { from: call.startedAt } : {}), to: call.endedAt ?? atMs };
        const commits = witnessed(witness, fresh, git.commits - git.printed.length, time, (hash) => known?.knownCommit(project, hash) === true);
        service?.recordCommits(session.id, commits, { eventId: call.callId, at: callAt, count });
        // Each printed hash (held by git or not), and the full hash of each quiet commit found.
        for (const commit of [...fresh, ...commits]) known?.noteCommit(project, commit.hash);
        result.commits += count;
      }
      if (git.pushed) {
        service?.recordPush(session.id, { eventId: call.callId, at: callAt, deferFlush: true });
        result.pushes += 1;
      }
    }
  }
  endTurn();
  service?.forgetSession(session.id);
  return result;
}

/**
 * Whether a process was started by, or during, an agent's session: the judgement behind a suspect
 * user-only record and a suspect write through the tracker's own modules. Pure over the facts
 * process-tree.ts reads, so tests hand it a real process's facts with their own session spans.
 *
 * Signs (each a short phrase; any one makes a record suspect):
 * - an ancestor is OpenCode, or started with OpenCode's session variables (a shell the bash tool
 *   ran still carries them after its child strips its own with `env -u`);
 * - a pseudo-terminal wrapper (`script`, `unbuffer`…) started by a process without a terminal:
 *   a terminal faked for a command, not a person's;
 * - a session leader without a terminal (`setsid`) in the chain that started while a tracked
 *   session was running: a process planted to outlive the session;
 * - no /proc to read (not Linux): the chain cannot be judged, so the record cannot be trusted.
 */
import path from 'node:path';
import { processChain, sessionLeaderOf } from './process-tree.js';
import type { ProcessInfo } from './process-tree.js';
import type { UserActionProvenance } from '../types.js';

/** Programs whose only purpose is to give a command a pseudo-terminal. */
const PTY_WRAPPERS: ReadonlySet<string> = new Set(['script', 'unbuffer', 'expect', 'empty', 'ptybandage', 'pty', 'socat']);
/** The names the OpenCode binary runs under (npm ships `opencode.exe` on every platform). */
const OPENCODE_PROGRAM = /^\.?opencode(\.exe)?$/i;
/** Clock-tick rounding of /proc start times and clock steps: a start this close to a span is inside it. */
const START_SLACK_MS = 2000;

/** A tracked session's first and last record (ISO). */
export interface SessionSpan {
  firstAt: string;
  lastAt: string;
}

/**
 * A process and its ancestors (nearest first), and the leaders of the sessions of those below the
 * nearest process with a terminal; `known` false without /proc.
 */
export interface Ancestry {
  known: boolean;
  chain: ProcessInfo[];
  leaders: ProcessInfo[];
}

/** Reads the ancestry of `pid` (this process by default). */
export function readAncestry(pid: number = process.pid): Ancestry {
  const chain = processChain(pid);
  const leaders = new Map<number, ProcessInfo>();
  // Only below the nearest process with a terminal: above it sit a person's terminal, sshd, tmux.
  for (const info of chain) {
    if (info.hasTerminal) break;
    if (leaders.has(info.session)) continue;
    const leader = sessionLeaderOf(info);
    if (leader) leaders.set(info.session, leader);
  }
  return { known: chain.length > 0, chain, leaders: [...leaders.values()] };
}

/** Whether a process is the OpenCode binary. */
export function isOpencodeProcess(info: ProcessInfo): boolean {
  return OPENCODE_PROGRAM.test(info.name) || OPENCODE_PROGRAM.test(path.basename(info.program));
}

function label(info: ProcessInfo): string {
  return `process ${info.pid} (${info.name})`;
}

/**
 * The signs in the ancestors of the chain's first process (the process itself is left out: the
 * CLI judges its own environment apart, and the host's own process is OpenCode by definition).
 */
export function ancestorSigns(ancestry: Ancestry): string[] {
  if (!ancestry.known) return ['its parent processes cannot be read on this system (no /proc), so how it came is unknown'];
  const signs: string[] = [];
  const { chain } = ancestry;
  for (let i = 1; i < chain.length; i += 1) {
    const info = chain[i] as ProcessInfo;
    if (isOpencodeProcess(info)) signs.push(`${label(info)} among its parents is OpenCode`);
    else if (info.sessionVariables.length > 0) signs.push(`${label(info)} among its parents carries ${info.sessionVariables.join(', ')}`);
  }
  for (let i = 0; i + 1 < chain.length; i += 1) {
    const wrapper = chain[i] as ProcessInfo;
    const parent = chain[i + 1] as ProcessInfo;
    if (PTY_WRAPPERS.has(wrapper.name) && !parent.hasTerminal) {
      signs.push(`its terminal was made by ${label(wrapper)}, started by ${label(parent)} that has no terminal`);
    }
  }
  return signs;
}

/** Whether a start time (ms) falls within a session span. */
function startedWithin(startedAtMs: number, span: SessionSpan): boolean {
  const first = Date.parse(span.firstAt);
  const last = Date.parse(span.lastAt);
  return Number.isFinite(first) && Number.isFinite(last) && startedAtMs >= first - START_SLACK_MS && startedAtMs <= last + START_SLACK_MS;
}

/**
 * The sign of a detached process planted during a session: a session leader without a terminal in
 * the chain that started while one of `spans` was running. A person's terminal has a terminal.
 */
export function plantedDuringSessionSign(ancestry: Ancestry, spans: readonly SessionSpan[]): string | undefined {
  for (const leader of ancestry.leaders) {
    if (leader.hasTerminal || leader.pid === 1 || leader.startedAtMs === undefined) continue;
    const span = spans.find((candidate) => startedWithin(leader.startedAtMs as number, candidate));
    if (span) return `its session was started by ${label(leader)} without a terminal while an agent session ran (${span.firstAt} to ${span.lastAt})`;
  }
  return undefined;
}

/** Every sign that a process came from an agent session; empty when there are none. */
export function sessionProvenanceSigns(ancestry: Ancestry, spans: readonly SessionSpan[]): string[] {
  const planted = plantedDuringSessionSign(ancestry, spans);
  return [...ancestorSigns(ancestry), ...(planted ? [planted] : [])];
}

/**
 * The signs that this process was itself started from an agent session: a nested `opencode run`
 * the agent's bash started, or a script writing through the tracker's modules. Its own starting
 * environment counts here (the CLI refuses on it instead); its own name does not, since the host
 * is OpenCode by definition.
 */
export function nestedHostSigns(ancestry: Ancestry = readAncestry(process.pid)): string[] {
  const self = ancestry.chain[0];
  const own = self && self.sessionVariables.length > 0 ? [`${label(self)} was started with ${self.sessionVariables.join(', ')} (from inside an agent session)`] : [];
  return [...own, ...ancestorSigns(ancestry)];
}

/**
 * The sign of a slash command that came while agents' tool calls ran in this OpenCode: an agent's shell
 * can send it through the host's own HTTP server, and the plugin cannot tell that from the user's typing.
 */
export function runningCallsSign(running: number): string | undefined {
  return running > 0 ? `it came while ${running} tool call(s) of an agent ran in this OpenCode (process ${process.pid}), whose shell can send commands through OpenCode's own server` : undefined;
}

/** The provenance of a user-only slash command (`/grade`): suspect when this OpenCode is nested in a session. */
export function slashCommandProvenance(action: string, signs: string[] = nestedHostSigns()): UserActionProvenance {
  return { action, via: 'slash-command', suspect: signs.length > 0, ...(signs.length > 0 ? { signs } : {}) };
}

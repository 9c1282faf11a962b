/**
 * What Linux says about a process and its ancestors, read from /proc: the facts `provenance.ts`
 * judges. Every read is bounded (a fixed number of ancestors, a size cap on each file) and a gone
 * or unreadable process reads as undefined; elsewhere than Linux nothing is readable, and the
 * caller says "unknown".
 */
import fs from 'node:fs';

/** How far up the process tree to look (a bound, not a guess at depth). */
export const MAX_ANCESTORS = 32;
/** The environment variables OpenCode gives the processes of a session (HOST-FACTS.md). */
export const SESSION_VARIABLES = ['OPENCODE_PID', 'OPENCODE', 'AGENT'] as const;
/** The largest /proc file read: an environment of a few hundred KiB is already unusual. */
const MAX_PROC_FILE_BYTES = 1024 * 1024;
/**
 * Clock ticks per second of /proc start times. 100 on every Linux build that matters (USER_HZ);
 * asking `getconf` would spawn a process on every user-only command for the same answer.
 */
const TICKS_PER_SECOND = 100;

export interface ProcessInfo {
  pid: number;
  parent: number;
  /** The kernel's command name (the executable's file name, at most 15 characters). */
  name: string;
  /** The program as started (argv[0]), '' when unreadable. */
  program: string;
  /** The session variables set (non-empty, not "0") in the environment it started with. */
  sessionVariables: string[];
  /** Whether the environment was readable at all (another user's process is not). */
  environmentKnown: boolean;
  /** Its session id (the pid of the session leader, who called setsid). */
  session: number;
  /** Whether it has a controlling terminal. */
  hasTerminal: boolean;
  /** When it started (ms since the epoch), when known. */
  startedAtMs: number | undefined;
}

/** A /proc file is read in chunks of this size (most are far smaller; an environment may be larger). */
const CHUNK_BYTES = 16 * 1024;

function readBounded(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const chunks: Buffer[] = [];
    let length = 0;
    // /proc files report size 0: read until the end or the cap.
    while (length < MAX_PROC_FILE_BYTES) {
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, MAX_PROC_FILE_BYTES - length));
      const read = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      length += read;
    }
    return Buffer.concat(chunks, length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The seconds since the epoch the machine booted at, from /proc/stat; undefined when unreadable. */
function bootTimeSeconds(): number | undefined {
  const stat = readBounded('/proc/stat')?.toString('utf8');
  const match = stat ? /^btime (\d+)$/m.exec(stat) : null;
  return match ? Number(match[1]) : undefined;
}

function sessionVariablesOf(environ: Buffer): string[] {
  const set: string[] = [];
  for (const entry of environ.toString('utf8').split('\0')) {
    const equals = entry.indexOf('=');
    const name = entry.slice(0, equals);
    const value = entry.slice(equals + 1);
    if ((SESSION_VARIABLES as readonly string[]).includes(name) && value !== '' && value !== '0') set.push(name);
  }
  return set;
}

/** One process's facts from /proc; undefined when it is gone or /proc is not there. */
export function readProcess(pid: number, bootSeconds: number | undefined = bootTimeSeconds()): ProcessInfo | undefined {
  const stat = readBounded(`/proc/${pid}/stat`)?.toString('utf8');
  if (!stat) return undefined;
  // "pid (comm) state ppid pgrp session tty_nr … starttime(22nd)": comm may hold spaces and parentheses.
  const close = stat.lastIndexOf(')');
  const name = stat.slice(stat.indexOf('(') + 1, close);
  const fields = stat.slice(close + 2).split(' ');
  const parent = Number(fields[1]);
  const session = Number(fields[3]);
  const terminal = Number(fields[4]);
  const startTicks = Number(fields[19]);
  if (!Number.isInteger(parent) || !Number.isInteger(session)) return undefined;
  const environ = readBounded(`/proc/${pid}/environ`);
  const cmdline = readBounded(`/proc/${pid}/cmdline`)?.toString('utf8') ?? '';
  return {
    pid,
    parent,
    name,
    program: cmdline.split('\0')[0] ?? '',
    sessionVariables: environ ? sessionVariablesOf(environ) : [],
    environmentKnown: environ !== undefined,
    session,
    hasTerminal: Number.isInteger(terminal) && terminal !== 0,
    startedAtMs: bootSeconds !== undefined && Number.isFinite(startTicks) ? (bootSeconds + startTicks / TICKS_PER_SECOND) * 1000 : undefined,
  };
}

/** A process and its ancestors, nearest first, up to MAX_ANCESTORS; empty without /proc. */
export function processChain(startPid: number): ProcessInfo[] {
  const boot = bootTimeSeconds();
  const chain: ProcessInfo[] = [];
  let pid = startPid;
  while (chain.length < MAX_ANCESTORS && pid > 0) {
    const info = readProcess(pid, boot);
    if (!info) break;
    chain.push(info);
    if (pid === 1) break;
    pid = info.parent;
  }
  return chain;
}

/** The leader of a process's session (the process that called setsid), when readable. */
export function sessionLeaderOf(info: ProcessInfo): ProcessInfo | undefined {
  return info.session === info.pid ? info : readProcess(info.session);
}

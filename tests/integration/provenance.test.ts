/**
 * The provenance judgement on real processes: a child started with OpenCode's session variables, a
 * detached (setsid) child judged against session spans the test sets around its start, and a
 * system without /proc.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { ancestorSigns, nestedHostSigns, plantedDuringSessionSign, readAncestry } from '../../src/core/integrity/provenance.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A child that lives until killed (bounded by sleep), started as `command args`, its pid once running. */
async function running(command: string, args: string[], env: NodeJS.ProcessEnv = { PATH: process.env.PATH }): Promise<number> {
  const child = spawn(command, args, { env, stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return child.pid as number;
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('process provenance', () => {
  it('a process whose parent carries OPENCODE_PID is judged from inside a session; this test process is not', async () => {
    // sh runs two commands, so it stays the parent of sleep instead of becoming it.
    const shell = await running('sh', ['-c', 'sleep 10; true'], { PATH: process.env.PATH, OPENCODE_PID: '4242' });
    const sleeper = childPids(shell)[0] as number;
    expect(ancestorSigns(readAncestry(sleeper))).toEqual([`process ${shell} (sh) among its parents carries OPENCODE_PID`]);
    expect(nestedHostSigns(readAncestry(shell))).toEqual([`process ${shell} (sh) was started with OPENCODE_PID (from inside an agent session)`]);
    expect(nestedHostSigns(readAncestry(process.pid))).toEqual([]);
  });

  it('a setsid child without a terminal is planted when it started within a session span, not before one', async () => {
    const startedAround = Date.now();
    const pid = await running('setsid', ['sleep', '10']);
    // Judged on the child's own session only: the test runner's sessions started whenever they did.
    const read = readAncestry(pid);
    const ancestry = { ...read, leaders: read.leaders.filter((leader) => leader.pid === pid) };
    expect(ancestry.leaders).toHaveLength(1);
    const during = { firstAt: iso(startedAround - 60_000), lastAt: iso(Date.now() + 60_000) };
    const before = { firstAt: iso(startedAround - 3_600_000), lastAt: iso(startedAround - 600_000) };
    expect(plantedDuringSessionSign(ancestry, [during])).toMatch(new RegExp(`^its session was started by process ${pid} \\(sleep\\) without a terminal while an agent session ran`));
    expect(plantedDuringSessionSign(ancestry, [before])).toBeUndefined();
  });

  it('without /proc the chain is unknown, which is a sign of its own', () => {
    expect(ancestorSigns({ known: false, chain: [], leaders: [] })).toEqual([expect.stringMatching(/cannot be read on this system \(no \/proc\)/)]);
  });
});

/** The children of `pid`, from /proc (the test's own read, not the code under test). */
function childPids(pid: number): number[] {
  const tasks = fs.readdirSync(`/proc/${pid}/task`);
  return tasks.flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
}

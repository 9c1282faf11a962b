/**
 * The player sheet in the real `opencode` binary: a toast carrying the sheet is published after a
 * commit (watched on `opencode serve`'s event stream while the session is driven over HTTP), and
 * the `agent-status` tool answers with the FIGlet name and the project's pending changes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import figlet from 'figlet';
import cybermedium from 'figlet/fonts/Cybermedium';
import { SHEET_WIDTH } from '../../src/core/report/sheet.js';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { git, makeRepo, makeSandbox, OPENCODE_BIN, removeSandbox, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(300_000);

const SERVE_START_TIMEOUT_MS = 120_000;
const PROMPT_TIMEOUT_MS = 120_000;
const TOAST_WAIT_MS = 30_000;
/** The first request boots the project's instance (plugins included): slow on a busy machine. */
const EVENT_CONNECT_TIMEOUT_MS = 90_000;
const SERVE_STOP_GRACE_MS = 5_000;

interface BusEvent {
  type: string;
  properties: Record<string, unknown>;
}

interface ToastEvent {
  title?: string;
  message: string;
  variant: string;
}

/** The lines figlet draws for a name in Cybermedium, without trailing blanks. */
function cybermediumLines(name: string): string[] {
  figlet.parseFont('Cybermedium', cybermedium);
  return figlet
    .textSync(name, { font: 'Cybermedium' })
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '');
}

interface Serve {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `opencode serve` on a free loopback port, in `cwd`; resolves once it prints its address. */
function startServe(sandbox: Sandbox, cwd: string): Promise<Serve> {
  const child = spawn(OPENCODE_BIN, ['serve', '--hostname', '127.0.0.1', '--port', '0'], { cwd, env: sandbox.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), SERVE_STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`opencode serve did not start within ${SERVE_START_TIMEOUT_MS} ms:\n${output}`));
    }, SERVE_START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1] as string, child, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`opencode serve exited (${code}) before listening:\n${output}`));
    });
  });
}

/** Reads the server's SSE event stream into `events` until `abort` fires. */
async function collectEvents(url: string, events: BusEvent[], abort: AbortController, connected: () => void): Promise<void> {
  const response = await fetch(`${url}/event`, { signal: abort.signal, headers: { accept: 'text/event-stream' } });
  if (!response.body) throw new Error('the event stream has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end = buffered.indexOf('\n\n');
      while (end >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice('data:'.length).trim())
          .join('\n');
        if (data) {
          const event = JSON.parse(data) as BusEvent;
          events.push(event);
          if (event.type === 'server.connected') connected();
        }
        end = buffered.indexOf('\n\n');
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  }
}

async function waitFor<T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(PROMPT_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

function toasts(events: BusEvent[]): ToastEvent[] {
  return events.filter((event) => event.type === 'tui.toast.show').map((event) => event.properties as unknown as ToastEvent);
}

/** Every string inside a parsed JSON value. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

describe('the player sheet in a real OpenCode session', () => {
  let sandbox: Sandbox;
  let model: FakeModel;

  beforeAll(async () => {
    sandbox = makeSandbox();
    model = await startFakeModel(
      scriptByPrompt({
        'COMMIT-TURN': [bash('echo sheet > sheet.txt && git add sheet.txt && git commit -q -m "add sheet"'), say('Committed.')],
        'STATUS-TURN': [call('agent-status', {}), say('Here is my sheet.')],
      }),
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
  });

  afterAll(async () => {
    await model.close();
    removeSandbox(sandbox);
  });

  it('publishes a toast carrying the sheet after a commit, and one at session start', async () => {
    const repo = makeRepo(sandbox, 'toast');
    const serve = await startServe(sandbox, repo);
    const events: BusEvent[] = [];
    const abort = new AbortController();
    let streamDone: Promise<void> = Promise.resolve();
    try {
      let connected = false;
      streamDone = collectEvents(serve.url, events, abort, () => (connected = true));
      await waitFor(() => (connected ? true : undefined), EVENT_CONNECT_TIMEOUT_MS, 'the event stream to connect');

      const session = (await postJson(`${serve.url}/session`, {})) as { id: string };
      await postJson(`${serve.url}/session/${session.id}/message`, { parts: [{ type: 'text', text: 'COMMIT-TURN: add a file and commit it' }] });

      const hash = git(repo, ['rev-parse', 'HEAD']).trim();
      const commitToast = await waitFor(
        () => toasts(events).find((toast) => toast.title === `build: commit ${hash.slice(0, 7)}`),
        TOAST_WAIT_MS,
        `a toast for commit ${hash.slice(0, 7)} (toasts so far: ${JSON.stringify(toasts(events).map((t) => t.title))})`,
      );
      const lines = commitToast.message.split('\n');
      expect(lines.slice(0, cybermediumLines('build').length)).toEqual(cybermediumLines('build'));
      expect(commitToast.message).toMatch(/COMMITS \.+ 1\.0/);
      expect(commitToast.message).toMatch(/PENDING \.+ clean/);
      expect(commitToast.variant).toBe('success');
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(SHEET_WIDTH);

      const startToast = toasts(events).find((toast) => toast.title === 'build: session start');
      expect(startToast?.message).toContain(cybermediumLines('build')[0]);
      expect(toasts(events).filter((toast) => toast.title === 'build: session start')).toHaveLength(1);
    } finally {
      abort.abort();
      await serve.stop();
      await streamDone.catch(() => undefined);
    }
  });

  it('answers agent-status with the FIGlet name and the pending changes of the project', async () => {
    const repo = makeRepo(sandbox, 'status');
    fs.writeFileSync(path.join(repo, 'untracked-note.txt'), 'not committed\n');
    const run = await runOpencode(sandbox, repo, 'STATUS-TURN: show your sheet');
    expect(run.code).toBe(0);

    const outputs = run.stdout
      .split('\n')
      .flatMap((line) => {
        try {
          return stringsIn(JSON.parse(line));
        } catch {
          return [];
        }
      })
      .filter((text) => text.includes(':: build '));
    expect(outputs.length).toBeGreaterThan(0);
    const sheet = outputs[0] as string;
    for (const line of cybermediumLines('build')) expect(sheet).toContain(line);
    expect(sheet).toMatch(/PENDING \.+ 1 change\n/);
    expect(sheet).toContain('?? untracked-note.txt');
  });
});

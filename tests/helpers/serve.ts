/**
 * `opencode serve` on 127.0.0.1 with its event stream collected, for scenarios longer than one
 * `opencode run`. Resolves once the event stream is connected. Bounded: the server is killed after
 * `lifetimeMs` whatever happens.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { OPENCODE_BIN } from './sandbox.js';
import type { Sandbox } from './sandbox.js';

const EVENT_CONNECT_TIMEOUT_MS = 90_000;

export interface BusEventJson {
  type: string;
  properties: Record<string, unknown>;
}

export interface Served {
  url: string;
  child: ChildProcess;
  events: BusEventJson[];
  stderr: () => string;
  /** Resolves with the first collected event matching `predicate`, or rejects after `timeoutMs`. */
  waitForEvent(predicate: (event: BusEventJson) => boolean, timeoutMs?: number): Promise<BusEventJson>;
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startServe(sandbox: Sandbox, cwd: string, options: { lifetimeMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Served> {
  const child = spawn(OPENCODE_BIN, ['serve', '--hostname', '127.0.0.1', '--port', '0', '--print-logs'], {
    cwd,
    env: { ...sandbox.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lifetime = setTimeout(() => child.kill('SIGKILL'), options.lifetimeMs ?? 180_000);
  lifetime.unref();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));

  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`opencode serve did not start: ${stderr.slice(-2000)}`)), 120_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('close', () => reject(new Error(`opencode serve exited: ${stderr.slice(-2000)}`)));
  });

  const events: BusEventJson[] = [];
  const waiters: { predicate: (event: BusEventJson) => boolean; resolve: (event: BusEventJson) => void }[] = [];
  const abort = new AbortController();
  let streamError: unknown;
  let connected = false;
  const readStream = async (): Promise<void> => {
    const response = await fetch(`${url}/event`, { signal: abort.signal });
    const reader = response.body?.getReader();
    if (!reader) return;
    const decoder = new TextDecoder();
    let pending = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      pending += decoder.decode(value, { stream: true });
      let boundary = pending.indexOf('\n\n');
      while (boundary >= 0) {
        const block = pending.slice(0, boundary);
        pending = pending.slice(boundary + 2);
        boundary = pending.indexOf('\n\n');
        const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('');
        if (!data) continue;
        const event = JSON.parse(data) as BusEventJson;
        if (event.type === 'server.connected') connected = true;
        events.push(event);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(event)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(event);
          }
        }
      }
    }
  };
  void (async () => {
    // A stream that fails or ends before it connected is asked for again (the instance may still be
    // booting); one that ends after, ends with the server. Bounded: kill() aborts it, and a server
    // gone (its lifetime is bounded too) is not asked again.
    const over = () => connected || abort.signal.aborted || child.exitCode !== null || child.signalCode !== null;
    while (!abort.signal.aborted) {
      try {
        await readStream();
      } catch (error) {
        streamError = error;
      }
      if (over()) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();

  // The first event request boots the project's instance (plugins included): slow on a busy machine.
  const served: Served = {
    url,
    child,
    events,
    stderr: () => stderr,
    waitForEvent(predicate, timeoutMs = 60_000) {
      const found = events.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve: (event: BusEventJson) => (clearTimeout(timer), resolve(event)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching event within ${timeoutMs} ms; saw: ${events.map((e) => e.type).join(', ')}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(150_000),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path} -> ${response.status}: ${text.slice(0, 500)}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      abort.abort();
      clearTimeout(lifetime);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  try {
    await served.waitForEvent((event) => event.type === 'server.connected', EVENT_CONNECT_TIMEOUT_MS);
  } catch (error) {
    await served.kill('SIGKILL');
    const failed = streamError === undefined ? '' : `; the event stream last failed with: ${String(streamError)}`;
    throw new Error(`${(error as Error).message}${failed}; opencode's log ends: ${stderr.slice(-2000)}`);
  }
  return served;
}

/** Sends a prompt to a session and waits for the reply (the whole turn). */
export function prompt(served: Served, sessionId: string, text: string): Promise<unknown> {
  return served.request('POST', `/session/${sessionId}/message`, { parts: [{ type: 'text', text }] });
}

/**
 * The main thread's side of the store's worker thread (host.ts): started once per process and never
 * stopped (terminating a worker that holds lmdb crashes Bun), unref'd so the process ends with it.
 * A synchronous call waits on a shared flag, always bounded; an asynchronous one is a promise with a
 * deadline. When the worker cannot start, dies, or misses a deadline, the channel is dead for good and
 * says why once: the stores behind it then behave as a store that could not be opened.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { ABANDONED, FLAG_BYTES, REPLIED } from './protocol.js';
import { builtScript } from '../../core/fs/built-script.js';
import type { AsyncRequest, HostData, HostEvent, SentError, SyncEnvelope, SyncReply, SyncRequest } from './protocol.js';

/** The worker's script: beside this module (tsc's dist), under dist/opencode/remote from the bundle in dist/opencode. */
export function hostScript(): string {
  return builtScript(import.meta.url, './host.js', './remote/host.js');
}

type Settle = { resolve: (value: unknown) => void; reject: (error: SentError) => void; timer: NodeJS.Timeout };

export class Channel {
  /** Why the worker is out of use, once it is. */
  private deadReason: string | undefined;
  private readonly signal: Int32Array;
  private readonly port: MessagePort | undefined;
  private readonly worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, Settle>();
  private readonly listeners: ((event: HostEvent) => void)[] = [];
  private readonly deathListeners: ((reason: string) => void)[] = [];

  constructor(script: string = hostScript()) {
    const flag = new SharedArrayBuffer(FLAG_BYTES);
    this.signal = new Int32Array(flag);
    const { port1, port2 } = new MessageChannel();
    let worker: Worker | undefined;
    try {
      const data: HostData = { port: port2, flag };
      worker = new Worker(script, { workerData: data, transferList: [port2] });
      worker.on('message', (event: HostEvent) => this.receive(event));
      worker.on('error', (error: Error) => this.die(`it failed: ${error.message}`));
      worker.on('exit', (code) => this.die(`it stopped (exit code ${code})`));
      // After the listeners: under Node, a 'message' listener added later refs the worker again.
      worker.unref();
    } catch (error) {
      worker = undefined;
      this.deadReason = `it could not start: ${(error as Error).message}`;
    }
    // Read with receiveMessageOnPort only; it must not keep the process alive either.
    port1.unref();
    this.worker = worker;
    this.port = worker ? port1 : undefined;
  }

  get dead(): string | undefined {
    return this.deadReason;
  }

  onEvent(listener: (event: HostEvent) => void): void {
    this.listeners.push(listener);
  }

  onDeath(listener: (reason: string) => void): void {
    this.deathListeners.push(listener);
  }

  /** Runs `request` in the worker and waits for its reply, at most `timeoutMs`; undefined when the channel is (or goes) dead. */
  call(request: SyncRequest, timeoutMs: number): SyncReply | undefined {
    const port = this.port;
    if (this.deadReason !== undefined || !port) return undefined;
    const id = ++this.nextId;
    // The worker refuses a write that reaches it after this, or gets the write lock after this thread
    // gave up on it (host.ts, spill.ts): what this thread gave up on is spilled, so it must not also land late.
    port.postMessage({ id, request, deadline: Date.now() + timeoutMs } satisfies SyncEnvelope);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      // Cleared before the queue is read: the worker posts its reply first, then sets the flag.
      Atomics.store(this.signal, REPLIED, 0);
      for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port)) {
        const reply = received.message as SyncReply;
        if (reply.id === id) return reply;
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        // Told before anything else: the worker checks it with the write lock held (spill.ts).
        Atomics.store(this.signal, ABANDONED, id);
        this.die(`it did not answer within ${timeoutMs} ms`);
        return undefined;
      }
      Atomics.wait(this.signal, REPLIED, 0, left);
    }
  }

  /** Runs `request` in the worker; rejects when it fails, the channel dies or `timeoutMs` passes. */
  ask(request: AsyncRequest, timeoutMs: number): Promise<unknown> {
    const worker = this.worker;
    if (this.deadReason !== undefined || !worker) return Promise.reject(new Error(this.deathLine()));
    const id = ++this.nextId;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the agent-tracker database thread did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      // Ref'd: an answer awaited (a dispose's snapshot, a tool) keeps the process until it comes; the worker itself does not.
      this.waiting.set(id, { resolve, reject: (error) => reject(Object.assign(new Error(error.message), { name: error.name })), timer });
      worker.postMessage({ id, request });
    });
  }

  /** The one line a user reads when the worker is out of use. */
  deathLine(): string {
    return `the agent-tracker database thread is out of use (${this.deadReason ?? 'unknown'}); what is recorded waits in memory and is kept for the next start`;
  }

  private receive(event: HostEvent): void {
    if (event.kind === 'reply') {
      const settle = this.waiting.get(event.id);
      if (!settle) return;
      this.waiting.delete(event.id);
      clearTimeout(settle.timer);
      if (event.ok) settle.resolve(event.value);
      else settle.reject(event.error);
      return;
    }
    for (const listener of this.listeners) listener(event);
  }

  private die(reason: string): void {
    if (this.deadReason !== undefined) return;
    this.deadReason = reason;
    for (const [id, settle] of this.waiting) {
      this.waiting.delete(id);
      clearTimeout(settle.timer);
      settle.reject({ name: 'Error', message: this.deathLine() });
    }
    for (const listener of this.deathListeners) listener(reason);
  }
}

/**
 * The plugin's store on OpenCode's main thread: a StoreAccess whose tables and writes are calls into
 * the worker thread that holds the real store (host.ts), so lmdb never loads on the main thread.
 * Reads are synchronous calls (a range comes back as one array); a store not open yet reads empty and
 * refuses writes, as a store being checked does; a dead worker makes it a store that could not be
 * opened (hooks record into memory, the last flush spills). Every wait is bounded. The plugin's store
 * starts its worker at `start` (its first hook): a process that runs no session (`opencode models`,
 * `opencode session list`) loads no lmdb and opens no file.
 */
import type { Logger } from '../../core/logger.js';
import type { ScoringRules } from '../../core/rules.js';
import type { Watermark } from '../../core/backfill/watermark.js';
import type { CrossProjectQuery } from '../../core/projects/cross-project-search.js';
import type { ImportNeed } from '../history/import-needed.js';
import type { StoreAccess } from '../../core/store/access.js';
import type { FlushResult, Mutation, StateMutation, TableName } from '../../core/store/mutations.js';
import { lateMarkMarginMs } from '../../core/store/late-write.js';
import { newSpillId } from '../../core/store/spill.js';
import { AbandonedWriteError, DatabaseFullError, StoreNotWritableError, StoreOpenError } from '../../core/store/store-errors.js';
import { STORED_NAMES } from '../../core/store/tables.js';
import type { MetaValues, StoreKey, Table, Tables } from '../../core/store/tables.js';
import { Channel } from './channel.js';
import type { HostEvent, SentError, StoreState, SyncReply, SyncRequest, TableMethod } from './protocol.js';

/** A read a hook waits for: long past a healthy answer (well under a millisecond), short enough for a session. */
export const READ_TIMEOUT_MS = 5_000;
/** A flush: the largest batches take a second or so on a slow disk. */
export const WRITE_TIMEOUT_MS = 15_000;
/** Once the process is exiting (the exit flush): the process must end promptly. */
export const EXIT_TIMEOUT_MS = 2_000;
/** The prior-art search and the daily snapshot (a rebuild of an old index takes seconds). */
export const ASK_TIMEOUT_MS = 120_000;

const OPENING = 'the agent-tracker database is being opened; what is recorded waits in memory';

export interface RemoteEvents {
  /** A problem the user must hear of: one line. */
  problem(line: string): void;
  /** The store is open for writing and what waited at its start is merged. */
  ready(): void;
}

/** The errors the worker raised, as the callers know them (a refused write stays quiet, a full map says what to raise). */
function rebuilt(error: SentError): Error {
  if (error.name === 'StoreNotWritableError') return new StoreNotWritableError(error.message);
  if (error.name === 'DatabaseFullError') return new DatabaseFullError(error.message);
  if (error.name === 'StoreOpenError') return new StoreOpenError(error.message);
  return Object.assign(new Error(error.message), { name: error.name });
}

let channel: Channel | undefined;
let exiting = false;

function theChannel(): Channel {
  if (!channel) {
    channel = new Channel();
    // Registered before the exit flush's own listener: that flush then waits only EXIT_TIMEOUT_MS.
    process.once('exit', () => (exiting = true));
  }
  return channel;
}

export class RemoteStore implements StoreAccess {
  readonly tables: Tables;
  private state: StoreState = { attached: false, refusal: OPENING };
  private users = 0;
  private readonly events: RemoteEvents[] = [];
  private isReady = false;
  /** Whether the worker answered the open (the file is open now, or is being checked, or could not be opened). */
  private answered = false;
  private closed = false;
  /** Whether the worker said the store cannot be used (damage, a newer schema, a place it cannot open). */
  private refused = false;
  /** Whether a wait for the open ran out: later ones do not wait (a session is slowed once, not at every call). */
  private openWaitSpent = false;
  /** Callers waiting for a moment of the open: each is woken once its condition holds. */
  private readonly waiters: { reached: () => boolean; wake: () => void }[] = [];
  /** The worker's channel, once started. */
  private channel: Channel | undefined;
  /** Opens asked for before the start, sent by it. */
  private readonly unsent: { directory: string; rules: ScoringRules }[] = [];

  /** `link`: a channel (started now) or how to get one (started by `start`). */
  constructor(
    readonly path: string,
    readonly maxDatabaseSize: number,
    private readonly link: Channel | (() => Channel),
    private readonly logger: Logger,
    /** How long a flush waits (an exiting process waits EXIT_TIMEOUT_MS whatever this is). */
    private readonly writeTimeoutMs: number = WRITE_TIMEOUT_MS,
  ) {
    const tables: Record<string, Table<unknown>> = {};
    for (const name of Object.keys(STORED_NAMES) as (keyof Tables)[]) tables[name] = this.tableProxy(name);
    this.tables = tables as unknown as Tables;
    if (link instanceof Channel) this.start();
  }

  /** Starts the worker (once) and sends the opens asked for so far. */
  start(): void {
    if (this.channel || this.closed) return;
    const channel = this.link instanceof Channel ? this.link : this.link();
    this.channel = channel;
    channel.onEvent((event) => this.receive(event));
    channel.onDeath(() => this.died());
    if (channel.dead !== undefined) this.died();
    for (const open of this.unsent.splice(0)) this.sendOpen(open.directory, open.rules);
  }

  /** The started channel: what asks the worker for something starts it (not once the store is closed). */
  private started(): Channel {
    this.start();
    if (!this.channel) throw new StoreNotWritableError('the agent-tracker database is closed');
    return this.channel;
  }

  get attached(): boolean {
    return this.state.attached;
  }

  get refusal(): string | undefined {
    return this.state.refusal;
  }

  /**
   * A flush, named with the id its batch is spilled under when this thread stops waiting for it: then
   * it throws AbandonedWriteError with that id (the worker may still write it, marked merged: spill.ts).
   */
  applyBatch(mutations: readonly Mutation[], rules: ScoringRules, now: string): FlushResult {
    const spillId = newSpillId();
    const timeoutMs = this.writeTimeout();
    return this.write({ op: 'applyBatch', path: this.path, mutations, rules, now, spillId, markMarginMs: lateMarkMarginMs(timeoutMs) }, timeoutMs) as FlushResult;
  }

  putRecords(records: readonly StateMutation[]): void {
    this.write({ op: 'putRecords', path: this.path, records });
  }

  maintainIndexes(): boolean {
    if (!this.state.attached || this.state.refusal !== undefined) return false;
    return this.write({ op: 'maintainIndexes', path: this.path }) === true;
  }

  meta(): MetaValues {
    return (this.read({ op: 'meta', path: this.path }) as MetaValues | undefined) ?? { schemaVersion: 0, flushes: 0, lastFlushAt: '' };
  }

  provisionedItems(configDir: string): string[] {
    return (this.read({ op: 'provisionedItems', path: this.path, configDir }) as string[] | undefined) ?? [];
  }

  counts(): Record<TableName, number> {
    const counted = this.read({ op: 'counts', path: this.path }) as Record<TableName, number> | undefined;
    return counted ?? (Object.fromEntries(Object.values(STORED_NAMES).map((name) => [name, 0])) as Record<TableName, number>);
  }

  bytesInUse(): number | undefined {
    return this.read({ op: 'bytesInUse', path: this.path }) as number | undefined;
  }

  keepVerifiedIfOwn(): void {
    this.read({ op: 'keepVerifiedIfOwn', path: this.path });
  }

  async backup(target: string): Promise<void> {
    await this.started().ask({ op: 'backup', path: this.path, target }, ASK_TIMEOUT_MS);
  }

  /**
   * Whether the history import's child would import anything, read in the worker (history/import-needed.ts):
   * OpenCode's main thread neither waits for the read nor holds what it allocates, and the events are
   * read without a call per key. A worker that cannot answer means "needed": the child decides.
   */
  async importNeeded(location: string, mark: Watermark | undefined, createdBefore: number): Promise<ImportNeed> {
    try {
      return (await this.started().ask({ op: 'importNeeded', path: this.path, location, mark, createdBefore }, ASK_TIMEOUT_MS)) as ImportNeed;
    } catch (error) {
      return { needed: true, reason: (error as Error).message };
    }
  }

  /** The prior-art tool's answer, searched in the worker. */
  async priorArt(query: CrossProjectQuery, project: string): Promise<string> {
    return String(await this.started().ask({ op: 'priorArt', path: this.path, query, project }, ASK_TIMEOUT_MS));
  }

  /** One more plugin instance uses this store; `directory`'s legacy database is merged once it is open. */
  join(directory: string, rules: ScoringRules, events: RemoteEvents): void {
    this.users += 1;
    this.events.push(events);
    if (this.isReady) events.ready();
    if (this.channel) this.sendOpen(directory, rules);
    else this.unsent.push({ directory, rules });
  }

  private sendOpen(directory: string, rules: ScoringRules): void {
    this.started()
      .ask({ op: 'open', path: this.path, maxDatabaseSize: this.maxDatabaseSize, directory, rules }, ASK_TIMEOUT_MS)
      .then(
        (state) => this.settle(state as StoreState),
        (error: unknown) => this.problem(`the agent-tracker database could not be opened: ${(error as Error).message}`),
      );
  }

  /**
   * Resolves once the open is settled: the store is ready, or it is not open now (being checked out of
   * process, refused, a dead worker, never started), or `timeoutMs` passed. A session disposed right
   * after its start waits for this before its last flush (else what it recorded would go to a spill file).
   */
  settled(timeoutMs: number): Promise<void> {
    return this.isSettled() ? Promise.resolve() : this.until(() => this.isSettled(), timeoutMs);
  }

  /**
   * Undefined once the open has ended: the store is ready, or the worker refused it with a problem, or
   * the worker is gone. Else a promise that resolves when it ends or after `timeoutMs`. Unlike
   * `settled`, it also waits for a check of the file out of process: a hook that reads the record (the
   * halt) must not read the empty store of a check still running. Starts the worker. Once one wait has
   * run out, this answers undefined at once: an open that slow (a check of a very large file) delays a
   * session once, not every tool call.
   */
  opened(timeoutMs: number): Promise<void> | undefined {
    this.start();
    if (this.hasOpened() || this.openWaitSpent) return undefined;
    return this.until(() => this.hasOpened(), timeoutMs, () => (this.openWaitSpent = true));
  }

  private isSettled(): boolean {
    return this.channel === undefined || this.isReady || this.channel.dead !== undefined || (this.answered && !(this.state.attached && this.state.refusal === undefined));
  }

  private hasOpened(): boolean {
    return this.isReady || this.refused || this.closed || this.channel?.dead !== undefined;
  }

  private until(reached: () => boolean, timeoutMs: number, ranOut?: () => void): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        ranOut?.();
        resolve();
      }, timeoutMs);
      this.waiters.push({
        reached,
        wake: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.reached()) waiter.wake();
      else this.waiters.push(waiter);
    }
  }

  /** One plugin instance is done; returns whether it was the last. */
  leave(): boolean {
    this.users -= 1;
    if (this.users > 0) return false;
    this.closed = true;
    this.state = { attached: false, refusal: 'the agent-tracker database is closed' };
    this.wake();
    this.channel?.ask({ op: 'release', path: this.path }, ASK_TIMEOUT_MS).catch(() => undefined);
    return true;
  }

  /** The open's answer: the newest word on the store (the worker's events on it came before). */
  private settle(state: StoreState): void {
    if (this.channel?.dead !== undefined || this.closed) return;
    this.state = state;
    this.answered = true;
    this.wake();
  }

  private receive(event: HostEvent): void {
    if (event.kind === 'log') {
      if (!this.closed) this.logger[event.level](event.line);
      return;
    }
    if (event.kind === 'reply' || event.path !== this.path || this.closed) return;
    if (event.kind === 'state') this.state = event.state;
    else if (event.kind === 'problem') this.problem(event.line);
    else if (!this.isReady) {
      this.isReady = true;
      for (const events of this.events) events.ready();
    }
    this.wake();
  }

  private problem(line: string): void {
    this.refused = true;
    for (const events of this.events) events.problem(line);
    this.wake();
  }

  private died(): void {
    if (this.closed) return;
    const line = this.started().deathLine();
    this.state = { attached: false, refusal: line };
    this.problem(line);
    this.wake();
  }

  /** A read: empty (undefined) while the file is not open or the worker is out of use, as a store being checked reads. */
  private read(request: SyncRequest): unknown {
    if (!this.state.attached) return undefined;
    const reply = this.started().call(request, exiting ? EXIT_TIMEOUT_MS : READ_TIMEOUT_MS);
    if (!reply) return undefined;
    this.state = reply.state;
    if (!reply.ok) throw rebuilt(reply.error);
    return reply.value;
  }

  private writeTimeout(): number {
    return exiting ? EXIT_TIMEOUT_MS : this.writeTimeoutMs;
  }

  /**
   * A write: refused (StoreNotWritableError, quiet) while the store is not open for writing; the worker's own errors as they were.
   * A flush sent and then given up on throws AbandonedWriteError with the id it carries.
   */
  private write(request: SyncRequest, timeoutMs: number = this.writeTimeout()): unknown {
    if (!this.state.attached || this.state.refusal !== undefined) throw new StoreNotWritableError(this.state.refusal ?? OPENING);
    const link = this.started();
    const sent = link.dead === undefined;
    const reply: SyncReply | undefined = link.call(request, timeoutMs);
    if (!reply && sent && request.op === 'applyBatch') throw new AbandonedWriteError(link.deathLine(), request.spillId);
    if (!reply) throw new StoreNotWritableError(link.deathLine());
    this.state = reply.state;
    if (!reply.ok) throw rebuilt(reply.error);
    return reply.value;
  }

  private tableProxy(table: keyof Tables): Table<unknown> {
    const ask = (method: TableMethod, arg: unknown): unknown => this.read({ op: 'table', path: this.path, table, method, arg });
    return {
      get: (key) => ask('get', key),
      doesExist: (key) => ask('doesExist', key) === true,
      getRange: (options) => pagedRange((page) => (ask('getRange', page) as RangeEntry[] | undefined) ?? [], options ?? {}),
      getKeysCount: (options) => (ask('getKeysCount', options) as number | undefined) ?? 0,
      getKeys: (options) => (ask('getKeys', options) as never[] | undefined) ?? [],
    };
  }
}

type RangeEntry = { key: StoreKey; value: unknown };
type RangeOptions = { start?: StoreKey; end?: StoreKey; limit?: number; reverse?: boolean };

/** The first page of a range: most readers on the hooks' path stop after a few entries. */
const FIRST_PAGE = 32;
/** Pages grow to this: a full scan takes one call per this many entries. */
const LARGEST_PAGE = 4096;

function sameKey(a: StoreKey, b: StoreKey): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A range read in pages of growing size, each one call: a reader that stops early (the next key is
 * another session's) costs one small call, a full scan a few large ones. Each next page starts at the
 * last key read (ranges include their start) and leaves that entry out.
 */
function* pagedRange(fetch: (options: RangeOptions) => RangeEntry[], options: RangeOptions): Generator<RangeEntry> {
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  let start = options.start;
  let after: StoreKey | undefined;
  let size = FIRST_PAGE;
  while (left > 0) {
    const asked = Math.min(size, left) + (after === undefined ? 0 : 1);
    const page = fetch({ ...options, ...(start === undefined ? {} : { start }), limit: asked });
    let fresh = page;
    if (after !== undefined && page.length > 0 && sameKey(page[0]!.key, after)) fresh = page.slice(1);
    for (const entry of fresh) {
      if (left <= 0) return;
      left -= 1;
      yield entry;
    }
    if (page.length < asked || fresh.length === 0) return;
    after = fresh[fresh.length - 1]!.key;
    start = after;
    size = Math.min(size * 4, LARGEST_PAGE);
  }
}

const shared = new Map<string, RemoteStore>();

/**
 * The plugin's store for `options.path`, one per path per process (several plugin instances in
 * `opencode serve` share it), opened in the worker thread once `start` is called; `events` tell this
 * instance of problems and of the moment it is ready.
 */
export function acquireRemoteStore(
  options: { path: string; maxDatabaseSize: number; directory: string; rules: ScoringRules },
  events: RemoteEvents,
  logger: Logger,
): RemoteStore {
  let store = shared.get(options.path);
  if (!store) {
    store = new RemoteStore(options.path, options.maxDatabaseSize, theChannel, logger);
    shared.set(options.path, store);
  }
  store.join(options.directory, options.rules, events);
  return store;
}

/** Lets go of `store`: the worker closes the file when the last instance has (the worker itself stays, see channel.ts). */
export function releaseRemoteStore(store: RemoteStore): void {
  if (shared.get(store.path) === store && store.leave()) shared.delete(store.path);
}

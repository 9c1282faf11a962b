/**
 * The worker thread that holds the plugin's store: lmdb loads and maps the file here, never on
 * OpenCode's main thread (its native start allocates a large buffer that keeps the host's heap high
 * for the whole session). Opens the store as the plugin did in process (preflight, the out-of-process
 * check, the term indexer, spills and migrations merged once it is open) and serves the main thread's
 * calls (client.ts): synchronous ones on `port`, the rest through `parentPort`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from '../../core/logger.js';
import type { ScoringRules } from '../../core/rules.js';
import { chainTailNotice } from '../../core/integrity/chain-check.js';
import { openChecked } from '../../core/store/open-checked.js';
import { restoredNotice, restoreMissingDatabase } from '../../core/store/snapshot.js';
import type { SnapshotInfo } from '../../core/store/snapshot.js';
import { StoreNotWritableError } from '../../core/store/store-errors.js';
import type { Table } from '../../core/store/tables.js';
import { mergeSpilledSessions } from '../store-health.js';
import type { DocumentIndexer, Store } from '../../core/store/store.js';
import type { LateWriteGuard } from '../../core/store/late-write.js';
import { ABANDONED, REPLIED, WRITE_OPS } from './protocol.js';
import type { AsyncRequest, HostData, HostEvent, SentError, StoreState, SyncEnvelope, SyncReply, SyncRequest } from './protocol.js';

const { port, flag } = workerData as HostData;
const signal = new Int32Array(flag);

function post(event: HostEvent): void {
  parentPort?.postMessage(event);
}

const logger: Logger = {
  info: (line) => post({ kind: 'log', level: 'info', line }),
  warn: (line) => post({ kind: 'log', level: 'warn', line }),
  error: (line) => post({ kind: 'log', level: 'error', line }),
};

interface WriteModules {
  termIndexer: DocumentIndexer;
  legacy: typeof import('../../core/store/legacy.js');
  grades: typeof import('../../core/outcomes/legacy-grades.js');
}

let modules: Promise<WriteModules> | undefined;

function writeModules(): Promise<WriteModules> {
  modules ??= Promise.all([import('../../core/search/indexer.js'), import('../../core/store/legacy.js'), import('../../core/outcomes/legacy-grades.js')]).then(
    ([indexer, legacy, grades]) => ({ termIndexer: indexer.termIndexer, legacy, grades }),
  );
  return modules;
}

interface Held {
  store: Store;
  users: number;
  rules: ScoringRules;
  ready: boolean;
  /** Project folders whose legacy database waits for the store to be ready. */
  directories: string[];
  /** What the user must hear once the store is ready (the database came back from a snapshot). */
  notice?: string;
}

const held = new Map<string, Held>();

function stateOf(store: Store | undefined): StoreState {
  return store ? { attached: store.attached, refusal: store.refusal } : { attached: false, refusal: 'the agent-tracker database is closed' };
}

function sentError(error: unknown): SentError {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

/** Merges a legacy per-project database found in `directory`; a failure is logged, never fatal. */
function migrateLegacyIn(found: WriteModules, store: Store, directory: string): void {
  const source = found.legacy.legacyPathIn(directory);
  try {
    const result = found.legacy.migrateLegacy(store, source, { skipIfUnchanged: true });
    if (result.added > 0) logger.info(`agent-tracker: migrated ${result.added} legacy entries from ${result.source}`);
  } catch (error) {
    logger.error(`agent-tracker: legacy migration from ${source} failed, tracking goes on: ${(error as Error).message}`);
  }
}

/** What the plugin did once its store was open: the chain's tail checked, spills merged, migrations run; then the main thread is told. */
function settle(path: string, found: WriteModules): void {
  const entry = held.get(path);
  if (!entry || entry.ready) return;
  const store = entry.store;
  entry.ready = true;
  // Before this process writes: a later write would re-seal the chain over a change made around it.
  const chainBreak = chainTailNotice(store.tables);
  mergeSpilledSessions(store, entry.rules, logger);
  for (const directory of entry.directories.splice(0)) migrateLegacyIn(found, store, directory);
  try {
    found.grades.migrateGradeProvenance(store);
  } catch (error) {
    logger.error(`agent-tracker: counting old grades by provenance failed, tracking goes on: ${(error as Error).message}`);
  }
  post({ kind: 'state', path, state: stateOf(store) });
  post({ kind: 'ready', path });
  // After the ready: the main thread takes a problem before it as the end of a failed open.
  if (chainBreak) post({ kind: 'problem', path, line: chainBreak });
  if (entry.notice) post({ kind: 'problem', path, line: entry.notice });
}

async function open(request: Extract<AsyncRequest, { op: 'open' }>): Promise<StoreState> {
  const existing = held.get(request.path);
  if (existing) {
    existing.users += 1;
    if (existing.ready) migrateLegacyIn(await writeModules(), existing.store, request.directory);
    else existing.directories.push(request.directory);
    return stateOf(existing.store);
  }
  // The indexer is given at the open: no write is ever refused for want of it.
  const found = await writeModules();
  // A database moved or deleted around the tracker comes back from its newest snapshot: its halts and bugs with it.
  let restored: SnapshotInfo | undefined;
  try {
    restored = restoreMissingDatabase(request.path);
  } catch (error) {
    logger.error(`agent-tracker: the database ${request.path} is gone, and its newest snapshot could not be put in its place (${(error as Error).message}): a new, empty one is made`);
  }
  const events = {
    problem: (problem: { message: string }) => {
      // The state first: the main thread ends its wait for the open at the problem, and reads by the state.
      post({ kind: 'state', path: request.path, state: stateOf(held.get(request.path)?.store) });
      post({ kind: 'problem', path: request.path, line: problem.message });
    },
    ready: () => settle(request.path, found),
  };
  const store = openChecked({ path: request.path, maxDatabaseSize: request.maxDatabaseSize, indexer: found.termIndexer }, events);
  held.set(request.path, { store, users: 1, rules: request.rules, ready: false, directories: [request.directory], ...(restored ? { notice: restoredNotice(request.path, restored) } : {}) });
  if (store.attached && !store.refusal) settle(request.path, found);
  return stateOf(store);
}

/** Opens in progress, by path: a request that comes meanwhile waits for its store. */
const opening = new Map<string, Promise<unknown>>();

async function serveAsync(request: AsyncRequest): Promise<unknown> {
  if (request.op === 'open') {
    // A second plugin instance's open waits for the first: one store per path.
    const opened = (opening.get(request.path) ?? Promise.resolve()).then(() => open(request));
    opening.set(request.path, opened.catch(() => undefined));
    return opened;
  }
  await opening.get(request.path);
  const entry = held.get(request.path);
  if (!entry) throw new Error('the agent-tracker database is closed');
  switch (request.op) {
    case 'release':
      entry.users -= 1;
      if (entry.users <= 0) {
        held.delete(request.path);
        entry.store.close();
      }
      return undefined;
    case 'backup':
      return entry.store.backup(request.target);
    case 'priorArt': {
      const { localPriorArt } = await import('../prior-art-answer.js');
      return localPriorArt(entry.store, logger)(request.query, request.project);
    }
    case 'importNeeded': {
      const { historyImportNeeded } = await import('../history/import-needed.js');
      return historyImportNeeded(entry.store, request.location, request.mark, request.createdBefore);
    }
  }
}

function serveTable(table: Table<unknown>, method: SyncRequest & { op: 'table' }): unknown {
  const arg = method.arg as never;
  switch (method.method) {
    case 'get':
      return table.get(arg);
    case 'doesExist':
      return table.doesExist(arg);
    case 'getRange':
      return [...table.getRange(arg)];
    case 'getKeysCount':
      return table.getKeysCount(arg);
    case 'getKeys':
      return [...table.getKeys(arg)];
  }
}

/** Whether the main thread stopped waiting for this call: its word in shared memory, or the call's deadline passed. */
function gaveUp(message: SyncEnvelope): boolean {
  return Atomics.load(signal, ABANDONED) >= message.id || Date.now() >= message.deadline;
}

/** What a flush checks inside its transaction: the main thread's word that it gave up, its deadline, and the margin before it (spill.ts). */
function lateGuard(message: SyncEnvelope, request: Extract<SyncRequest, { op: 'applyBatch' }>): LateWriteGuard {
  return {
    spillId: request.spillId,
    abandoned: () => gaveUp(message),
    nearDeadline: () => Date.now() >= message.deadline - request.markMarginMs,
  };
}

function serveSync(message: SyncEnvelope, store: Store): unknown {
  const request = message.request;
  switch (request.op) {
    case 'table':
      return serveTable(store.tables[request.table] as Table<unknown>, request);
    case 'applyBatch':
      return store.applyBatch(request.mutations, request.rules, request.now, lateGuard(message, request));
    case 'putRecords':
      return store.putRecords(request.records);
    case 'maintainIndexes':
      return store.maintainIndexes();
    case 'counts':
      return store.counts();
    case 'bytesInUse':
      return store.bytesInUse();
    case 'meta':
      return store.meta();
    case 'provisionedItems':
      return store.provisionedItems(request.configDir);
    case 'keepVerifiedIfOwn':
      store.keepVerifiedIfOwn();
      return undefined;
  }
}

port.on('message', (message: SyncEnvelope) => {
  const store = held.get(message.request.path)?.store;
  let reply: SyncReply;
  try {
    if (!store) throw new Error('the agent-tracker database is closed');
    // The main thread stopped waiting (this thread was busy): it keeps the batch and spills it, so writing it now would count it twice.
    if (WRITE_OPS.has(message.request.op) && gaveUp(message)) throw new StoreNotWritableError('a write came after its caller stopped waiting; nothing was written');
    reply = { id: message.id, ok: true, value: serveSync(message, store), state: stateOf(store) };
  } catch (error) {
    reply = { id: message.id, ok: false, error: sentError(error), state: stateOf(store) };
  }
  try {
    port.postMessage(reply);
  } catch (error) {
    port.postMessage({ id: message.id, ok: false, error: sentError(error), state: stateOf(store) } satisfies SyncReply);
  }
  Atomics.store(signal, REPLIED, 1);
  Atomics.notify(signal, REPLIED);
});

parentPort?.on('message', (message: { id: number; request: AsyncRequest }) => {
  serveAsync(message.request).then(
    (value) => post({ kind: 'reply', id: message.id, ok: true, value }),
    (error: unknown) => post({ kind: 'reply', id: message.id, ok: false, error: sentError(error) }),
  );
});

/**
 * Opening the database only once it is known to be safe for lmdb: preflight checks in JS, then,
 * when the file changed since it was last verified, a full read in a child process (verify.ts).
 * The plugin never waits for that read (`openChecked`: a pending store records into memory until
 * the file is cleared); the CLI waits (`openCheckedSync`).
 */
import fs from 'node:fs';
import { preflight } from './preflight.js';
import { damaged, StoreProblem } from './problems.js';
import { Store } from './store.js';
import type { StoreOptions } from './store.js';
import { fingerprintOf, isVerified, noteSoundState, recordVerified, verifyInBackground, verifySync } from './verify.js';

/** The refusal a pending store gives while its file is being checked: quiet, it is not a failure. */
export const BEING_CHECKED = 'the agent-tracker database is still being checked; what is recorded waits in memory';

export interface CheckedOpenEvents {
  /** A problem the user must hear of, once: one line with its advice. */
  problem(problem: StoreProblem): void;
  /** The file passed its checks and is open now: write what waited. */
  ready(store: Store): void;
}

/** Whether the file must be read out of process before lmdb maps it here: it exists and changed since it was verified. */
export function needsVerification(file: string): boolean {
  try {
    const stats = fs.statSync(file);
    return stats.size > 0 && !isVerified(file);
  } catch {
    return false;
  }
}

/** The newer-schema problem of an open store, if any. */
function schemaProblem(store: Store): StoreProblem | undefined {
  return store.refusal ? new StoreProblem('newer-schema', store.refusal) : undefined;
}

/**
 * For the plugin: returns at once. A store that needs no check opens now; otherwise a pending store
 * comes back, and `events.ready` or `events.problem` follows when the child process has answered.
 * A problem leaves the store pending (reads empty, writes refused): recording goes on in memory and
 * what is left at the end of the session is spilled (spill.ts).
 */
export function openChecked(options: StoreOptions, events: CheckedOpenEvents): Store {
  const problem = preflight({ path: options.path, ...(options.readOnly ? { readOnly: true } : {}) });
  if (problem) {
    events.problem(problem);
    return Store.pending(options, problem.message);
  }
  if (!needsVerification(options.path)) {
    const sound = fingerprintOf(options.path);
    const store = Store.open(options);
    noteSoundState(options.path, sound);
    const newer = schemaProblem(store);
    if (newer) events.problem(newer);
    return store;
  }
  const store = Store.pending(options, BEING_CHECKED);
  void verifyInBackground(options.path).then((result) => {
    if (!result.ok) {
      const found = damaged(options.path, result.cause);
      store.refuseWrites(found.message);
      events.problem(found);
      return;
    }
    try {
      store.attach();
      recordVerified(options.path, result.entries, result.checked);
      noteSoundState(options.path, result.checked);
      const newer = schemaProblem(store);
      if (newer) events.problem(newer);
      events.ready(store);
    } catch (error) {
      const found = error instanceof StoreProblem ? error : damaged(options.path, (error as Error).message);
      store.refuseWrites(found.message);
      events.problem(found);
    }
  });
  return store;
}

/**
 * For the CLI: checks, verifies out of process when needed (waiting for it), then opens.
 * @throws StoreProblem with the one line to print.
 */
export function openCheckedSync(options: StoreOptions): Store {
  const problem = preflight({ path: options.path, ...(options.readOnly ? { readOnly: true } : {}) });
  if (problem) throw problem;
  if (needsVerification(options.path)) {
    const result = verifySync(options.path);
    if (!result.ok) throw damaged(options.path, result.cause);
    recordVerified(options.path, result.entries, result.checked);
  }
  const sound = fingerprintOf(options.path);
  const store = Store.open(options);
  noteSoundState(options.path, sound);
  return store;
}

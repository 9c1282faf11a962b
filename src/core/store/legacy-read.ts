/**
 * Reading a legacy (single root database) agent-tracker file, read-only: the old layout kept all
 * records in the root database under string keys, msgpack values with compression on.
 */
import { open } from 'lmdb';
import type { RootDatabase } from 'lmdb';
import { lmdbFileProblem } from './lmdb-file-check.js';
import { lmdbTreeProblem } from './lmdb-walk.js';
import { StoreOpenError } from './store-errors.js';

/** One entry of a legacy agent-tracker file. */
export interface LegacyEntry {
  key: string;
  value: unknown;
}

/**
 * Reads every entry of a legacy database read-only. Nothing is ever written there.
 * @throws StoreOpenError when the file cannot be opened.
 */
export function* readLegacyEntries(legacyPath: string): Generator<LegacyEntry> {
  // lmdb crashes the process on a malformed file (and this runs inside OpenCode, on a file in the
  // project): its header and every page its trees reference are checked with plain reads first.
  const problem = lmdbFileProblem(legacyPath) ?? lmdbTreeProblem(legacyPath);
  if (problem) throw new StoreOpenError(`cannot read the legacy database at ${legacyPath}: ${problem}`);
  let root: RootDatabase;
  try {
    root = open({ path: legacyPath, noSubdir: true, readOnly: true, compression: true });
  } catch (error) {
    throw new StoreOpenError(`cannot open the legacy database at ${legacyPath}: ${(error as Error).message}`);
  }
  try {
    for (const { key, value } of root.getRange()) {
      if (typeof key === 'string') yield { key, value: value as unknown };
    }
  } finally {
    void root.close();
  }
}

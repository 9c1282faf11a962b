/** The errors the store raises, apart from its code so the modules around it can raise them too. */

/** Raised when the database cannot take more data; the message says which setting to raise. */
export class DatabaseFullError extends Error {
  override name = 'DatabaseFullError';
}

/** Raised when the database cannot be opened; the message names the path and the cause. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/** Raised by writes to a store that is not (yet) open for writing: still being checked, damaged, or newer. */
export class StoreNotWritableError extends Error {
  override name = 'StoreNotWritableError';
}

/**
 * Raised by a flush its caller stopped waiting for (the plugin's store thread did not answer in time):
 * whether it was written is not known. The caller spills the batch under `spillId`, the id the write
 * carried, so it is counted once whichever way the write went (spill.ts).
 */
export class AbandonedWriteError extends StoreNotWritableError {
  override name = 'AbandonedWriteError';

  constructor(
    message: string,
    readonly spillId: string,
  ) {
    super(message);
  }
}

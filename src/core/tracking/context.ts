/**
 * What every part of the recorder shares: the store and config, the clock and the masking, the
 * write buffer, the sessions in memory, the counting ledger, the journal and the flusher. Built once
 * by the TrackingService facade and handed to each part.
 */
import type { TrackerConfig } from '../config.js';
import type { StoreAccess } from '../store/access.js';
import type { Flusher } from './flusher.js';
import type { Journal } from './journal.js';
import type { Ledger } from './ledger.js';
import type { Sessions } from './sessions.js';
import type { WriteBuffer } from './write-buffer.js';

export interface TrackingContext {
  readonly store: StoreAccess;
  readonly config: TrackerConfig;
  /** The project of sessions and reports that do not name their own directory. */
  readonly project: string;
  readonly now: () => Date;
  /** Masks secrets in text before it is buffered (prompts, notes, commit messages). */
  readonly maskText: (text: string) => string;
  readonly buffer: WriteBuffer;
  readonly sessions: Sessions;
  readonly ledger: Ledger;
  readonly journal: Journal;
  readonly flusher: Flusher;
}

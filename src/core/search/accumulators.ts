/**
 * The scoring loop's scratch space, reused across queries so scoring allocates nothing per posting.
 */
import { METADATA_WORDS } from './index/metadata.js';

/** Metadata words kept per candidate document while scoring (time, project, agent, length with kind and grade). */
export const KEPT_WORDS = METADATA_WORDS;
export const KEPT_SECONDS = 0;
export const KEPT_PROJECT = 1;
export const KEPT_AGENT = 2;
export const KEPT_SHAPE = 3;

/**
 * Per-document accumulators reused across queries (indexed by document number), so a query over
 * thousands of postings allocates nothing per posting. Only the slots a query touched are reset.
 */
export class Accumulators {
  scores = new Float64Array(0);
  matched = new Uint16Array(0);
  /** The last keyword (index + 1) counted as matched per document, so a keyword counts once. */
  lastKeyword = new Uint16Array(0);
  kept = new Uint32Array(0);
  touched = new Uint32Array(0);
  touchedCount = 0;
  /** One decoded postings block. */
  blockDocuments = new Uint32Array(0);
  blockFrequencies = new Uint32Array(0);
  blockLengths = new Uint32Array(0);

  /** Room for a block's postings (each takes at least three bytes). */
  prepareBlock(bytes: number): void {
    if (this.blockDocuments.length >= bytes) return;
    this.blockDocuments = new Uint32Array(bytes);
    this.blockFrequencies = new Uint32Array(bytes);
    this.blockLengths = new Uint32Array(bytes);
  }

  prepare(documents: number): void {
    if (this.scores.length >= documents) return;
    const size = Math.max(documents, this.scores.length * 2);
    this.scores = new Float64Array(size);
    this.matched = new Uint16Array(size);
    this.lastKeyword = new Uint16Array(size);
    this.kept = new Uint32Array(size * KEPT_WORDS);
    this.touched = new Uint32Array(size);
  }

  reset(): void {
    for (let i = 0; i < this.touchedCount; i += 1) {
      const document = this.touched[i] as number;
      this.scores[document] = 0;
      this.matched[document] = 0;
      this.lastKeyword[document] = 0;
    }
    this.touchedCount = 0;
  }
}

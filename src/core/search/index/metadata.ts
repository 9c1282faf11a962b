/**
 * What ranking and filtering know of each document, stored once per document in fixed-width
 * metadata blocks (['m', block], DOCUMENTS_PER_BLOCK documents each): seconds, project id, agent id,
 * and a shape word packing the length, the kind and the user's grade.
 */
import type { Grade } from '../../types.js';
import type { EntryKind } from '../documents.js';
import { MAX_UINT16 } from './codec.js';
import { DOCUMENTS_PER_BLOCK, toBytes } from './layout.js';
import type { TermTable } from './layout.js';

/** 32-bit words of metadata per document: seconds, project id, agent id, length + kind and grade. */
export const METADATA_WORDS = 4;
/** Where each of those words sits in a document's slot. */
export const METADATA_SECONDS = 0;
export const METADATA_PROJECT = 1;
export const METADATA_AGENT = 2;
export const METADATA_SHAPE = 3;
const SHAPE_MULTIPLIER = 0x10000;
/** Grade codes: 0 for ungraded entries, else grade + GRADE_OFFSET (always positive, under GRADE_CODES). */
const GRADE_OFFSET = 2;
const GRADE_CODES = 8;
const KIND_CODES: Readonly<Record<EntryKind, number>> = { retrospective: 0, activity: 1, commit: 2 };
const KINDS: readonly EntryKind[] = ['retrospective', 'activity', 'commit'];

/** What ranking and filtering know of one document. */
export interface DocumentMetadata {
  documentLength: number;
  kind: EntryKind;
  /** The relayed user's grade of a retrospective; for an activity that records a bug report, -1 (verified) or 1 (unverified); else undefined. */
  grade: Grade | undefined;
  projectId: number;
  agentId: number;
  /** Seconds since the epoch, for recency. */
  seconds: number;
}

export function shapeOf(documentLength: number, kind: EntryKind, grade: Grade | undefined): number {
  const gradeCode = grade === undefined ? 0 : grade + GRADE_OFFSET;
  return (KIND_CODES[kind] * GRADE_CODES + gradeCode) * SHAPE_MULTIPLIER + Math.min(documentLength, MAX_UINT16);
}

/** The document length in a metadata shape word. */
function documentLengthOfShape(shape: number): number {
  return shape % SHAPE_MULTIPLIER;
}

/** The user's grade in a metadata shape word: undefined for ungraded entries. */
export function gradeOfShape(shape: number): Grade | undefined {
  const gradeCode = Math.floor(shape / SHAPE_MULTIPLIER) % GRADE_CODES;
  return gradeCode === 0 ? undefined : ((gradeCode - GRADE_OFFSET) as Grade);
}

/** The entry kind in a metadata shape word. */
export function kindOfShape(shape: number): EntryKind {
  return KINDS[Math.floor(shape / SHAPE_MULTIPLIER / GRADE_CODES)] ?? 'activity';
}

export function metadataOf(words: Uint32Array, at: number): DocumentMetadata | undefined {
  const base = at * METADATA_WORDS;
  if (base + METADATA_WORDS > words.length) return undefined;
  const shape = words[base + METADATA_SHAPE] as number;
  return {
    documentLength: documentLengthOfShape(shape),
    kind: kindOfShape(shape),
    grade: gradeOfShape(shape),
    projectId: words[base + METADATA_PROJECT] as number,
    agentId: words[base + METADATA_AGENT] as number,
    seconds: words[base + METADATA_SECONDS] as number,
  };
}

/** Copies stored bytes into an aligned word array (stored buffers may start at any offset). */
export function toWords(bytes: Uint8Array): Uint32Array {
  const words = new Uint32Array(Math.floor(bytes.byteLength / 4));
  new Uint8Array(words.buffer).set(bytes.subarray(0, words.length * 4));
  return words;
}

/** Writes the metadata of documents `first`.. into their blocks, extending the last block stored. */
export function appendMetadata(table: TermTable, first: number, metadata: Uint32Array): void {
  const count = metadata.length / METADATA_WORDS;
  let done = 0;
  while (done < count) {
    const document = first + done;
    const block = Math.floor((document - 1) / DOCUMENTS_PER_BLOCK);
    const slot = (document - 1) % DOCUMENTS_PER_BLOCK;
    const take = Math.min(DOCUMENTS_PER_BLOCK - slot, count - done);
    const words = new Uint32Array((slot + take) * METADATA_WORDS);
    const stored = slot === 0 ? undefined : toBytes(table.get(['m', block]));
    if (stored) words.set(toWords(stored).subarray(0, slot * METADATA_WORDS));
    words.set(metadata.subarray(done * METADATA_WORDS, (done + take) * METADATA_WORDS), slot * METADATA_WORDS);
    table.putSync(['m', block], new Uint8Array(words.buffer));
    done += take;
  }
}

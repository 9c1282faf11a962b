/**
 * A term's postings blocks (['p', term, 0] the open block, ['p', term, n] the closed ones): how
 * postings are encoded and appended, closing the open block whenever it passes BLOCK_BYTES, and
 * the block form a run stores (the same encoding, its count first).
 */
import { blockHeader, ByteWriter, decodePostings, MAX_UINT16 } from './codec.js';
import { BLOCK_BYTES, OPEN_BLOCK, toBytes } from './layout.js';
import type { TermIndexKey, TermTable } from './layout.js';

/** Buffers reused by every append (a flush appends to thousands of terms). */
const postingBody = new ByteWriter(BLOCK_BYTES * 2);
const blockOut = new ByteWriter(BLOCK_BYTES * 2);

/** Appends one posting to `postingBody`: the gap from the document before, the term frequency (capped), the document's length. */
function writePosting(gap: number, frequency: number, length: number): void {
  postingBody.varint(gap);
  postingBody.varint(Math.min(frequency, MAX_UINT16));
  postingBody.varint(length);
}

/** Writes a block: its header numbers, then the postings in `postingBody` (the value is copied as it is put). */
function putBlock(table: TermTable, key: TermIndexKey, header: readonly number[]): void {
  blockOut.length = 0;
  for (const number of header) blockOut.varint(number);
  blockOut.append(postingBody.bytes.subarray(0, postingBody.length));
  table.putSync(key, blockOut.bytes.subarray(0, blockOut.length));
}

/**
 * A run's block of one term's postings (flat triples, in document order): the count, then each
 * posting with its document as the gap from the one before. A view of a buffer reused by the next
 * call: the caller copies it before then.
 */
export function runBlock(postings: readonly number[]): Uint8Array {
  postingBody.length = 0;
  let last = 0;
  for (let at = 0; at < postings.length; at += 3) {
    const document = postings[at] as number;
    writePosting(document - last, postings[at + 1] as number, postings[at + 2] as number);
    last = document;
  }
  blockOut.length = 0;
  blockOut.varint(postings.length / 3);
  blockOut.append(postingBody.bytes.subarray(0, postingBody.length));
  return blockOut.bytes.subarray(0, blockOut.length);
}

/**
 * Appends postings (flat triples of document, term frequency and document length, in document
 * order, after every posting stored) to a term's open block, closing it into a numbered block
 * whenever it passes BLOCK_BYTES.
 */
export function appendPostings(table: TermTable, term: string, postings: readonly number[]): void {
  const openKey: TermIndexKey = ['p', term, OPEN_BLOCK];
  const stored = toBytes(table.get(openKey));
  const header = stored ? blockHeader(stored, true) : { closed: 0, count: 0, lastDocument: 0, start: 0 };
  let { closed, count, lastDocument } = header;
  postingBody.length = 0;
  if (stored) postingBody.append(stored.subarray(header.start));
  for (let at = 0; at < postings.length; at += 3) {
    const document = postings[at] as number;
    writePosting(document - lastDocument, postings[at + 1] as number, postings[at + 2] as number);
    lastDocument = document;
    count += 1;
    if (postingBody.length >= BLOCK_BYTES) {
      closed += 1;
      putBlock(table, ['p', term, closed], [count]);
      // The next block starts from document 0 again, so each block decodes on its own.
      postingBody.length = 0;
      count = 0;
      lastDocument = 0;
    }
  }
  putBlock(table, openKey, [closed, count, lastDocument]);
}

/** Reused by every merge: one run's postings of a term, decoded. */
let decodedDocuments = new Uint32Array(0);
let decodedFrequencies = new Uint32Array(0);
let decodedLengths = new Uint32Array(0);

/** Decodes a run's block and appends its postings to `target` as flat triples. */
export function appendDecoded(block: Uint8Array, target: number[]): void {
  if (decodedDocuments.length < block.length) {
    decodedDocuments = new Uint32Array(block.length);
    decodedFrequencies = new Uint32Array(block.length);
    decodedLengths = new Uint32Array(block.length);
  }
  const count = decodePostings(block, decodedDocuments, decodedFrequencies, decodedLengths);
  for (let i = 0; i < count; i += 1) target.push(decodedDocuments[i] as number, decodedFrequencies[i] as number, decodedLengths[i] as number);
}

/**
 * Run chunks (['q', run, last term]): a run's terms in order, each as its UTF-8 bytes and its
 * postings block (lengths first), packed into values of about one page and put under their last
 * term, so a term's chunk is the first whose key is not before it.
 */
import { ByteReader, ByteWriter, MAX_VARINT_BYTES } from './codec.js';
import { RUN_PREFIX } from './layout.js';
import type { TermTable } from './layout.js';

/** Bytes after which a run chunk is put: one page with lmdb's overflow header (4,096 - 16). */
export const CHUNK_BYTES = 4_080;

/** One term's postings in a run chunk: its UTF-8 bytes and its block (as decodePostings reads it). */
export interface ChunkEntry {
  term: Uint8Array;
  block: Uint8Array;
}

/** The entries of a run chunk, in term order (views into `chunk`). */
export function chunkEntries(chunk: Uint8Array): ChunkEntry[] {
  const entries: ChunkEntry[] = [];
  const reader = new ByteReader(chunk);
  while (reader.at < chunk.length) {
    const termLength = reader.varint();
    const term = chunk.subarray(reader.at, reader.at + termLength);
    reader.at += termLength;
    const blockLength = reader.varint();
    entries.push({ term, block: chunk.subarray(reader.at, reader.at + blockLength) });
    reader.at += blockLength;
  }
  return entries;
}

/** The block of the term whose UTF-8 bytes are `wanted` in a run chunk, if it holds it (read in place: a query looks up every run). */
export function blockInChunk(chunk: Uint8Array, wanted: Uint8Array): Uint8Array | undefined {
  const reader = new ByteReader(chunk);
  while (reader.at < chunk.length) {
    const termLength = reader.varint();
    const termStart = reader.at;
    reader.at += termLength;
    const blockLength = reader.varint();
    const blockStart = reader.at;
    reader.at += blockLength;
    if (termLength !== wanted.length) continue;
    let same = true;
    for (let i = 0; i < termLength && same; i += 1) same = chunk[termStart + i] === wanted[i];
    if (same) return chunk.slice(blockStart, blockStart + blockLength);
  }
  return undefined;
}

/** Appends one entry to a chunk: the term's length and UTF-8 bytes, the block's length and bytes. */
function writeEntry(out: ByteWriter, term: Uint8Array, block: Uint8Array): void {
  out.varint(term.length);
  out.append(term);
  out.varint(block.length);
  out.append(block);
}

/** A chunk of the given entries, in their order. */
export function packEntries(entries: readonly ChunkEntry[]): Uint8Array {
  const chunk = new ByteWriter(CHUNK_BYTES);
  for (const entry of entries) writeEntry(chunk, entry.term, entry.block);
  return chunk.take();
}

/** Writes run chunks: entries appended in term order, put under the last term whenever the next would pass CHUNK_BYTES. */
export class ChunkWriter {
  private readonly out = new ByteWriter(CHUNK_BYTES * 2);
  private lastTerm = '';
  private readonly termBytes = new ByteWriter(64);

  constructor(
    private readonly table: TermTable,
    private readonly run: number,
  ) {}

  add(term: string, block: Uint8Array): void {
    this.termBytes.length = 0;
    this.termBytes.text(term);
    const termBytes = this.termBytes.bytes.subarray(0, this.termBytes.length);
    if (this.out.length > 0 && this.out.length + termBytes.length + block.length + 2 * MAX_VARINT_BYTES > CHUNK_BYTES) this.finish();
    writeEntry(this.out, termBytes, block);
    this.lastTerm = term;
  }

  finish(): void {
    if (this.out.length === 0) return;
    this.table.putSync([RUN_PREFIX, this.run, this.lastTerm], this.out.bytes.subarray(0, this.out.length));
    this.out.length = 0;
  }
}

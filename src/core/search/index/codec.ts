/**
 * The term index's bytes: variable-length integers (7 bits a byte, low first), a postings block's
 * header, the decoding of a block's postings, and the order lmdb gives terms (UTF-8 bytes).
 * Layout of the keys and values: layout.ts.
 */
/** UTF-16 code units where surrogates (characters above U+FFFF) start, and where the units after them start. */
const SURROGATE_START = 0xd800;
const PRIVATE_USE_START = 0xe000;
const SURROGATE_SPAN = PRIVATE_USE_START - SURROGATE_START;
const UNITS_ABOVE_SURROGATES = 0x10000 - PRIVATE_USE_START;
export const textEncoder = new TextEncoder();
export const textDecoder = new TextDecoder();
const VARINT_SHIFT = 128;
/** A whole number below 2^53 takes at most 8 bytes of 7 bits. */
export const MAX_VARINT_BYTES = 8;
/** The largest 16-bit value: term frequencies and document lengths are capped to it. */
export const MAX_UINT16 = 0xffff;

/** A growable byte buffer of variable-length integers. */
export class ByteWriter {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity = 64) {
    this.bytes = new Uint8Array(capacity);
  }

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  varint(value: number): void {
    this.reserve(MAX_VARINT_BYTES);
    let rest = value;
    while (rest >= VARINT_SHIFT) {
      this.bytes[this.length++] = (rest % VARINT_SHIFT) + VARINT_SHIFT;
      rest = Math.floor(rest / VARINT_SHIFT);
    }
    this.bytes[this.length++] = rest;
  }

  /** Appends a string's UTF-8 bytes. */
  text(value: string): void {
    this.reserve(value.length * 3);
    this.length += textEncoder.encodeInto(value, this.bytes.subarray(this.length)).written;
  }

  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  take(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** Reads variable-length integers from `bytes`; reading past the end gives 0. */
export class ByteReader {
  at = 0;
  constructor(readonly bytes: Uint8Array) {}

  varint(): number {
    let value = 0;
    let scale = 1;
    while (this.at < this.bytes.length) {
      const byte = this.bytes[this.at++] as number;
      value += (byte % VARINT_SHIFT) * scale;
      if (byte < VARINT_SHIFT) return value;
      scale *= VARINT_SHIFT;
    }
    return value;
  }
}

/** A block's posting count (its first number) and where its postings start. */
export function blockHeader(bytes: Uint8Array, open: boolean): { count: number; lastDocument: number; closed: number; start: number } {
  const reader = new ByteReader(bytes);
  const closed = open ? reader.varint() : 0;
  const count = reader.varint();
  const lastDocument = open ? reader.varint() : 0;
  return { count, lastDocument, closed, start: reader.at };
}

/**
 * Decodes the postings of one block (from `TermIndexReader.postings`) into `documents`,
 * `frequencies` and `lengths` (each at least as long as the block has bytes); returns how many it
 * decoded.
 */
export function decodePostings(block: Uint8Array, documents: Uint32Array, frequencies: Uint32Array, lengths: Uint32Array): number {
  const header = blockHeader(block, false);
  const count = Math.min(header.count, documents.length, frequencies.length, lengths.length);
  let at = header.start;
  let document = 0;
  // Variable-length integers read inline: this loop runs once per posting of every query term.
  for (let i = 0; i < count; i += 1) {
    let value = 0;
    let scale = 1;
    let byte = VARINT_SHIFT;
    while (byte >= VARINT_SHIFT && at < block.length) {
      byte = block[at++] as number;
      value += (byte & 0x7f) * scale;
      scale *= VARINT_SHIFT;
    }
    document += value;
    documents[i] = document;
    value = 0;
    scale = 1;
    byte = VARINT_SHIFT;
    while (byte >= VARINT_SHIFT && at < block.length) {
      byte = block[at++] as number;
      value += (byte & 0x7f) * scale;
      scale *= VARINT_SHIFT;
    }
    frequencies[i] = value;
    value = 0;
    scale = 1;
    byte = VARINT_SHIFT;
    while (byte >= VARINT_SHIFT && at < block.length) {
      byte = block[at++] as number;
      value += (byte & 0x7f) * scale;
      scale *= VARINT_SHIFT;
    }
    lengths[i] = value;
  }
  return count;
}

/** The posting count of a block read by `TermIndexReader.postings`. */
export function postingCount(block: Uint8Array): number {
  return blockHeader(block, false).count;
}

/**
 * Orders terms as lmdb orders their keys (UTF-8 bytes, so code points): a run's chunks are found
 * by their last term. JavaScript's `<` compares UTF-16 units, which differs for characters above
 * U+FFFF against those from U+E000.
 */
export function compareTerms(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= SURROGATE_START && y >= SURROGATE_START) {
      x = x >= PRIVATE_USE_START ? x - SURROGATE_SPAN : x + UNITS_ABOVE_SURROGATES;
      y = y >= PRIVATE_USE_START ? y - SURROGATE_SPAN : y + UNITS_ABOVE_SURROGATES;
    }
    return x - y;
  }
  return a.length - b.length;
}

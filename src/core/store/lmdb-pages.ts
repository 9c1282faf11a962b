/**
 * The on-disk layout of an LMDB data file as the plain-read walk (lmdb-walk.ts) needs it: the
 * constants of the lmdb-js build of LMDB (64-bit page numbers, 24-byte page header), the records of
 * its trees, the meta pages and the free-page list, and a reader of pages that checks every range
 * against the file first. Never lmdb's native code: see lmdb-walk.ts for why.
 */
import fs from 'node:fs';

const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
export const HEADER = 24;
export const NODE_HEADER = 8;
export const DB_RECORD = 48;
const META_DBS_AT = HEADER + 4 + 4 + 8 + 8;
const META_LAST_PAGE_AT = META_DBS_AT + 2 * DB_RECORD;
const META_TXNID_AT = META_LAST_PAGE_AT + 8;
export const P_BRANCH = 0x01;
export const P_LEAF = 0x02;
export const P_OVERFLOW = 0x04;
const P_META = 0x08;
/** Bits of a page's flags that only mark its state in a writer's memory; harmless on disk. */
export const P_STATE_BITS = 0x2000 | 0x4000 | 0x8000;
export const F_BIGDATA = 0x01;
export const F_SUBDATA = 0x02;
export const F_DUPDATA = 0x04;
export const MDB_INTEGERKEY = 0x08;
export const MDB_DUPSORT = 0x04;
export const MDB_REVERSEKEY = 0x02;
export const INVALID_PAGE = 0xffff_ffff_ffff_ffffn;
export const META_PAGES = 2;
/** LMDB's own bound on a tree's depth (CURSOR_STACK); a deeper tree is damage, and the walk stays bounded. */
export const MAX_DEPTH = 32;
const MIN_PAGE_SIZE = 512;
/** A run in the free list longer than a 2 GiB file of 512-byte pages cannot be real. */
const MAX_FREE_RUN = 1n << 22n;
const MAX_PAGE_SIZE = 65536;

/** One tree's record (MDB_db): where its root is and what it holds. */
export interface TreeRecord {
  flags: number;
  depth: number;
  branchPages: bigint;
  leafPages: bigint;
  overflowPages: bigint;
  entries: bigint;
  root: bigint;
}

export interface Meta {
  pageSize: number;
  lastPage: number;
  txnId: bigint;
  free: TreeRecord;
  main: TreeRecord;
  /** The sync meta at half of page 0, not a meta page. */
  synced?: true;
}

/** A fault found in the file: the message names the page and what is wrong with it. */
export class PageFault extends Error {}

/** A raw record found on an intact leaf: key and value bytes exactly as lmdb stored them. */
export interface RawRecord {
  key: Buffer;
  value: Buffer;
}

/** What a tolerant walk could read of one named table. */
export interface ReadableTable {
  records: RawRecord[];
  /** How many records the table's own record says it holds (undefined when that record is unreadable). */
  expected: number | undefined;
  /** Faults met in the table's tree (each cut off a subtree of unread records). */
  faults: string[];
}

export function treeRecord(buffer: Buffer, at: number): TreeRecord {
  return {
    flags: buffer.readUInt16LE(at + 4),
    depth: buffer.readUInt16LE(at + 6),
    branchPages: buffer.readBigUInt64LE(at + 8),
    leafPages: buffer.readBigUInt64LE(at + 16),
    overflowPages: buffer.readBigUInt64LE(at + 24),
    entries: buffer.readBigUInt64LE(at + 32),
    root: buffer.readBigUInt64LE(at + 40),
  };
}

/** Files up to this size are read whole, at once (the walk then costs no read per page). */
const WHOLE_READ_BYTES = 256 * 1024 * 1024;

/** Reads pages of one file with plain reads; every range is checked against the file first. */
export class PageFile {
  private readonly fd: number;
  readonly size: number;
  private readonly whole: Buffer | undefined;

  constructor(file: string) {
    this.fd = fs.openSync(file, 'r');
    this.size = fs.fstatSync(this.fd).size;
    this.whole = this.size <= WHOLE_READ_BYTES ? this.read(0, this.size) : undefined;
  }

  /** The bytes at `offset`; they are never reused, so views into them stay valid. */
  bytes(offset: number, length: number): Buffer {
    if (offset < 0 || offset + length > this.size) throw new PageFault(`bytes ${offset}..${offset + length} lie past the end of the file (${this.size} bytes)`);
    return this.whole ? this.whole.subarray(offset, offset + length) : this.read(offset, length);
  }

  private read(offset: number, length: number): Buffer {
    const buffer = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const read = fs.readSync(this.fd, buffer, done, length - done, offset + done);
      if (read === 0) throw new PageFault(`the file ended while reading bytes ${offset}..${offset + length}`);
      done += read;
    }
    return buffer;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** A meta page's fields, or why they cannot be a sound meta. */
function metaAt(file: PageFile, offset: number, pgno: number, pageSize?: number, synced = false): Meta | string {
  let page: Buffer;
  try {
    page = file.bytes(offset, META_TXNID_AT + 8);
  } catch (error) {
    return (error as Error).message;
  }
  // The sync meta (see halfPageMeta) is written from its map size on: it has no header, signature or version.
  if (!synced) {
    if (page.readUInt32LE(HEADER) !== MAGIC) return `meta page ${pgno} has no LMDB signature`;
    if ((page.readUInt32LE(HEADER + 4) & 0xffff) !== DATA_VERSION) return `meta page ${pgno} names an unknown format version`;
    if (!(page.readUInt16LE(18) & P_META)) return `meta page ${pgno} is not marked as a meta page`;
    if (Number(page.readBigUInt64LE(0)) !== pgno) return `meta page ${pgno} carries the number of another page`;
  }
  const free = treeRecord(page, META_DBS_AT);
  const main = treeRecord(page, META_DBS_AT + DB_RECORD);
  const size = page.readUInt32LE(META_DBS_AT);
  if (size < MIN_PAGE_SIZE || size > MAX_PAGE_SIZE || (size & (size - 1)) !== 0) return `meta page ${pgno} names an impossible page size (${size})`;
  if (pageSize !== undefined && size !== pageSize) return `the two meta pages name different page sizes`;
  const lastPage = page.readBigUInt64LE(META_LAST_PAGE_AT);
  if (lastPage < BigInt(META_PAGES - 1) || lastPage >= BigInt(Math.floor(file.size / size))) return `meta page ${pgno} names page ${lastPage} as the last in use, past the end of the file`;
  return { pageSize: size, lastPage: Number(lastPage), txnId: page.readBigUInt64LE(META_TXNID_AT), free, main, ...(synced ? { synced: true as const } : {}) };
}

/** Byte-wise order (memcmp, then length): LMDB's default key order. */
export function compareBytes(a: Buffer, b: Buffer): number {
  return Buffer.compare(a, b);
}

/** Integer keys (the free tree's transaction ids) compare as unsigned little-endian numbers. */
export function compareIntegers(a: Buffer, b: Buffer): number {
  const x = a.length === 8 ? a.readBigUInt64LE(0) : BigInt(a.length === 4 ? a.readUInt32LE(0) : 0);
  const y = b.length === 8 ? b.readBigUInt64LE(0) : BigInt(b.length === 4 ? b.readUInt32LE(0) : 0);
  return x < y ? -1 : x > y ? 1 : 0;
}


/**
 * The free tree's values: a count, then that many entries, each a page number or a run (its
 * length negated, then its first page); zeros are unused room the writer reserved.
 */
export function freePagesOf(value: Buffer): bigint[] {
  if (value.length < 8 || value.length % 8 !== 0) throw new PageFault('an entry of the free-page list has an impossible size');
  const count = value.readBigUInt64LE(0);
  if (count > BigInt(value.length / 8 - 1)) throw new PageFault('an entry of the free-page list is longer than its record');
  const pages: bigint[] = [];
  for (let index = 1; index <= Number(count); index += 1) {
    const entry = value.readBigInt64LE(8 * index);
    if (entry === 0n) continue;
    if (entry > 0n) {
      pages.push(entry);
      continue;
    }
    index += 1;
    if (index > Number(count)) throw new PageFault('a run in the free-page list has no first page');
    const start = value.readBigInt64LE(8 * index);
    if (start < 0n || -entry > MAX_FREE_RUN) throw new PageFault('a run in the free-page list is impossible');
    for (let page = 0n; page < -entry; page += 1n) pages.push(start + page);
  }
  return pages;
}

/**
 * The meta lmdb-js writes at half of page 0 with overlapping sync (its default for writers), which
 * a writer's open takes when it names a later write than both meta pages: it is then the file's
 * state and must be sound; otherwise lmdb never uses it.
 */
function halfPageMeta(file: PageFile, newest: Meta): Meta | string | undefined {
  const at = newest.pageSize / 2;
  const txnId = file.bytes(at + META_TXNID_AT, 8).readBigUInt64LE(0);
  if (txnId <= newest.txnId) return undefined;
  const meta = metaAt(file, at, 0, newest.pageSize, true);
  return typeof meta === 'string' ? `the sync meta in page 0 names a later write than the file has, and ${meta.replace('meta page 0 ', 'it ')}` : meta;
}

/** Both meta pages (and the sync meta), checked; the newest sound one is the file's state. */
export function metasOf(file: PageFile): { newest: Meta; faults: string[]; metas: Meta[] } {
  const first = metaAt(file, 0, 0);
  if (typeof first === 'string') {
    // The page size is written in the damaged page: the second meta page is looked for at each possible one.
    for (let size = MIN_PAGE_SIZE; size <= MAX_PAGE_SIZE; size *= 2) {
      const second = metaAt(file, size, 1, size);
      if (typeof second !== 'string') return { newest: second, faults: [first], metas: [second] };
    }
    throw new PageFault(first);
  }
  const second = metaAt(file, first.pageSize, 1, first.pageSize);
  const metas = typeof second === 'string' ? [first] : second.txnId > first.txnId ? [second, first] : [first, second];
  const faults = typeof second === 'string' ? [second] : [];
  const half = halfPageMeta(file, metas[0] as Meta);
  if (typeof half === 'string') faults.push(half);
  else if (half) metas.unshift(half);
  return { newest: metas[0] as Meta, faults, metas };
}

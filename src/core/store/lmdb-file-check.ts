/**
 * A sanity check of an LMDB data file's meta pages, made with plain file reads BEFORE lmdb maps
 * the file: the native library crashes the whole process (SIGSEGV/SIGBUS) on an empty, truncated or
 * foreign file opened read-only, and a crash there would take OpenCode down with the tracker.
 * It cannot vouch for every page of a file whose header is sound: lmdb-walk.ts does, in the check's
 * child process (verify-child.ts), before lmdb maps the file anywhere.
 */
import fs from 'node:fs';

const LMDB_MAGIC = 0xbeefc0de;
/** Page header sizes: 16 bytes in LMDB 0.9, 24 in the 1.0 format lmdb-js uses (it adds a txnid). */
const PAGE_HEADER_SIZES = [24, 16] as const;
/** Within the meta: magic, version, address, map size, then the free-list DB whose pad holds the page size. */
const PAGE_SIZE_OFFSET_IN_META = 4 + 4 + 8 + 8;
/** Two MDB_db records of 48 bytes each, after which comes the last used page number. */
const DB_RECORDS_SIZE = 2 * 48;
const MIN_PAGE_SIZE = 512;
const MAX_PAGE_SIZE = 65536;
const META_PAGES = 2;
/** Enough to hold a meta page's fields at either header size. */
const META_BYTES = 256;

/** Why a file cannot be an LMDB data file, or undefined when its meta pages look sound. */
export function lmdbFileProblem(file: string): string | undefined {
  const head = Buffer.alloc(META_BYTES);
  const second = Buffer.alloc(META_BYTES);
  let size: number;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, head, 0, META_BYTES, 0);
      const pageSize = pageSizeOf(head);
      if (pageSize !== undefined) fs.readSync(fd, second, 0, META_BYTES, pageSize);
      // The size is taken AFTER the meta pages are read: another process may commit meanwhile, and a
      // file only grows, so the size then is at least what the pages read name.
      size = fs.fstatSync(fd).size;
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    return `cannot read it: ${(error as Error).message}`;
  }
  if (size < META_BYTES) return `it is ${size} bytes long, too short for an LMDB database`;
  const header = headerSizeOf(head);
  if (header === undefined) return 'it is not an LMDB database (no LMDB signature)';
  const pageSize = head.readUInt32LE(header + PAGE_SIZE_OFFSET_IN_META);
  if (pageSizeOf(head) === undefined) return `its header names an impossible page size (${pageSize})`;
  if (size < META_PAGES * pageSize) return 'it is truncated (shorter than its two meta pages)';
  // Both meta pages name the last page in use; the file must reach the later of the two.
  const lastPageOffset = header + PAGE_SIZE_OFFSET_IN_META + DB_RECORDS_SIZE;
  const lastPage = [head, second]
    .filter((page) => page.readUInt32LE(header) === LMDB_MAGIC)
    .map((page) => Number(page.readBigUInt64LE(lastPageOffset)))
    .reduce((a, b) => Math.max(a, b), 0);
  if (size < (lastPage + 1) * pageSize) return `it is truncated (${size} bytes, its header needs ${(lastPage + 1) * pageSize})`;
  return undefined;
}

/** Where the meta fields start (the page header's size), or undefined without the LMDB signature. */
function headerSizeOf(head: Buffer): number | undefined {
  return PAGE_HEADER_SIZES.find((offset) => head.readUInt32LE(offset) === LMDB_MAGIC);
}

/** The page size the first meta page names, when it is a possible one. */
function pageSizeOf(head: Buffer): number | undefined {
  const header = headerSizeOf(head);
  if (header === undefined) return undefined;
  const pageSize = head.readUInt32LE(header + PAGE_SIZE_OFFSET_IN_META);
  return pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || (pageSize & (pageSize - 1)) !== 0 ? undefined : pageSize;
}

/** What the newer of the two meta pages says: enough to tell a committed write from none. */
export interface LmdbMetaSummary {
  pageSize: number;
  /** The id of the last committed write transaction. */
  txnId: number;
  /** The last page in use: (lastPage + 1) × pageSize bytes hold data. */
  lastPage: number;
}

/** Reads both meta pages with plain reads; undefined when the file is not a sound LMDB file. */
export function lmdbMetaSummary(file: string): LmdbMetaSummary | undefined {
  if (lmdbFileProblem(file) !== undefined) return undefined;
  const first = Buffer.alloc(META_BYTES);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, first, 0, META_BYTES, 0);
    const header = PAGE_HEADER_SIZES.find((offset) => first.readUInt32LE(offset) === LMDB_MAGIC) ?? PAGE_HEADER_SIZES[0];
    const pageSize = first.readUInt32LE(header + PAGE_SIZE_OFFSET_IN_META);
    const second = Buffer.alloc(META_BYTES);
    fs.readSync(fd, second, 0, META_BYTES, pageSize);
    const lastPageOffset = header + PAGE_SIZE_OFFSET_IN_META + DB_RECORDS_SIZE;
    const metas = [first, second]
      .filter((page) => page.readUInt32LE(header) === LMDB_MAGIC)
      .map((page) => ({ lastPage: Number(page.readBigUInt64LE(lastPageOffset)), txnId: Number(page.readBigUInt64LE(lastPageOffset + 8)) }));
    const newest = metas.reduce((a, b) => (b.txnId > a.txnId ? b : a));
    return { pageSize, ...newest };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A consistent read-only snapshot of a SQLite database in WAL mode, taken from its files without
 * opening them through SQLite (so no lock, no shared-memory writes, nothing OpenCode could wait on):
 * the main file with every committed frame of the `-wal` file laid over it. Frames after the last
 * commit, or with a wrong salt or checksum (a write in progress, an old generation), are ignored,
 * exactly as SQLite's own recovery does.
 */
import fs from 'node:fs';

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const WAL_MAGIC_LITTLE = 0x377f0682;
const WAL_MAGIC_BIG = 0x377f0683;
/** Offsets of the file format write/read version bytes in the database header (2 = WAL, 1 = rollback). */
const FORMAT_VERSION_OFFSETS = [18, 19];
const ROLLBACK_FORMAT = 1;
/** Reads retried when a checkpoint changed the main file while it was read. */
const MAX_ATTEMPTS = 5;

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from `s`. */
function walChecksum(data: Buffer, bigEndian: boolean, s: [number, number]): [number, number] {
  let [s0, s1] = s;
  for (let i = 0; i + 8 <= data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

/** The committed state of a `-wal` file: the pages it holds (newest committed copy of each) and the database's size. */
export interface CommittedFrames {
  pageSize: number;
  /** Page number (1-based) -> its content, views into the `-wal` buffer. */
  pages: Map<number, Buffer>;
  /** The database's size in pages after the last commit; 0 when the WAL holds no commit. */
  databasePages: number;
}

/** The committed frames of `wal` (may be empty or absent): those up to the last commit frame with the right salt and checksum. */
export function committedFrames(wal: Buffer | undefined): CommittedFrames {
  const none: CommittedFrames = { pageSize: 0, pages: new Map(), databasePages: 0 };
  if (!wal || wal.length < WAL_HEADER_BYTES) return none;
  const magic = wal.readUInt32BE(0);
  const pageSize = wal.readUInt32BE(8);
  if ((magic !== WAL_MAGIC_LITTLE && magic !== WAL_MAGIC_BIG) || pageSize < 512) return none;
  const bigEndian = magic === WAL_MAGIC_BIG;
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let sum = walChecksum(wal.subarray(0, 24), bigEndian, [0, 0]);
  if (sum[0] !== wal.readUInt32BE(24) || sum[1] !== wal.readUInt32BE(28)) return none;
  const pages = new Map<number, Buffer>();
  // Frames since the last commit: applied only when a commit frame follows them.
  const pending = new Map<number, Buffer>();
  let databasePages = 0;
  for (let offset = WAL_HEADER_BYTES; offset + FRAME_HEADER_BYTES + pageSize <= wal.length; offset += FRAME_HEADER_BYTES + pageSize) {
    if (wal.readUInt32BE(offset + 8) !== salt1 || wal.readUInt32BE(offset + 12) !== salt2) break;
    sum = walChecksum(wal.subarray(offset, offset + 8), bigEndian, sum);
    const page = wal.subarray(offset + FRAME_HEADER_BYTES, offset + FRAME_HEADER_BYTES + pageSize);
    sum = walChecksum(page, bigEndian, sum);
    if (sum[0] !== wal.readUInt32BE(offset + 16) || sum[1] !== wal.readUInt32BE(offset + 20)) break;
    pending.set(wal.readUInt32BE(offset), page);
    const pagesAfterCommit = wal.readUInt32BE(offset + 4);
    if (pagesAfterCommit > 0) {
      for (const [pageNumber, content] of pending) pages.set(pageNumber, content);
      pending.clear();
      databasePages = pagesAfterCommit;
    }
  }
  if (databasePages === 0) return none;
  // Pages past the committed size (the database shrank) are not part of it.
  for (const pageNumber of pages.keys()) if (pageNumber < 1 || pageNumber > databasePages) pages.delete(pageNumber);
  return { pageSize, pages, databasePages };
}

/**
 * Marks a database header as a rollback-journal database, so the snapshot is read without any
 * `-wal` or `-shm` being looked for. `header` is a copy of the file's first bytes, changed in place.
 */
export function markRollbackFormat(header: Uint8Array, fileOffset = 0): void {
  for (const offset of FORMAT_VERSION_OFFSETS) {
    const at = offset - fileOffset;
    if (at >= 0 && at < header.length) header[at] = ROLLBACK_FORMAT;
  }
}

/** The main file with the committed frames of `wal` applied; `wal` may be empty or absent. `main` may be changed. */
export function applyWal(main: Buffer, wal: Buffer | undefined): Buffer {
  let image = main;
  const frames = committedFrames(wal);
  if (frames.databasePages > 0) {
    image = Buffer.alloc(frames.databasePages * frames.pageSize);
    main.copy(image, 0, 0, Math.min(main.length, image.length));
    for (const [pageNumber, page] of frames.pages) page.copy(image, (pageNumber - 1) * frames.pageSize);
  }
  // `main` is this module's own copy of the file, changed in place to spare a second copy.
  markRollbackFormat(image);
  return image;
}

export function readIfPresent(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function signature(file: string): string {
  try {
    const stats = fs.statSync(file);
    return `${stats.size}:${stats.mtimeMs}`;
  } catch {
    return 'absent';
  }
}

/**
 * Reads `databasePath` and its `-wal` into one consistent image. A checkpoint that rewrites the main
 * file during the read is noticed (its size or time changed) and the read is retried.
 */
export function readSnapshot(databasePath: string): Buffer {
  for (let attempt = 1; ; attempt += 1) {
    const before = signature(databasePath);
    const main = fs.readFileSync(databasePath);
    const wal = readIfPresent(`${databasePath}-wal`);
    if (signature(databasePath) === before || attempt >= MAX_ATTEMPTS) return applyWal(main, wal);
  }
}

/**
 * A snapshot of a SQLite database in WAL mode that is read page by page from disk as SQLite asks
 * for it, instead of being copied into memory whole: the committed frames of the `-wal` file are
 * held (it is small: OpenCode checkpoints it), the main file is read on demand. So memory stays
 * flat whatever the size of the store, and an incremental import reads only the pages it needs.
 *
 * Consistent as long as the main file is not written: in WAL mode only a checkpoint writes it, and
 * `changed()` tells when one has (size or times moved). A reader checks it after each unit of work
 * and starts again on a new snapshot when it has; nothing here ever writes or locks the files.
 */
import fs from 'node:fs';
import { committedFrames, markRollbackFormat, readIfPresent } from './wal.js';
import type { CommittedFrames } from './wal.js';

/** What identifies one state of the main file: written (size, times) or replaced (inode) means another. */
interface FileStamp {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

function stampOf(fd: number): FileStamp {
  const stats = fs.fstatSync(fd, { bigint: true });
  return { ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

/**
 * The file argument sql.js's `new Database(data)` takes, shaped so that its in-memory file system
 * (MEMFS) keeps `data.slice(0, length)` as the file's contents and reads them with
 * `contents.subarray(start, end)`, copying the result at once. sql.js 1.x does exactly that; a
 * version that did not would read nothing through it, which `reads` shows (see sqlite-store.ts).
 */
/** Bytes read from the main file at once: one read serves the pages SQLite asks for next. */
const READ_AHEAD_BYTES = 256 * 1024;
/** Chunks kept: the passes over messages and parts, and their indexes, read from different places. */
const READ_AHEAD_CHUNKS = 6;

export interface SqlJsFileData {
  readonly length: number;
  subarray(start: number, end: number): Uint8Array;
  slice(start: number, end: number): unknown;
}

export class PagedSnapshot {
  /** Bytes of the snapshot (the database's size after the last committed frame). */
  readonly size: number;
  /** Reads served so far: 0 after SQLite opened the file means it was not read through here. */
  reads = 0;
  private readonly fd: number;
  private readonly opened: FileStamp;
  private readonly mainSize: number;
  private readonly frames: CommittedFrames;
  private scratch = Buffer.alloc(0);
  /** Main-file chunks read ahead, most recent first: SQLite asks page by page, mostly in order. */
  private readonly chunks: { start: number; buffer: Buffer; bytes: Buffer }[] = [];

  private constructor(fd: number, opened: FileStamp, frames: CommittedFrames) {
    this.fd = fd;
    this.opened = opened;
    this.mainSize = Number(opened.size);
    this.frames = frames;
    this.size = frames.databasePages > 0 ? frames.databasePages * frames.pageSize : this.mainSize;
  }

  /** Opens `databasePath` read-only and takes its `-wal`'s committed frames; the main file is read later, on demand. */
  static open(databasePath: string): PagedSnapshot {
    const fd = fs.openSync(databasePath, 'r');
    try {
      // Stamped before the WAL is read: a checkpoint after this point is seen by changed().
      const opened = stampOf(fd);
      return new PagedSnapshot(fd, opened, committedFrames(readIfPresent(`${databasePath}-wal`)));
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /**
   * Bytes [start, end) of the snapshot: WAL pages over the main file, zeros past its end, the header
   * marked as a rollback-journal database. The result is a view of a buffer reused by the next read.
   */
  read(start: number, end: number): Uint8Array {
    const length = Math.max(0, Math.min(end, this.size) - start);
    if (this.scratch.length < length) this.scratch = Buffer.alloc(Math.max(length, 2 * this.scratch.length));
    const out = this.scratch.subarray(0, length);
    const { pageSize, pages } = this.frames;
    if (pages.size === 0) {
      this.readMain(out, 0, length, start);
    } else {
      for (let at = start; at < start + length; ) {
        const pageNumber = Math.floor(at / pageSize) + 1;
        const pageEnd = Math.min(pageNumber * pageSize, start + length);
        const page = pages.get(pageNumber);
        if (page) page.copy(out, at - start, at - (pageNumber - 1) * pageSize, pageEnd - (pageNumber - 1) * pageSize);
        else this.readMain(out, at - start, pageEnd - at, at);
        at = pageEnd;
      }
    }
    markRollbackFormat(out, start);
    this.reads += 1;
    return out;
  }

  /** Whether the main file was written (a checkpoint) or replaced since the snapshot was taken. */
  changed(): boolean {
    const now = stampOf(this.fd);
    return now.ino !== this.opened.ino || now.size !== this.opened.size || now.mtimeNs !== this.opened.mtimeNs || now.ctimeNs !== this.opened.ctimeNs;
  }

  /** The snapshot as the file sql.js opens (see SqlJsFileData). */
  asFileData(): SqlJsFileData {
    const contents = { length: this.size, subarray: (start: number, end: number) => this.read(start, end) };
    return {
      length: this.size,
      subarray: contents.subarray,
      slice: (start: number, end: number) => (start === 0 && end >= this.size ? contents : Uint8Array.from(this.read(start, end))),
    };
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  /** Main-file bytes into `out`, through the read-ahead chunks; what lies past the file's end reads as zeros. */
  private readMain(out: Buffer, offset: number, length: number, position: number): void {
    for (let at = position; at < position + length; ) {
      const chunk = this.chunkAt(Math.floor(at / READ_AHEAD_BYTES) * READ_AHEAD_BYTES);
      const from = at - chunk.start;
      const to = Math.min(position + length - chunk.start, READ_AHEAD_BYTES);
      const copied = chunk.bytes.copy(out, offset + (at - position), from, Math.min(to, chunk.bytes.length));
      if (copied < to - from) out.fill(0, offset + (at - position) + copied, offset + (at - position) + (to - from));
      at = chunk.start + to;
    }
  }

  /** The main file's chunk starting at `start`, from the few most recently read or read now. */
  private chunkAt(start: number): { start: number; bytes: Buffer } {
    const index = this.chunks.findIndex((chunk) => chunk.start === start);
    if (index >= 0) {
      const [chunk] = this.chunks.splice(index, 1);
      if (chunk) {
        this.chunks.unshift(chunk);
        return chunk;
      }
    }
    const reused = this.chunks.length >= READ_AHEAD_CHUNKS ? this.chunks.pop() : undefined;
    const buffer = reused?.buffer ?? Buffer.alloc(READ_AHEAD_BYTES);
    let done = 0;
    while (done < READ_AHEAD_BYTES && start + done < this.mainSize) {
      const n = fs.readSync(this.fd, buffer, done, READ_AHEAD_BYTES - done, start + done);
      if (n === 0) break;
      done += n;
    }
    const chunk = { start, buffer, bytes: buffer.subarray(0, done) };
    this.chunks.unshift(chunk);
    return chunk;
  }
}

/**
 * Reads a file the user named, but only a regular file of bounded size: `/dev/zero` never ends and
 * a FIFO blocks its reader until someone writes, so either would hang a command. The file is opened
 * non-blocking (a FIFO opens at once) and checked on the open descriptor before a byte is read.
 */
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** A file that is not a regular file, or too large; the message says which and what to do. */
export class UnreadableFileError extends Error {
  override name = 'UnreadableFileError';
}

/** What to do about a file that is not one, for a file the user named (`import FILE`). */
const EXPORT_FILE_HINT = 'give the path of an export file';

/**
 * Opens `file` for reading once it is known to be a regular file of at most `maxBytes`.
 * @throws UnreadableFileError for a FIFO, device, folder or socket, or a file past `maxBytes`;
 *   the open's own error (ENOENT, EACCES) otherwise.
 */
function openBounded(file: string, maxBytes: number, hint = EXPORT_FILE_HINT): { fd: number; size: number } {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new UnreadableFileError(`${file} is not a regular file (a device, pipe or folder); ${hint}`);
    if (stat.size > maxBytes) throw new UnreadableFileError(`${file} is ${stat.size} bytes; at most ${maxBytes} are read`);
    return { fd, size: stat.size };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

const grewMessage = (file: string): string => `${file} grew while it was read; import it again when nothing writes to it`;

/** Bytes read at a time by boundedRegularFileText. */
export const TEXT_CHUNK_BYTES = 1024 * 1024;

/**
 * Checks now that `file` could be read by boundedRegularFileText, without reading it.
 * @throws as openBounded.
 */
export function checkBoundedRegularFile(file: string, maxBytes: number): void {
  fs.closeSync(openBounded(file, maxBytes).fd);
}

/**
 * The text of `file` (UTF-8) in pieces of about `chunkBytes`, without holding the file: a character
 * split between two reads comes whole in the later piece.
 * @throws as checkBoundedRegularFile, once iterated; UnreadableFileError for a file that grows past its size while read.
 */
export function* boundedRegularFileText(file: string, maxBytes: number, chunkBytes = TEXT_CHUNK_BYTES, hint = EXPORT_FILE_HINT): Generator<string> {
  const { fd, size } = openBounded(file, maxBytes, hint);
  try {
    const decoder = new StringDecoder('utf8');
    // A byte past the size it had is enough to see that it grew: a small file gets a small buffer.
    const buffer = Buffer.alloc(Math.max(1, Math.min(chunkBytes, size + 1)));
    let total = 0;
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      total += read;
      if (total > maxBytes || total > size) throw new UnreadableFileError(grewMessage(file));
      const text = decoder.write(buffer.subarray(0, read));
      if (text !== '') yield text;
    }
    const rest = decoder.end();
    if (rest !== '') yield rest;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The whole text of a small file the tracker keeps at a known name (the status export, a spill, a
 * sidecar), read only when it is a regular file: anything can be planted at such a name, and a FIFO
 * there would block this synchronous read, and with it the host's main thread, for good.
 * @throws UnreadableFileError for anything but a regular file of at most `maxBytes`; the open's own error otherwise.
 */
export function readOwnFileText(file: string, maxBytes: number): string {
  return [...boundedRegularFileText(file, maxBytes, TEXT_CHUNK_BYTES, 'agent-tracker reads only a regular file there; remove it')].join('');
}

/**
 * Reads a file the user named, but only a regular file of bounded size: `/dev/zero` never ends and
 * a FIFO blocks its reader until someone writes, so either would hang a command. The file is opened
 * non-blocking (a FIFO opens at once) and checked on the open descriptor before a byte is read.
 */
import fs from 'node:fs';

/** A file that is not a regular file, or too large; the message says which and what to do. */
export class UnreadableFileError extends Error {
  override name = 'UnreadableFileError';
}

/**
 * The text of `file`, at most `maxBytes` long.
 * @throws UnreadableFileError for a FIFO, device, folder or socket, or a file past `maxBytes`;
 *   the open's own error (ENOENT, EACCES) otherwise.
 */
export function readBoundedRegularFile(file: string, maxBytes: number): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new UnreadableFileError(`${file} is not a regular file (a device, pipe or folder); give the path of an export file`);
    if (stat.size > maxBytes) throw new UnreadableFileError(`${file} is ${stat.size} bytes; at most ${maxBytes} are read`);
    // One byte more than allowed tells a file that grew while being read apart from one that fits.
    const buffer = Buffer.alloc(Math.min(maxBytes, stat.size) + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes || length > stat.size) throw new UnreadableFileError(`${file} grew while it was read; import it again when nothing writes to it`);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

// Reading a small file the run is given or wrote (.env, --ca, a report directory's JSON) whole, within
// a bound: only a regular file (a FIFO planted at the name held the run for ever, /dev/zero grew it
// by gigabytes), never more than its size when opened (however it grows meanwhile), past the bound
// not read. Every refusal is one line naming the file.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** A file the run cannot read: its message is the one line to say; `reason`, the same without the
 *  file's name, for a line that names it already. */
export class UnreadableFile extends Error {
  constructor(message: string, readonly reason = message) { super(message); }
}

/** The bytes of the regular file at `path`, of at most `max` bytes (else `tooLarge(size)` says why). */
export function boundedBytes(path: string, max: number, tooLarge: (size: number) => string): Buffer {
  let fd: number;
  try {
    // Non-blocking: a FIFO planted at the name cannot hold the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UnreadableFile(`${path} cannot be read (${why})`, why);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnreadableFile(`${path} is not a regular file`, 'not a regular file');
    if (stat.size > max) throw new UnreadableFile(tooLarge(stat.size));
    const bytes = Buffer.allocUnsafe(stat.size + 1);
    let read = 0;
    for (let n = readSync(fd, bytes, 0, bytes.length, null); n > 0; n = readSync(fd, bytes, read, bytes.length - read, null)) {
      read += n;
      if (read > stat.size) throw new UnreadableFile(`${path} grew while it was read: not read`);
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

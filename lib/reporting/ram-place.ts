// Linux's shared-memory file system, where the presentation writes the Allure results and the HTML
// is built when the report directory is on a disk and RAM has room. Creating a file on the
// project's disks (ext4) costs about 1 ms of system time, in RAM 0.03 ms, and far more on a disk
// other processes keep busy (the presentation's 760 files took over a second there).
import { statfsSync } from 'node:fs';

export const RAM_DIR = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;
/** Results larger than this stay on the report's disk: what is held in RAM stays small. */
const MAX_RAM_RESULTS = 128 * 1024 * 1024;
/** Room left on RAM_DIR beyond three times the results (a copy, the indented bodies) and Allure's page (some 11 MB). */
const RAM_MARGIN = 256 * 1024 * 1024;

/** Whether `path` is on a RAM file system (tmpfs); false when it cannot be told. */
export function inRam(path: string): boolean {
  try {
    return statfsSync(path).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

/** Whether RAM_DIR is a RAM file system with room for `bytes` of results and what is made of them. */
export function ramHasRoomFor(bytes: number): boolean {
  try {
    const ram = statfsSync(RAM_DIR);
    return bytes <= MAX_RAM_RESULTS && ram.type === TMPFS_MAGIC && ram.bavail * ram.bsize >= 3 * bytes + RAM_MARGIN;
  } catch {
    return false; // no such file system
  }
}

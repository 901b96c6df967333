// Linux's shared-memory file system, where the presentation writes the Allure results and the HTML
// is built when the report directory is on a disk and RAM has room. Creating a file on the
// project's disks (ext4) costs about 1 ms of system time, in RAM 0.03 ms, and far more on a disk
// other processes keep busy (the presentation's 760 files took over a second there).
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** Linux's shared-memory file system. */
const SHARED_MEMORY = '/dev/shm';
/** Where files in RAM go: the system's temporary directory when it is on a RAM file system (TMPDIR
 *  pointing into RAM, as a test's own does, or a /tmp mounted as tmpfs), else SHARED_MEMORY. Read at
 *  each use, so what a process makes in RAM is found in its own temporary directory where it has one. */
export const ramDir = (): string => {
  const t = tmpdir();
  return inRam(t) ? t : SHARED_MEMORY;
};
const TMPFS_MAGIC = 0x01021994;
/** Results larger than this stay on the report's disk: what is held in RAM stays small. */
const MAX_RAM_RESULTS = 128 * 1024 * 1024;
/** Room left in RAM beyond three times the results (a copy, the indented bodies) and Allure's page (some 11 MB). */
const RAM_MARGIN = 256 * 1024 * 1024;

/** Whether `path` is on a RAM file system (tmpfs); false when it cannot be told. */
export function inRam(path: string): boolean {
  try {
    return statfsSync(path).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

/** Whether ramDir() is a RAM file system with room for `bytes` of results and what is made of them. */
export function ramHasRoomFor(bytes: number): boolean {
  try {
    const ram = statfsSync(ramDir());
    return bytes <= MAX_RAM_RESULTS && ram.type === TMPFS_MAGIC && ram.bavail * ram.bsize >= 3 * bytes + RAM_MARGIN;
  } catch {
    return false; // no such file system
  }
}

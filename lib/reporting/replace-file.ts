// Every output goes into the report directory by rename: written to a new temporary name there
// (O_EXCL, so not even a planted symlink is opened), then renamed over its target. Whatever already
// stands at the target (a symlink to a file elsewhere, say) is replaced, never written through.
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A name beside `path` that nothing holds yet (random; the caller creates it exclusively). */
const besideOf = (path: string, what: string) => join(dirname(path), `.${basename(path)}.${what}-${randomBytes(6).toString('hex')}`);

/** Writes `content` to `path` by rename; returns `path`. `mode`: the new file's permissions (it is
 *  created with them, so it is never readable more widely, not even for a moment). */
export function replaceFile(path: string, content: string | Uint8Array, mode = 0o666): string {
  const temp = besideOf(path, 'new');
  try {
    writeFileSync(temp, content, { flag: 'wx', mode }); // O_CREAT | O_EXCL: fails on any existing path, a symlink included
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
  return path;
}

/** Puts the directory `staged` (made fresh by the caller, in the same directory as `path`) at
 *  `path`: what stood there is moved aside and removed (rm unlinks a symlink, never follows it). */
export function replaceDirectory(staged: string, path: string): string {
  const old = besideOf(path, 'old');
  let moved = false;
  try {
    renameSync(path, old);
    moved = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  renameSync(staged, path);
  if (moved) rmSync(old, { recursive: true, force: true });
  return path;
}

// Every output goes into the report directory by rename: written to a new temporary name there
// (O_EXCL, so not even a planted symlink is opened), then renamed over its target. Whatever already
// stands at the target (a symlink to a file elsewhere, say) is replaced, never written through.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
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

/** Writes a file of pieces by rename, as `replaceFile` does, without joining them first (a page of
 *  some megabytes is never held twice): each piece is a text and the encoding its bytes are written
 *  in, written at most a mebibyte of characters at a time. Returns `path`. */
export function replaceFileInPieces(path: string, pieces: readonly (readonly [string, BufferEncoding])[], mode = 0o666): string {
  const temp = besideOf(path, 'new');
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      for (const [text, encoding] of pieces) for (let i = 0; i < text.length; i += PIECE) writeSync(fd, text.slice(i, i + PIECE), null, encoding);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
  return path;
}
const PIECE = 1024 * 1024;

/** Puts the directory `staged` (made fresh by the caller, in the same directory as `path`) at
 *  `path`: what stood there is moved aside and removed (rm unlinks a symlink, never follows it). */
export function replaceDirectory(staged: string, path: string): string {
  const old = moveAside(staged, path);
  if (old) rmSync(old, { recursive: true, force: true });
  return path;
}

/** As replaceDirectory, but what stood at `path` is removed in the background: `removed` settles
 *  (never rejects) once it is gone. Removing a run's 760 result files from a disk took 0.05 s on a
 *  quiet machine and over a second on a loaded one; the caller waits for it once it has nothing
 *  else to do. Until then it lies beside `path` under a hidden name. */
export function replaceDirectoryInBackground(staged: string, path: string): { readonly path: string; readonly removed: Promise<void> } {
  const old = moveAside(staged, path);
  return { path, removed: old ? rm(old, { recursive: true, force: true }).catch(() => undefined) : Promise.resolve() };
}

/** Moves what stands at `path` aside (its new name, or undefined when nothing stood there) and
 *  renames `staged` to `path`. */
function moveAside(staged: string, path: string): string | undefined {
  const old = besideOf(path, 'old');
  let moved = false;
  try {
    renameSync(path, old);
    moved = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  renameSync(staged, path);
  return moved ? old : undefined;
}

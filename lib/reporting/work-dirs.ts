// The temporary directories the presentation and the HTML are built in (in RAM, in the system's
// temporary directory, or hidden in the report directory), known by this process while they exist:
// a run stopped at once removes them before it exits, and the next run into a report directory
// removes the hidden ones a run killed there left (their names are random; no manifest lists them).
// Those outside the report directory carry their maker's process id: a later run removes those whose
// maker is gone (killed: SIGKILL, the OOM killer), which otherwise stayed in RAM until a reboot.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ramDir } from './ram-place.js';

/** The prefixes of the work directories made in a report directory. */
export const PRESENTING = '.presenting-';
export const HTML_WORK = '.report-html-';
const IN_REPORT_DIR = [PRESENTING, HTML_WORK];

/** The kinds of work directory made outside the report directory (the system's temporary directory, RAM). */
export const SHARED_WORK = { presenting: 'conformance-present-', html: 'conformance-html-' } as const;
/** The process id in a shared work directory's name (a prefix, the id, `-`, random characters). */
const makerOf = (name: string, prefixes: readonly string[]): number | undefined => {
  const prefix = prefixes.find((p) => name.startsWith(p));
  const id = prefix === undefined ? undefined : /^([1-9][0-9]{0,9})-./.exec(name.slice(prefix.length))?.[1];
  return id === undefined ? undefined : Number(id);
};
/** A shared work directory whose maker is gone is removed once it has been left this long: none in
 *  use lives as long (a presentation is ended at 300 s), and where another process-id namespace
 *  shares the directory (a container's), a maker unknown here is not taken for gone while it writes. */
export const ABANDONED_AFTER_MS = 60 * 60 * 1000;

const held = new Set<string>();

/** A fresh directory `prefix` + random characters, held until released. */
export function workDir(prefix: string): string {
  const dir = mkdtempSync(prefix);
  held.add(resolve(dir));
  return dir;
}

/** workDir() in `base`, outside any report directory: named with this process's id. */
export function sharedWorkDir(base: string, kind: keyof typeof SHARED_WORK): string {
  return workDir(join(base, namedForThisProcess(SHARED_WORK[kind])));
}
/** `prefix`, this process's id and `-`: what removeAbandonedWorkDirs reads the maker from. */
export const namedForThisProcess = (prefix: string): string => `${prefix}${process.pid}-`;

/** Removes a work directory, and lets it go. */
export function releaseWorkDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  held.delete(resolve(dir));
}
export async function releaseWorkDirLater(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  held.delete(resolve(dir));
}

const why = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message.split('\n')[0];

/** Removes every work directory this process holds (a stop at once, its children ended); the
 *  problems, one line each. */
export function removeHeldWorkDirs(): string[] {
  const problems: string[] = [];
  for (const dir of held) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      held.delete(dir);
    } catch (e) {
      problems.push(`cannot remove ${dir}, a temporary directory: ${why(e)}`);
    }
  }
  return problems;
}

/** Removes the work directories in `dir` that a run stopped or killed left there, not one this
 *  process holds; the problems, one line each. */
export function removeLeftWorkDirs(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // no directory yet: nothing left in it
  }
  const problems: string[] = [];
  for (const name of names.filter((n) => IN_REPORT_DIR.some((p) => n.startsWith(p)) && !held.has(resolve(dir, n)))) {
    try {
      rmSync(join(dir, name), { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      problems.push(`cannot remove ${name}, a temporary directory a stopped run left: ${why(e)}`);
    }
  }
  return problems;
}

/** Whether process `pid` is running (one of another user counts: it cannot be signalled, but it is there). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Removes the shared work directories (sharedWorkDir: `prefixes`) in `bases` (the system's temporary
 *  directory and RAM) whose maker is gone and which were left ABANDONED_AFTER_MS ago or more; the
 *  problems, one line each. Nothing else there is touched. */
export function removeAbandonedWorkDirs(bases: readonly string[] = [tmpdir(), ramDir()], prefixes: readonly string[] = Object.values(SHARED_WORK), now = Date.now()): string[] {
  const problems: string[] = [];
  for (const base of new Set(bases.map((b) => resolve(b)))) {
    let names: string[];
    try {
      names = readdirSync(base);
    } catch {
      continue; // no such directory: nothing left in it
    }
    for (const name of names) {
      const pid = makerOf(name, prefixes);
      const path = join(base, name);
      if (pid === undefined || pid === process.pid || held.has(path) || running(pid)) continue;
      try {
        const left = statSync(path);
        if (!left.isDirectory() || now - left.mtimeMs < ABANDONED_AFTER_MS) continue;
        rmSync(path, { recursive: true, force: true, maxRetries: 3 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`cannot remove ${path}, a temporary directory a killed run left: ${why(e)}`);
      }
    }
  }
  return problems;
}

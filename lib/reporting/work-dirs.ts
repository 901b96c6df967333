// The temporary directories the presentation and the HTML are built in (in RAM, in the system's
// temporary directory, or hidden in the report directory), known by this process while they exist:
// a run stopped at once removes them before it exits, and the next run into a report directory
// removes the hidden ones a run killed there left (their names are random; no manifest lists them).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The prefixes of the work directories made in a report directory. */
export const PRESENTING = '.presenting-';
export const HTML_WORK = '.report-html-';
const IN_REPORT_DIR = [PRESENTING, HTML_WORK];

const held = new Set<string>();

/** A fresh directory `prefix` + random characters, held until released. */
export function workDir(prefix: string): string {
  const dir = mkdtempSync(prefix);
  held.add(resolve(dir));
  return dir;
}

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

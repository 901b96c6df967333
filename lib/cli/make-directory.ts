// A report directory made, parents first. Not mkdirSync(dir, { recursive: true }): where a parent
// exists but says ENOENT for any child (procfs, sysfs: `--report-dir /proc/1/x`), Node's recursive
// walk makes the parent again and retries forever, at full CPU, with no word (nodejs/node's mkdirp
// takes ENOENT as "parent missing"). Here each missing directory is made once, and any error is
// given as it came, for the caller's one line.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirectory(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (e) {
      // Made meanwhile by someone else: a directory is all that was asked.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d, { throwIfNoEntry: false })?.isDirectory()) throw e;
    }
  }
  // A file standing at the path (a regular file, /dev/null) is no directory, writable as it may be.
  if (!statSync(resolve(dir)).isDirectory()) throw Object.assign(new Error(`${resolve(dir)} is not a directory`), { code: 'ENOTDIR' });
}

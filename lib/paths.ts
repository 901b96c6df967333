// The project's root, found from wherever this module runs: lib/ from source, dist/lib/ compiled.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error('package.json not found above the harness');
  }
}

export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
export const fromRoot = (...parts: string[]): string => join(PROJECT_ROOT, ...parts);

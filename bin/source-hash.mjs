#!/usr/bin/env node
// A hash of the TypeScript sources under lib/ and suites/. `npm run build` records it next to the compiled code
// (--write); bin/run.mjs compares it, so "up to date" means the same content, whatever the mtimes say.
// Before compiling, `npm run build` runs it with --forget-missing: tsc --incremental trusts its
// .tsbuildinfo and does not emit again a compiled file deleted by hand, which the stamp would then
// vouch for; a source without its compiled file makes it forget that record, so tsc emits them all.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const STAMP = join(ROOT, 'dist', '.source-hash');

const sources = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);

export function sourceHash() {
  const hash = createHash('sha256');
  for (const file of [...sources(join(ROOT, 'lib')), ...sources(join(ROOT, 'suites'))].sort()) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** Sources under `root` (lib/, suites/; declaration files aside) whose compiled .js is not in `root`/dist. */
export function missingOutputs(root = ROOT) {
  return [...sources(join(root, 'lib')), ...sources(join(root, 'suites'))].filter((f) => !f.endsWith('.d.ts'))
    .map((f) => join(root, 'dist', relative(root, f)).replace(/\.ts$/, '.js')).filter((js) => !existsSync(js));
}

if (process.argv[2] === '--write') writeFileSync(STAMP, `${sourceHash()}\n`);
if (process.argv[2] === '--forget-missing' && existsSync(join(ROOT, 'dist')) && missingOutputs().length) rmSync(join(ROOT, 'dist', '.tsbuildinfo'), { force: true });

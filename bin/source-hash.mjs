#!/usr/bin/env node
// A hash of the TypeScript sources under lib/ and suites/. `npm run build` records it next to the compiled code
// (--write); bin/run.mjs compares it, so "up to date" means the same content, whatever the mtimes say.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

if (process.argv[2] === '--write') writeFileSync(STAMP, `${sourceHash()}\n`);

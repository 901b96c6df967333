#!/usr/bin/env node
// Starts one of the harness's programs (`node bin/run.mjs cli/main …`): the compiled JavaScript in
// dist/ when it was built from exactly the current sources (the fast start), otherwise the
// TypeScript source through tsx, so an edit is never run stale. An installed package ships dist/
// without the sources: there the compiled code is all there is, and it runs without tsx.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, sourceHash, STAMP } from './source-hash.mjs';

const [program] = process.argv.splice(2, 1); // the program then sees only its own arguments
if (!program || !/^[a-z-]+\/[a-z-]+$/.test(program)) {
  process.stderr.write('usage: node bin/run.mjs <area/program> [arguments]\n');
  process.exit(2);
}

// A reader that goes away (`… | head -1`) is no failure of the run: the reports are still written
// and the exit code still says what the run found. Exit 1 means a MUST check failed, so nothing
// unforeseen may end in it: an error nobody caught is one line and exit 2, never a stack trace.
const name = program.split('/')[1] === 'main' ? (program.startsWith('cli') ? 'conformance' : 'reference') : program.split('/')[1];
for (const stream of [process.stdout, process.stderr]) stream.on('error', (e) => { if (e.code !== 'EPIPE') fatal(e); });
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);
function fatal(e) {
  try { process.stderr.write(`${name}: internal error: ${String(e?.message ?? e).split('\n')[0]}\n`); } catch { /* stderr is gone too */ }
  process.exit(2);
}

const compiled = join(ROOT, 'dist', 'lib', `${program}.js`);
const sources = existsSync(join(ROOT, 'lib'));
const current = existsSync(compiled) && (!sources || (existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === sourceHash()));
if (current) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(ROOT, 'lib', `${program}.ts`)).href);
}

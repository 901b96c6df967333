#!/usr/bin/env node
// Starts one of the harness's programs (`node bin/run.mjs cli/main …`): the compiled JavaScript in
// dist/ when it was built from exactly the current sources (the fast start), otherwise the
// TypeScript source through tsx, so an edit is never run stale. An installed package ships dist/
// without the sources: there the compiled code is all there is, and it runs without tsx.
// With --build-when-stale first (the npm scripts: `npm run conformance` in a fresh clone), a dist/
// that is missing or stale is built first (`npm run build`, one build at a time however many runs
// start together), since through tsx a run starts in twice the time and its presentation child
// takes 350 MB against 126; if the build fails, the sources run through tsx, saying so.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, sourceHash, STAMP } from './source-hash.mjs';

/** A build lock older than this was left by a build that died (a fresh clone's build took about 5 s here, 33 s on a loaded machine). */
const STALE_LOCK_MS = 5 * 60_000;
const buildWhenStale = process.argv[2] === '--build-when-stale';
if (buildWhenStale) process.argv.splice(2, 1);
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
const isCurrent = () => existsSync(compiled) && (!sources || (existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === sourceHash()));
const current = isCurrent() || (buildWhenStale && sources && builtNow());
if (current) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(ROOT, 'lib', `${program}.ts`)).href);
}

/** Builds dist/ for --build-when-stale, one run at a time (a lock directory: the others wait for it,
 *  then find dist/ current); true once dist/ is current. */
function builtNow() {
  const lock = join(ROOT, '.build-lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') {
        process.stderr.write(`${name}: dist/ was not built from the current sources, and cannot be built here (${e.code}): running the sources through tsx\n`);
        return false;
      }
    }
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    } catch { /* gone meanwhile */ }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  try {
    if (isCurrent()) return true; // built by the run that held the lock
    const started = performance.now();
    process.stderr.write(`${name}: dist/ was not built from the current sources: building it first (npm run build)\n`);
    // npm as the one running this script (npm_execpath), else the one on PATH.
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
    const build = spawnSync(npm[0], [...npm.slice(1), 'run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (build.status === 0 && isCurrent()) {
      process.stderr.write(`${name}: built dist/ (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
      return true;
    }
    const said = `${build.stderr ?? ''}`.trim().split('\n').at(-1) || build.error?.message || `exit ${build.status ?? build.signal}`;
    process.stderr.write(`${name}: npm run build failed (${said.slice(0, 200)}): running the sources through tsx\n`);
    return false;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

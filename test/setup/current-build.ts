// The harness project's global setup: the CLI children the tests start run dist/ only when it was
// built from the current sources (bin/run.mjs), else the TypeScript through tsx. Run so, they are
// another program: slower, and heavier (the presentation child 350 MB against 126, which failed the
// suite's memory bounds when a file was run with `npx vitest run` after an edit, without a build).
// `npm test` builds first; a run started any other way is built here when dist/ is not current,
// saying so in one line, so every test judges the code as CI runs it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { ROOT, sourceHash, STAMP } from '../../bin/source-hash.mjs';

export default function setup(): void {
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === sourceHash()) return;
  const started = performance.now();
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) {
    const said = `${build.stdout}${build.stderr}`.trim().split('\n').slice(-5).join('\n');
    throw new Error(`test setup: dist/ was not built from the current sources, and npm run build failed (exit ${build.status ?? build.signal}):\n${said}`);
  }
  process.stderr.write(`test setup: dist/ was not built from the current sources: built it (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

// `npm run conformance` (bin/run.mjs --build-when-stale) in a clone whose dist/ is missing or stale
// builds it first, one build however many runs start together, and then runs the compiled code; a
// build that fails leaves the run to the sources through tsx, saying why in one line. Without the
// option (the tests' children, the mutation runs), a stale dist/ is never built: the sources run.
// Checked in a small checkout of its own: bin/run.mjs and bin/source-hash.mjs as they are, one
// program, and a `build` script that counts its builds (no TypeScript compiled).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../lib/paths.js';

/** A checkout whose build writes dist/lib/cli/hello.js (printing "compiled") and the stamp, after
 *  `buildMs`, logging each build; or fails, saying `fails`. */
function checkout(build: { buildMs?: number; fails?: string } = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'build-when-stale-'));
  for (const d of ['bin', 'lib/cli', 'suites']) mkdirSync(join(root, d), { recursive: true });
  for (const f of ['run.mjs', 'source-hash.mjs']) copyFileSync(fromRoot('bin', f), join(root, 'bin', f));
  symlinkSync(fromRoot('node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'lib', 'cli', 'hello.ts'), "console.log('from source');\n");
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module', scripts: { build: 'node build.mjs' } }));
  writeFileSync(join(root, 'build.mjs'), build.fails !== undefined
    ? `process.stderr.write(${JSON.stringify(`${build.fails}\n`)}); process.exit(1);\n`
    : [
      "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';",
      "import { execFileSync } from 'node:child_process';",
      "appendFileSync('builds.log', 'built\\n');",
      `await new Promise((r) => setTimeout(r, ${build.buildMs ?? 0}));`,
      "mkdirSync('dist/lib/cli', { recursive: true });",
      "writeFileSync('dist/lib/cli/hello.js', \"console.log('compiled');\\n\");",
      "execFileSync(process.execPath, ['bin/source-hash.mjs', '--write']);",
    ].join('\n'));
  return root;
}

const run = (root: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => new Promise((resolve) => {
  execFile(process.execPath, [join(root, 'bin', 'run.mjs'), ...args], { cwd: root, timeout: 60_000 }, (e, stdout, stderr) => resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }));
});
const builds = (root: string) => (existsSync(join(root, 'builds.log')) ? readFileSync(join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean).length : 0);

describe('bin/run.mjs --build-when-stale', () => {
  it('builds a missing dist/ once for three runs started together, each of which then runs the compiled code', async () => {
    const root = checkout({ buildMs: 500 });
    const runs = await Promise.all([1, 2, 3].map(() => run(root, ['--build-when-stale', 'cli/hello'])));
    expect(runs.map((r) => [r.code, r.stdout])).toEqual([1, 2, 3].map(() => [0, 'compiled\n']));
    expect(builds(root)).toBe(1);
    const said = runs.map((r) => r.stderr).join('');
    expect(said.match(/^hello: dist\/ was not built from the current sources: building it first \(npm run build\)$/gm)).toHaveLength(1);
    expect(said).toMatch(/^hello: built dist\/ \(\d+\.\d s\)$/m);
    expect(existsSync(join(root, '.build-lock'))).toBe(false);
    // Current now: no build, nothing said.
    expect(await run(root, ['--build-when-stale', 'cli/hello'])).toEqual({ code: 0, stdout: 'compiled\n', stderr: '' });
    expect(builds(root)).toBe(1);
  });

  it('builds again once a source changed, and waits out no lock a dead build left (older than five minutes)', async () => {
    const root = checkout();
    expect((await run(root, ['--build-when-stale', 'cli/hello'])).stdout).toBe('compiled\n');
    writeFileSync(join(root, 'lib', 'cli', 'hello.ts'), "console.log('from source, edited');\n");
    mkdirSync(join(root, '.build-lock'));
    const old = new Date(Date.now() - 6 * 60_000);
    utimesSync(join(root, '.build-lock'), old, old);
    expect((await run(root, ['--build-when-stale', 'cli/hello'])).stdout).toBe('compiled\n');
    expect(builds(root)).toBe(2);
  });

  it('runs the sources through tsx when the build fails, saying why in one line', async () => {
    const root = checkout({ fails: 'tsc: out of disk' });
    const r = await run(root, ['--build-when-stale', 'cli/hello']);
    expect([r.code, r.stdout]).toEqual([0, 'from source\n']);
    expect(r.stderr).toMatch(/^hello: npm run build failed \(tsc: out of disk\): running the sources through tsx$/m);
  });

  it('without the option, never builds: a stale dist/ leaves the run to the sources', async () => {
    const root = checkout();
    expect(await run(root, ['cli/hello'])).toEqual({ code: 0, stdout: 'from source\n', stderr: '' });
    expect(builds(root)).toBe(0);
  });
});

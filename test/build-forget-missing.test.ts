// `npm run build` first runs `bin/source-hash.mjs --forget-missing`: tsc --incremental trusts its
// .tsbuildinfo and does not emit again a compiled file deleted by hand (tried: dist/lib/digits.js
// stayed missing), which the stamp would then vouch for. A source without its compiled .js makes the
// step delete dist/.tsbuildinfo, so tsc emits everything; with every output there it is kept.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../lib/paths.js';

/** A checkout of one source in lib/ and one in suites/, compiled but for `missing`; the step run in it. */
function forgetIn(missing: string[]): boolean {
  const root = mkdtempSync(join(tmpdir(), 'forget-missing-'));
  for (const d of ['bin', 'lib/engine', 'suites', 'dist/lib/engine', 'dist/suites']) mkdirSync(join(root, d), { recursive: true });
  copyFileSync(fromRoot('bin', 'source-hash.mjs'), join(root, 'bin', 'source-hash.mjs'));
  for (const f of ['lib/engine/run.ts', 'suites/routes.suite.ts']) {
    writeFileSync(join(root, f), 'export {};\n');
    const js = join('dist', f.replace(/\.ts$/, '.js'));
    if (!missing.includes(js)) writeFileSync(join(root, js), 'export {};\n');
  }
  writeFileSync(join(root, 'dist', '.tsbuildinfo'), '{}');
  execFileSync(process.execPath, [join(root, 'bin', 'source-hash.mjs'), '--forget-missing']);
  return existsSync(join(root, 'dist', '.tsbuildinfo'));
}

describe('npm run build after a compiled file was deleted by hand', () => {
  it('forgets tsc\'s incremental record when a source under lib/ or suites/ has no compiled .js, and keeps it otherwise', () => {
    expect(forgetIn([])).toBe(true);
    expect(forgetIn(['dist/lib/engine/run.js'])).toBe(false);
    expect(forgetIn(['dist/suites/routes.suite.js'])).toBe(false);
  });
});

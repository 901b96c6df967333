// The suite files are what the CLI's presentation child loads: what they import, all the way down,
// stays light. The engine, the CLI, the reference and the traffic readers cost that child 15-28 MB
// (over the flood test's bound); only conformance.setup.ts (a globalSetup, in vitest's main process,
// never loaded by the child) may reach them. Type-only imports are erased and cost nothing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AREAS, areaFile } from '../lib/checks/check.js';

const ROOT = resolve(import.meta.dirname, '..');
const SUITES = join(ROOT, 'suites');
const HEAVY = /^lib\/(engine|cli|reference|traffic)\//;

/** The files a module loads at run time, transitively (relative imports that are not `import type`). */
function loaded(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, spec] of text.matchAll(/^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/gm)) {
    if (spec) loaded(resolve(dirname(file), spec.replace(/\.js$/, '.ts')), seen);
  }
  return seen;
}

describe('what the presentation child loads', () => {
  it('every suite file and the reporter load no engine, CLI, reference or traffic module', () => {
    const entries = readdirSync(SUITES).filter((f) => f.endsWith('.suite.ts') || f === 'auditor-reporter.ts').map((f) => join(SUITES, f));
    const heavy = entries.flatMap((e) => [...loaded(e)].map((f) => relative(ROOT, f)).filter((f) => HEAVY.test(f)).map((f) => `${relative(ROOT, e)} loads ${f}`));
    expect(heavy).toEqual([]);
    // The walk itself sees through to what the standalone setup loads.
    expect([...loaded(join(SUITES, 'conformance.setup.ts'))].map((f) => relative(ROOT, f))).toContain('lib/cli/write-reports.ts');
  });

  it('every area has its suite file, which presents that area', () => {
    for (const area of AREAS) {
      const file = join(SUITES, `${areaFile(area)}.suite.ts`);
      expect(existsSync(file), area).toBe(true);
      expect(readFileSync(file, 'utf8')).toContain(`presentArea('${area}')`);
    }
  });
});

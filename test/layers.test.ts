// Imports run downward only: parsers and the transport know nothing of the contract, the contract
// nothing of checks, checks nothing of the engine, the reference nothing of checks, reports or the
// CLI. A folder under lib/ that this table does not name fails here until it is given its place.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const LIB = resolve(import.meta.dirname, '..', 'lib');

/** Files at lib/'s root that everything may use (limits, paths, the option parser, detached copies, peak memory). */
const BASE = ['body-limits', 'paths', 'options', 'detached', 'digits', 'child-ahead', 'peak-rss'];
/** What each folder (or root script) may import, besides itself and BASE. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  json: [],
  xml: [],
  http: ['json'],
  contract: ['json', 'xml'],
  checks: ['contract', 'json', 'xml', 'http'],
  engine: ['checks', 'contract', 'json', 'xml', 'http'],
  reference: ['contract', 'json', 'xml', 'http'],
  reporting: ['checks', 'engine', 'contract', 'json', 'xml', 'http'],
  traffic: ['http', 'json'],
  cli: ['reporting', 'engine', 'checks', 'reference', 'traffic', 'contract', 'json', 'xml', 'http'],
  'generated-docs': ['checks', 'contract', 'reporting'],
};

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

/** The layer a file under lib/ belongs to: its top folder, or its own name at the root. */
const layerOf = (path: string): string => {
  const rel = relative(LIB, path).split(/[\\/]/);
  return rel.length > 1 ? rel[0]! : rel[0]!.replace(/\.ts$/, '');
};

/** The imports of one file (its path and text) that run against the table. */
function violations(file: string, text: string): string[] {
  const from = layerOf(file);
  if (BASE.includes(from)) return [];
  const allowed = MAY_IMPORT[from];
  if (!allowed) return [`${relative(LIB, file)}: lib/${from} has no place in the layer table`];
  const wrong: string[] = [];
  for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
    const to = layerOf(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
    if (to !== from && !BASE.includes(to) && !allowed.includes(to)) wrong.push(`${relative(LIB, file)} imports ${spec} (lib/${from} → lib/${to})`);
  }
  return wrong;
}

describe('layers', () => {
  it('every import under lib/ runs downward', () => {
    expect([...files(LIB)].flatMap((f) => violations(f, readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('catches an import that runs upward, a dynamic one too, and a folder without a place', () => {
    expect(violations(join(LIB, 'reference', 'x.ts'), "import { Redactor } from '../reporting/redact.js';")).toHaveLength(1);
    expect(violations(join(LIB, 'checks', 'x.ts'), "const run = await import('../engine/run.js');")).toHaveLength(1);
    expect(violations(join(LIB, 'json', 'x.ts'), "import { OPERATIONS } from '../contract/operations.js';")).toHaveLength(1);
    expect(violations(join(LIB, 'newplace', 'x.ts'), '')).toEqual(['newplace/x.ts: lib/newplace has no place in the layer table']);
    expect(violations(join(LIB, 'checks', 'x.ts'), "import { OPERATIONS } from '../contract/operations.js';\nimport { parseOptions } from '../options.js';")).toEqual([]);
  });
});

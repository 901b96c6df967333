// Documentation that must stay true: generated documents match the code, .env.example names every
// variable the CLI reads, and the vendored spec matches the shared original where it is present.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_OPTIONS, NAMESPACE_ENV, REQUEST_VALUE_ENV } from '../lib/cli/config.js';
import { envNames } from '../lib/options.js';
import { GENERATED_DOCS } from '../lib/generated-docs.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('documentation', () => {
  for (const [path, make] of Object.entries(GENERATED_DOCS)) {
    it(`${path} is up to date (else run: npm run docs)`, () => {
      expect(read(path)).toBe(make());
    });
  }

  it('.env.example names every variable the CLI reads (from its option table)', () => {
    const example = read('.env.example');
    const names = [...envNames(CONFORMANCE_OPTIONS), ...Object.values(NAMESPACE_ENV), ...REQUEST_VALUE_ENV];
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((n) => !new RegExp(`^#? ?${n}=`, 'm').test(example))).toEqual([]);
  });

  it('the CI workflow runs the harness on a secret URL, uploads the reports and gates on the exit code', () => {
    const wf = read('docs/ci/conformance.yml');
    expect(wf).toContain('secrets.CONFORMANCE_BASE_URL');
    expect(wf).toMatch(/run: \|\n(.*\n)*\s+npm run conformance -- "\$\{args\[@\]\}"/);
    expect(wf).toMatch(/if: always\(\)\n\s+uses: actions\/upload-artifact@v4\n\s+with:\n\s+name: conformance-report\n\s+path: reports\//);
    expect(wf).not.toMatch(/continue-on-error/);
  });

  it('the sharded CI workflow runs four shards and merges them into one gated verdict', () => {
    const wf = read('docs/ci/conformance-sharded.yml');
    expect(wf).toMatch(/matrix:\n\s+shard: \[1, 2, 3, 4\]/);
    expect(wf).toContain('--shard "${{ matrix.shard }}/4"');
    expect(wf).toMatch(/merge:\n\s+needs: shard\n\s+if: always\(\)/);
    expect(wf).toContain('npm run report -- --merge shards/conformance-shard-1 shards/conformance-shard-2 shards/conformance-shard-3 shards/conformance-shard-4');
    expect(wf).not.toMatch(/continue-on-error/);
  });

  it('the README names every option of npm run conformance (from its option table)', () => {
    const readme = read('README.md');
    expect(Object.keys(CONFORMANCE_OPTIONS).filter((name) => !readme.includes(`--${name}`))).toEqual([]);
  });

  it('the README shows the two quick-start commands', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm run conformance');
    expect(readme).toContain('npm test');
  });

  const shared = new URL('../../shared/spec/', import.meta.url);
  // interface.md is normative and vendored unchanged. servicestack-notes.md was written from sources
  // and never run: the .NET oracle corrected it where .NET disagreed, so it may only have grown
  // corrections (every heading of the shared copy is still there, and it says it was corrected).
  it.skipIf(!existsSync(shared))('docs/spec holds the shared spec unchanged, and the shared notes corrected by .NET', () => {
    expect(read('docs/spec/interface.md')).toBe(readFileSync(new URL('interface.md', shared), 'utf8'));
    const notes = read('docs/spec/servicestack-notes.md');
    const headings = readFileSync(new URL('servicestack-notes.md', shared), 'utf8').split('\n').filter((l) => l.startsWith('## '));
    expect(headings.filter((h) => !notes.includes(h))).toEqual([]);
    expect(notes).toMatch(/\*\*observed\*\*/);
  });
});

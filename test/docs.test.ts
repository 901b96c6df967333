// Documentation that must stay true: generated documents match the code, .env.example names every
// variable the CLI reads, and the vendored spec matches the shared original where it is present.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_OPTIONS, NAMESPACE_ENV, REQUEST_VALUE_ENV } from '../lib/cli/config.js';
import { envNames } from '../lib/options.js';
import { GENERATED_DOCS } from '../lib/generated-docs.js';
import { BODY_LIMITS } from '../lib/body-limits.js';
import { DEFAULT_MAX_BODY_BYTES, MAX_TRIES, RETRY_BUDGET, RETRY_FLOOR_MS } from '../lib/http/send.js';
import { ANSWER_CACHE_BYTES } from '../lib/reference/answer-cache.js';
import { FingerprintSet } from '../lib/reporting/fingerprints.js';
import { MAX_LEARNED } from '../lib/reporting/redact.js';

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

// The README's table of bounds is what an auditor reads first: each figure it states for a bound the
// code holds in a constant is that constant's (it said 2^21 fingerprints in 32 MiB after the code
// had moved to 3 × 2^20 in 16 MiB).
describe('the README\'s table of bounds states the bounds the code holds', () => {
  const readme = read('README.md');
  const table = readme.slice(readme.indexOf('### Security: every bound'));
  const row = (first: string): string => {
    const line = table.split('\n').find((l) => l.startsWith(`| ${first} |`));
    expect(line, first).toBeDefined();
    return line!.split(' | ')[1]!;
  };
  /** 50 000 as the table writes it (a space between thousands). */
  const spaced = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ' ');
  const mib = (bytes: number): string => `${bytes / 1024 / 1024} MiB`;

  it('a response body: the default --max-body-mib', () => {
    expect(row('A response body')).toContain(`(${mib(DEFAULT_MAX_BODY_BYTES)})`);
  });
  it('a body\'s shape: every limit of lib/body-limits.ts', () => {
    const b = BODY_LIMITS;
    expect(row('A body\'s shape')).toContain(`${b.depth} levels, ${spaced(b.nodes)} values, ${spaced(b.children)} members, ${b.attributes} attributes, ${b.numberLength}-character numbers, ${spaced(b.nameLength)}-character names`);
  });
  it('retries: tries per exchange, the floor between them and the run\'s budget', () => {
    expect(row('Retries (429, 503)')).toContain(`${MAX_TRIES} requests per exchange, at least ${RETRY_FLOOR_MS} ms apart, a run budget of ${RETRY_BUDGET.min} retries or ${RETRY_BUDGET.share * 100}% of the requests`);
  });
  it('learned secrets: MAX_LEARNED fingerprints in a table of its size, here and in Reports', () => {
    const bytes = new FingerprintSet(MAX_LEARNED).maxBytes;
    const count = MAX_LEARNED.toLocaleString('en-US');
    expect(row('Learned secrets')).toContain(`(${count}) fingerprints, in one table of ${mib(bytes)}`);
    expect(readme.replace(/\s+/g, ' ')).toContain(`at most ${count} fingerprints, in a table of ${mib(bytes)} allocated once`);
  });
  it('the reference\'s cache of population answers: its default size', () => {
    expect(row('The reference\'s cache of population answers')).toMatch(new RegExp(`^${mib(ANSWER_CACHE_BYTES)} of answer bytes`));
  });
});

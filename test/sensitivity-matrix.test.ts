// The harness proven against the reference: every fault is caught by exactly the checks it
// declares, every MUST check is caught by some fault, and no legitimate style raises anything.
// Faults only some inputs trigger (evidence: 'generated') cannot fail anything under the probes: here
// they are shown to stay silent under the probes, and test/generated.test.ts proves they are found.
// Fails when docs/sensitivity-matrix.md differs from what this run measured; UPDATE_DOCS=1 rewrites
// it and skips the comparison, saying so (read the diff before committing). A stale copy fails every run until it is updated on purpose.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { judgedOverHttp, LEGITIMATE_CLIENTS, WRONG_CLIENTS, type ClientOutcome } from './helpers/client-requests.js';
import { ANSWER_CHECKS, inBatches, matrixMarkdown, outcomeUnder, REQUEST_CHECKS, type Outcome } from './helpers/matrix.js';

const faultOutcomes = new Map<string, Outcome>();
const styleOutcomes = new Map<string, Outcome>();
let plain: Outcome;
/** Wrong and legitimate clients, sent over HTTP to the judging reference. */
let wrongClients: ClientOutcome[];
let legitimateClients: ClientOutcome[];
/** Faults the probes trigger: the matrix. The others need generated requests. */
const PROBED = FAULTS.filter((f) => !f.evidence);
const INPUT_DEPENDENT = FAULTS.filter((f) => f.evidence);

beforeAll(async () => {
  plain = await outcomeUnder([]);
  const f = await inBatches(FAULTS, 8, (v) => outcomeUnder([v]));
  FAULTS.forEach((v, i) => faultOutcomes.set(v.name, f[i]!));
  const s = await inBatches(STYLES, 8, (v) => outcomeUnder([v]));
  STYLES.forEach((v, i) => styleOutcomes.set(v.name, s[i]!));
  wrongClients = await judgedOverHttp(WRONG_CLIENTS.map(([, r]) => r));
  legitimateClients = await judgedOverHttp(LEGITIMATE_CLIENTS.map(([, r]) => r));
}, 60_000);

describe('declarations', () => {
  it('every fault and style has a unique name and a one-line description', () => {
    const names = [...FAULTS, ...STYLES].map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const v of [...FAULTS, ...STYLES]) expect(v.description, v.name).toMatch(/^[^\n]{10,160}$/);
  });
  it('every fault the probes trigger names only MUST checks of the catalogue', () => {
    for (const f of PROBED) for (const id of f.breaks) expect(checkById.get(id)?.level, `${f.name}: ${id}`).toBe('MUST');
  });
  it('every input-dependent fault names checks of the catalogue', () => {
    expect(INPUT_DEPENDENT.length).toBeGreaterThan(0);
    for (const f of INPUT_DEPENDENT) for (const id of f.breaks) expect(checkById.has(id), `${f.name}: ${id}`).toBe(true);
  });
});

describe('the plain reference', () => {
  it('passes every check', () => {
    expect(plain).toEqual({ verdict: 'conformant', failed: { MUST: [], SHOULD: [] } });
  });
});

describe('each fault fails exactly the checks it declares', () => {
  for (const f of PROBED) {
    it(`${f.name}: ${f.breaks.join(', ')}`, () => {
      const o = faultOutcomes.get(f.name)!;
      expect(o.verdict).toBe('non-conformant');
      expect([...o.failed.MUST].sort()).toEqual([...f.breaks].sort());
    });
  }
});

describe('an input-dependent fault is silent under the probes (test/generated.test.ts finds it)', () => {
  for (const f of INPUT_DEPENDENT) {
    it(f.name, () => {
      expect(faultOutcomes.get(f.name)).toEqual({ verdict: 'conformant', failed: { MUST: [], SHOULD: [] } });
    });
  }
});

describe('each style fails nothing', () => {
  for (const s of STYLES) {
    it(s.name, () => {
      expect(styleOutcomes.get(s.name)).toEqual({ verdict: 'conformant', failed: { MUST: [], SHOULD: [] } });
    });
  }
});

describe('coverage', () => {
  it('every MUST check is failed by at least one fault (kill rate 100%)', () => {
    const killed = new Set(PROBED.flatMap((f) => faultOutcomes.get(f.name)!.failed.MUST));
    expect(ANSWER_CHECKS.filter((c) => c.level === 'MUST' && !killed.has(c.id)).map((c) => c.id)).toEqual([]);
  });

  it('every MUST request check is failed by at least one wrong client, over HTTP; no legitimate client fails any', () => {
    const killed = new Set(wrongClients.flatMap((o) => o.failed));
    expect(REQUEST_CHECKS.filter((c) => c.level === 'MUST' && !killed.has(c.id)).map((c) => c.id)).toEqual([]);
    WRONG_CLIENTS.forEach(([why, , expected], i) => expect(wrongClients[i]!.failed, why).toEqual([...expected].sort()));
    expect(legitimateClients.flatMap((o) => o.failed)).toEqual([]);
  });

  it('docs/sensitivity-matrix.md is what this run measured (UPDATE_DOCS=1 rewrites it instead)', (ctx) => {
    const path = new URL('../docs/sensitivity-matrix.md', import.meta.url);
    const doc = matrixMarkdown(PROBED, PROBED.map((f) => faultOutcomes.get(f.name)!), STYLES, STYLES.map((s) => styleOutcomes.get(s.name)!),
      INPUT_DEPENDENT, INPUT_DEPENDENT.map((f) => faultOutcomes.get(f.name)!),
      { wrong: WRONG_CLIENTS.map(([name], i) => ({ name, failed: wrongClients[i]!.failed })), legitimate: LEGITIMATE_CLIENTS.map(([name], i) => ({ name, failed: legitimateClients[i]!.failed })) });
    if (process.env.UPDATE_DOCS === '1') {
      writeFileSync(path, doc);
      ctx.skip('rewritten (UPDATE_DOCS=1), not compared: read the diff before committing');
    }
    expect(existsSync(path) ? readFileSync(path, 'utf8') : '', 'run UPDATE_DOCS=1 npx vitest run test/sensitivity-matrix.test.ts and read the diff').toBe(doc);
  });
});

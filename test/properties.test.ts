// Property-based proof: generated records served under random combinations of styles pass every
// MUST check; any single fault on a generated record, under random styles, is caught.
// FC_RUNS raises the number of cases for a deeper local run (default 40 each).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UserDetails } from '../lib/contract/records.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { record } from './helpers/arbitraries.js';
import { outcomeUnder } from './helpers/matrix.js';

const runs = Number(process.env.FC_RUNS ?? 40);
const styles = fc.subarray([...STYLES], { maxLength: 6 });

describe('properties', () => {
  it('generated records under random styles pass every MUST check', async () => {
    await fc.assert(fc.asyncProperty(record(UserDetails), styles, async (data, chosen) => {
      const o = await outcomeUnder(chosen, data);
      const styles = `styles: ${chosen.map((s) => s.name).join(', ') || 'none'}`;
      expect(o.failed.MUST, styles).toEqual([]);
      expect(o.verdict, styles).toBe('conformant'); // no MUST check merely skipped either
    }), { numRuns: runs });
  }, 120_000);

  it('a random single fault on a generated record, under random styles, is always caught', async () => {
    // Faults only some inputs trigger (evidence: 'generated') need generated requests: test/generated.test.ts.
    await fc.assert(fc.asyncProperty(record(UserDetails), styles, fc.constantFrom(...FAULTS.filter((f) => !f.evidence)), async (data, chosen, fault) => {
      const o = await outcomeUnder([...chosen, fault], data);
      expect(o.verdict, `fault ${fault.name}, styles: ${chosen.map((s) => s.name).join(', ') || 'none'}`).toBe('non-conformant');
    }), { numRuns: runs });
  }, 120_000);

  // Found by the property above (seed -776060665): the gzip style compressed the body the fault
  // meant to leave plain, so the two together answered correctly.
  it('the fault gzip-header-plain-body under the gzip style, in either order, fails CONTENT-CODING', async () => {
    const [gzip, fault] = [STYLES.find((s) => s.name === 'gzip')!, FAULTS.find((f) => f.name === 'gzip-header-plain-body')!];
    for (const order of [[gzip, fault], [fault, gzip]]) {
      const o = await outcomeUnder(order);
      expect([o.verdict, o.failed.MUST.includes('CONTENT-CODING')], order.map((v) => v.name).join(', ')).toEqual(['non-conformant', true]);
    }
  }, 120_000);
});

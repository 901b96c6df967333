// A query past 4 KiB is parsed only in the parameters named `callback` or `format` (classify's
// queryValue): the same values URLSearchParams gives, in any spelling of the name (%63allback), the
// first of repeated ones, while a recorded query of 9 MB costs no parse of the rest (it held 150 MB).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify } from '../lib/contract/classify.js';

const PAD = `pad=${'x'.repeat(5000)}`;
const kindOf = (query: string) => classify({ method: 'GET', url: `http://h/supportstateuser?${query}`, headers: {} });
const byParams = (query: string) => {
  const p = new URL(`http://h/supportstateuser?${query}`).searchParams;
  return { callback: p.get('callback') ?? undefined, format: p.get('format') };
};

/** A query's parameters: names that are, nearly are, or spell `callback` and `format` otherwise. */
const name = fc.constantFrom('callback', 'format', '%63allback', 'c%61llback', 'f%6Frmat', 'callbac', 'formats', 'call+back', 'CALLBACK', 'format%00', '%66%6f%72%6d%61%74', 'userName', '');
const value = fc.constantFrom('cb', 'json', 'xml', 'a+b', '%41', '', 'x'.repeat(20), 'jsv');
const query = fc.array(fc.tuple(name, value, fc.boolean()).map(([n, v, eq]) => (eq ? `${n}=${v}` : n)), { maxLength: 8 }).map((ps) => ps.join('&'));

describe('classify of a query longer than 4 KiB', () => {
  it('reads callback and format as URLSearchParams does, whatever comes before or after them', () => {
    fc.assert(fc.property(query, fc.boolean(), (q, padFirst) => {
      const long = padFirst ? `${PAD}&${q}` : `${q}&${PAD}`;
      const kind = kindOf(long);
      const expected = byParams(long);
      expect({ callback: kind.callback, selected: kind.selected }).toEqual({ callback: expected.callback, selected: kindOf(expected.format === null ? '' : `format=${encodeURIComponent(expected.format)}`).selected });
    }), { numRuns: 3000 });
  });
});

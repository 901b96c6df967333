// A query is parsed only in the parameters that may be named `callback` or `format` (classify's
// queryValue): the same values the whole query parsed gives, read as ASP.NET Core's Request.Query reads
// them (any spelling of the name, %63allback or CALLBACK; repeated values joined by commas, empty
// ones left out), while a recorded query of 9 MB costs no parse of the rest (it held 150 MB).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify } from '../lib/contract/classify.js';

const PAD = `pad=${'x'.repeat(5000)}`;
const kindOf = (query: string) => classify({ method: 'GET', url: `http://h/supportstateuser?${query}`, headers: {} });
/** The query parsed whole, each name read as ASP.NET Core's Request.Query reads it (ASCII letters in any case). */
const byParams = (query: string) => {
  const pairs = [...new URL(`http://h/supportstateuser?${query}`).searchParams];
  const get = (n: string) => {
    const values = pairs.filter(([k]) => k.replace(/[A-Z]/g, (c) => c.toLowerCase()) === n).map(([, v]) => v);
    return values.length ? values.filter((v) => v !== '').join(',') : null;
  };
  return { callback: get('callback') ?? undefined, format: get('format') };
};

/** A query's parameters: names that are, nearly are, or spell `callback` and `format` otherwise. */
const name = fc.constantFrom('callback', 'format', '%63allback', 'c%61llback', 'f%6Frmat', 'callbac', 'formats', 'call+back', 'CALLBACK', 'Format', 'callbac%E2%84%AA', 'format%00', '%66%6f%72%6d%61%74', 'userName', '');
const value = fc.constantFrom('cb', 'json', 'xml', 'a+b', '%41', '', 'x'.repeat(20), 'jsv');
const query = fc.array(fc.tuple(name, value, fc.boolean()).map(([n, v, eq]) => (eq ? `${n}=${v}` : n)), { maxLength: 8 }).map((ps) => ps.join('&'));

describe('classify of a query longer than 4 KiB', () => {
  it('reads callback and format as the whole query parsed gives them, in a short query and whatever comes before or after them in a long one', () => {
    fc.assert(fc.property(query, fc.constantFrom('first', 'last', 'none'), (q, pad) => {
      const long = pad === 'first' ? `${PAD}&${q}` : pad === 'last' ? `${q}&${PAD}` : q;
      const kind = kindOf(long);
      const expected = byParams(long);
      expect({ callback: kind.callback, selected: kind.selected }).toEqual({ callback: expected.callback, selected: kindOf(expected.format === null ? '' : `format=${encodeURIComponent(expected.format)}`).selected });
    }), { numRuns: 3000 });
  });
});

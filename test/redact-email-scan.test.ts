// E-mail addresses in a text are found from each @ (emailMatches), not by a global regular expression
// tried at every position: the matches must be exactly those text.matchAll(EMAIL) gives, on any text.
// (Found by a global scan, a 256 KiB run of letters cost over a minute: differential-bounds took 75 s.)
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emailMatches } from '../lib/reporting/redact.js';

const GLOBAL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
const listed = (ms: Iterable<RegExpExecArray | RegExpMatchArray>) => [...ms].map((m) => [m.index, m[0]]);

describe('emailMatches', () => {
  it('gives the matches of the global expression on texts of @, dots, local-part and other characters (3 000 texts, fixed seed)', () => {
    const text = fc.array(fc.constantFrom('a', 'B', '7', '.', '-', '%', '+', '_', '@', '@', ' ', 'é', ','), { maxLength: 40 }).map((cs) => cs.join(''));
    fc.assert(fc.property(text, (t) => { expect(listed(emailMatches(t))).toEqual(listed(t.matchAll(GLOBAL))); }), { numRuns: 3000, seed: 20261126 });
  });

  it('named cases: matches back to back, a domain ending in a local-part character, an @ with no local part or no domain', () => {
    for (const t of ['a@b.c%x@y.z', 'x@y.z@w.v', '@a.b a@b', 'jane@example.org, bo@x.io', '..a@b.c.', 'a@b.c'.repeat(3)]) {
      expect([t, listed(emailMatches(t))]).toEqual([t, listed(t.matchAll(GLOBAL))]);
    }
  });
});

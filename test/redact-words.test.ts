// The ASCII fast path of the redactor's word splitter (wordsOf) gives exactly the words of the
// Unicode pattern it stands in for: a learned token split differently would be masked differently.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wordsOf } from '../lib/reporting/redact.js';

const TOKEN = /(?:[\p{L}\p{N}_@+~.-]|:(?=[\p{L}\p{N}]))+/gu;
const TRIM = /^[.@:-]+|[.@:-]+$/g;
const byPattern = (t: string): string[] => [...t.matchAll(TOKEN)].map((m) => m[0].replace(TRIM, '')).filter((w) => w.length > 0);

/** ASCII text dense in the characters that decide a token's edges. */
const asciiText = fc.array(fc.oneof(fc.constantFrom(...'aZ09_@+~.-: \t"<>/=,;\\%&#\n\u0000\u007f'), fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c))), { maxLength: 60 }).map((a) => a.join(''));

describe('wordsOf', () => {
  it('splits ASCII text into the words the Unicode token pattern finds', () => {
    fc.assert(fc.property(asciiText, (t) => { expect(wordsOf(t)).toEqual(byPattern(t)); }), { numRuns: 20000 });
  });

  it('splits the edge cases by the pattern: colons before digits, trimmed ends, e-mail addresses', () => {
    for (const t of ['00:00:00', 'name: value', 'a:', ':a', '.-@x@-.', 'jdoe@example.com.', 'x:y:', '--', '::1', 'a+b~c_d']) expect(wordsOf(t)).toEqual(byPattern(t));
    expect(wordsOf('name: value 2026-11-01t00:00:00, a.b@c.d.')).toEqual(['name', 'value', '2026-11-01t00:00:00', 'a.b@c.d']);
  });

  it('falls back to the pattern for text beyond ASCII', () => {
    for (const t of ['café:été', 'ß-x', 'a:é', 'é:1', '日本:語']) expect(wordsOf(t)).toEqual(byPattern(t));
  });
});

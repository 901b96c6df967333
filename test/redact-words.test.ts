// The redactor's word splitter (wordsOf: by codes for ASCII text, by code points beyond it) gives
// exactly the words of the Unicode pattern it stands in for: a learned token split differently would
// be masked differently. The pattern itself, its loop unbounded, overflows its stack on a token of
// millions of characters, which one client's request to the proxy held.
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

  it('splits text beyond ASCII into the words the pattern finds (surrogates, marks, digits of other scripts)', () => {
    for (const t of ['café:été', 'ß-x', 'a:é', 'é:1', '日本:語', 'a:😀', 'x:𝟘y', '\ud800a', 'a\udc00:b']) expect(wordsOf(t)).toEqual(byPattern(t));
    const unit = fc.constantFrom(...['a', 'Z', '1', ':', '.', '@', '-', '_', '+', '~', ' ', '/', 'é', '名', '١', '😀', '\ud800', '\udc00', '𝟘', 'ǅ', '\u0301', '\u00a0', ',', '=', '%']);
    fc.assert(fc.property(fc.array(unit, { minLength: 1, maxLength: 40 }).map((a) => a.join('')), (t) => { expect(wordsOf(t)).toEqual(byPattern(t)); }), { numRuns: 20000 });
  });

  it('reads a token of nine million characters beyond ASCII as one word, where the pattern overflows its stack', () => {
    const token = `${'q'.repeat(9_000_000)}é`;
    expect(() => byPattern(token)).toThrow(RangeError);
    const words = wordsOf(`x ${token} y`);
    expect([words.length, words[0], words[1]?.length, words[2]]).toEqual([3, 'x', token.length, 'y']);
  });
});

// maskActual finds a received value as a word of its own by scanning, not by compiling an expression
// per value (a Unicode property class costs about a millisecond to compile, per finding of a faulty
// answer). It must mask exactly what the expression it replaces masked, surrogate pairs included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HARNESS_WORDS } from '../lib/checks/harness-words.js';
import { maskActual } from '../lib/engine/tally.js';

/** The former rule, as an expression compiled per value. */
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const byExpression = (text: string, actual?: string): string => {
  if (!actual || HARNESS_WORDS.has(actual.toLowerCase())) return text;
  const value = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(actual)}(?![\\p{L}\\p{N}_])`, 'gu');
  return text.split(/(«[^«»]*»)/).map((part, i) => (i % 2 ? part : part.replace(value, '…'))).join('');
};

// Letters, digits of other scripts, `_`, separators, markers, expression syntax, and halves of a
// surrogate pair (a letter outside the BMP, and an emoji), alone and paired.
const PIECES = ['a', 'B', '1', '_', ' ', '-', '.', '"', '«', '»', '(', '*', 'é', '٣', '\u{1D400}', '\u{1F600}', '\uD835', '\uDC00', '\uD83D', '\uDE00', 'ab', '12'];
const piece = fc.constantFrom(...PIECES);
const text = fc.array(piece, { maxLength: 14 }).map((p) => p.join(''));
const actual = fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join(''));

describe('maskActual', () => {
  it('masks what the per-value expression masked, on texts of letters, digits, markers and surrogates', () => {
    fc.assert(fc.property(text, actual, (t, a) => {
      expect(maskActual(t, a)).toBe(byExpression(t, a));
    }), { numRuns: 3000 });
  });

  it('masks a value standing alone, leaves it inside a word or a «marker», and leaves the harness\'s words', () => {
    expect(maskActual('x 2054-12-23T20:47:38.413Z (a string): 2054-12-23T20:47:38.413Zz', '2054-12-23T20:47:38.413Z'))
      .toBe('x … (a string): 2054-12-23T20:47:38.413Zz');
    expect(maskActual('«personal: 42» 42 142 42_ \u{1D400}42', '42')).toBe('«personal: 42» … 142 42_ \u{1D400}42');
    expect(maskActual('(string): expected an integer', 'string')).toBe('(string): expected an integer');
  });
});

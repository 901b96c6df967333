// The canonical form of plain text (ASCII without \, & or %: nothing to decode, nothing invisible)
// is read by code, character by character: it must be the text lower-cased, each character mapped to
// itself, and a plain run beside an encoded one must not change how the encoded one decodes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical } from '../lib/reporting/spellings.js';

const plain = fc.array(fc.integer({ min: 0, max: 127 }).filter((c) => c !== 0x5c && c !== 0x26 && c !== 0x25).map((c) => String.fromCharCode(c)), { maxLength: 80 }).map((a) => a.join(''));

describe('canonical of plain text', () => {
  it('is the text lower-cased, every character mapped to its own place', () => {
    fc.assert(fc.property(plain, (s) => {
      const c = canonical(s);
      expect(c.text).toBe(s.toLowerCase());
      expect([...c.from]).toEqual([...s].map((_, i) => i));
      expect([...c.to]).toEqual([...s].map((_, i) => i + 1));
    }), { numRuns: 5000 });
  });

  it('decodes what stands between plain runs as before: escapes, references, percent-encoding, invisible characters', () => {
    const c = canonical('A\\u0041b&#x42;C%41d\u200be');
    expect(c.text).toBe('aabbcade');
    expect([...c.from]).toEqual([0, 1, 7, 8, 14, 15, 18, 20]);
    expect([...c.to]).toEqual([1, 7, 8, 14, 15, 18, 20, 21]);
  });
});

// The byte-by-byte JSON check (lib/json/syntax.ts) a reader runs beside its own walk: it must call a
// text JSON exactly where JSON.parse (RFC 8259) does, and name the first byte that makes it not.
import { describe, expect, it } from 'vitest';
import { JsonSyntax, stringDefect } from '../lib/json/syntax.js';

/** Where `text` stops being JSON ("end": at its end), or "valid": the check fed as the HAR scan feeds
 *  it (bytes outside strings and each opening quote; a string's content to stringDefect). */
function checked(text: string): number | 'end' | 'valid' {
  const b = Buffer.from(text);
  const syntax = new JsonSyntax();
  const inner = stringDefect(b, 0, b.length, { inString: false, escaped: false });
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    const bad = syntax.byte(c);
    if (bad !== undefined) return inner && inner.at < i ? inner.at : i;
    if (c !== 0x22) continue;
    // Skipped to the closing quote, past escapes.
    for (i++; i < b.length && b[i] !== 0x22; i++) if (b[i] === 0x5c) i++;
    if (i >= b.length) return inner ? inner.at : 'end';
  }
  if (inner) return inner.at;
  return syntax.end() === undefined ? 'valid' : 'end';
}

const VALID = ['0', '-0', '12', '1.5', '-0.25e+3', '1E-2', '1e5', 'true', 'false', 'null', '""', '"a\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"', ' [ ] ', '{}', '[1,[2,{"a":[null]}],"x"]', '{"a":1,"b":{"c":true}}\n', '"\u00e9\u65e5"'];
/** Each invalid text, and the first byte that makes it so (the end: its length). */
const INVALID: [string, number][] = [
  ['', 0], [' ', 1], ['01', 1], ['1.', 2], ['.5', 0], ['-', 1], ['+1', 0], ['1e', 2], ['1e+', 3], ['1.e3', 2], ['-a', 1], ['12a', 2],
  ['nul', 3], ['nul}', 3], ['nulx', 3], ['nullx', 4], ['True', 0], ['[1,]', 3], ['{"a":1,}', 7], ['{"a" 1}', 5], ['{"a":}', 5], ['[,1]', 1],
  ['[1 2]', 3], ['{"a":1 "b":2}', 7], ['[1}', 2], ['{"a":1]', 6], ['{a:1}', 1], ['[1]]', 3], ['[1] x', 4], ['{}{}', 2], ['"ab', 3], ['["a\tb"]', 3],
  ['"\\q"', 2], ['"\\u12G4"', 5], ['[', 1], ['{"a":', 5], ['{"a":1', 6], ['\ufeff{}', 0],
];

describe('the JSON syntax check', () => {
  it('takes as JSON what JSON.parse takes', () => {
    for (const text of VALID) {
      expect(() => JSON.parse(text), text).not.toThrow();
      expect(checked(text), text).toBe('valid');
    }
  });

  it('refuses what JSON.parse refuses, at the first byte that makes it no JSON (or at its end)', () => {
    for (const [text, at] of INVALID) {
      expect(() => JSON.parse(text), text).toThrow();
      const where = checked(text);
      expect(where === 'end' ? Buffer.byteLength(text) : where, text).toBe(at);
    }
  });
});

// Strict JSON reading: what JSON.parse throws away (a number's lexeme, a repeated key) is still seen,
// whether the answer takes the fast path (nothing to see) or the full walk.
import { describe, expect, it } from 'vitest';
import { parseJson } from '../lib/json/parse.js';

const parsed = (text: string) => {
  const r = parseJson(text);
  if (!r.ok) throw new Error(r.error);
  return { numbers: Object.fromEntries(r.json.numbers), duplicateKeys: r.json.duplicateKeys };
};

describe('parseJson', () => {
  it('a plain record: no lexemes kept, no duplicates', () => {
    expect(parsed('{"a":1,"b":[{"c":2},{}],"d":{ },"e":"{x,y}","f":-3}')).toEqual({ numbers: {}, duplicateKeys: [] });
  });
  it('keeps the lexeme of every number not written as an integer literal, at its path', () => {
    expect(parsed('{"a":42.0,"b":[1,4.2e1],"c":{"d":1E3}}').numbers).toEqual({ '$.a': '42.0', '$.b[1]': '4.2e1', '$.c.d': '1E3' });
  });
  it('finds a repeated key at any depth, whatever came before it', () => {
    expect(parsed('{"x":[{}, {"k":1}],"a":{"b":1,"b":2},"z":{}}').duplicateKeys).toEqual(['$.a.b']);
    expect(parsed('{"a":{"x":{"y":1}},"a":2}').duplicateKeys).toEqual(['$.a']);
    expect(parsed('[{"a":1},{"a":1,"a":1}]').duplicateKeys).toEqual(['$[1].a']);
  });
  it('names where a text is not JSON once, as an offset, whether V8 says "in JSON" or "after JSON" at a position', () => {
    expect(parseJson('{} x')).toEqual({ ok: false, error: 'not valid JSON: Unexpected non-whitespace character after JSON at offset 3' });
    expect(parseJson('{"a" 1}')).toEqual({ ok: false, error: "not valid JSON: Expected ':' after property name at offset 5" });
    expect(parseJson('"abc')).toEqual({ ok: false, error: 'not valid JSON: Unterminated string at offset 4' });
  });
  it('refuses invalid JSON in one line', () => {
    expect(parseJson('{"a":')).toEqual({ ok: false, error: expect.stringMatching(/^not valid JSON: /) });
  });
});

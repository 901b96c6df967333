// memberTexts (lib/json/member-texts.ts) gives each member of a JSON object its value's text exactly
// as written: held to jsonc-parser's offsets over arbitrary JSON, written compact and spread out.
import fc from 'fast-check';
import { visit } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { memberTexts } from '../lib/json/member-texts.js';

/** The same, from jsonc-parser's visitor: the oracle. */
function byVisitor(text: string): Map<string, string> {
  const texts = new Map<string, string>();
  let depth = 0;
  let name: string | undefined;
  let from = -1;
  const begin = (offset: number) => { if (depth++ === 1) from = offset; };
  const end = (offset: number, length: number) => { if (--depth === 1 && name !== undefined) texts.set(name, text.slice(from, offset + length)); };
  visit(text, {
    onObjectBegin: begin, onArrayBegin: begin, onObjectEnd: end, onArrayEnd: end,
    onObjectProperty: (property) => { if (depth === 1) name = property; },
    onLiteralValue: (_v, offset, length) => { if (depth === 1 && name !== undefined) texts.set(name, text.slice(offset, offset + length)); },
  });
  return texts;
}

/** JSON.stringify's text with its escapes respelled (\u00XX, \/) and spaces between tokens. */
const respelled = (text: string, spaces: string) => text.split(/("(?:[^"\\]|\\.)*")/).map((part, i) => (i % 2
  ? part.replace(/[a-z/]/g, (c) => (c === '/' ? '\\/' : `\\u00${c.charCodeAt(0).toString(16)}`))
  : part.replace(/([,:{}[\]])/g, `${spaces}$1${spaces}`))).join('');

describe('memberTexts', () => {
  it('gives each member\'s value text as jsonc-parser locates it, for any object, compact or spread out', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom('', ' ', '\t', ' \r\n '), (object, spaces) => {
      for (const text of [JSON.stringify(object), respelled(JSON.stringify(object), spaces)]) {
        expect(memberTexts(text)).toEqual(byVisitor(text));
      }
    }), { numRuns: 500 });
  });

  it('keeps a number\'s lexeme and a string\'s escapes', () => {
    expect([...memberTexts(String.raw` { "a" : -0 , "b\u0022":"\u00e9\/", "c":[1.0,{"d":1E+2}] ,"e":12345678901234567890}`)]).toEqual([
      ['a', '-0'], ['b"', String.raw`"\u00e9\/"`], ['c', '[1.0,{"d":1E+2}]'], ['e', '12345678901234567890'],
    ]);
  });
});

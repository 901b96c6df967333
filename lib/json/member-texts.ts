// The text of each member of a JSON object, as written: what a body made of that text sends.
import { visit } from 'jsonc-parser';

/** Each member of the JSON object `text` (valid JSON, no key twice) by name: its value's text as
 *  written, escapes, lexemes and inner spacing included. */
export function memberTexts(text: string): Map<string, string> {
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
  }, { disallowComments: true, allowTrailingComma: false });
  return texts;
}

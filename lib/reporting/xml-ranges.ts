// Sensitive elements of an XML text, in one linear pass: each start tag named as a sensitive member
// (under any prefix, as an XML reader reads a qualified name), then its end tag found by reading the
// markup in between (CDATA, comments, processing instructions and attribute values are skipped, so an
// end tag written inside them is not taken for the real one). Whatever the element holds is one range,
// with its character data; an element whose end tag never comes (a cut answer) reaches the end.
// Also the text as an XML reader reads character data: CDATA sections unwrapped, comments and
// processing instructions dropped, so a value split by them reads as one.
import { CREDENTIAL_NAME_SOURCE, SENSITIVE_NAMES } from '../contract/sensitivity.js';
import type { KindOf, SensitiveRange } from './sensitive-ranges.js';
import { decodeXmlReferences } from './spellings.js';

/** A start tag of a sensitive member: any prefix (an NCName, and more: whatever stands before the
 *  colon of a tag name), attribute values in either quote (which may hold < and >). */
const SENSITIVE_OPEN = new RegExp(`<((?:[^\\s<>/:!?="']+:)?(${[...SENSITIVE_NAMES.keys()].join('|')}|${CREDENTIAL_NAME_SOURCE}))(?:\\s(?:[^<>"']|"[^"]*"|'[^']*')*)?/?>`, 'giu');

export function xmlRanges(text: string, kindOf: KindOf): SensitiveRange[] {
  if (!text.includes('<')) return [];
  const open = new RegExp(SENSITIVE_OPEN.source, SENSITIVE_OPEN.flags);
  const out: SensitiveRange[] = [];
  for (let m = open.exec(text); m; m = open.exec(text)) {
    const kind = kindOf(m[2]!);
    if (!kind || m[0].endsWith('/>')) continue; // not sensitive, or empty
    const start = m.index + m[0].length;
    const close = endTag(text, start, m[1]!.toLowerCase());
    const data = characterData(text.slice(start, close ?? text.length));
    out.push({ start, end: close ?? text.length, kind, shape: data.whole, values: [data.whole, ...data.pieces], spelling: 'text' });
    if (close === undefined) break;
    open.lastIndex = close;
  }
  return out;
}

/** Where the end tag of an element named `qname` (lower case) starts, reading the markup from `from`
 *  (just past its start tag): nested elements of the same name are counted, and CDATA, comments,
 *  processing instructions and quoted attribute values are skipped. Undefined when none comes. */
function endTag(text: string, from: number, qname: string): number | undefined {
  let depth = 0;
  for (let i = text.indexOf('<', from); i >= 0; i = text.indexOf('<', i)) {
    const skipTo = (terminator: string, after: number) => { const e = text.indexOf(terminator, after); return e < 0 ? -1 : e + terminator.length; };
    let next: number;
    if (text.startsWith('<![CDATA[', i)) next = skipTo(']]>', i + 9);
    else if (text.startsWith('<!--', i)) next = skipTo('-->', i + 4);
    else if (text.startsWith('<?', i) || text.startsWith('<!', i)) next = skipTo('>', i + 2);
    else {
      const closing = text[i + 1] === '/';
      const nameAt = i + (closing ? 2 : 1);
      const name = /^[^\s/>]+/.exec(text.slice(nameAt, nameAt + qname.length + 1))?.[0]?.toLowerCase();
      // The tag's end: the first > outside a quoted attribute value.
      let j = nameAt;
      let quote: string | undefined;
      for (; j < text.length; j++) {
        const c = text[j]!;
        if (quote) { if (c === quote) quote = undefined; } else if (c === '"' || c === "'") quote = c; else if (c === '>') break;
      }
      if (j >= text.length) return undefined;
      if (name === qname) {
        if (closing) { if (depth === 0) return i; depth--; } else if (text[j - 1] !== '/') depth++;
      }
      next = j + 1;
    }
    if (next < 0) return undefined;
    i = next;
  }
  return undefined;
}

/** An element's inner markup as character data: CDATA sections unwrapped, references decoded, tags
 *  dropped; the whole, and each piece between tags. */
function characterData(inner: string): { whole: string; pieces: string[] } {
  const pieces: string[] = [];
  for (let i = 0; i < inner.length;) {
    if (inner.startsWith('<![CDATA[', i)) {
      const end = inner.indexOf(']]>', i + 9);
      pieces.push(inner.slice(i + 9, end < 0 ? inner.length : end));
      i = end < 0 ? inner.length : end + 3;
    } else if (inner.startsWith('<!--', i)) {
      const end = inner.indexOf('-->', i + 4);
      i = end < 0 ? inner.length : end + 3;
    } else if (inner[i] === '<') {
      const end = inner.indexOf('>', i);
      i = end < 0 ? inner.length : end + 1;
    } else {
      const end = inner.indexOf('<', i);
      pieces.push(decodeXmlReferences(inner.slice(i, end < 0 ? inner.length : end)));
      i = end < 0 ? inner.length : end;
    }
  }
  return { whole: pieces.join(''), pieces: pieces.filter((p) => p.trim()) };
}

/** The text as character data reads: CDATA delimiters, comments and processing instructions left
 *  out (markup otherwise kept, as the separator it is), with the index in `text` of each character
 *  kept. Undefined when the text has none of them. */
export function xmlReading(text: string): { readonly text: string; readonly at: Uint32Array } | undefined {
  if (!/<!\[CDATA\[|<!--|<\?/.test(text)) return undefined;
  const at: number[] = [];
  let out = '';
  const keep = (from: number, to: number) => { out += text.slice(from, to); for (let i = from; i < to; i++) at.push(i); };
  for (let i = 0; i < text.length;) {
    if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      const stop = end < 0 ? text.length : end;
      keep(i + 9, stop);
      i = end < 0 ? text.length : end + 3;
    } else if (text.startsWith('<!--', i) || text.startsWith('<?', i)) {
      const end = text.indexOf(text[i + 1] === '!' ? '-->' : '?>', i + 2);
      i = end < 0 ? text.length : end + (text[i + 1] === '!' ? 3 : 2);
    } else {
      const next = text.indexOf('<', i + 1);
      const stop = next < 0 ? text.length : next;
      keep(i, stop);
      i = stop;
    }
  }
  return { text: out, at: Uint32Array.from(at) };
}

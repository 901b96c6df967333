// A fast path for parseXml: a plain document (elements, attributes, text, the five predefined
// entities and character references, an XML declaration; ASCII names; no comment, processing
// instruction, CDATA, DOCTYPE or carriage return)
// read in one pass, into exactly the tree saxes builds for it. Saxes reads about 9 MB/s; a SOAP
// answer is such a document, and a recording holds thousands of them. Anything else, any doubt
// about well-formedness, and any document near a body limit is handed back (undefined), and saxes
// reads it: every error and limit message stays the conforming parser's. test/plain-xml.test.ts
// compares the two on well-formed and broken documents.
import { BODY_LIMITS } from '../body-limits.js';
import { XML_NS, type XmlAttribute, type XmlElement, type XmlNode } from './model.js';

const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** A character this path does not read (XML 1.0 Char without CR; a lone surrogate is none), or the
 *  ']]>' character data may not hold. A loop: a Unicode-mode pattern read about 80 MB/s. */
function unusual(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0xd800) || c === 0x09 || c === 0x0a || (c >= 0xe000 && c <= 0xfffd)) continue;
    if (c <= 0xdbff && c >= 0xd800) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
    }
    return true;
  }
  return s.includes(']]>');
}
const NAME = /[A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?/y;
const DECLARATION = /<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])1\.0\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\3)?[ \t\n]*\?>/y;
const REFERENCE = /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/y;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: '\'' };
const BLANK = /^[ \t\n]*$/;

/** Text with its references replaced; undefined for a reference this path does not read. */
function unescape(raw: string): string | undefined {
  let out = '';
  let from = 0;
  for (let amp = raw.indexOf('&'); amp >= 0; amp = raw.indexOf('&', from)) {
    REFERENCE.lastIndex = amp;
    const m = REFERENCE.exec(raw);
    if (!m) return undefined;
    let char: string;
    if (m[1]) char = NAMED[m[1]]!;
    else {
      const cp = m[2] ? Number(m[2]) : parseInt(m[3]!, 16);
      // A reference must name an XML Char (2.2).
      if (!(cp === 9 || cp === 10 || cp === 13 || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff))) return undefined;
      char = String.fromCodePoint(cp);
    }
    out += raw.slice(from, amp) + char;
    from = REFERENCE.lastIndex;
  }
  return out + raw.slice(from);
}

interface Open {
  readonly qname: string;
  readonly ns: string | null;
  readonly name: string;
  readonly attrs: XmlAttribute[];
  readonly children: XmlNode[];
  readonly line: number;
  /** Prefixes this element declares ('' the default namespace). */
  readonly scope: Map<string, string> | undefined;
}

/** The tree of a plain document, as parseXml's saxes reading would build it; undefined for any other. */
export function parsePlainXml(source: string): { root: XmlElement; declaration: boolean } | undefined {
  if (unusual(source)) return undefined;
  const stack: Open[] = [];
  const lookup = (prefix: string): string | undefined => {
    for (let k = stack.length - 1; k >= 0; k--) {
      const v = stack[k]!.scope?.get(prefix);
      if (v !== undefined) return v;
    }
    return prefix === '' ? '' : undefined;
  };
  let i = 0;
  let declaration = false;
  if (source.startsWith('<?xml')) {
    DECLARATION.lastIndex = 0;
    if (!DECLARATION.exec(source)) return undefined;
    declaration = true;
    i = DECLARATION.lastIndex;
  }
  // Lines as saxes counts them (only LF occurs here): the line of the start tag's closing '>'.
  // The next LF is remembered: searching from the last position on every call read the rest of a
  // one-line document once per tag (seconds for a flood of a million empty elements).
  let line = 1;
  let nextLf = source.indexOf('\n');
  const lineAt = (p: number): number => {
    for (; nextLf >= 0 && nextLf < p; nextLf = source.indexOf('\n', nextLf + 1)) line++;
    return line;
  };
  let root: XmlElement | undefined;
  let nodes = 0;
  const n = source.length;
  while (i < n) {
    const lt = source.indexOf('<', i);
    const end = lt < 0 ? n : lt;
    if (end > i) {
      const raw = source.slice(i, end);
      const top = stack[stack.length - 1];
      if (!top) { if (!BLANK.test(raw)) return undefined; } else {
        const text = raw.includes('&') ? unescape(raw) : raw;
        if (text === undefined) return undefined;
        if (++nodes > BODY_LIMITS.nodes || top.children.length >= BODY_LIMITS.children) return undefined;
        top.children.push({ text });
      }
    }
    if (lt < 0) break;
    i = lt + 1;
    if (source.charCodeAt(i) === 47 /* / */) {
      NAME.lastIndex = i + 1;
      const m = NAME.exec(source);
      const top = stack.pop();
      if (!m || !top || m[0] !== top.qname) return undefined;
      i = NAME.lastIndex;
      while (i < n && (source[i] === ' ' || source[i] === '\t' || source[i] === '\n')) i++;
      if (source[i] !== '>') return undefined;
      i++;
      // Two literal shapes, not a spread: an element that declares nothing is built as before.
      const done: XmlElement = top.scope ? { ns: top.ns, name: top.name, attrs: top.attrs, children: top.children, line: top.line, bindings: top.scope }
        : { ns: top.ns, name: top.name, attrs: top.attrs, children: top.children, line: top.line };
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(done);
      else root = done;
      continue;
    }
    // A start tag: only one root element.
    if (root) return undefined;
    NAME.lastIndex = i;
    const m = NAME.exec(source);
    if (!m || m[0].length > BODY_LIMITS.nameLength) return undefined;
    const qname = m[0];
    i = NAME.lastIndex;
    const raw: [string, string][] = [];
    let selfClosing = false;
    for (;;) {
      const from = i;
      while (i < n && (source[i] === ' ' || source[i] === '\t' || source[i] === '\n')) i++;
      if (source[i] === '>') { i++; break; }
      if (source[i] === '/' && source[i + 1] === '>') { i += 2; selfClosing = true; break; }
      if (i === from) return undefined;
      NAME.lastIndex = i;
      const a = NAME.exec(source);
      if (!a || a[0].length > BODY_LIMITS.nameLength || raw.length >= BODY_LIMITS.attributes) return undefined;
      i = NAME.lastIndex;
      while (source[i] === ' ' || source[i] === '\t' || source[i] === '\n') i++;
      if (source[i] !== '=') return undefined;
      i++;
      while (source[i] === ' ' || source[i] === '\t' || source[i] === '\n') i++;
      const quote = source[i];
      if (quote !== '"' && quote !== '\'') return undefined;
      const close = source.indexOf(quote, i + 1);
      if (close < 0) return undefined;
      const rawValue = source.slice(i + 1, close);
      // '<' is not allowed; whitespace other than a space would be normalised (3.3.3): saxes reads it.
      if (/[<\t\n]/.test(rawValue)) return undefined;
      const value = rawValue.includes('&') ? unescape(rawValue) : rawValue;
      if (value === undefined || raw.some(([q]) => q === a[0])) return undefined;
      raw.push([a[0], value]);
      i = close + 1;
    }
    if (stack.length >= BODY_LIMITS.depth || ++nodes > BODY_LIMITS.nodes) return undefined;
    const parent = stack[stack.length - 1];
    if (parent && parent.children.length >= BODY_LIMITS.children) return undefined;
    // Namespace declarations first, then names resolved against them (Namespaces in XML 1.0, 6).
    let scope: Map<string, string> | undefined;
    for (const [q, v] of raw) {
      if (q !== 'xmlns' && !q.startsWith('xmlns:')) continue;
      const prefix = q === 'xmlns' ? '' : q.slice(6);
      if (prefix === 'xml' || prefix === 'xmlns' || v === XML_NS || v === XMLNS_NS || (prefix !== '' && v === '')) return undefined;
      (scope ??= new Map()).set(prefix, v);
    }
    const resolve = (prefix: string): string | undefined => scope?.get(prefix) ?? lookup(prefix);
    const colon = qname.indexOf(':');
    const prefix = colon < 0 ? '' : qname.slice(0, colon);
    if (prefix === 'xml' || prefix === 'xmlns') return undefined;
    const uri = resolve(prefix);
    if (uri === undefined) return undefined;
    const attrs: XmlAttribute[] = [];
    for (const [q, value] of raw) {
      if (q === 'xmlns' || q.startsWith('xmlns:')) continue;
      const c = q.indexOf(':');
      if (c < 0) { attrs.push({ ns: null, name: q, value }); continue; }
      const p = q.slice(0, c);
      const ns = p === 'xml' ? undefined : resolve(p);
      if (!ns) return undefined;
      attrs.push({ ns, name: q.slice(c + 1), value });
    }
    // Two attributes of one expanded name are an error saxes reports.
    for (let x = 0; x < attrs.length; x++) for (let y = x + 1; y < attrs.length; y++) if (attrs[x]!.ns === attrs[y]!.ns && attrs[x]!.name === attrs[y]!.name) return undefined;
    const open: Open = { qname, ns: uri || null, name: colon < 0 ? qname : qname.slice(colon + 1), attrs, children: [], line: lineAt(i - 1), scope };
    if (selfClosing) {
      const done: XmlElement = scope ? { ns: open.ns, name: open.name, attrs, children: open.children, line: open.line, bindings: scope }
        : { ns: open.ns, name: open.name, attrs, children: open.children, line: open.line };
      if (parent) parent.children.push(done);
      else root = done;
    } else stack.push(open);
  }
  if (stack.length || !root) return undefined;
  return { root, declaration };
}

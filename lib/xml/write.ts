// Writes the element model as XML 1.0 text. The style covers every legitimate way of writing the
// same infoset (prefixes, where namespaces are declared, declaration, indentation, CDATA,
// character references); none of them changes what a namespace-aware reader sees.
import { isElement, type XmlElement, type XmlNode } from './model.js';

export interface XmlWriteStyle {
  /** Start with <?xml version="1.0" encoding="utf-8"?>. */
  readonly declaration: boolean;
  /** Start with a UTF-8 byte-order mark (some .NET writers emit one). */
  readonly bom: boolean;
  /** Spaces per level for element-only content; 0 writes compact XML. */
  readonly indent: number;
  /** Preferred prefix per namespace URI; '' means "as the default namespace". */
  readonly prefixes: Readonly<Record<string, string>>;
  /** Declare every prefixed namespace on the root element instead of where first used. */
  readonly hoist: boolean;
  /** Character data as CDATA sections. */
  readonly cdata: boolean;
  /** Every non-ASCII character as a numeric character reference. */
  readonly charRefs: boolean;
  /** Empty elements as <a/> rather than <a></a>. */
  readonly selfClose: boolean;
}

export const XML_COMPACT: XmlWriteStyle = {
  declaration: false, bom: false, indent: 0, prefixes: {}, hoist: false, cdata: false, charRefs: false, selfClose: true,
};

type Scope = ReadonlyMap<string, string | null>; // prefix ('' = default) -> namespace URI

const refs = (s: string, on: boolean): string =>
  on ? s.replace(/[^\u0000-\u007e]/gu, (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`) : s;

export const escapeText = (s: string, charRefs = false): string =>
  refs(s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;'), charRefs);

const escapeAttr = (s: string, charRefs: boolean): string =>
  escapeText(s, charRefs).replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;');

/** CDATA cannot hold "]]>" (split it) nor a carriage return (end-of-line handling would eat it). */
const cdataOrText = (s: string, style: XmlWriteStyle): string =>
  !style.cdata || s === '' || s.includes('\r') ? escapeText(s, style.charRefs) : `<![CDATA[${s.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;

function namespacesUsed(e: XmlElement, into = new Set<string>()): Set<string> {
  if (e.ns) into.add(e.ns);
  for (const a of e.attrs) if (a.ns) into.add(a.ns);
  for (const c of e.children) if (isElement(c)) namespacesUsed(c, into);
  return into;
}

const qname = (prefix: string, local: string) => (prefix ? `${prefix}:${local}` : local);

class Writer {
  constructor(private readonly style: XmlWriteStyle) {}

  /** Choose the prefix for `ns` in `scope`, adding a declaration to `decls` when needed. */
  private prefixFor(ns: string | null, scope: Map<string, string | null>, decls: string[], forAttribute: boolean, depth: number): string {
    if (ns === null) {
      if (!forAttribute && scope.get('')) { scope.set('', null); decls.push(' xmlns=""'); }
      return '';
    }
    const preferred = this.style.prefixes[ns];
    if (preferred === '' && !forAttribute) {
      if (scope.get('') !== ns) { scope.set('', ns); decls.push(` xmlns="${escapeAttr(ns, false)}"`); }
      return '';
    }
    if (preferred && scope.get(preferred) === ns) return preferred;
    for (const [p, uri] of scope) if (uri === ns && (p !== '' || !forAttribute)) return p;
    let prefix = preferred;
    if (!prefix) {
      // DataContractSerializer's generated names: d<depth>p<n>, first one not yet in scope.
      let n = 1;
      do prefix = `d${depth}p${n++}`; while (scope.has(prefix));
    }
    scope.set(prefix, ns);
    decls.push(` xmlns:${prefix}="${escapeAttr(ns, false)}"`);
    return prefix;
  }

  element(e: XmlElement, parent: Scope, depth: number, root: boolean): string {
    const scope = new Map(parent);
    const decls: string[] = [];
    const d = depth + 1;
    const tag = qname(this.prefixFor(e.ns, scope, decls, false, d), e.name);
    const early = [...(root && this.style.hoist ? namespacesUsed(e) : []), ...(e.declare ?? [])];
    for (const ns of early) if (this.style.prefixes[ns] !== '') this.prefixFor(ns, scope, decls, true, d);
    const attrs = e.attrs.map((a) => ` ${qname(this.prefixFor(a.ns, scope, decls, true, d), a.name)}="${escapeAttr(a.value, this.style.charRefs)}"`);
    const open = `<${tag}${decls.join('')}${attrs.join('')}`;
    if (!e.children.length) return this.style.selfClose ? `${open}/>` : `${open}></${tag}>`;
    const elementOnly = e.children.every(isElement);
    const pad = (d: number) => (this.style.indent && elementOnly ? `\n${' '.repeat(this.style.indent * d)}` : '');
    const inner = e.children.map((c: XmlNode) =>
      isElement(c) ? pad(depth + 1) + this.element(c, scope, depth + 1, false) : cdataOrText(c.text, this.style));
    return `${open}>${inner.join('')}${pad(depth)}</${tag}>`;
  }
}

export function writeXml(root: XmlElement, style: XmlWriteStyle = XML_COMPACT): string {
  const head = (style.bom ? '\uFEFF' : '') + (style.declaration ? `<?xml version="1.0" encoding="utf-8"?>${style.indent ? '\n' : ''}` : '');
  return head + new Writer(style).element(root, new Map([['', null]]), 0, true);
}

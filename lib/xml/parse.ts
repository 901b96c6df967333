// Reads a response body into the element model with a conforming XML 1.0 + Namespaces parser
// (saxes). It never expands an entity it was not born knowing and never fetches anything; a DOCTYPE
// or a processing instruction is refused outright (SOAP 1.1 section 3: a message MUST NOT contain one).
import { createRequire } from 'node:module';
import type * as SaxesModule from 'saxes';
import type { SaxesParser as Saxes, SaxesTagNS } from 'saxes';
import { BODY_LIMITS, limitMessage, type BodyLimit } from '../body-limits.js';
import type { XmlAttribute, XmlElement, XmlNode } from './model.js';
import { parsePlainXml } from './plain-parse.js';

export type XmlParseResult =
  | { readonly ok: true; readonly root: XmlElement; readonly declaration: boolean }
  /** `limit`: the document was refused for its size or shape (body-limits.ts), not for being malformed. */
  | { readonly ok: false; readonly error: string; readonly limit?: boolean };

interface Building {
  ns: string | null;
  name: string;
  attrs: XmlAttribute[];
  children: XmlNode[];
  line: number;
  bindings: Map<string, string> | undefined;
}

const XMLNS_URI = 'http://www.w3.org/2000/xmlns/';
const STOP = Symbol('stop');

export function parseXml(source: string): XmlParseResult {
  // A leading byte-order mark is legitimate (XML 1.0 4.3.3). Decoding with TextDecoder already
  // drops it; a string that still starts with one is accepted too (saxes wants it gone).
  const plain = parsePlainXml(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source);
  return plain ? { ok: true, ...plain } : parseWithSaxes(source);
}

/** saxes, loaded when a document first needs it: most are read by the plain path, and a run that
 *  reads none starts without it (about 20 ms of CPU). */
let SaxesParser: typeof Saxes | undefined;
const saxesParser = (): typeof Saxes => (SaxesParser ??= (createRequire(import.meta.url)('saxes') as typeof SaxesModule).SaxesParser);

/** parseXml by saxes alone (every document the plain path hands back, and its tests' yardstick). */
export function parseWithSaxes(source: string): XmlParseResult {
  // Read as XML 1.0 whatever version the declaration names (XML 1.0 5th edition, 2.8: a 1.x document is
  // processed as 1.0): SOAP 1.1 is XML 1.0, and XML 1.1 would admit &#x1; and read NEL as a line end.
  const parser = new (saxesParser())({ xmlns: true, position: true, forceXMLVersion: true, defaultXMLVersion: '1.0' });
  const stack: Building[] = [];
  let root: XmlElement | undefined;
  let error: string | undefined;
  let limit = false;
  let declaration = false;
  // Stop at the first error: nothing after it is read.
  const fail = (message: string): never => {
    error ??= `line ${parser.line}, column ${parser.column}: ${message}`;
    throw STOP;
  };
  const refuse = (which: BodyLimit): never => {
    limit = true;
    error ??= limitMessage(which, ` at line ${parser.line}, column ${parser.column}`);
    throw STOP;
  };
  // Text and CDATA sections are children too: 800 000 empty CDATA sections cost what as many
  // elements would, so they count against the same limits.
  let nodes = 0;
  const addText = (value: string, cdata: boolean) => {
    const top = stack[stack.length - 1];
    if (!top || !value) return;
    if (++nodes > BODY_LIMITS.nodes) refuse('nodes');
    if (top.children.length >= BODY_LIMITS.children) refuse('children');
    top.children.push(cdata ? { text: value, cdata } : { text: value });
  };

  parser.on('error', (e) => fail(e.message.replace(/^\d+:\d+: /, '')));
  parser.on('xmldecl', () => { declaration = true; });
  parser.on('doctype', () => fail('the document has a DOCTYPE; SOAP 1.1 forbids it and it is not read'));
  // SOAP 1.1 section 3: a message MUST NOT contain processing instructions (the XML declaration is none).
  parser.on('processinginstruction', () => fail('the document has a processing instruction; SOAP 1.1 forbids it'));
  let attributes = 0;
  // Names and attributes are measured as each is read, before the element is built; element counts,
  // members and depth when it opens.
  parser.on('opentagstart', (tag) => {
    attributes = 0;
    if (tag.name.length > BODY_LIMITS.nameLength) refuse('nameLength');
  });
  parser.on('attribute', (a) => {
    if (++attributes > BODY_LIMITS.attributes) refuse('attributes');
    if (a.name.length > BODY_LIMITS.nameLength) refuse('nameLength');
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= BODY_LIMITS.depth) refuse('depth');
    if (++nodes > BODY_LIMITS.nodes) refuse('nodes');
    const t = tag as SaxesTagNS;
    const parent = stack[stack.length - 1];
    if (parent && parent.children.length >= BODY_LIMITS.children) refuse('children');
    const all = Object.values(t.attributes);
    const attrs = all.filter((a) => a.uri !== XMLNS_URI).map((a) => ({ ns: a.uri || null, name: a.local, value: a.value }));
    // The declarations it makes (xmlns="…" is the default's, xmlns:p="…" p's), for QNames in content.
    let bindings: Map<string, string> | undefined;
    for (const a of all) if (a.uri === XMLNS_URI) (bindings ??= new Map()).set(a.prefix === 'xmlns' ? a.local : '', a.value);
    stack.push({ ns: t.uri || null, name: t.local, attrs, children: [], line: parser.line, bindings });
  });
  parser.on('text', (t) => addText(t, false));
  parser.on('cdata', (t) => addText(t, true));
  parser.on('closetag', () => {
    const b = stack.pop();
    if (!b) return;
    const done: XmlElement = b.bindings ? { ns: b.ns, name: b.name, attrs: b.attrs, children: b.children, line: b.line, bindings: b.bindings }
      : { ns: b.ns, name: b.name, attrs: b.attrs, children: b.children, line: b.line };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(done);
    else root = done;
  });

  try {
    // A leading byte-order mark is legitimate (XML 1.0 4.3.3). Decoding with TextDecoder already
    // drops it; a string that still starts with one is accepted too (saxes wants it gone).
    parser.write(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source).close();
  } catch (e) {
    if (e !== STOP) error ??= e instanceof Error ? e.message : String(e);
  }
  if (error) return { ok: false, error, ...(limit ? { limit } : {}) };
  if (!root) return { ok: false, error: 'the document has no root element' };
  return { ok: true, root, declaration };
}

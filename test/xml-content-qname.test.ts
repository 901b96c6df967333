// A QName in content (a SOAP faultcode, an xsi:type) means what its prefix is bound to where it is
// written (Namespaces in XML 1.0, 6): both parsers keep each element's declarations for it.
import { describe, expect, it } from 'vitest';
import { contentQName, elementChildren, textContent, type XmlElement } from '../lib/xml/model.js';
import { parseWithSaxes, parseXml } from '../lib/xml/parse.js';

/** The root-to-leaf chain of first element children, and the leaf's text. */
function chain(doc: string, read: typeof parseXml): { path: XmlElement[]; text: string } {
  const r = read(doc);
  if (!r.ok) throw new Error(r.error);
  const path = [r.root];
  for (let kids = elementChildren(r.root); kids.length; kids = elementChildren(kids[0]!)) path.push(kids[0]!);
  return { path, text: textContent(path.at(-1)!) };
}

const CASES: [string, string, { ns: string | null; name: string } | undefined][] = [
  ['the prefix declared on the root', '<a xmlns:p="urn:p"><b><c>p:X</c></b></a>', { ns: 'urn:p', name: 'X' }],
  ['the innermost declaration wins', '<a xmlns:p="urn:outer"><b xmlns:p="urn:inner"><c>p:X</c></b></a>', { ns: 'urn:inner', name: 'X' }],
  ['declared on the element itself, whitespace around', '<a><b><c xmlns:p="urn:p"> p:X\n</c></b></a>', { ns: 'urn:p', name: 'X' }],
  ['an undeclared prefix', '<a xmlns:q="urn:q"><c>p:X</c></a>', undefined],
  ['unprefixed: the default namespace in scope', '<a xmlns="urn:d"><c>X</c></a>', { ns: 'urn:d', name: 'X' }],
  ['unprefixed, the default undeclared', '<a xmlns="urn:d"><c xmlns="">X</c></a>', { ns: null, name: 'X' }],
  ['the xml prefix, bound without a declaration', '<a><c>xml:lang</c></a>', { ns: 'http://www.w3.org/XML/1998/namespace', name: 'lang' }],
  ['no QName: two colons', '<a xmlns:p="urn:p"><c>p:X:Y</c></a>', undefined],
  ['no QName: empty', '<a><c></c></a>', undefined],
];

describe('contentQName', () => {
  for (const [read, name] of [[parseXml, 'the plain path'], [parseWithSaxes, 'saxes']] as const) {
    it.each(CASES)(`${name}: %s`, (_why, doc, expected) => {
      const { path, text } = chain(doc, read);
      expect(contentQName(text, path)).toEqual(expected);
    });
  }

  it('an element that declares nothing carries no bindings (the common case costs nothing)', () => {
    const r = parseXml('<a xmlns:p="urn:p"><b>p:X</b></a>');
    expect(r.ok && [r.root.bindings, elementChildren(r.root)[0]!.bindings]).toEqual([new Map([['p', 'urn:p']]), undefined]);
    expect(r.ok && 'bindings' in elementChildren(r.root)[0]!).toBe(false);
  });
});

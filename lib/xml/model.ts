// One XML element model for both sides: the reference builds it and writes it; the harness
// parses responses into it. Names are namespace URI + local name: prefixes mean nothing.

export interface XmlAttribute {
  /** Namespace URI, or null for an unqualified attribute. */
  readonly ns: string | null;
  readonly name: string;
  readonly value: string;
}

export interface XmlText {
  readonly text: string;
  /** Written as a CDATA section (parsed: it was one). The character data is the same either way. */
  readonly cdata?: boolean;
}

export interface XmlElement {
  /** Namespace URI, or null for an element in no namespace. */
  readonly ns: string | null;
  readonly name: string;
  readonly attrs: readonly XmlAttribute[];
  readonly children: readonly XmlNode[];
  /** Parsed documents only: where the element starts, for evidence. */
  readonly line?: number;
  /** Writing only: namespaces to declare on this element for its descendants (where .NET puts them). */
  readonly declare?: readonly string[];
  /** Parsed documents only, and only where it makes any: the namespace declarations this element
   *  makes, prefix ('' the default) to URI. Kept for QNames in content (contentQName), which the
   *  element names alone cannot resolve. */
  readonly bindings?: ReadonlyMap<string, string>;
}

export type XmlNode = XmlElement | XmlText;

/** A parsed document handed on to a reader that also takes a JSON value (a JSON value is never an
 *  instance of a class, so the two cannot be confused). */
export class ParsedXml {
  constructor(readonly root: XmlElement) {}
}

export const isElement = (n: XmlNode): n is XmlElement => 'name' in n;

export const el = (ns: string | null, name: string, children: readonly XmlNode[] = [], attrs: readonly XmlAttribute[] = []): XmlElement =>
  ({ ns, name, attrs, children });

export const text = (value: string): XmlText => ({ text: value });

export const elementChildren = (e: XmlElement): XmlElement[] => e.children.filter(isElement);

/** The element's character data (text and CDATA, in order); child elements contribute nothing. */
export const textContent = (e: XmlElement): string => {
  const c = e.children;
  // Most elements hold one text or nothing: no array built for them (the record checks ask for every one).
  if (c.length === 0) return '';
  if (c.length === 1) return isElement(c[0]!) ? '' : c[0]!.text;
  return c.map((x) => (isElement(x) ? '' : x.text)).join('');
};

/** The namespace the prefix xml is bound to, undeclared (Namespaces in XML 1.0, 3). */
export const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** A QName written in content (a SOAP faultcode, SOAP 1.1 4.4; an xsi:type value), resolved through
 *  the namespace declarations in scope where it is written (Namespaces in XML 1.0, 6; XML Schema 2,
 *  3.2.18: an unprefixed one takes the default namespace). `path` runs from the root to the element
 *  that holds the value. Undefined when the text is no QName or its prefix is not declared. */
export function contentQName(value: string, path: readonly XmlElement[]): { readonly ns: string | null; readonly name: string } | undefined {
  const m = /^[ \t\r\n]*(?:([^:\s]+):)?([^:\s]+)[ \t\r\n]*$/.exec(value);
  if (!m) return undefined;
  const prefix = m[1] ?? '';
  let ns: string | undefined = prefix === 'xml' ? XML_NS : undefined;
  for (let k = path.length - 1; ns === undefined && k >= 0; k--) ns = path[k]!.bindings?.get(prefix);
  if (ns === undefined && prefix !== '') return undefined;
  return { ns: ns || null, name: m[2]! };
}

export const attribute = (e: XmlElement, ns: string | null, name: string): string | undefined =>
  e.attrs.find((a) => a.ns === ns && a.name === name)?.value;

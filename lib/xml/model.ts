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

export const attribute = (e: XmlElement, ns: string | null, name: string): string | undefined =>
  e.attrs.find((a) => a.ns === ns && a.name === name)?.value;

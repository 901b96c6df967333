// Small edits of an XML element tree, for faults and styles. Like edit-json, an edit creates its
// target when a record lacks it, so a fault never silently does nothing.
import { ordinalCompare } from '../contract/types.js';
import { SOAP, XSI } from '../contract/namespaces.js';
import { el, elementChildren, isElement, text, textContent, type XmlElement, type XmlNode } from '../xml/model.js';

type Edit = (old: XmlElement | undefined) => XmlElement | XmlElement[] | undefined;

/** Replaces (or inserts, in ordinal position) the child named `name`; an array replaces it by several. */
export function setChild(parent: XmlElement, name: string, edit: Edit): XmlElement {
  const at = parent.children.findIndex((c) => isElement(c) && c.name === name);
  const old = at >= 0 ? (parent.children[at] as XmlElement) : undefined;
  const next = edit(old);
  const replacement: XmlNode[] = next === undefined ? [] : Array.isArray(next) ? next : [next];
  const children = [...parent.children];
  if (at >= 0) children.splice(at, 1, ...replacement);
  else {
    const pos = children.findIndex((c) => isElement(c) && ordinalCompare(c.name, name) > 0);
    children.splice(pos < 0 ? children.length : pos, 0, ...replacement);
  }
  return { ...parent, children };
}

/** Edits the element at a path of local names below `root` (created where missing). */
export function editAt(root: XmlElement, path: readonly string[], edit: Edit): XmlElement {
  const [name, ...rest] = path;
  if (name === undefined) return root;
  if (!rest.length) return setChild(root, name, edit);
  return setChild(root, name, (old) => editAt(old && !isNil(old) ? old : el(root.ns, name), rest, edit));
}

/** The Body's first element (the record), edited. */
export const editRecord = (envelope: XmlElement, edit: (record: XmlElement) => XmlElement): XmlElement =>
  ({ ...envelope, children: envelope.children.map((b) => (isElement(b) && b.name === SOAP.body ? { ...b, children: b.children.map((r) => (isElement(r) ? edit(r) : r)) } : b)) });

export const isNil = (e: XmlElement) => e.attrs.some((a) => a.ns === XSI && a.name === 'nil');

export const withText = (e: XmlElement, value: string): XmlElement => ({ ...e, attrs: e.attrs.filter((a) => a.ns !== XSI), children: [text(value)] });
export const textOf = (e: XmlElement | undefined): string => (e ? textContent(e) : '');
export const withChildren = (e: XmlElement, children: XmlNode[]): XmlElement => ({ ...e, attrs: e.attrs.filter((a) => a.ns !== XSI), children });

/** Applies `f` to `e` and every element below it. */
export const mapDeep = (e: XmlElement, f: (x: XmlElement) => XmlElement): XmlElement =>
  f({ ...e, children: e.children.map((c) => (isElement(c) ? mapDeep(c, f) : c)) });

export const children = elementChildren;

/** Adds header blocks to the envelope's Header, making one before the Body when there is none. */
export function withHeaderBlocks(env: XmlElement, blocks: readonly XmlElement[]): XmlElement {
  const at = env.children.findIndex((c) => isElement(c) && c.name === SOAP.header);
  if (at >= 0) {
    const header = env.children[at] as XmlElement;
    return { ...env, children: env.children.map((c, i) => (i === at ? { ...header, children: [...header.children, ...blocks] } : c)) };
  }
  return { ...env, children: [el(env.ns, SOAP.header, blocks), ...env.children] };
}

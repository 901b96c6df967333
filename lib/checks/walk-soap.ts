// Walks a SOAP record element along the contract, by local name (namespaces are checked on
// their own): every member element and item at every depth, and every contract-shaped element.
import { collapse } from '../contract/formats.js';
import { XSI } from '../contract/namespaces.js';
import { fieldsOn, MAP_ENTRY, type Field, type FieldType, type Shape } from '../contract/types.js';
import { attribute, elementChildren, isElement, type XmlElement } from '../xml/model.js';

export interface SoapSlot {
  readonly field: Field;
  /** The member's type, or the item type for an item. */
  readonly type: FieldType;
  readonly element: XmlElement;
  readonly path: string;
  readonly item: boolean;
}

export interface SoapObjectAt {
  readonly shape: Shape;
  readonly element: XmlElement;
  readonly path: string;
}

/** xsi:nil in the XML Schema instance namespace, whatever its prefix (xs:boolean: true or 1). */
export function isNil(e: XmlElement): boolean {
  const v = attribute(e, XSI, 'nil');
  return v !== undefined && ['true', '1'].includes(collapse(v));
}

/** XPath-like: 1-based position among the parent's element children. */
const itemPath = (path: string, e: XmlElement, n: number) => `${path}/${e.name}[${n}]`;

function inside(field: Field, type: FieldType, e: XmlElement, path: string, into: SoapSlot[]): void {
  if (isNil(e)) return;
  if (type.kind === 'object') slotsInto(type.shape, e, path, into);
  else if (type.kind === 'array') {
    const items = elementChildren(e);
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const p = itemPath(path, item, i + 1);
      into.push({ field, type: type.item, element: item, path: p, item: true });
      inside(field, type.item, item, p, into);
    }
  } else if (type.kind === 'map') {
    for (const v of mapValues(e, path)) slotsInto(type.value, v.element, v.path, into);
  }
}

/** The non-nil Value element of each dictionary entry. */
function mapValues(e: XmlElement, path: string): Array<{ element: XmlElement; path: string }> {
  const out: Array<{ element: XmlElement; path: string }> = [];
  const entries = elementChildren(e);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const value = elementChildren(entry).find((c) => c.name === MAP_ENTRY.value);
    if (value && !isNil(value)) out.push({ element: value, path: `${itemPath(path, entry, i + 1)}/${MAP_ENTRY.value}` });
  }
  return out;
}

/** Member name -> field, per shape, built once (every check walks every record). */
const byName = new WeakMap<Shape, ReadonlyMap<string, Field>>();
const fieldsByName = (shape: Shape): ReadonlyMap<string, Field> => {
  let m = byName.get(shape);
  if (!m) byName.set(shape, (m = new Map(fieldsOn(shape, 'soap').map((f) => [f.soap, f]))));
  return m;
};

function slotsInto(shape: Shape, parent: XmlElement, path: string, into: SoapSlot[]): void {
  const fields = fieldsByName(shape);
  for (const child of parent.children) {
    if (!isElement(child)) continue;
    const f = fields.get(child.name);
    if (!f) continue;
    const p = `${path}/${child.name}`;
    into.push({ field: f, type: f.type, element: child, path: p, item: false });
    inside(f, f.type, child, p, into);
  }
}

/** Every member element and item at every depth, in document order (a list: every type check reads
 *  it, so it is built once per record, without the cost of a generator per level). */
export function soapSlots(shape: Shape, parent: XmlElement, path: string): SoapSlot[] {
  const into: SoapSlot[] = [];
  slotsInto(shape, parent, path, into);
  return into;
}

/** The record element and every nested element of a known shape. */
export function soapObjects(shape: Shape, e: XmlElement, path: string, slots = soapSlots(shape, e, path)): SoapObjectAt[] {
  const out: SoapObjectAt[] = [{ shape, element: e, path }];
  for (const slot of slots) {
    if (isNil(slot.element)) continue;
    if (slot.type.kind === 'object') out.push({ shape: slot.type.shape, element: slot.element, path: slot.path });
    if (slot.type.kind === 'map') for (const v of mapValues(slot.element, slot.path)) out.push({ shape: slot.type.value, ...v });
  }
  return out;
}

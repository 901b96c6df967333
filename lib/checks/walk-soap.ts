// Walks a SOAP record element along the contract, by local name (namespaces are checked on
// their own): every member element and item at every depth, and every contract-shaped element.
import { collapse } from '../contract/formats.js';
import { XSI } from '../contract/namespaces.js';
import { fieldsOn, MAP_ENTRY, type Field, type FieldType, type Shape } from '../contract/types.js';
import { attribute, elementChildren, type XmlElement } from '../xml/model.js';

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

function* inside(field: Field, type: FieldType, e: XmlElement, path: string): Generator<SoapSlot> {
  if (isNil(e)) return;
  if (type.kind === 'object') yield* soapSlots(type.shape, e, path);
  else if (type.kind === 'array') {
    for (const [i, item] of elementChildren(e).entries()) {
      const p = itemPath(path, item, i + 1);
      yield { field, type: type.item, element: item, path: p, item: true };
      yield* inside(field, type.item, item, p);
    }
  } else if (type.kind === 'map') {
    for (const v of mapValues(e, path)) yield* soapSlots(type.value, v.element, v.path);
  }
}

/** The non-nil Value element of each dictionary entry. */
function* mapValues(e: XmlElement, path: string): Generator<{ element: XmlElement; path: string }> {
  for (const [i, entry] of elementChildren(e).entries()) {
    const value = elementChildren(entry).find((c) => c.name === MAP_ENTRY.value);
    if (value && !isNil(value)) yield { element: value, path: `${itemPath(path, entry, i + 1)}/${MAP_ENTRY.value}` };
  }
}

/** Member name -> field, per shape, built once (every check walks every record). */
const byName = new WeakMap<Shape, ReadonlyMap<string, Field>>();
const fieldsByName = (shape: Shape): ReadonlyMap<string, Field> => {
  let m = byName.get(shape);
  if (!m) byName.set(shape, (m = new Map(fieldsOn(shape, 'soap').map((f) => [f.soap, f]))));
  return m;
};

export function* soapSlots(shape: Shape, parent: XmlElement, path: string): Generator<SoapSlot> {
  const fields = fieldsByName(shape);
  for (const child of elementChildren(parent)) {
    const f = fields.get(child.name);
    if (!f) continue;
    const p = `${path}/${child.name}`;
    yield { field: f, type: f.type, element: child, path: p, item: false };
    yield* inside(f, f.type, child, p);
  }
}

/** The record element and every nested element of a known shape. */
export function* soapObjects(shape: Shape, e: XmlElement, path: string): Generator<SoapObjectAt> {
  yield { shape, element: e, path };
  for (const slot of soapSlots(shape, e, path)) {
    if (isNil(slot.element)) continue;
    if (slot.type.kind === 'object') yield { shape: slot.type.shape, element: slot.element, path: slot.path };
    if (slot.type.kind === 'map') for (const v of mapValues(slot.element, slot.path)) yield { shape: slot.type.value, ...v };
  }
}

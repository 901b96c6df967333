// Walks a JSON record along the contract: every present member and every array item at every
// depth, and every object with its shape. Type checks are filters over these slots.
import { fieldsOn, type Field, type FieldType, type Shape } from '../contract/types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/value.js';
import { index, member, ROOT } from '../json/path.js';

export interface JsonSlot {
  /** The member; for an array item, the array member. */
  readonly field: Field;
  /** The member's type, or the item type for an item. */
  readonly type: FieldType;
  /** Never undefined; null only for items (a null member is not a slot). */
  readonly value: JsonValue;
  readonly path: string;
}

export interface JsonObjectAt {
  readonly shape: Shape;
  readonly value: JsonObject;
  readonly path: string;
}

function* inside(field: Field, type: FieldType, value: JsonValue, path: string): Generator<JsonSlot> {
  if (type.kind === 'object' && isJsonObject(value)) yield* jsonSlots(type.shape, value, path);
  else if (type.kind === 'array' && Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const p = index(path, i);
      yield { field, type: type.item, value: item, path: p };
      yield* inside(field, type.item, item, p);
    }
  } else if (type.kind === 'map' && isJsonObject(value)) {
    for (const [key, v] of Object.entries(value)) if (isJsonObject(v)) yield* jsonSlots(type.value, v, member(path, key));
  }
}

export function* jsonSlots(shape: Shape, obj: JsonObject, path = ROOT): Generator<JsonSlot> {
  for (const f of fieldsOn(shape, 'json')) {
    const value = obj[f.json];
    if (value === undefined || value === null) continue;
    const p = member(path, f.json);
    yield { field: f, type: f.type, value, path: p };
    yield* inside(f, f.type, value, p);
  }
}

/** The record and every nested object of a known shape, each with its path. */
export function* jsonObjects(shape: Shape, obj: JsonObject, path = ROOT): Generator<JsonObjectAt> {
  yield { shape, value: obj, path };
  for (const slot of jsonSlots(shape, obj, path)) {
    if (slot.type.kind === 'object' && isJsonObject(slot.value)) yield { shape: slot.type.shape, value: slot.value, path: slot.path };
    if (slot.type.kind === 'map' && isJsonObject(slot.value)) {
      for (const [key, v] of Object.entries(slot.value)) if (isJsonObject(v)) yield { shape: slot.type.value, value: v, path: member(slot.path, key) };
    }
  }
}

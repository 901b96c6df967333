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
  /** Its member names (Object.keys), listed once for every check that reads them: a record read
   *  name by name is a dictionary object, whose keys are sorted again on every listing. */
  readonly keys: readonly string[];
}

/** How an object's member names are listed. */
export type KeysOf = (o: JsonObject) => readonly string[];

class ObjectAt implements JsonObjectAt {
  private listed: readonly string[] | undefined;
  /** `at`: its path, or the slot it is the value of (whose path is written when read). `list`: how
   *  its names are listed (the exchange's memo, shared with the learner). */
  constructor(readonly shape: Shape, readonly value: JsonObject, private readonly at: string | JsonSlot, private readonly list: KeysOf) {}
  get path(): string {
    return typeof this.at === 'string' ? this.at : this.at.path;
  }
  get keys(): readonly string[] {
    return (this.listed ??= this.list(this.value));
  }
}

/** A slot whose path is written when first read (a finding's, a lexeme's): most slots of most answers
 *  are judged and dropped without it. `parent`: the path it hangs from, or the slot that has it. */
class Slot implements JsonSlot {
  private written: string | undefined;
  constructor(readonly field: Field, readonly type: FieldType, readonly value: JsonValue, private readonly parent: string | Slot, private readonly key: string | number) {}
  get path(): string {
    if (this.written === undefined) {
      const base = typeof this.parent === 'string' ? this.parent : this.parent.path;
      this.written = typeof this.key === 'number' ? index(base, this.key) : member(base, this.key);
    }
    return this.written;
  }
}

function inside(slot: Slot, type: FieldType, value: JsonValue, into: JsonSlot[]): void {
  if (type.kind === 'object' && isJsonObject(value)) slotsInto(type.shape, value, slot, into);
  else if (type.kind === 'array' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!;
      const s = new Slot(slot.field, type.item, item, slot, i);
      into.push(s);
      inside(s, type.item, item, into);
    }
  } else if (type.kind === 'map' && isJsonObject(value)) {
    for (const [key, v] of Object.entries(value)) if (isJsonObject(v)) slotsInto(type.value, v, member(slot.path, key), into);
  }
}

function slotsInto(shape: Shape, obj: JsonObject, parent: string | Slot, into: JsonSlot[]): void {
  for (const f of fieldsOn(shape, 'json')) {
    const value = obj[f.json];
    if (value === undefined || value === null) continue;
    const s = new Slot(f, f.type, value, parent, f.json);
    into.push(s);
    inside(s, f.type, value, into);
  }
}

/** Every present member and item at every depth, in document order (a list: every type check reads
 *  it, so it is built once per record, without the cost of a generator per level). */
export function jsonSlots(shape: Shape, obj: JsonObject, path = ROOT): JsonSlot[] {
  const into: JsonSlot[] = [];
  slotsInto(shape, obj, path, into);
  return into;
}

/** The record and every nested object of a known shape, each with its path. */
export function jsonObjects(shape: Shape, obj: JsonObject, path = ROOT, slots = jsonSlots(shape, obj, path), list: KeysOf = Object.keys): JsonObjectAt[] {
  const out: JsonObjectAt[] = [new ObjectAt(shape, obj, path, list)];
  for (const slot of slots) {
    if (slot.type.kind === 'object' && isJsonObject(slot.value)) out.push(new ObjectAt(slot.type.shape, slot.value, slot, list));
    if (slot.type.kind === 'map' && isJsonObject(slot.value)) {
      for (const [key, v] of Object.entries(slot.value)) if (isJsonObject(v)) out.push(new ObjectAt(slot.type.value, v, member(slot.path, key), list));
    }
  }
  return out;
}

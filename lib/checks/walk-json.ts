// Walks a JSON record along the contract: every present member and every array item at every
// depth, and every object with its shape. Type checks are filters over these slots.
import { fieldsOn, isValueType, perShape, type Field, type FieldType, type Shape } from '../contract/types.js';
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
  /** Its member names that are no JSON member of its shape, in the order of `keys` (usually none: what
   *  the name checks judge). */
  readonly others: readonly string[];
  /** Its shape's JSON members of a .NET value type that are missing or null, in the shape's order. */
  readonly absentValues: readonly Field[];
}

/** How an object's member names are listed. */
export type KeysOf = (o: JsonObject) => readonly string[];

const NONE: readonly never[] = Object.freeze([]);

/** A shape's JSON member names; and whether its fields are named apart and none is a name
 *  Object.prototype answers, so that its members present are counted by looking each up (a count
 *  equal to the object's number of names then means no other name). */
const jsonNamesOf = perShape((shape) => {
  const names = new Set(fieldsOn(shape, 'json').map((f) => f.json));
  return { names, countable: names.size === fieldsOn(shape, 'json').length && [...names].every((n) => !(n in Object.prototype)) };
});

class ObjectAt implements JsonObjectAt {
  private listed: readonly string[] | undefined;
  private odd: readonly string[] | undefined;
  /** `at`: its path, or where it hangs (the slot it is the value of, or the map slot and its key);
   *  written when read. `list`: how its names are listed (the exchange's memo, shared with the
   *  learner). `present`: how many of its shape's JSON members it has (null ones too). */
  constructor(readonly shape: Shape, readonly value: JsonObject, private readonly at: string | JsonSlot | MapEntryAt, private readonly list: KeysOf,
    private readonly present: number, readonly absentValues: readonly Field[]) {}
  get path(): string {
    const at = this.at;
    return typeof at === 'string' ? at : at instanceof MapEntryAt ? member(at.slot.path, at.key) : at.path;
  }
  get keys(): readonly string[] {
    return (this.listed ??= this.list(this.value));
  }
  get others(): readonly string[] {
    if (this.odd === undefined) {
      const { names, countable } = jsonNamesOf(this.shape);
      const keys = this.keys;
      this.odd = countable && keys.length === this.present ? NONE : keys.filter((k) => !names.has(k));
    }
    return this.odd;
  }
}

/** Where a map's value hangs: the map's slot and the value's key. */
class MapEntryAt {
  constructor(readonly slot: JsonSlot, readonly key: string) {}
}

/** A slot whose path is written when first read (a finding's, a lexeme's): most slots of most answers
 *  are judged and dropped without it. `parent`: the path it hangs from, or what has it. */
class Slot implements JsonSlot {
  private written: string | undefined;
  constructor(readonly field: Field, readonly type: FieldType, readonly value: JsonValue, private readonly parent: string | JsonSlot | MapEntryAt, private readonly key: string | number) {}
  get path(): string {
    if (this.written === undefined) {
      const p = this.parent;
      const base = typeof p === 'string' ? p : p instanceof MapEntryAt ? member(p.slot.path, p.key) : p.path;
      this.written = typeof this.key === 'number' ? index(base, this.key) : member(base, this.key);
    }
    return this.written;
  }
}

/** A record's walk: every slot, and every object of a known shape (when `list` is given). */
class Walk {
  readonly slots: JsonSlot[] = [];
  /** The slots by the kind of their type, each list in document order. */
  readonly byKind = new Map<FieldType['kind'], JsonSlot[]>();
  readonly objects: JsonObjectAt[] = [];

  private add(s: Slot): void {
    this.slots.push(s);
    const same = this.byKind.get(s.type.kind);
    if (same) same.push(s);
    else this.byKind.set(s.type.kind, [s]);
  }
  constructor(private readonly list: KeysOf | undefined) {}

  inside(slot: Slot, type: FieldType, value: JsonValue): void {
    if (type.kind === 'object') {
      if (isJsonObject(value)) this.object(type.shape, value, slot);
    } else if (type.kind === 'array') {
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item = value[i]!;
          const s = new Slot(slot.field, type.item, item, slot, i);
          this.add(s);
          this.inside(s, type.item, item);
        }
      }
    } else if (type.kind === 'map' && isJsonObject(value)) {
      for (const key of (this.list ?? Object.keys)(value)) { // the exchange's memo: the learner lists the map too
        const v = value[key]!;
        if (isJsonObject(v)) this.object(type.value, v, new MapEntryAt(slot, key));
      }
    }
  }

  /** The object's slots, after the object itself (document order of objects: the record, then each
   *  nested one as its slot is met). */
  object(shape: Shape, obj: JsonObject, at: string | JsonSlot | MapEntryAt): void {
    const fields = fieldsOn(shape, 'json');
    let present = 0;
    let absent: Field[] | undefined;
    const objectsAt = this.objects.length;
    if (this.list) this.objects.push(undefined as never); // its place, filled below once counted
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      const value = obj[f.json];
      if (value !== undefined) present++;
      if (value === undefined || value === null) {
        if (this.list && isValueType(f.type)) (absent ??= []).push(f);
        continue;
      }
      const s = new Slot(f, f.type, value, at, f.json);
      this.add(s);
      this.inside(s, f.type, value);
    }
    if (this.list) this.objects[objectsAt] = new ObjectAt(shape, obj, at, this.list, present, absent ?? NONE);
  }
}

/** Every present member and item at every depth, in document order (a list: every type check reads
 *  it, so it is built once per record, without the cost of a generator per level). */
export function jsonSlots(shape: Shape, obj: JsonObject, path = ROOT): JsonSlot[] {
  const walk = new Walk(undefined);
  walk.object(shape, obj, path);
  return walk.slots;
}

/** The slots (jsonSlots, also by kind) and the record with every nested object of a known shape
 *  (each with its path, in document order), in one walk. */
export function jsonWalk(shape: Shape, obj: JsonObject, list: KeysOf = Object.keys, path = ROOT): {
  readonly slots: readonly JsonSlot[]; readonly byKind: ReadonlyMap<FieldType['kind'], readonly JsonSlot[]>; readonly objects: readonly JsonObjectAt[];
} {
  const walk = new Walk(list);
  walk.object(shape, obj, path);
  return walk;
}

/** The record and every nested object of a known shape, each with its path. */
export function jsonObjects(shape: Shape, obj: JsonObject, path = ROOT, list: KeysOf = Object.keys): readonly JsonObjectAt[] {
  return jsonWalk(shape, obj, list, path).objects;
}

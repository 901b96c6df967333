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
/** An object's values in the order of its KeysOf names, where they are at hand (else undefined). */
export type ValuesOf = (o: JsonObject) => readonly JsonValue[] | undefined;

const NONE: readonly never[] = Object.freeze([]);

type Kind = FieldType['kind'];

/** A type as the walk reads it, made once per type: its kind, and what it holds (the types of a
 *  contract are objects of several forms, so their `kind` read on every value is a slow property read). */
export interface TypePlan {
  readonly type: FieldType;
  readonly kind: Kind;
  /** An object's shape; an array's items; a map's values' shape. */
  readonly shape: Shape | undefined;
  readonly item: TypePlan | undefined;
  readonly mapValue: Shape | undefined;
}
const typePlans = new WeakMap<FieldType, TypePlan>();
export function typePlan(type: FieldType): TypePlan {
  let plan = typePlans.get(type);
  if (!plan) {
    plan = {
      type, kind: type.kind, shape: type.kind === 'object' ? type.shape : undefined,
      item: type.kind === 'array' ? typePlan(type.item) : undefined, mapValue: type.kind === 'map' ? type.value : undefined,
    };
    typePlans.set(type, plan);
  }
  return plan;
}

interface MemberPlan {
  readonly field: Field;
  readonly name: string;
  readonly valueType: boolean;
  readonly plan: TypePlan;
}

/** A shape's JSON members as the walk reads them; its JSON member names; and whether its fields are
 *  named apart and none is a name Object.prototype answers, so that its members present are counted
 *  by looking each up (a count equal to the object's number of names then means no other name). */
const shapePlan = perShape((shape) => {
  const fields = fieldsOn(shape, 'json');
  const members: MemberPlan[] = fields.map((f) => ({ field: f, name: f.json, valueType: isValueType(f.type), plan: typePlan(f.type) }));
  const names = new Set(fields.map((f) => f.json));
  return { members, names, countable: names.size === fields.length && [...names].every((n) => !(n in Object.prototype)) };
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
      const { names, countable } = shapePlan(this.shape);
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
  /** Every slot, in document order (jsonSlots only). */
  readonly slots: JsonSlot[] | undefined;
  /** The slots by the kind of their type, each list in document order; the kinds in the order met. */
  private readonly lists = new Map<Kind, JsonSlot[]>();
  readonly objects: JsonObjectAt[] = [];
  /** The list of the kind added to last: a record's members come in runs of one kind. */
  private lastKind: Kind | undefined;
  private lastList: JsonSlot[] = [];

  private add(s: Slot, kind: Kind): void {
    this.slots?.push(s);
    if (kind === this.lastKind) {
      this.lastList.push(s);
      return;
    }
    let same = this.lists.get(kind);
    if (same) same.push(s);
    else this.lists.set(kind, (same = [s]));
    this.lastKind = kind;
    this.lastList = same;
  }
  constructor(private readonly list: KeysOf | undefined, private readonly valuesOf?: ValuesOf) {
    this.slots = list ? undefined : [];
  }

  get byKind(): ReadonlyMap<Kind, readonly JsonSlot[]> {
    return this.lists;
  }

  inside(slot: Slot, plan: TypePlan, value: JsonValue): void {
    if (plan.shape !== undefined) {
      if (isJsonObject(value)) this.object(plan.shape, value, slot);
    } else if (plan.item !== undefined) {
      if (Array.isArray(value)) {
        const item = plan.item;
        for (let i = 0; i < value.length; i++) {
          const v = value[i]!;
          const s = new Slot(slot.field, item.type, v, slot, i);
          this.add(s, item.kind);
          this.inside(s, item, v);
        }
      }
    } else if (plan.mapValue !== undefined && isJsonObject(value)) {
      for (const key of (this.list ?? Object.keys)(value)) { // the exchange's memo: the learner lists the map too
        const v = value[key]!;
        if (isJsonObject(v)) this.object(plan.mapValue, v, new MapEntryAt(slot, key));
      }
    }
  }

  /** The object's slots, after the object itself (document order of objects: the record, then each
   *  nested one as its slot is met). */
  object(shape: Shape, obj: JsonObject, at: string | JsonSlot | MapEntryAt): void {
    const { members } = shapePlan(shape);
    let present = 0;
    let absent: Field[] | undefined;
    const objectsAt = this.objects.length;
    if (this.list) this.objects.push(undefined as never); // its place, filled below once counted
    // A record's members come in the shape's order: each read by place where the next listed name is
    // the member's, else looked up (and the place kept for the next member).
    const values = this.valuesOf?.(obj);
    const keys = values && this.list!(obj);
    let place = 0;
    for (let i = 0; i < members.length; i++) {
      const m = members[i]!;
      let value: JsonValue | undefined;
      if (keys !== undefined && keys[place] === m.name) value = values![place++];
      else value = obj[m.name];
      if (value !== undefined) present++;
      if (value === undefined || value === null) {
        if (this.list && m.valueType) (absent ??= []).push(m.field);
        continue;
      }
      const s = new Slot(m.field, m.plan.type, value, at, m.name);
      this.add(s, m.plan.kind);
      this.inside(s, m.plan, value);
    }
    if (this.list) this.objects[objectsAt] = new ObjectAt(shape, obj, at, this.list, present, absent ?? NONE);
  }
}

/** Every present member and item at every depth, in document order (a list: every type check reads
 *  it, so it is built once per record, without the cost of a generator per level). */
export function jsonSlots(shape: Shape, obj: JsonObject, path = ROOT): JsonSlot[] {
  const walk = new Walk(undefined);
  walk.object(shape, obj, path);
  return walk.slots!;
}

/** The slots (jsonSlots, also by kind) and the record with every nested object of a known shape
 *  (each with its path, in document order), in one walk. */
export function jsonWalk(shape: Shape, obj: JsonObject, list: KeysOf = Object.keys, path = ROOT, valuesOf?: ValuesOf): {
  readonly byKind: ReadonlyMap<FieldType['kind'], readonly JsonSlot[]>; readonly objects: readonly JsonObjectAt[];
} {
  const walk = new Walk(list, valuesOf);
  walk.object(shape, obj, path);
  return walk;
}

/** The record and every nested object of a known shape, each with its path. */
export function jsonObjects(shape: Shape, obj: JsonObject, path = ROOT, list: KeysOf = Object.keys): readonly JsonObjectAt[] {
  return jsonWalk(shape, obj, list, path).objects;
}

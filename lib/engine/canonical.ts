// A record as what its values mean, whichever wire carried it, and the comparison of two such records
// field by field along the contract (the differential run, differential.ts). What is equal here:
//   - datetimes as instants: JSON's seven fractional digits against SOAP's none compare on the whole
//     seconds (section 2 "Types" gives SOAP no fraction); two JSON datetimes compare exactly (one
//     written without a fraction as .0000000);
//   - guids without regard to dashes and letter case; integers as numbers; booleans 1/0 as true/false;
//   - null, an omitted member and xsi:nil alike; map entries by key; arrays in order;
//   - key order, whitespace between elements, prefixes, CDATA and character references never reach
//     here (the parsers resolve them). String values are compared exactly, as the text they are.
// Values that are not of their field's type are kept as their raw text (the conformance checks
// report the type; here they differ or not as text).
import { collapse, XSD_INTEGER } from '../contract/formats.js';
import { fieldsOn, MAP_ENTRY, type Field, type FieldType, type Sensitivity, type Shape } from '../contract/types.js';
import { INTEGER_LEXEME } from '../json/parse.js';
import { index, member } from '../json/path.js';
import { isJsonObject, type JsonValue } from '../json/value.js';
import { attribute, elementChildren, textContent, type XmlElement } from '../xml/model.js';
import { XSI } from '../contract/namespaces.js';
import { codePointCount } from '../contract/sensitivity.js';

export type Canon =
  | null
  | { readonly k: 'text'; readonly v: string }
  | { readonly k: 'int'; readonly v: bigint }
  | { readonly k: 'bool'; readonly v: boolean }
  /** Whole seconds since 0001-01-01 in ticks (100 ns); the fraction in ticks when the wire has one. */
  | { readonly k: 'time'; readonly ticks: bigint; readonly fraction?: bigint; readonly shown: string }
  | { readonly k: 'guid'; readonly v: string }
  | { readonly k: 'list'; readonly items: readonly Canon[] }
  | { readonly k: 'object'; readonly members: ReadonlyMap<string, Canon> }
  | { readonly k: 'map'; readonly entries: ReadonlyMap<string, Canon> }
  /** Not a value of the field's type: its text, compared as text (`typed`: the JSON value it was). */
  | { readonly k: 'raw'; readonly v: string; readonly typed?: JsonValue };

const TICKS_PER_SECOND = 10_000_000n;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/;

/** `json`: JSON's datetimes always carry a fraction (section 2), so one written without is .0000000:
 *  left without, it hid a candidate's sub-second difference from a legacy writing 23:59:59. */
function time(text: string, json = false): Canon {
  const m = DATETIME.exec(text);
  if (!m) return { k: 'raw', v: text };
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // years below 100 too (Date.UTC would read 1 as 1901)
  date.setUTCHours(h, mi, s, 0);
  // Date rolls what does not exist over (2019-02-29 becomes 03-01): such a text is no instant.
  const exists = date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
    && date.getUTCHours() === h && date.getUTCMinutes() === mi && date.getUTCSeconds() === s;
  if (!exists) return { k: 'raw', v: text };
  const seconds = BigInt(Math.round(date.getTime() / 1000));
  return { k: 'time', ticks: seconds * TICKS_PER_SECOND, ...(m[7] !== undefined ? { fraction: BigInt(m[7].padEnd(7, '0')) } : json ? { fraction: 0n } : {}), shown: text };
}

const GUID_HEX = /^[0-9a-f]{32}$/;
function guid(text: string): Canon {
  const hex = text.replace(/-/g, '').toLowerCase();
  return GUID_HEX.test(hex) ? { k: 'guid', v: hex } : { k: 'raw', v: text };
}

const raw = (v: JsonValue): Canon => ({ k: 'raw', v: JSON.stringify(v), typed: v });
/** The raw text of a string field that holds elements, not text. */
const MARKUP = '<markup>';

/** Where a JSON value sits, and the numbers of its text as written (ParsedJson.numbers): JSON.parse
 *  keeps neither 1048576.0 apart from 1048576 nor 9007199254740993 apart from ...992. */
export interface JsonAt {
  readonly numbers: ReadonlyMap<string, string>;
  readonly path: string;
}
const at = (where: JsonAt | undefined, step: (path: string) => string): JsonAt | undefined => (where ? { numbers: where.numbers, path: step(where.path) } : undefined);

/** An integer field's value: as written when the text said more than JSON.parse kept. */
function integer(value: JsonValue, where: JsonAt | undefined): Canon {
  const lexeme = where?.numbers.get(where.path);
  if (lexeme !== undefined) return INTEGER_LEXEME.test(lexeme) ? { k: 'int', v: BigInt(lexeme) } : { k: 'raw', v: lexeme };
  return typeof value === 'number' && Number.isInteger(value) ? { k: 'int', v: BigInt(value) } : raw(value);
}

/** Fields compared: those both wires carry (settings exists in SOAP only, always nil: a conformance
 *  check's concern, never a value to compare). */
const compared = (shape: Shape): readonly Field[] => fieldsOn(shape, 'json').filter((f) => f.only === undefined);

/** A JSON value of `type` as what it means (`where`: its place in a parsed text, for numbers as written). */
export function fromJson(type: FieldType, value: JsonValue | undefined, where?: JsonAt): Canon {
  if (value === undefined || value === null) return null;
  switch (type.kind) {
    case 'string': case 'enum': return typeof value === 'string' ? { k: 'text', v: value } : raw(value);
    case 'integer': return integer(value, where);
    case 'boolean': return typeof value === 'boolean' ? { k: 'bool', v: value } : raw(value);
    case 'datetime': return typeof value === 'string' ? time(value, true) : raw(value);
    case 'guid': return typeof value === 'string' ? guid(value) : raw(value);
    case 'array': return Array.isArray(value) ? { k: 'list', items: value.map((item, i) => fromJson(type.item, item, at(where, (p) => index(p, i)))) } : raw(value);
    case 'object': return isJsonObject(value) ? jsonObject(type.shape, value, where) : raw(value);
    case 'map':
      return isJsonObject(value)
        ? { k: 'map', entries: new Map(Object.entries(value).map(([key, v]) => [key, isJsonObject(v) ? jsonObject(type.value, v, at(where, (p) => member(p, key))) : v === null ? null : raw(v)])) }
        : raw(value);
  }
}

export function jsonObject(shape: Shape, obj: Readonly<Record<string, JsonValue>>, where?: JsonAt): Canon {
  return { k: 'object', members: new Map(compared(shape).map((f) => [f.json, fromJson(f.type, obj[f.json], at(where, (p) => member(p, f.json)))])) };
}

const isNil = (e: XmlElement): boolean => ['true', '1'].includes(collapse(attribute(e, XSI, 'nil') ?? ''));

/** A SOAP (or plain XML) element of `type` as what it means; elements found by local name. */
export function fromXml(type: FieldType, e: XmlElement | undefined): Canon {
  if (!e || isNil(e)) return null;
  const children = elementChildren(e);
  const scalar = (): string | undefined => (children.length ? undefined : textContent(e));
  const text = scalar();
  switch (type.kind) {
    case 'string': return text === undefined ? { k: 'raw', v: MARKUP } : { k: 'text', v: text };
    case 'enum': return text === undefined ? { k: 'raw', v: MARKUP } : { k: 'text', v: collapse(text) };
    case 'integer': {
      const t = collapse(text ?? '');
      return XSD_INTEGER.test(t) ? { k: 'int', v: BigInt(t) } : { k: 'raw', v: t };
    }
    case 'boolean': {
      const t = collapse(text ?? '');
      return t === 'true' || t === '1' ? { k: 'bool', v: true } : t === 'false' || t === '0' ? { k: 'bool', v: false } : { k: 'raw', v: t };
    }
    case 'datetime': return time(collapse(text ?? ''));
    case 'guid': return guid(collapse(text ?? ''));
    case 'array': return { k: 'list', items: children.map((c) => fromXml(type.item, c)) };
    case 'object': return xmlObject(type.shape, e);
    case 'map': {
      const entries = new Map<string, Canon>();
      for (const entry of children) {
        const parts = elementChildren(entry);
        const key = parts.find((p) => p.name === MAP_ENTRY.key);
        const value = parts.find((p) => p.name === MAP_ENTRY.value);
        if (key) entries.set(textContent(key), value && !isNil(value) ? xmlObject(type.value, value) : null);
      }
      return { k: 'map', entries };
    }
  }
}

export function xmlObject(shape: Shape, e: XmlElement): Canon {
  const children = elementChildren(e);
  return { k: 'object', members: new Map(compared(shape).map((f) => [f.json, fromXml(f.type, children.find((c) => c.name === f.soap))])) };
}

/** One contract path at which two records differ. */
export interface ValueDifference {
  /** The contract path: members by JSON name, `[]` for array items, `{}` for map entries. */
  readonly path: string;
  /** How they differ, without either value ("+1 day", "letter case only"). */
  readonly how: string;
  /** Both values as text, for examples (redacted by the report with the field's sensitivity). */
  readonly legacy: string;
  readonly candidate: string;
  /** Each value's form: absent, empty, or its kind (text, int, time, …). A path where the legacy's
   *  own answers differ is noise only for a candidate value of a form the legacy showed there. */
  readonly legacyForm: string;
  readonly candidateForm: string;
  /** Each value as a JSON value of its type (null, a number, a string, an array…): what a marker
   *  says of it when the value itself is withheld («personal: null», not «…: string, 4 chars»). */
  readonly legacyTyped: unknown;
  readonly candidateTyped: unknown;
  readonly sensitivity?: Sensitivity;
}

/** A value's form, for noise: absent, empty, or its kind. */
export function formOf(c: Canon): string {
  if (c === null) return 'absent';
  return emptyOf(c) !== undefined ? 'empty' : c.k;
}

/** A value as a JSON value of its type, for a marker (markup in a string field is structure: an object). */
export function typedOf(c: Canon): unknown {
  if (c === null) return null;
  switch (c.k) {
    case 'int': return Number(c.v);
    case 'bool': return c.v;
    case 'list': return c.items.map(typedOf);
    case 'object': case 'map': return {};
    case 'raw': return c.typed !== undefined ? c.typed : c.v === MARKUP ? {} : c.v;
    case 'time': return c.shown;
    default: return c.v;
  }
}

/** The value as text for an example (never shown unredacted). */
export function shown(c: Canon): string {
  if (c === null) return 'null';
  switch (c.k) {
    case 'text': case 'guid': case 'raw': return c.v;
    case 'int': case 'bool': return String(c.v);
    case 'time': return c.shown;
    case 'list': return `[${c.items.map(shown).join(', ')}]`;
    case 'object': return `{${[...c.members].filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${shown(v)}`).join(', ')}}`;
    case 'map': return `{${[...c.entries.keys()].join(', ')}}`;
  }
}

const plural = (n: number | bigint, unit: string) => `${n} ${unit}${n === 1 || n === 1n || n === -1n ? '' : 's'}`;
const UNITS: readonly [bigint, string][] = [[86_400n * TICKS_PER_SECOND, 'day'], [3_600n * TICKS_PER_SECOND, 'hour'], [60n * TICKS_PER_SECOND, 'minute'], [TICKS_PER_SECOND, 'second']];

/** A signed time difference in the largest whole unit it is a multiple of ("+1 day", "-0.9999999 s"). */
export function timeDelta(ticks: bigint): string {
  const sign = ticks < 0n ? '-' : '+';
  const abs = ticks < 0n ? -ticks : ticks;
  for (const [size, unit] of UNITS) if (abs % size === 0n) return `${sign}${plural(abs / size, unit)}`;
  const whole = abs / TICKS_PER_SECOND;
  return `${sign}${whole}.${String(abs % TICKS_PER_SECOND).padStart(7, '0').replace(/0+$/, '')} s`;
}

function textHow(a: string, b: string): string {
  const [la, lb] = [codePointCount(a), codePointCount(b)];
  if (a.toLowerCase() === b.toLowerCase()) return 'letter case only';
  if (b === a.trim()) return 'whitespace trimmed';
  if (a === b.trim()) return 'whitespace added around it';
  if (a.startsWith(b)) return `cut short (${lb} of ${la} characters kept)`;
  if (b.startsWith(a)) return `extended (${la} → ${lb} characters)`;
  return `other text (${la} → ${lb} characters)`;
}

const emptyOf = (c: Canon): string | undefined =>
  c === null ? undefined : c.k === 'text' && c.v === '' ? 'an empty string' : c.k === 'list' && !c.items.length ? 'an empty array'
    : c.k === 'map' && !c.entries.size ? 'an empty map' : undefined;

/** Scalar lists: the same items in another order, some dropped, some added. */
function listHow(a: readonly Canon[], b: readonly Canon[]): string {
  const as = a.map(shown);
  const bs = b.map(shown);
  const sorted = (x: string[]) => [...x].sort().join('\u0000');
  if (as.length === bs.length && sorted(as) === sorted(bs)) return 'same items, another order';
  const missing = as.filter((x) => !bs.includes(x)).length;
  const added = bs.filter((x) => !as.includes(x)).length;
  const parts = [missing ? `${plural(missing, 'item')} missing` : '', added ? `${plural(added, 'item')} added` : ''].filter(Boolean);
  return parts.length ? `${parts.join(', ')} (${as.length} → ${bs.length} items)` : `items repeated differently (${as.length} → ${bs.length} items)`;
}

/** Every contract path under `path` at which `a` (legacy) and `b` (candidate) differ, into `out`. */
export function compareCanon(type: FieldType, a: Canon, b: Canon, path: string, out: ValueDifference[], sensitivity?: Sensitivity): void {
  const diff = (how: string) => out.push({
    path, how, legacy: shown(a), candidate: shown(b), legacyForm: formOf(a), candidateForm: formOf(b), legacyTyped: typedOf(a), candidateTyped: typedOf(b),
    ...(sensitivity ? { sensitivity } : {}),
  });
  if (a === null || b === null) {
    if (a === b) return;
    const empty = emptyOf(a ?? b);
    diff(a === null ? `null (or absent) → ${empty ?? 'a value'}` : `${empty ?? 'a value'} → null (or absent)`);
    return;
  }
  if (a.k !== b.k) { diff('not comparable (one of them is not of the field\'s type)'); return; }
  switch (a.k) {
    case 'text': case 'raw': if (a.v !== (b as typeof a).v) diff(a.k === 'raw' ? 'other text' : textHow(a.v, (b as typeof a).v)); return;
    case 'int': { const d = (b as typeof a).v - a.v; if (d) diff(`${d > 0n ? '+' : ''}${d}`); return; }
    case 'bool': if (a.v !== (b as typeof a).v) diff(`flipped (${a.v} → ${!a.v})`); return;
    case 'guid': if (a.v !== (b as typeof a).v) diff('another guid'); return;
    case 'time': {
      const t = b as typeof a;
      // A fraction counts only where both wires carry one (SOAP carries none: section 2).
      const both = a.fraction !== undefined && t.fraction !== undefined;
      const delta = t.ticks - a.ticks + (both ? t.fraction! - a.fraction! : 0n);
      if (delta === 0n) return;
      diff(both && t.ticks === a.ticks && t.fraction === 0n ? `fraction dropped (${timeDelta(delta)})` : timeDelta(delta));
      return;
    }
    case 'list': {
      const t = b as typeof a;
      if (type.kind !== 'array') return;
      if (type.item.kind === 'object' && a.items.length === t.items.length) {
        a.items.forEach((item, i) => compareCanon(type.item, item, t.items[i]!, `${path}[]`, out));
        return;
      }
      const inner: ValueDifference[] = [];
      a.items.forEach((item, i) => { if (i < t.items.length) compareCanon(type.item, item, t.items[i]!, `${path}[]`, inner); });
      if (inner.length || a.items.length !== t.items.length) diff(type.item.kind === 'object' ? `${a.items.length} → ${t.items.length} items` : listHow(a.items, t.items));
      return;
    }
    case 'object': {
      const t = b as typeof a;
      const shape = type.kind === 'object' ? type.shape : type.kind === 'map' ? type.value : undefined;
      if (!shape) return;
      for (const f of compared(shape)) compareCanon(f.type, a.members.get(f.json) ?? null, t.members.get(f.json) ?? null, path ? `${path}.${f.json}` : f.json, out, f.sensitivity);
      return;
    }
    case 'map': {
      const t = b as typeof a;
      if (type.kind !== 'map') return;
      const missing = [...a.entries.keys()].filter((k) => !t.entries.has(k)).length;
      const added = [...t.entries.keys()].filter((k) => !a.entries.has(k)).length;
      if (missing || added) diff([missing ? `${plural(missing, 'entry')} missing`.replace('entrys', 'entries') : '', added ? `${plural(added, 'entry')} added`.replace('entrys', 'entries') : ''].filter(Boolean).join(', '));
      for (const [key, v] of a.entries) if (t.entries.has(key)) compareCanon(objectType(type), v, t.entries.get(key)!, `${path}{}`, out);
      return;
    }
  }
}

const objectType = (t: Extract<FieldType, { kind: 'map' }>): FieldType => ({ kind: 'object', shape: t.value });

/** Whether `path` is `under` or lies below it (a member, an item or an entry of it). */
export const isAtOrBelow = (path: string, under: string): boolean =>
  path === under || (path.startsWith(under) && ['.', '[', '{'].includes(path[under.length]!));

// The JSON records (2.1, 2.3) as a whole: value members present at every level, names exact,
// settings absent. Every check judges every 200 JSON answer of both JSON operations, by either route
// and any selector, JSONP answers unwrapped.
import { isJsonOperation } from '../contract/classify.js';
import { JSON_OPERATIONS, type JsonOperation } from '../contract/operations.js';
import { fieldsOn, perShape, type FieldType } from '../contract/types.js';
import { INT32_MAX, INT32_MIN } from '../contract/formats.js';
import { isJsonObject, type JsonObject } from '../json/value.js';
import { member, ROOT } from '../json/path.js';
import type { ParsedJson } from '../json/parse.js';
import { splitJsonp } from '../json/jsonp.js';
import { finding, show, type Check, type Finding, type Look } from './check.js';
import type { ExchangeView } from './exchange-view.js';
import { jsonRecordKind } from './kinds.js';
import { jsonWalk, type JsonObjectAt, type JsonSlot, type KeysOf } from './walk-json.js';

/** What the record checks read of a JSON record: the parsed answer and its walks, made once. */
export interface JsonRecordView {
  readonly op: JsonOperation;
  readonly root: JsonObject;
  readonly json: ParsedJson;
  /** The record and every nested object of a known shape. */
  readonly objects: readonly JsonObjectAt[];
  /** The slots by the kind of their type, each list in document order (a type check reads its own kind only). */
  readonly byKind: ReadonlyMap<FieldType['kind'], readonly JsonSlot[]>;
  /** How the answer's objects' names are listed (the exchange's memo). */
  readonly keysOf: KeysOf;
}

/** The judges overJson made: the checks that read the record view, which fast-record.ts proves or
 *  leaves to judge (its test holds the two lists equal). */
const RECORD_VIEW_JUDGES = new WeakSet<Check['judge']>();
export const readsRecordView = (judge: Check['judge']): boolean => RECORD_VIEW_JUDGES.has(judge);

/** A look at the JSON record an answer carries; an answer that is not a 200 JSON object is skipped. */
export const overJson = (look: (record: JsonRecordView) => Look): Check['judge'] => {
  const judge = (ex: ExchangeView): Look => overRecord(ex, look);
  RECORD_VIEW_JUDGES.add(judge);
  return judge;
};

function overRecord(ex: ExchangeView, look: (record: JsonRecordView) => Look): Look {
  const view = ex.once('json-record-view', jsonRecordView);
  if ('skip' in view) return view;
  const found = look(view);
  // A repeated key is judged at each reading: readers disagree on which occurrence wins (RFC 8259 4),
  // so a wrong value hidden behind a right one later in the object is found too.
  const first = view.json.firstWins === undefined ? undefined : ex.once('json-record-view-first', () => firstWinsView(view));
  if (!first || !Array.isArray(found)) return found;
  const more = look(first);
  if (!Array.isArray(more)) return found;
  const seen = new Set(found.map((f) => `${f.path ?? ''}\n${f.message}`));
  return [...found, ...more.filter((f) => !seen.has(`${f.path ?? ''}\n${f.message}`))];
}

/** The record view as a reader keeping each repeated key's first occurrence reads the record. */
function firstWinsView(view: JsonRecordView): JsonRecordView | undefined {
  const root = view.json.firstWins;
  if (!isJsonObject(root)) return undefined;
  const { objects, byKind } = jsonWalk(view.op.response, root, view.keysOf);
  return { ...view, root, objects, byKind };
}

/** The record view of an exchange, or why there is none (the same for every record check: made once). */
function jsonRecordView(ex: ExchangeView): JsonRecordView | { readonly skip: string } {
  const op = ex.kind.operation;
  if (!isJsonOperation(op)) return { skip: 'not a JSON operation' };
  const rec = ex.jsonRecord();
  if (!rec.ok) return { skip: rec.reason };
  const { objects, byKind } = jsonWalk(op.response, rec.value.root, ex.keysOf, ROOT, ex.valuesOf);
  return { op, root: rec.value.root, json: rec.value.json, objects, byKind, keysOf: ex.keysOf };
}

/** Whether the bytes start with the UTF-8 byte-order mark EF BB BF (read in place: no view made per answer). */
const startsWithBom = (b: Buffer): boolean => b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;

/** A shape's JSON member names, and each lower-cased -> as written. */
const jsonNames = perShape((shape) => {
  const names = fieldsOn(shape, 'json').map((f) => f.json);
  return { names: new Set(names), byLower: new Map(names.map((n) => [n.toLowerCase(), n])) };
});
/** Every field's JSON name as written and lower-cased, SOAP-only ones included (a name written exactly
 *  is known without lower-casing it: most of every answer's names). */
const allJsonNames = perShape((shape) => ({ exact: new Set(shape.fields.map((f) => f.json)), lower: new Set(shape.fields.map((f) => f.json.toLowerCase())) }));

/** Each JSON operation's SOAP-only member names, lower-cased (made once, not per answer). */
const soapOnlyNames = (op: JsonOperation): string[] => op.response.fields.filter((f) => f.only === 'soap').map((f) => f.json.toLowerCase());
const SOAP_ONLY_NAMES = new Map(JSON_OPERATIONS.map((op) => [op, soapOnlyNames(op)]));
/** Each JSON operation's JSON member names, as written, that are no SOAP-only name in any case: most
 *  of every answer's names, known at once without lower-casing them. */
const JSON_NOT_SOAP_ONLY = new Map(JSON_OPERATIONS.map((op) => [op, new Set(fieldsOn(op.response, 'json').map((f) => f.json).filter((n) => !soapOnlyNames(op).includes(n.toLowerCase())))]));

/** Each JSON operation: whether every JSON member name of its record, as written, is no SOAP-only
 *  name in any case (then only the record's other names can be settings). */
const SETTINGS_ONLY_IN_OTHERS = new Map(JSON_OPERATIONS.map((op) => [op, fieldsOn(op.response, 'json').every((f) => JSON_NOT_SOAP_ONLY.get(op)!.has(f.json))]));
/** Whether JSON-SETTINGS-ABSENT finds nothing in a record of `op` whose every name is one of its JSON
 *  members (no others): fast-record.ts proves only such records. */
export const settingsOnlyInOthers = (op: JsonOperation): boolean => SETTINGS_ONLY_IN_OTHERS.get(op) === true;

/** The findings of `look` on every object, in order (no list made for an object without any). */
const overObjects = (look: (o: JsonObjectAt) => Finding[] | undefined): Check['judge'] => overJson((r) => {
  let found: Finding[] | undefined;
  for (const o of r.objects) {
    const more = look(o);
    if (more?.length) (found ??= []).push(...more);
  }
  return found ?? [];
});

const json = {
  area: 'JSON record', operation: JSON_OPERATIONS.map((op) => op.name).join(', '), clause: '2.1, 2.3',
  judges: jsonRecordKind.judges, appliesTo: jsonRecordKind.applies,
} as const;

export const JSON_RECORD_CHECKS: readonly Check[] = [
  {
    ...json, level: 'MUST',
    id: 'JSON-VALUE-MEMBERS',
    title: 'Every value-type member is present and not null, at every level',
    requirement: 'Every integer, boolean, datetime, guid and enum member of the record and of each nested object is present and not null.',
    interpretation: '.NET value types cannot be null; string, array, object and map members may be null or omitted (ServiceStack omits nulls).',
    judge: overObjects((o) => (o.absentValues.length === 0 ? undefined
      : o.absentValues.map((f) => finding(`${f.json} is ${o.value[f.json] === null ? 'null' : 'missing'}`, { path: member(o.path, f.json) })))),
  },
  {
    ...json, level: 'MUST',
    id: 'JSON-MEMBER-NAMES',
    title: 'Member names are exact camelCase',
    requirement: 'No member is written under a name that differs from the spec\'s only by case (userName, not UserName).',
    interpretation: 'Names that are no member at all are reported by JSON-UNKNOWN-MEMBERS.',
    judge: overObjects((o) => {
      if (o.others.length === 0) return undefined;
      const { names, byLower } = jsonNames(o.shape);
      return o.others.filter((k) => !names.has(k) && byLower.has(k.toLowerCase()))
        .map((k) => finding(`${show(k)} should be ${byLower.get(k.toLowerCase())}`, { path: member(o.path, k), actual: k }));
    }),
  },
  {
    ...json, level: 'MUST', clause: '2.1',
    id: 'JSON-SETTINGS-ABSENT',
    title: 'settings is absent from JSON',
    requirement: 'The JSON user-details record has no settings member (it exists in SOAP only).',
    interpretation: 'A member named settings in any letter case counts.',
    judge: overJson(({ op, root, objects }) => {
      const soapOnly = SOAP_ONLY_NAMES.get(op) ?? soapOnlyNames(op);
      const notSoapOnly = JSON_NOT_SOAP_ONLY.get(op) ?? new Set();
      const record = objects[0]!;
      return (SETTINGS_ONLY_IN_OTHERS.get(op) ? record.others : record.keys).filter((k) => !notSoapOnly.has(k) && soapOnly.includes(k.toLowerCase()))
        .map((k) => finding(`${k} is present (${show(root[k])}); it exists in SOAP only`, { path: member(ROOT, k) }));
    }),
  },
  {
    ...json, level: 'MUST', clause: '4.1, 4.3',
    id: 'JSON-NO-BOM',
    title: 'The JSON text does not start with a byte-order mark',
    requirement: 'A JSON body, and the JSON inside a JSONP call, does not start with U+FEFF (RFC 8259 section 8.1: implementations MUST NOT add a byte-order mark).',
    interpretation: 'RFC 8259 8.1 forbids it to senders. .NET\'s JsonSerializer.Deserialize of bytes and JsonDocument.Parse reject it '
      + '(fixtures/dotnet/golden/platform.json, probes.bomBeforeJson), though browsers drop it; the other checks judge the text after it. '
      + 'JSONP is JavaScript, where a byte-order mark before the callback is an encoding signature: only the JSON inside the call is judged. '
      + 'A byte-order mark before XML stays legitimate (XML 1.0 4.3.3).',
    judge: (ex) => {
      const r = ex.response();
      if (!r.ok) return { skip: r.reason };
      if (r.value.status !== 200) return { skip: `status ${r.value.status}, not a record` };
      if (!ex.kind.jsonp) {
        const body = ex.body();
        if (!body.ok) return { skip: body.reason };
        return startsWithBom(body.value) ? [finding('the body starts with the UTF-8 byte-order mark EF BB BF', { path: ROOT, actual: 'EF BB BF' })] : [];
      }
      const t = ex.text();
      if (!t.ok) return { skip: t.reason };
      const parts = splitJsonp(t.value);
      if (!parts.ok) return { skip: parts.error };
      return /^[ \t\r\n]*\uFEFF/.test(parts.json) ? [finding(`the JSON inside ${parts.callback}(…) starts with U+FEFF`, { path: ROOT, actual: 'U+FEFF' })] : [];
    },
  },
  {
    ...json, level: 'SHOULD',
    id: 'JSON-UNKNOWN-MEMBERS',
    title: 'No members beyond the spec\'s',
    requirement: 'The record and its nested objects hold no member the spec does not list.',
    interpretation: 'Advisory: the spec does not forbid extra members and clients ignore them.',
    judge: overObjects((o) => {
      if (o.others.length === 0) return undefined;
      const { exact, lower } = allJsonNames(o.shape);
      return o.others.filter((k) => !exact.has(k) && !lower.has(k.toLowerCase()))
        .map((k) => finding(`${show(k)} is not a member of ${o.shape.name}`, { path: member(o.path, k), actual: k }));
    }),
  },
  {
    ...json, level: 'SHOULD',
    id: 'JSON-DUPLICATE-KEYS',
    title: 'No member appears twice in one object',
    requirement: 'No object of the record repeats a member name.',
    interpretation: 'RFC 8259 4: names SHOULD be unique; readers disagree on which duplicate wins.',
    judge: overJson(({ json: parsed }) => parsed.duplicateKeys.map((p) => finding('this member appears more than once', { path: p }))),
  },
  {
    ...json, level: 'SHOULD', clause: '2.1',
    id: 'JSON-INTEGER-RANGE',
    title: 'Integers fit in 32 bits',
    requirement: 'Every integer value lies in the range of a .NET int (−2147483648 to 2147483647).',
    interpretation: 'The spec says "integer"; the SOAP form is xs:int. JSON itself has no width, so this is advisory for JSON.',
    // Quoted as received: past 2^53 the parsed double is another number (12345678901234567 reads as …568).
    judge: overJson(({ byKind, json: parsed }) => (byKind.get('integer') ?? [])
      .filter((s) => typeof s.value === 'number' && (s.value < INT32_MIN || s.value > INT32_MAX))
      .map((s) => {
        const written = parsed.numbers.get(s.path) ?? String(s.value);
        return finding(`${written} is outside the 32-bit range`, { path: s.path, actual: written });
      })),
  },
];

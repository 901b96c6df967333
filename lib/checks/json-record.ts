// The JSON records (2.1, 2.3) as a whole: value members present at every level, names exact,
// settings absent. Every check reads every 200 JSON answer of both JSON operations, the JSONP
// answers unwrapped.
import { JSON_OPERATIONS, type JsonOperation } from '../contract/operations.js';
import { fieldsOn, isValueType } from '../contract/types.js';
import { INT32_MAX, INT32_MIN } from '../contract/formats.js';
import type { JsonObject } from '../json/node.js';
import { member } from '../json/path.js';
import type { ParsedJson } from '../json/parse.js';
import { X } from '../engine/exchanges.js';
import { acrossExchanges, finding, show, type Check, type Finding, type Look, type Outcome } from './check.js';
import type { CheckContext } from './context.js';
import { jsonObjects, jsonSlots, type JsonObjectAt } from './walk-json.js';

/** The exchanges whose 200 answers carry `op`'s record, and whether each is JSONP. */
export const recordExchanges = (op: JsonOperation): [string, boolean][] =>
  [[X.post(op), false], [X.reply(op), false], [X.jsonExtension(op), false], [X.formatJson(op), false], [X.callback(op), true]];

export const JSON_RECORD_EXCHANGES = JSON_OPERATIONS.flatMap((op) => recordExchanges(op).map(([id]) => id));

/** Exchange id -> its operation and whether it is JSONP. */
const RECORD_EXCHANGE = new Map(JSON_OPERATIONS.flatMap((op) => recordExchanges(op).map(([id, p]) => [id, { op, p }] as const)));

/** Runs `look` on every JSON record the run received; an answer that is not a 200 JSON object is skipped. */
export function overJson(ctx: CheckContext, look: (id: string, op: JsonOperation, root: JsonObject, json: ParsedJson) => Look): Outcome {
  return acrossExchanges(ctx, JSON_RECORD_EXCHANGES, (id) => {
    const { op, p } = RECORD_EXCHANGE.get(id)!;
    const rec = ctx.jsonRecord(id, p);
    return rec.ok ? look(id, op, rec.value.root, rec.value.json) : { skip: rec.reason };
  });
}

const overObjects = (look: (id: string, o: JsonObjectAt) => Finding[]): Check['run'] =>
  (ctx) => overJson(ctx, (id, op, root) => [...jsonObjects(op.response, root)].flatMap((o) => look(id, o)));

const json = {
  area: 'JSON record', operation: JSON_OPERATIONS.map((op) => op.name).join(', '), clause: '2.1, 2.3', exchanges: JSON_RECORD_EXCHANGES,
} as const;

export const JSON_RECORD_CHECKS: readonly Check[] = [
  {
    ...json, level: 'MUST',
    id: 'JSON-VALUE-MEMBERS',
    title: 'Every value-type member is present and not null, at every level',
    requirement: 'Every integer, boolean, datetime, guid and enum member of the record and of each nested object is present and not null.',
    interpretation: '.NET value types cannot be null; string, array, object and map members may be null or omitted (ServiceStack omits nulls).',
    run: overObjects((id, o) => fieldsOn(o.shape, 'json').filter((f) => isValueType(f.type) && (o.value[f.json] ?? null) === null)
      .map((f) => finding(id, `${f.json} is ${o.value[f.json] === null ? 'null' : 'missing'}`, { path: member(o.path, f.json) }))),
  },
  {
    ...json, level: 'MUST',
    id: 'JSON-MEMBER-NAMES',
    title: 'Member names are exact camelCase',
    requirement: 'No member is written under a name that differs from the spec\'s only by case (userName, not UserName).',
    interpretation: 'Names that are no member at all are reported by JSON-UNKNOWN-MEMBERS.',
    run: overObjects((id, o) => {
      const names = fieldsOn(o.shape, 'json').map((f) => f.json);
      const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
      return Object.keys(o.value).filter((k) => !names.includes(k) && byLower.has(k.toLowerCase()))
        .map((k) => finding(id, `${k} should be ${byLower.get(k.toLowerCase())}`, { path: member(o.path, k), actual: k }));
    }),
  },
  {
    ...json, level: 'MUST', clause: '2.1',
    id: 'JSON-SETTINGS-ABSENT',
    title: 'settings is absent from JSON',
    requirement: 'The JSON user-details record has no settings member (it exists in SOAP only).',
    interpretation: 'A member named settings in any letter case counts.',
    run: (ctx) => overJson(ctx, (id, op, root) => {
      const soapOnly = op.response.fields.filter((f) => f.only === 'soap').map((f) => f.json.toLowerCase());
      return Object.keys(root).filter((k) => soapOnly.includes(k.toLowerCase()))
        .map((k) => finding(id, `${k} is present (${show(root[k])}); it exists in SOAP only`, { path: member('$', k) }));
    }),
  },
  {
    ...json, level: 'SHOULD',
    id: 'JSON-UNKNOWN-MEMBERS',
    title: 'No members beyond the spec\'s',
    requirement: 'The record and its nested objects hold no member the spec does not list.',
    interpretation: 'Advisory: the spec does not forbid extra members and clients ignore them.',
    run: overObjects((id, o) => {
      const lower = new Set(o.shape.fields.map((f) => f.json.toLowerCase()));
      return Object.keys(o.value).filter((k) => !lower.has(k.toLowerCase()))
        .map((k) => finding(id, `${k} is not a member of ${o.shape.name}`, { path: member(o.path, k), actual: k }));
    }),
  },
  {
    ...json, level: 'SHOULD',
    id: 'JSON-DUPLICATE-KEYS',
    title: 'No member appears twice in one object',
    requirement: 'No object of the record repeats a member name.',
    interpretation: 'RFC 8259 4: names SHOULD be unique; readers disagree on which duplicate wins.',
    run: (ctx) => overJson(ctx, (id, _op, _root, parsed) => parsed.duplicateKeys.map((p) => finding(id, 'this member appears more than once', { path: p }))),
  },
  {
    ...json, level: 'SHOULD', clause: '2.1',
    id: 'JSON-INTEGER-RANGE',
    title: 'Integers fit in 32 bits',
    requirement: 'Every integer value lies in the range of a .NET int (−2147483648 to 2147483647).',
    interpretation: 'The spec says "integer"; the SOAP form is xs:int. JSON itself has no width, so this is advisory for JSON.',
    run: (ctx) => overJson(ctx, (id, op, root) => [...jsonSlots(op.response, root)]
      .filter((s) => s.type.kind === 'integer' && typeof s.value === 'number' && (s.value < INT32_MIN || s.value > INT32_MAX))
      .map((s) => finding(id, `${show(s.value)} is outside the 32-bit range`, { path: s.path, actual: String(s.value) }))),
  },
];

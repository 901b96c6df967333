// Every typed value in the JSON records (2 Types, 2.1, 2.3), at every depth, judged on the JSON
// value and, for integers, on the number exactly as written.
import { JSON_OPERATIONS } from '../contract/operations.js';
import { DAY_NAMES } from '../contract/records.js';
import { marker } from '../contract/sensitivity.js';
import { isValueType, type Field, type FieldType } from '../contract/types.js';
import type { JsonValue } from '../json/value.js';
import { EXPECTED, JSON_VALUE_RULES, type ValueRules } from '../contract/values.js';
import { finding, show, type Check, type Finding, type RuleMeta } from './check.js';
import { overJson } from './json-record.js';
import { jsonRecordKind } from './kinds.js';

interface TypeRule extends RuleMeta {
  /** The kind of type it judges, and which types of that kind (all unless `applies` says). */
  readonly kind: FieldType['kind'];
  readonly applies?: (type: FieldType) => boolean;
  /** Why the value is wrong, or undefined. `lexeme` is the number as written, for numbers. Default:
   *  the contract's type rule (values.ts); null is wrong only for a .NET value type. */
  readonly judge?: (value: JsonValue, lexeme: string | undefined, type: FieldType) => string | undefined;
}

/** The rules of a value without a lexeme (most): one object, not one per value. */
const NO_LEXEME: ValueRules = Object.freeze({});

/** Why a null value is wrong for its type: only for a .NET value type. */
const nullProblem = (type: FieldType): string | undefined => (isValueType(type) ? `expected ${EXPECTED[type.kind]}` : undefined);

/** An enum type's values, lower-cased (made once per type, not per value). */
const LOWER_VALUES = new WeakMap<FieldType, ReadonlySet<string>>();
function lowerValues(t: FieldType & { kind: 'enum' }): ReadonlySet<string> {
  let lower = LOWER_VALUES.get(t);
  if (!lower) LOWER_VALUES.set(t, (lower = new Set(t.values.map((n) => n.toLowerCase()))));
  return lower;
}

const jsonKind = (v: JsonValue) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** A type check's finding of one slot: `field` the member (an item's array member), `lexeme` the
 *  number as written, `why` the slot rule's problem. fast-record.ts makes a proven string's so too. */
export function slotFinding(field: Field, value: JsonValue, lexeme: string | undefined, why: string, path: string): Finding {
  const shown = field.sensitivity ? marker(field.sensitivity, value) : show(lexeme ?? value);
  return finding(`${shown} (${jsonKind(value)}): ${why}`, {
    path, actual: lexeme ?? (typeof value === 'string' ? value : JSON.stringify(value)),
    ...(field.sensitivity ? { sensitivity: field.sensitivity } : {}),
  });
}

/** One type check's judgement of one slot, as its loop makes it: what fast-record.ts asks of every
 *  value it proves, so that both read the same rules. `custom`: the check has a judge of its own. */
export interface TypeSlotRule {
  readonly id: string;
  readonly kind: FieldType['kind'];
  readonly applies?: (type: FieldType) => boolean;
  readonly custom: boolean;
  /** Why `value` (null for an item only) is wrong, or undefined. */
  readonly problem: (value: JsonValue, lexeme: string | undefined, type: FieldType, rules: ValueRules) => string | undefined;
}

/** The slot rule of a type check: its own judge, else the contract's rule of its kind (picked once, values.ts). */
function slotRule({ id, kind, applies, judge }: TypeRule): TypeSlotRule {
  const valueRule = JSON_VALUE_RULES[kind];
  return {
    id, kind, custom: judge !== undefined, ...(applies ? { applies } : {}),
    problem: judge ? (value, lexeme, type) => judge(value, lexeme, type)
      : (value, lexeme, type, rules) => (value === null ? nullProblem(type) : valueRule(type, value, lexeme === undefined ? rules : { ...rules, lexeme })),
  };
}

/** Every type check's slot rule, in the catalogue's order (filled as the checks are made). */
const slotRules: TypeSlotRule[] = [];
export const JSON_TYPE_SLOT_RULES: readonly TypeSlotRule[] = slotRules;

function typeCheck(rule: TypeRule): Check {
  const { kind: slotKind, applies, judge, level = 'MUST', ...meta } = rule;
  const slot = slotRule(rule);
  slotRules.push(slot);
  const readsLexeme = slotKind === 'integer' || judge !== undefined;
  return {
    ...meta, level, area: 'JSON record', operation: JSON_OPERATIONS.map((op) => op.name).join(', '),
    judges: jsonRecordKind.judges, appliesTo: jsonRecordKind.applies,
    // A loop over the slots of its kind (every type check ran a filter and a flatMap over every slot
    // of every answer: the harness's largest cost per exchange after JSON.parse).
    judge: overJson(({ byKind, json: parsed, keysOf }) => {
      const found: Finding[] = [];
      const slots = byKind.get(slotKind);
      if (!slots) return found;
      const numbers = parsed.numbers.size ? parsed.numbers : undefined;
      // A map's names are listed by the exchange's memo (the walk and the learner list them too).
      const rules: ValueRules = slotKind === 'map' ? { keysOf } : NO_LEXEME;
      for (const s of slots) {
        if (applies && !applies(s.type)) continue;
        // Only the integer rule reads the number as written; other kinds' findings show it. A slot's
        // path is written only when looked up, so it is looked up only where it is read.
        let lexeme = numbers && readsLexeme ? numbers.get(s.path) : undefined;
        const why = slot.problem(s.value, lexeme, s.type, rules);
        if (!why) continue;
        if (numbers && !readsLexeme) lexeme = numbers.get(s.path);
        found.push(slotFinding(s.field, s.value, lexeme, why, s.path));
      }
      return found;
    }),
  };
}

const isString = (v: JsonValue): v is string => typeof v === 'string';

/** Why an enum value is wrong by letter case alone (a name the contract shows, spelled otherwise), or
 *  undefined: the one rule of JSON-ENUM-CASE (answers) and REQ-JSON-TYPES (requests). */
export function enumCaseProblem(type: FieldType, value: JsonValue): string | undefined {
  const known = type.kind === 'enum' && isString(value) && !type.values.includes(value)
    ? type.values.find((n) => n.toLowerCase() === value.toLowerCase()) : undefined;
  return known ? `differs from ${known} only by letter case` : undefined;
}

/** Where the enum-case rule comes from, for both directions (answers and requests). */
export const ENUM_CASE_SOURCE = 'Interpretation: the spec gives each enum value in one spelling, the same words for a request (2.2) and an answer (2.1: "value seen: Unspecified"), '
  + 'and says nothing of letter case, so a JSON string (compared exactly, RFC 8259 8.3) holds it as shown, whoever writes it. '
  + '.NET reads enum names ignoring case (System.Text.Json, observed: fixtures/dotnet/golden/platform.json, probes.enumNameReadIgnoringCase), '
  + 'so a server reading a request accepts any case, as the platform and the reference do; but an exact reader (DataContractSerializer, a TypeScript union, another implementation) does not, '
  + 'so a writer relying on that leniency is judged as member names are (JSON-MEMBER-NAMES, REQ-JSON-MEMBER-NAMES).';

export const JSON_TYPE_CHECKS: readonly Check[] = [
  typeCheck({
    id: 'JSON-STRING', title: 'Strings are JSON strings', clause: '2.1, 2.3',
    requirement: 'Every string member and string item is a JSON string (or null).',
    kind: 'string',
  }),
  typeCheck({
    id: 'JSON-INTEGER', title: 'Integers are JSON integers', clause: '2 Types, 2.1',
    requirement: 'Every integer member and availableYearsFor1099K item is a JSON number written as an integer: no quotes, fraction or exponent.',
    interpretation: 'Judged on the number as written: 42.0 and 4.2e1 are refused although JSON.parse reads them as 42.',
    kind: 'integer',
  }),
  typeCheck({
    id: 'JSON-BOOLEAN', title: 'Booleans are JSON booleans', clause: '2.1',
    requirement: 'Every boolean member is true or false, not a string or a number.',
    kind: 'boolean',
  }),
  typeCheck({
    id: 'JSON-DATETIME', title: 'Datetimes have seven fractional digits and no zone', clause: '2 Types',
    requirement: 'Every datetime member is a string YYYY-MM-DDThh:mm:ss.fffffff: exactly seven fractional digits, no zone suffix, a real calendar instant.',
    kind: 'datetime',
  }),
  typeCheck({
    id: 'JSON-GUID', title: 'Guids are 32 hex digits without dashes', clause: '2 Types',
    requirement: 'Every guid member (siteId, enrollmentInfo.siteId) is a string of 32 hexadecimal digits without dashes.',
    interpretation: 'Either case of hex digit is accepted (.NET writes lower case).',
    kind: 'guid',
  }),
  typeCheck({
    id: 'JSON-ENUM', title: 'Enums are strings naming a member', clause: '2.1',
    requirement: 'Every enum member (mealPatternVersionCode, originalUserTypeCode, parentContactType, system, systemId, systemCode) is a string holding a .NET enum member name.',
    interpretation: 'ServiceStack writes enums by name; a number is refused. The value sets are not given (2.4): see JSON-ENUM-SEEN.',
    kind: 'enum', applies: (t) => t.kind === 'enum' && !t.closed,
  }),
  typeCheck({
    id: 'JSON-DAY-NAMES', title: 'mealDays holds day names', clause: '2.1',
    requirement: `Every mealDays item is one of ${DAY_NAMES.join(', ')}.`,
    kind: 'enum', applies: (t) => t.kind === 'enum' && t.closed,
  }),
  typeCheck({
    id: 'JSON-ARRAY', title: 'Arrays are JSON arrays', clause: '2.1',
    requirement: 'roles, permissions, possibleLoginTypes, availableYearsFor1099K, associatedIds and mealDays are JSON arrays (or null).',
    kind: 'array',
  }),
  typeCheck({
    id: 'JSON-OBJECT', title: 'Objects are JSON objects', clause: '2.1',
    requirement: 'enrollmentInfo, nonCongregateSettings and each associatedIds item are JSON objects (or null).',
    kind: 'object',
  }),
  typeCheck({
    id: 'JSON-MAP', title: 'providerPaymentSettings is an object map', clause: '2.1',
    requirement: 'providerPaymentSettings is a JSON object whose every value is a provider-payment-settings object (or null).',
    interpretation: 'A .NET Dictionary<string, T> is a JSON object keyed as-is, not an array of pairs; T is a class, so a value may be null (as a nil Value may in SOAP).',
    kind: 'map',
  }),
  typeCheck({
    id: 'JSON-ENUM-CASE', title: 'Enum names are written exactly', clause: '2.1',
    requirement: 'No enum member holds a name the spec shows in another letter case (Unspecified, not unspecified).',
    interpretation: `${ENUM_CASE_SOURCE} A camelCase enum converter writes "unspecified" (fixtures/dotnet/golden/platform.json, probes.camelCaseEnumConverterWrites). `
      + 'A request is held to the same spelling (REQ-JSON-TYPES). Names the spec does not show stay advisory (JSON-ENUM-SEEN).',
    kind: 'enum', applies: (t) => t.kind === 'enum' && !t.closed,
    judge: (v, _l, t) => enumCaseProblem(t, v),
  }),
  typeCheck({
    id: 'JSON-ENUM-SEEN', title: 'Enum values are those the spec shows', clause: '2.1, 2.4', level: 'SHOULD',
    requirement: 'Enum members hold the values seen in the spec (Unspecified, Center, Unknown).',
    interpretation: 'Advisory: the full value sets are not given (2.4). A value that differs from one of them only by case is JSON-ENUM-CASE\'s.',
    kind: 'enum', applies: (t) => t.kind === 'enum' && !t.closed,
    judge: (v, _l, t) => (t.kind === 'enum' && isString(v) && !t.values.includes(v) && !lowerValues(t).has(v.toLowerCase())
      ? `not a value the spec shows (${t.values.join(', ')})` : undefined),
  }),
];

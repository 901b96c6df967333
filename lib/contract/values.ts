// The type rules of section 2, once: whether a JSON value is a value of a field's type, and how a
// value written as text (an environment variable, a CSV cell) becomes one. The response checks,
// the request checks, the reference's request binding, the accounts reader and the configuration
// all ask here; the JSON Schemas are derived separately and a test holds them to the same answers.
import type { JsonValue } from '../json/value.js';
import { isJsonObject, type JsonObject } from '../json/value.js';
import { ENUM_NAME, INT32_MAX, INT32_MIN, isDatetime, isJsonDatetimeCodes, isJsonGuidCodes, JSON_DATETIME, JSON_GUID, JSON_INTEGER_LEXEME } from './formats.js';
import type { FieldType } from './types.js';

export interface ValueRules {
  /** The number as written, when it was not a plain integer literal (ParsedJson.numbers). */
  readonly lexeme?: string;
  /** Integers must fit .NET's int (a request: ServiceStack cannot bind a larger one). */
  readonly int32?: boolean;
  /** How an object's member names are listed (default Object.keys): a caller that lists them
   *  anyway passes its memo. */
  readonly keysOf?: (o: JsonObject) => readonly string[];
}

/** What a value of each kind is called in a finding ("expected a string"). */
export const EXPECTED: Readonly<Record<FieldType['kind'], string>> = {
  string: 'a string',
  integer: 'an integer',
  boolean: 'true or false',
  datetime: 'YYYY-MM-DDThh:mm:ss.fffffff (7 fractional digits, no zone)',
  guid: '32 hex digits without dashes',
  enum: 'a string naming an enum member',
  array: 'an array',
  object: 'an object',
  map: 'an object keyed by string',
};

const isString = (v: JsonValue): v is string => typeof v === 'string';

/** "expected …" per kind, made once: every slot of every answer is judged here, and a phrase is
 *  only needed for a value that fails. */
const EXPECTED_PHRASE = Object.fromEntries(Object.entries(EXPECTED).map(([k, v]) => [k, `expected ${v}`])) as Readonly<Record<FieldType['kind'], string>>;

/** Why a value is not one of its type, per kind of type (jsonValueProblem): a caller judging many
 *  values of one kind picks its rule once. */
export type ValueRule = (type: FieldType, value: JsonValue, rules: ValueRules) => string | undefined;

const P = EXPECTED_PHRASE;
export const JSON_VALUE_RULES: Readonly<Record<FieldType['kind'], ValueRule>> = {
  string: (_t, value) => (isString(value) ? undefined : P.string),
  integer: (_t, value, rules) => {
    if (typeof value !== 'number') return P.integer;
    if (rules.lexeme !== undefined && !JSON_INTEGER_LEXEME.test(rules.lexeme)) return 'expected an integer literal (no fraction or exponent)';
    if (!Number.isInteger(value)) return P.integer;
    return rules.int32 && (value < INT32_MIN || value > INT32_MAX) ? 'outside the 32-bit range of a .NET int' : undefined;
  },
  boolean: (_t, value) => (typeof value === 'boolean' ? undefined : P.boolean),
  datetime: (_t, value) => (isString(value) && isDatetime(value, JSON_DATETIME) ? undefined : P.datetime),
  guid: (_t, value) => (isString(value) && JSON_GUID.test(value) ? undefined : P.guid),
  enum: (type, value) => {
    if (type.kind !== 'enum') return P.enum;
    if (type.closed) return isString(value) && type.values.includes(value) ? undefined : `expected one of ${type.values.join(', ')}`;
    return isString(value) && ENUM_NAME.test(value) ? undefined : P.enum;
  },
  array: (_t, value) => (Array.isArray(value) ? undefined : P.array),
  object: (_t, value) => (isJsonObject(value) ? undefined : P.object),
  map: (_t, value, rules) => {
    if (!isJsonObject(value)) return P.map;
    for (const key of (rules.keysOf ?? Object.keys)(value)) {
      const x = value[key];
      if (x !== null && !isJsonObject(x)) return 'every value must be an object or null';
    }
    return undefined;
  },
};

/** For the kinds whose rule reads a string's characters only: whether the rule passes the ASCII string
 *  without escapes whose codes are `codes[from, to)`, read from them (a proven record's bytes, not
 *  decoded: fast-record.ts). test/datetime-positions.test.ts holds each to its rule above. */
export const JSON_CODES_PASS: Readonly<Partial<Record<FieldType['kind'], (codes: Uint8Array, from: number, to: number) => boolean>>> = {
  datetime: isJsonDatetimeCodes,
  guid: isJsonGuidCodes,
};

/**
 * Why `value` is not a JSON value of `type` (one phrase), or undefined when it is. Null is judged by
 * the caller (whether a member may be null is the field's, not the type's). Only the value's own
 * level is judged: items and members are walked by the caller.
 */
export function jsonValueProblem(type: FieldType, value: JsonValue, rules: ValueRules = {}): string | undefined {
  return JSON_VALUE_RULES[type.kind](type, value, rules);
}

/** A value of `type` from its text form: integers in .NET's int range written as JSON integers, booleans as true/false, enum
 *  names, strings as they are. Other kinds have no text form here. */
export function valueFromText(type: FieldType, text: string): { readonly value: JsonValue } | { readonly problem: string } {
  switch (type.kind) {
    case 'integer': {
      const n = Number(text);
      if (!/^-?\d+$/.test(text) || n < INT32_MIN || n > INT32_MAX) return { problem: 'must be a 32-bit integer' };
      // The text is sent as the JSON number it spells (accounts.ts): 007 is no JSON number, and 7 is not what was written.
      return JSON_INTEGER_LEXEME.test(text) ? { value: n } : { problem: 'must be a 32-bit integer written without a leading zero' };
    }
    case 'boolean':
      return text === 'true' || text === 'false' ? { value: text === 'true' } : { problem: 'must be true or false' };
    case 'enum':
      return ENUM_NAME.test(text) && (!type.closed || type.values.includes(text)) ? { value: text } : { problem: 'must be an enum member name' };
    case 'string':
      return { value: text };
    default:
      return { problem: `has no text form (${type.kind})` };
  }
}


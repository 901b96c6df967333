// fast-check arbitraries for records, derived from the contract: every field by its type, nullable
// ones sometimes null, at every depth.
import fc from 'fast-check';
import { INT32_MAX, INT32_MIN } from '../../lib/contract/formats.js';
import type { FieldType, Shape } from '../../lib/contract/types.js';
import type { JsonObject, JsonValue } from '../../lib/json/value.js';

/** Characters XML 1.0 cannot carry at all; a .NET service could not send them either. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Unicode text with the characters that trouble serialisers: markup, quotes, ]]>, CR, astral. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }).map((s) => s.replace(NOT_XML, '?')) },
  { weight: 2, arbitrary: fc.array(fc.constantFrom('&', '<', '>', '"', "'", ']]>', '\r\n', '\t', ' ', 'é', '日本', '😀', '\u2028', '&amp;', 'a'), { maxLength: 8 }).map((p) => p.join('')) },
);

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** Datetimes across .NET's whole range, seven fractional digits, no zone. */
const datetime: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0001-01-01T00:00:00.0000000', '9999-12-31T23:59:59.9999999', '2024-02-29T12:00:00.0000001'),
  fc.tuple(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), fc.integer({ min: 0, max: 9999 }))
    .map(([d, extra]) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}${pad(extra, 4)}`),
);

const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,15}$/);

/** Small collections mostly, sometimes large ones. */
const collection = <T>(item: fc.Arbitrary<T>) => fc.oneof(
  { weight: 6, arbitrary: fc.array(item, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.array(item, { minLength: 40, maxLength: 120 }) },
);

function value(type: FieldType): fc.Arbitrary<JsonValue> {
  switch (type.kind) {
    case 'string': return text;
    case 'integer': return fc.integer({ min: INT32_MIN, max: INT32_MAX });
    case 'boolean': return fc.boolean();
    case 'datetime': return datetime;
    case 'guid': return fc.stringMatching(/^[0-9a-f]{32}$/);
    case 'enum': return type.closed ? fc.constantFrom(...type.values) : fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...type.values) }, { weight: 1, arbitrary: identifier });
    case 'array': return collection(value(type.item));
    case 'object': return record(type.shape);
    case 'map': return fc.dictionary(text, record(type.value), { maxKeys: 4 });
  }
}

/** A record of `shape`: nullable members null one time in six. */
export function record(shape: Shape): fc.Arbitrary<JsonObject> {
  const members: Record<string, fc.Arbitrary<JsonValue>> = {};
  for (const f of shape.fields) {
    if (f.only === 'soap') continue;
    members[f.json] = f.nullable ? fc.option(value(f.type), { nil: null, freq: 6 }) : value(f.type);
  }
  return fc.record(members) as fc.Arbitrary<JsonObject>;
}

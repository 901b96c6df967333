// Example values derived from a field's type: the request fixtures, and the harness's request
// values wherever configuration gives none.
import type { JsonObject, JsonValue } from '../json/value.js';
import type { Field, FieldType, Shape } from './types.js';

function example(type: FieldType, name: string): JsonValue {
  switch (type.kind) {
    case 'string': return `sample-${name}`;
    case 'integer': return 0;
    case 'boolean': return false;
    case 'datetime': return '0001-01-01T00:00:00.0000000';
    case 'guid': return '00000000000000000000000000000000';
    case 'enum': return type.values[0] ?? '';
    case 'array': return [];
    case 'object': return exampleRecord(type.shape);
    case 'map': return {};
  }
}

export const exampleValue = (f: Field): JsonValue => example(f.type, f.json);

export const exampleRecord = (shape: Shape): JsonObject =>
  Object.fromEntries(shape.fields.filter((f) => f.only !== 'soap').map((f) => [f.json, exampleValue(f)]));

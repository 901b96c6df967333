// JSON Schemas (draft 2020-12) derived from the contract. Exported to fixtures/schemas/ for
// implementers; a test keeps the files in sync with this derivation.
import { INT32_MAX, INT32_MIN, JSON_DATETIME, JSON_GUID } from './formats.js';
import { OPERATIONS } from './operations.js';
import { fieldsOn, isValueType, type Field, type FieldType, type Shape } from './types.js';

type Schema = Record<string, unknown>;

const nullable = (schema: Schema): Schema =>
  typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };

function typeSchema(type: FieldType, defs: Map<string, Schema>): Schema {
  switch (type.kind) {
    case 'string': return { type: 'string' };
    case 'integer': return { type: 'integer', minimum: INT32_MIN, maximum: INT32_MAX };
    case 'boolean': return { type: 'boolean' };
    case 'datetime': return { type: 'string', pattern: JSON_DATETIME.source };
    case 'guid': return { type: 'string', pattern: JSON_GUID.source };
    case 'enum': return type.closed
      ? { type: 'string', enum: [...type.values] }
      : { type: 'string', minLength: 1, examples: [...type.values], description: 'Values seen in the spec; the full set is not given.' };
    case 'array': return { type: 'array', items: typeSchema(type.item, defs) }; // items are never null
    case 'object': return shapeRef(type.shape, defs);
    case 'map': return { type: 'object', additionalProperties: shapeRef(type.value, defs) };
  }
}

function fieldSchema(f: Field, defs: Map<string, Schema>): Schema {
  const schema = typeSchema(f.type, defs);
  return f.nullable ? nullable(schema) : schema;
}

function shapeRef(shape: Shape, defs: Map<string, Schema>): Schema {
  if (!defs.has(shape.name)) {
    defs.set(shape.name, {}); // reserve first: shapes may nest
    defs.set(shape.name, shapeSchema(shape, defs));
  }
  return { $ref: `#/$defs/${shape.name}` };
}

function shapeSchema(shape: Shape, defs: Map<string, Schema>): Schema {
  const json = fieldsOn(shape, 'json');
  // A SOAP-only member (settings) must not appear in JSON: `false` admits no value.
  const soapOnly = shape.fields.filter((f) => f.only === 'soap').map((f) => [f.json, false] as const);
  return {
    type: 'object',
    properties: Object.fromEntries([...json.map((f) => [f.json, fieldSchema(f, defs)] as const), ...soapOnly]),
    required: json.filter((f) => isValueType(f.type)).map((f) => f.json),
    // Unknown members are reported by the harness as advisory only, so the schema allows them.
    additionalProperties: true,
  };
}

/** A standalone schema whose root is `shape`. */
export function jsonSchemaFor(shape: Shape, id: string): Schema {
  const defs = new Map<string, Schema>();
  const root = shapeSchema(shape, defs);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    title: shape.name,
    description: 'Derived from lib/contract (interface.md section 2). Datetimes: seven fractional digits, no zone; guids: 32 hex digits.',
    ...root,
    ...(defs.size ? { $defs: Object.fromEntries([...defs].sort(([a], [b]) => (a < b ? -1 : 1))) } : {}),
  };
}

/** Every schema the project publishes, by file name. */
export function allJsonSchemas(): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const op of OPERATIONS) {
    for (const s of [op.request, op.response]) {
      const file = `${s.name}.schema.json`;
      out[file] ??= jsonSchemaFor(s, file);
    }
  }
  return out;
}

// JSON Schemas (draft 2020-12) derived from the contract. Exported to fixtures/schemas/ for
// implementers; a test keeps the files in sync with this derivation.
import { INT32_MAX, INT32_MIN, JSON_DATETIME, JSON_GUID } from './formats.js';
import { OPERATIONS } from './operations.js';
import { fieldsOn, isValueType, type Field, type FieldType, type Shape } from './types.js';

export type Schema = Record<string, unknown>;

/** The schemas of nested shapes, collected by name, and where a `$ref` finds them. */
interface Defs {
  readonly schemas: Map<string, Schema>;
  readonly refBase: string;
}

const nullable = (schema: Schema): Schema =>
  typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };

function typeSchema(type: FieldType, defs: Defs): Schema {
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
    // A dictionary value may be null (the C# export's Dictionary<string, T?>): System.Text.Json writes
    // null, DataContractSerializer a nil Value, and the record checks accept it (test/dotnet-oracle).
    case 'map': return { type: 'object', additionalProperties: nullable(shapeRef(type.value, defs)) };
  }
}

function fieldSchema(f: Field, defs: Defs): Schema {
  const schema = typeSchema(f.type, defs);
  return f.nullable ? nullable(schema) : schema;
}

function shapeRef(shape: Shape, defs: Defs): Schema {
  if (!defs.schemas.has(shape.name)) {
    defs.schemas.set(shape.name, {}); // reserve first: shapes may nest
    defs.schemas.set(shape.name, shapeSchema(shape, defs));
  }
  return { $ref: `${defs.refBase}${shape.name}` };
}

/** The request records of 2.2: which of their fields are required is not shown (2.4), so none is. */
const REQUEST_SHAPES: ReadonlySet<Shape> = new Set(OPERATIONS.map((op) => op.request));

function shapeSchema(shape: Shape, defs: Defs): Schema {
  const json = fieldsOn(shape, 'json');
  // A SOAP-only member (settings) must not appear in JSON: `false` admits no value.
  const soapOnly = shape.fields.filter((f) => f.only === 'soap').map((f) => [f.json, false] as const);
  return {
    type: 'object',
    properties: Object.fromEntries([...json.map((f) => [f.json, fieldSchema(f, defs)] as const), ...soapOnly]),
    // A response's value-type members are always there (.NET value types are never null); a request's
    // are the client's to send or not.
    required: REQUEST_SHAPES.has(shape) ? [] : json.filter((f) => isValueType(f.type)).map((f) => f.json),
    // Unknown members are reported by the harness as advisory only, so the schema allows them.
    additionalProperties: true,
  };
}

const sortedByName = (schemas: Map<string, Schema>): Record<string, Schema> =>
  Object.fromEntries([...schemas].sort(([a], [b]) => (a < b ? -1 : 1)));

/** A standalone schema whose root is `shape`. */
export function jsonSchemaFor(shape: Shape, id: string): Schema {
  const defs: Defs = { schemas: new Map(), refBase: '#/$defs/' };
  const root = shapeSchema(shape, defs);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    title: shape.name,
    description: 'Derived from lib/contract (interface.md section 2). Datetimes: seven fractional digits, no zone; guids: 32 hex digits.',
    ...root,
    ...(defs.schemas.size ? { $defs: sortedByName(defs.schemas) } : {}),
  };
}

/** `roots` and every shape they nest, by name, each referring to the others as `refBase` + name
 *  (OpenAPI keeps them together under #/components/schemas/). */
export function shapeSchemas(roots: readonly Shape[], refBase: string): Record<string, Schema> {
  const defs: Defs = { schemas: new Map(), refBase };
  for (const shape of roots) shapeRef(shape, defs);
  return sortedByName(defs.schemas);
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

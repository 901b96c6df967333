// A record as ServiceStack.Text writes it: camelCase names in declaration order, null members
// omitted, empty collections written, `settings` absent (it exists in SOAP only).
import { fieldsOn, type FieldType, type Shape } from '../contract/types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/value.js';
import { toNode, type JsonNode } from '../json/write.js';

export interface JsonBuildOptions {
  /** ServiceStack omits null members; writing them as null is equally legitimate. */
  readonly nullMembers: 'omit' | 'null';
  /** Guid hex digits: .NET writes lower case; the spec allows either. */
  readonly guidCase: 'lower' | 'upper';
}

export const SERVICESTACK_JSON: JsonBuildOptions = { nullMembers: 'omit', guidCase: 'lower' };

function valueNode(type: FieldType, value: JsonValue, options: JsonBuildOptions): JsonNode {
  switch (type.kind) {
    case 'guid':
      return toNode(typeof value === 'string' ? (options.guidCase === 'upper' ? value.toUpperCase() : value.toLowerCase()) : value);
    case 'array':
      return Array.isArray(value) ? { t: 'array', items: value.map((v) => valueNode(type.item, v, options)) } : toNode(value);
    case 'object':
      return isJsonObject(value) ? recordToJson(type.shape, value, options) : toNode(value);
    case 'map':
      // ServiceStack leaves a null dictionary value out (IncludeNullValuesInDictionaries = false),
      // as it leaves out null members (fixtures/dotnet/golden/).
      return isJsonObject(value)
        ? {
          t: 'object',
          entries: Object.entries(value).filter(([, v]) => v !== null || options.nullMembers === 'null')
            .map(([k, v]) => [k, valueNode({ kind: 'object', shape: type.value }, v, options)] as const),
        }
        : toNode(value);
    default:
      return toNode(value);
  }
}

export function recordToJson(shape: Shape, data: JsonObject, options: JsonBuildOptions = SERVICESTACK_JSON): JsonNode {
  const entries: [string, JsonNode][] = [];
  for (const f of fieldsOn(shape, 'json')) {
    const value = data[f.json];
    if (value === undefined || value === null) {
      if (options.nullMembers === 'null') entries.push([f.json, { t: 'null' }]);
      continue;
    }
    entries.push([f.json, valueNode(f.type, value, options)]);
  }
  return { t: 'object', entries };
}

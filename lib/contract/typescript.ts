// TypeScript interfaces for the JSON wire form of interface.md section 2, derived from the contract
// (fixtures/typescript/contract.ts, written by `npm run contract:export`). The test that reads
// .NET's golden records types them with these interfaces, so `tsc` compiles the file.
import { DAY_NAMES } from './records.js';
import { section2Shapes } from './section2.js';
import { fieldsOn, type Field, type FieldType, type Shape } from './types.js';

const literal = (v: string) => `'${v}'`;

function tsType(type: FieldType): string {
  switch (type.kind) {
    case 'string': return 'string';
    case 'integer': return 'number';
    case 'boolean': return 'boolean';
    case 'datetime': return 'JsonDateTime';
    case 'guid': return 'JsonGuid';
    // Open enums: the values seen, and any other member name (2.4: the full sets are not given).
    case 'enum': return type.closed ? 'DayOfWeek' : `${type.values.map(literal).join(' | ')} | (string & {})`;
    case 'array': {
      const item = tsType(type.item);
      return item.includes(' ') ? `(${item})[]` : `${item}[]`;
    }
    case 'object': return type.shape.name;
    // ServiceStack leaves null dictionary values out, as the JSON Schema requires.
    case 'map': return `Record<string, ${type.value.name}>`;
  }
}

function member(f: Field): string {
  // Reference types may be null or, as ServiceStack writes them, absent; value types never are.
  return f.nullable ? `  ${f.json}?: ${tsType(f.type)} | null;` : `  ${f.json}: ${tsType(f.type)};`;
}

function contract(s: Shape): string[] {
  const soapOnly = s.fields.filter((f) => f.only === 'soap').map((f) => `  /** SOAP only: never on the JSON wire. */\n  ${f.json}?: never;`);
  return [`export interface ${s.name} {`, ...fieldsOn(s, 'json').map(member), ...soapOnly, '}', ''];
}

export function typescriptContract(): string {
  const shapes = section2Shapes();
  return [
    '// Generated from lib/contract by `npm run contract:export`; do not edit.',
    '// The records of interface.md section 2 as they travel in JSON: camelCase names; value types',
    '// always present; strings, arrays, objects and the map null or absent (ServiceStack omits nulls).',
    '',
    '/** ISO 8601 with seven fractional digits and no zone: YYYY-MM-DDThh:mm:ss.fffffff. */',
    'export type JsonDateTime = string;',
    '/** 32 hexadecimal digits without dashes. */',
    'export type JsonGuid = string;',
    `export type DayOfWeek = ${DAY_NAMES.map(literal).join(' | ')};`,
    '',
    ...shapes.flatMap(contract),
  ].join('\n').replace(/\n+$/, '\n');
}

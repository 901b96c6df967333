// The vocabulary the contract is written in. Everything else (schemas, serialisers,
// checks, fixtures) reads these structures; nothing restates a field list.

/** Where an element lives on the SOAP wire: its namespace is a role, resolved per deployment. */
export type XmlNamespaceRole = 'login' | 'arrays' | 'system';

export interface XmlItemName {
  readonly name: string;
  readonly ns: XmlNamespaceRole;
}

export type FieldType =
  | { readonly kind: 'string' }
  | { readonly kind: 'integer' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'datetime' }
  | { readonly kind: 'guid' }
  /** closed: the spec gives every value (day names); open: only the values seen are known. */
  | { readonly kind: 'enum'; readonly values: readonly string[]; readonly closed: boolean }
  | { readonly kind: 'array'; readonly item: FieldType; readonly soapItem: XmlItemName }
  | { readonly kind: 'object'; readonly shape: Shape }
  /** string key -> object value; SOAP writes KeyValueOf… entries with Key then Value. The entry's
   *  name here lacks the namespace digest .NET appends: mapEntryName() (data-contract.ts) adds it. */
  | { readonly kind: 'map'; readonly value: Shape; readonly soapEntry: XmlItemName };

/** What a Dictionary<string, T> entry holds as DataContractSerializer writes it: Key then Value (its
 *  name is mapEntryName(), data-contract.ts). */
export const MAP_ENTRY = { key: 'Key', value: 'Value' } as const;

export type Sensitivity = 'credential' | 'personal';

export interface Field {
  /** camelCase name on the JSON wire. */
  readonly json: string;
  /** Element name in SOAP (PascalCase unless the spec says otherwise). */
  readonly soap: string;
  readonly type: FieldType;
  /** .NET value types (integer, boolean, datetime, guid, enum) can never be null. */
  readonly nullable: boolean;
  readonly sensitivity?: Sensitivity;
  /** Present on one wire only (the spec's `settings` exists in SOAP only, always nil). */
  readonly only?: 'soap' | 'json';
  /** Its value may change from one answer to the next for the same request (a fresh token, an expiry):
   *  a differential run counts its differences as noise. Set on no field: interface.md names no
   *  volatile field (section 2 lists tokens and an expiry among the record's fields but says nothing
   *  of how they change), so the differential run learns volatility from the legacy's own two
   *  answers instead of guessing it here. */
  readonly volatile?: boolean;
}

export interface Shape {
  /** Data-contract name; for array items it is also the SOAP item element name. */
  readonly name: string;
  readonly fields: readonly Field[];
}

export const STRING: FieldType = { kind: 'string' };
export const INTEGER: FieldType = { kind: 'integer' };
export const BOOLEAN: FieldType = { kind: 'boolean' };
export const DATETIME: FieldType = { kind: 'datetime' };
export const GUID: FieldType = { kind: 'guid' };

/** An enum of which the spec shows only some values. */
export const enumSeen = (...values: string[]): FieldType => ({ kind: 'enum', values, closed: false });
export const enumClosed = (...values: string[]): FieldType => ({ kind: 'enum', values, closed: true });

export const arrayOf = (item: FieldType, soapItem: XmlItemName): FieldType => ({ kind: 'array', item, soapItem });
export const objectOf = (shape: Shape): FieldType => ({ kind: 'object', shape });
export const mapOf = (value: Shape, soapEntry: XmlItemName): FieldType => ({ kind: 'map', value, soapEntry });

export const isValueType = (type: FieldType): boolean =>
  type.kind === 'integer' || type.kind === 'boolean' || type.kind === 'datetime' || type.kind === 'guid' || type.kind === 'enum';

/** The spec's rule: the SOAP name is the JSON name with an upper-case first letter. */
export const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

interface FieldOptions {
  soap?: string;
  sensitivity?: Sensitivity;
  only?: 'soap' | 'json';
}

/** One line per field: name, type, and only what departs from the naming rule. */
export function field(json: string, type: FieldType, options: FieldOptions = {}): Field {
  return {
    json,
    soap: options.soap ?? pascal(json),
    type,
    nullable: !isValueType(type),
    ...(options.sensitivity ? { sensitivity: options.sensitivity } : {}),
    ...(options.only ? { only: options.only } : {}),
  };
}

export const shape = (name: string, fields: readonly Field[]): Shape => ({ name, fields });

/** A value derived from a shape, made once per shape (checks ask for the same ones of every exchange). */
export function perShape<T>(make: (s: Shape) => T): (s: Shape) => T {
  const made = new WeakMap<Shape, T>();
  return (s) => {
    if (!made.has(s)) made.set(s, make(s));
    return made.get(s) as T;
  };
}

const onWire = (wire: 'json' | 'soap') => perShape((s) => s.fields.filter((f) => f.only === undefined || f.only === wire));
const ON_WIRE = { json: onWire('json'), soap: onWire('soap') };

/** Fields that appear on the given wire. */
export const fieldsOn = (s: Shape, wire: 'json' | 'soap'): readonly Field[] => ON_WIRE[wire](s);

/** .NET DataContractSerializer order: ordinal (UTF-16 code unit) comparison of element names. */
export const ordinalCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const soapOrder = (s: Shape): readonly Field[] => [...fieldsOn(s, 'soap')].sort((a, b) => ordinalCompare(a.soap, b.soap));

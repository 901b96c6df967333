// XML Schemas of the SOAP record, derived from the contract (fixtures/xsd/contract/, written by
// `npm run contract:export`). One schema document per namespace, as .NET's own metadata has:
// the login namespace, Arrays (int/string items, dictionary entries), System (DayOfWeek).
import { el, type XmlElement } from '../xml/model.js';
import { writeXml, XML_COMPACT } from '../xml/write.js';
import { mapEntryName } from './data-contract.js';
import { ENUM_NAME, SOAP_DATETIME, SOAP_GUID } from './formats.js';
import { ARRAYS, DEFAULT_NAMESPACES, SOAP11_ENVELOPE, SYSTEM, type ServiceNamespaces } from './namespaces.js';
import { impersonateLogout } from './operations.js';
import { DAY_NAMES, UserDetails } from './records.js';
import { isValueType, soapOrder, type FieldType, type Shape } from './types.js';

export const XS = 'http://www.w3.org/2001/XMLSchema';
export const xs = (name: string, attrs: Record<string, string> = {}, children: XmlElement[] = []) =>
  el(XS, name, children, Object.entries(attrs).map(([k, v]) => ({ ns: null, name: k, value: v })));

const FILES = { login: 'user-details.xsd', arrays: 'arrays.xsd', system: 'system.xsd', envelope: 'soap-envelope.xsd' } as const;

/** Prefixes used inside the schema documents (type references are QNames, so they are fixed here). */
export const PREFIX = { login: 'tns', arrays: 'arr', system: 'sys' } as const;

function schema(target: string, imports: [string, string][], body: XmlElement[]): XmlElement {
  return xs('schema', { targetNamespace: target, elementFormDefault: 'qualified' }, [
    ...imports.map(([ns, file]) => xs('import', { namespace: ns, schemaLocation: file })),
    ...body,
  ]);
}

const pattern = (name: string, base: string, regex: string) =>
  xs('simpleType', { name }, [xs('restriction', { base }, [xs('pattern', { value: regex })])]);

/** The QName of the XSD type a field's value has. */
function typeRef(type: FieldType): string {
  switch (type.kind) {
    case 'string': return 'xs:string';
    case 'integer': return 'xs:int';
    case 'boolean': return 'xs:boolean';
    case 'datetime': return `${PREFIX.login}:DateTime`;
    case 'guid': return `${PREFIX.login}:Guid`;
    case 'enum': return type.closed ? `${PREFIX.system}:DayOfWeek` : `${PREFIX.login}:EnumName`;
    case 'object': return `${PREFIX.login}:${type.shape.name}`;
    case 'map': return `${PREFIX.arrays}:ArrayOfKeyValueOfstring${type.value.name}`;
    case 'array': {
      const item = type.item;
      if (item.kind === 'object') return `${PREFIX.login}:ArrayOf${item.shape.name}`;
      if (item.kind === 'enum') return `${PREFIX.system}:ArrayOfDayOfWeek`;
      return `${PREFIX.arrays}:ArrayOf${item.kind === 'integer' ? 'int' : 'string'}`;
    }
  }
}

export const shapeType = (shape: Shape): XmlElement => xs('complexType', { name: shape.name }, [
  xs('sequence', {}, soapOrder(shape).map((f) => xs('element', {
    name: f.soap,
    type: typeRef(f.type),
    // Value types are always present; reference types may be nil or omitted. Settings is required
    // (the spec has it nil in every response); XSD cannot demand nil itself.
    ...(isValueType(f.type) ? {} : { nillable: 'true', ...(f.only === 'soap' ? {} : { minOccurs: '0' }) }),
  }))),
]);

const listType = (name: string, item: string, type: string) =>
  xs('complexType', { name }, [xs('sequence', {}, [xs('element', { name: item, type, minOccurs: '0', maxOccurs: 'unbounded' })])]);

function shapesOf(shape: Shape, into = new Map<string, Shape>()): Map<string, Shape> {
  into.set(shape.name, shape);
  for (const f of shape.fields) {
    const t = f.type.kind === 'array' ? f.type.item : f.type;
    if (t.kind === 'object') shapesOf(t.shape, into);
    if (t.kind === 'map') shapesOf(t.value, into);
  }
  return into;
}

/** The schema documents of the SOAP record, by the namespace role each is the target of. */
export interface RecordSchemas {
  readonly login: XmlElement;
  readonly arrays: XmlElement;
  readonly system: XmlElement;
  readonly envelope: XmlElement;
}

/** The schema documents as elements; their imports name the files recordXsds() writes. */
export function recordSchemas(ns: ServiceNamespaces = DEFAULT_NAMESPACES): RecordSchemas {
  const shapes = [...shapesOf(UserDetails).values()];
  const mapFields = shapes.flatMap((s) => s.fields).flatMap((f) => (f.type.kind === 'map' ? [f.type] : []));
  const login = schema(ns.login, [[ARRAYS, FILES.arrays], [SYSTEM, FILES.system]], [
    xs('element', { name: impersonateLogout.responseElement, type: `${PREFIX.login}:${UserDetails.name}` }),
    ...shapes.map(shapeType),
    ...shapes.filter((s) => s !== UserDetails && shapes.some((o) => o.fields.some((f) => f.type.kind === 'array' && f.type.item.kind === 'object' && f.type.item.shape === s)))
      .map((s) => listType(`ArrayOf${s.name}`, s.name, `${PREFIX.login}:${s.name}`)),
    // XML Schema patterns are anchored already: the contract's own regexes, without ^ and $.
    pattern('DateTime', 'xs:dateTime', SOAP_DATETIME.source.slice(1, -1)),
    pattern('Guid', 'xs:string', SOAP_GUID.source.slice(1, -1)),
    pattern('EnumName', 'xs:string', ENUM_NAME.source.slice(1, -1)),
  ]);
  const arrays = schema(ARRAYS, [[ns.login, FILES.login]], [
    listType('ArrayOfint', 'int', 'xs:int'),
    listType('ArrayOfstring', 'string', 'xs:string'),
    ...mapFields.map((m) => xs('complexType', { name: `ArrayOfKeyValueOfstring${m.value.name}` }, [xs('sequence', {}, [
      xs('element', { name: mapEntryName(m, ns), minOccurs: '0', maxOccurs: 'unbounded' }, [xs('complexType', {}, [xs('sequence', {}, [
        xs('element', { name: 'Key', type: 'xs:string' }),
        xs('element', { name: 'Value', type: `${PREFIX.login}:${m.value.name}`, nillable: 'true' }),
      ])])]),
    ])])),
  ]);
  const system = schema(SYSTEM, [], [
    xs('simpleType', { name: 'DayOfWeek' }, [xs('restriction', { base: 'xs:string' }, DAY_NAMES.map((d) => xs('enumeration', { value: d })))]),
    listType('ArrayOfDayOfWeek', 'DayOfWeek', `${PREFIX.system}:DayOfWeek`),
  ]);
  const envelope = schema(SOAP11_ENVELOPE, [[ns.login, FILES.login]], [
    xs('element', { name: 'Envelope' }, [xs('complexType', {}, [xs('sequence', {}, [
      xs('element', { name: 'Header', minOccurs: '0' }, [xs('complexType', {}, [xs('sequence', {}, [xs('any', { namespace: '##other', processContents: 'lax', minOccurs: '0', maxOccurs: 'unbounded' })])])]),
      xs('element', { name: 'Body' }, [xs('complexType', {}, [xs('sequence', {}, [xs('any', { namespace: '##other', processContents: 'strict' })])])]),
    ])])]),
  ]);
  return { login, arrays, system, envelope };
}

/** File name -> XSD text, for the given namespaces. */
export function recordXsds(ns: ServiceNamespaces = DEFAULT_NAMESPACES): Record<string, string> {
  const { login, arrays, system, envelope } = recordSchemas(ns);
  const style = {
    ...XML_COMPACT, declaration: true, indent: 2,
    prefixes: { [XS]: 'xs', [ns.login]: PREFIX.login, [ARRAYS]: PREFIX.arrays, [SYSTEM]: PREFIX.system, [SOAP11_ENVELOPE]: 's' },
    hoist: true,
  };
  // Type references are QNames in attribute values: every prefix they use is declared on the root.
  const declareAll = (e: XmlElement): XmlElement => ({ ...e, declare: [ns.login, ARRAYS, SYSTEM] });
  const header = '<!-- Generated from lib/contract by `npm run contract:export`; do not edit. -->\n';
  const out = (e: XmlElement) => writeXml(declareAll(e), style).replace('?>\n', `?>\n${header}`) + '\n';
  return { [FILES.login]: out(login), [FILES.arrays]: out(arrays), [FILES.system]: out(system), [FILES.envelope]: out(envelope) };
}

// A record as .NET's DataContractSerializer writes it: members ordered by ordinal comparison at
// every level and in the record's namespace; primitive list items and dictionary entries in the
// Arrays namespace; DayOfWeek items in the System namespace; nulls as i:nil="true".
import { mapEntryName } from '../contract/data-contract.js';
import { dashedGuid, soapDatetime } from '../contract/formats.js';
import { namespaceOf, SOAP, SOAP11_ENVELOPE, XSI, type ServiceNamespaces } from '../contract/namespaces.js';
import { MAP_ENTRY, soapOrder, type FieldType, type Shape } from '../contract/types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/value.js';
import { el, text, type XmlElement, type XmlNode } from '../xml/model.js';

export interface SoapBuildOptions {
  /** DataContractSerializer writes null members as nil; EmitDefaultValue=false omits them. */
  readonly nullMembers: 'nil' | 'omit';
  /** xs:boolean has two spellings: true/false (.NET's) and 1/0. */
  readonly booleans: 'words' | 'digits';
  /** Guid hex digits: .NET writes lower case; either is a guid. */
  readonly guidCase: 'lower' | 'upper';
}

export const DATA_CONTRACT: SoapBuildOptions = { nullMembers: 'nil', booleans: 'words', guidCase: 'lower' };

const NIL = { ns: XSI, name: 'nil', value: 'true' } as const;

function scalarText(type: FieldType, value: JsonValue, options: SoapBuildOptions): string {
  if (type.kind === 'datetime' && typeof value === 'string') return soapDatetime(value);
  if (type.kind === 'guid' && typeof value === 'string') {
    const dashed = dashedGuid(value.toLowerCase());
    return options.guidCase === 'upper' ? dashed.toUpperCase() : dashed;
  }
  if (type.kind === 'boolean' && options.booleans === 'digits') return value ? '1' : '0';
  return String(value);
}

class SoapRecordBuilder {
  constructor(private readonly ns: ServiceNamespaces, private readonly options: SoapBuildOptions) {}

  /** Members of `shape` from `data`, in ordinal order, each in the record's namespace. */
  members(shape: Shape, data: JsonObject): XmlElement[] {
    const out: XmlElement[] = [];
    for (const f of soapOrder(shape)) {
      const value = f.only === 'soap' ? null : data[f.json];
      if (value === undefined || value === null) {
        // `settings` is nil in every response the spec shows, whatever the style.
        if (this.options.nullMembers === 'nil' || f.only === 'soap') out.push(el(this.ns.login, f.soap, [], [NIL]));
        continue;
      }
      const member = el(this.ns.login, f.soap, this.content(f.type, value));
      // .NET declares a collection's item namespace once, on the collection element.
      const itemNs = f.type.kind === 'array' ? f.type.soapItem.ns : f.type.kind === 'map' ? f.type.soapEntry.ns : undefined;
      out.push(itemNs && itemNs !== 'login' ? { ...member, declare: [namespaceOf(itemNs, this.ns)] } : member);
    }
    return out;
  }

  content(type: FieldType, value: JsonValue): XmlNode[] {
    switch (type.kind) {
      case 'object':
        return isJsonObject(value) ? this.members(type.shape, value) : [];
      case 'array': {
        const itemNs = namespaceOf(type.soapItem.ns, this.ns);
        return Array.isArray(value) ? value.map((v) => el(itemNs, type.soapItem.name, this.content(type.item, v))) : [];
      }
      case 'map': {
        if (!isJsonObject(value)) return [];
        const entryNs = namespaceOf(type.soapEntry.ns, this.ns);
        const entry = mapEntryName(type, this.ns);
        // A null value is a nil Value, as DataContractSerializer writes it (fixtures/dotnet/golden/).
        return Object.entries(value).map(([key, v]) => el(entryNs, entry, [
          el(entryNs, MAP_ENTRY.key, [text(key)]),
          isJsonObject(v) ? el(entryNs, MAP_ENTRY.value, this.members(type.value, v)) : el(entryNs, MAP_ENTRY.value, [], [NIL]),
        ]));
      }
      default: {
        const s = scalarText(type, value, this.options);
        return s === '' ? [] : [text(s)];
      }
    }
  }
}

/** The record as its own element (ServiceStack's plain XML format, and the SOAP Body's child). */
export function recordToXml(shape: Shape, data: JsonObject, ns: ServiceNamespaces, options: SoapBuildOptions = DATA_CONTRACT): XmlElement {
  // .NET declares xmlns:i on the record element whether or not a member is nil.
  return { ...el(ns.login, shape.name, new SoapRecordBuilder(ns, options).members(shape, data)), declare: [XSI] };
}

export const soapEnvelope = (body: XmlElement, header = false): XmlElement =>
  el(SOAP11_ENVELOPE, SOAP.envelope, [...(header ? [el(SOAP11_ENVELOPE, SOAP.header)] : []), el(SOAP11_ENVELOPE, SOAP.body, [body])]);

export type FaultCode = 'Client' | 'Server' | 'VersionMismatch';

/** A SOAP 1.1 Fault (section 4.4): faultcode a QName in the envelope namespace, faultstring text. */
export const soapFault = (code: FaultCode, message: string): XmlElement =>
  soapEnvelope(el(SOAP11_ENVELOPE, SOAP.fault, [
    el(null, 'faultcode', [text(`s:${code}`)]),
    el(null, 'faultstring', [text(message)]),
  ]));

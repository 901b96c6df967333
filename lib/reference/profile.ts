// How the reference behaves, as data. The plain reference is DEFAULT_PROFILE; a Variant (a named
// fault that breaks one rule, or a style that is a legitimate alternative) changes some of it.
// Variants compose: each one overrides what it names and appends its edits.
import type { JsonOperation } from '../contract/operations.js';
import type { JsonObject } from '../json/value.js';
import type { Reply } from './reply.js';
import type { RequestKind } from '../contract/classify.js';
import { ARRAYS, SOAP11_ENVELOPE, SYSTEM, XSI, type ServiceNamespaces } from '../contract/namespaces.js';
import { COMPACT, type JsonNode, type JsonWriteStyle } from '../json/write.js';
import type { XmlElement } from '../xml/model.js';
import { XML_COMPACT, type XmlWriteStyle } from '../xml/write.js';
import { SERVICESTACK_JSON, type JsonBuildOptions } from './json-record.js';
import { DATA_CONTRACT, type SoapBuildOptions } from './soap-record.js';

export interface Behaviour {
  readonly jsonMediaType: string;
  readonly jsonpMediaType: string;
  readonly soapMediaType: string;
  readonly xmlMediaType: string;
  readonly honourJsonExtension: boolean;
  readonly honourFormatQuery: boolean;
  readonly honourCallback: boolean;
  readonly honourSoapFormatQuery: boolean;
  readonly optionsStatus: number;
  readonly optionsHeaders: Readonly<Record<string, string>>;
  /** How a JSONP body is assembled from the (already sanitised) callback name and the JSON. */
  readonly jsonp: (callback: string, json: string) => string;
  /** Write an empty SOAP Header before the Body. */
  readonly soapHeader: boolean;
  /** Delay before every response, to measure the harness as if the target were far away. */
  readonly latencyMs: number;
}

/** Namespaces by role: the login namespace is per deployment, so styles name roles, not URIs. */
export type XmlRole = 'envelope' | 'login' | 'xsi' | 'arrays' | 'system';
export type ReferenceXmlStyle = Omit<XmlWriteStyle, 'prefixes'> & { readonly prefixes: Readonly<Partial<Record<XmlRole, string>>> };

export function writerStyle(style: ReferenceXmlStyle, ns: ServiceNamespaces): XmlWriteStyle {
  const uri: Record<XmlRole, string> = { envelope: SOAP11_ENVELOPE, login: ns.login, xsi: XSI, arrays: ARRAYS, system: SYSTEM };
  const prefixes: Record<string, string> = {};
  for (const [role, prefix] of Object.entries(style.prefixes)) prefixes[uri[role as XmlRole]] = prefix;
  return { ...style, prefixes };
}

export interface Profile {
  readonly behaviour: Behaviour;
  readonly jsonStyle: JsonWriteStyle;
  readonly xmlStyle: ReferenceXmlStyle;
  readonly jsonBuild: JsonBuildOptions;
  readonly soapBuild: SoapBuildOptions;
  /** Edits of a JSON response record, in order. */
  readonly editJson: readonly ((record: JsonNode, op: JsonOperation) => JsonNode)[];
  /** Edits of a SOAP response envelope, in order. */
  readonly editSoap: readonly ((envelope: XmlElement) => XmlElement)[];
  /** Edits of the data served (before any serialiser sees it), in order. */
  readonly editData: readonly ((data: JsonObject, record: 'userDetails' | 'confirmation') => JsonObject)[];
  /** Edits of every reply on its way out, knowing what produced it. */
  readonly editReply: readonly ((reply: Reply, served: Served) => Reply)[];
}

/** How a reply came about: what the request was (the shared classifier's kind) and whether the
 *  answer was wrapped as JSONP. */
export interface Served {
  readonly method: string;
  readonly kind: RequestKind;
  readonly jsonp?: boolean;
  /** The request's headers, for variants keyed on them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request record as bound (JSON operations, when it could be), for variants keyed on input. */
  readonly dto?: JsonObject;
}

export interface Variant {
  readonly name: string;
  /** One line: what this variant does on the wire. */
  readonly description: string;
  readonly behaviour?: Partial<Behaviour>;
  readonly jsonStyle?: Partial<JsonWriteStyle>;
  readonly xmlStyle?: Partial<ReferenceXmlStyle>;
  readonly jsonBuild?: Partial<JsonBuildOptions>;
  readonly soapBuild?: Partial<SoapBuildOptions>;
  readonly editJson?: Profile['editJson'][number];
  readonly editSoap?: Profile['editSoap'][number];
  readonly editData?: Profile['editData'][number];
  readonly editReply?: Profile['editReply'][number];
}

/** ServiceStack's CorsFeature defaults. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, DELETE, PATCH, OPTIONS, HEAD',
  'access-control-allow-headers': 'Content-Type',
};

export const DEFAULT_PROFILE: Profile = {
  behaviour: {
    jsonMediaType: 'application/json; charset=utf-8',
    jsonpMediaType: 'text/javascript',
    soapMediaType: 'application/xml',
    xmlMediaType: 'application/xml',
    honourJsonExtension: true,
    honourFormatQuery: true,
    honourCallback: true,
    honourSoapFormatQuery: true,
    optionsStatus: 200,
    optionsHeaders: CORS_HEADERS,
    jsonp: (callback, json) => `${callback}(${json})`,
    soapHeader: false,
    latencyMs: 0,
  },
  jsonStyle: COMPACT,
  // DataContractSerializer's look: envelope prefix s, record namespace as the default, xsi as i,
  // generated d…p1 prefixes for the Arrays and System namespaces where first used.
  xmlStyle: { ...XML_COMPACT, prefixes: { envelope: 's', login: '', xsi: 'i' } },
  jsonBuild: SERVICESTACK_JSON,
  soapBuild: DATA_CONTRACT,
  editJson: [],
  editSoap: [],
  editData: [],
  editReply: [],
};

export function profileOf(variants: readonly Variant[], base: Profile = DEFAULT_PROFILE): Profile {
  return variants.reduce<Profile>((p, v) => ({
    behaviour: { ...p.behaviour, ...v.behaviour },
    jsonStyle: { ...p.jsonStyle, ...v.jsonStyle },
    xmlStyle: { ...p.xmlStyle, ...v.xmlStyle, prefixes: { ...p.xmlStyle.prefixes, ...v.xmlStyle?.prefixes } },
    jsonBuild: { ...p.jsonBuild, ...v.jsonBuild },
    soapBuild: { ...p.soapBuild, ...v.soapBuild },
    editJson: v.editJson ? [...p.editJson, v.editJson] : p.editJson,
    editSoap: v.editSoap ? [...p.editSoap, v.editSoap] : p.editSoap,
    editData: v.editData ? [...p.editData, v.editData] : p.editData,
    editReply: v.editReply ? [...p.editReply, v.editReply] : p.editReply,
  }), base);
}

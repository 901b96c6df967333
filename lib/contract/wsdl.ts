// WSDL 1.1 of the SOAP operation (interface.md 4.2), derived from the contract and exported to
// fixtures/wsdl/service.wsdl by `npm run contract:export`: document/literal over the SOAP 1.1
// binding, SOAPAction ImpersonateLogoutRequest, the request element in the request namespace and
// UserDetailsResponse in the login namespace, both namespaces as configured.
//
// The XML Schemas are xsd.ts's own, inlined in <wsdl:types> (imports keep their namespace and drop
// their schemaLocation) rather than imported from fixtures/xsd/contract/: one self-contained file
// is what WSDL consumers handle best (node-soap, .NET's svcutil, Java's wsimport and Python's
// zeep all read inline schemas; relative schemaLocation imports depend on where and how each tool
// fetched the WSDL), and it is how ServiceStack serves its own WSDL.
import { el, isElement, text, type XmlElement } from '../xml/model.js';
import { writeXml, XML_COMPACT } from '../xml/write.js';
import { ARRAYS, DEFAULT_NAMESPACES, SYSTEM, type ServiceNamespaces } from './namespaces.js';
import { impersonateLogout } from './operations.js';
import { OPENAPI_FILE, PLACEHOLDER_BASE_URL } from './openapi.js';
import { PREFIX, recordSchemas, shapeType, XS, xs } from './xsd.js';

const WSDL = 'http://schemas.xmlsoap.org/wsdl/';
/** WSDL 1.1's SOAP 1.1 binding extension. */
const WSDL_SOAP11 = 'http://schemas.xmlsoap.org/wsdl/soap/';
const SOAP_HTTP_TRANSPORT = 'http://schemas.xmlsoap.org/soap/http';

/** Names the spec leaves open, as ServiceStack's Soap11 WSDL writes them (WsdlTemplateBase.cs,
 *  Soap11WsdlTemplate.cs), so code generated from this WSDL reads like code generated from the
 *  real service's. None of them appears on the wire. */
const NAMES = {
  definitions: 'Soap11',
  portType: 'ISyncReply',
  binding: 'BasicHttpBinding_ISyncReply',
  service: 'SyncReply',
  port: 'BasicHttpBinding_ISyncReply',
  part: 'par',
  input: (op: string) => `${op}In`,
  output: (op: string) => `${op}Out`,
} as const;

/** Prefix of the WSDL's own names (messages, port type, binding): the request namespace's. */
const SVC = 'svc';

const unqualified = (attrs: Record<string, string>) => Object.entries(attrs).map(([name, value]) => ({ ns: null, name, value }));
const wsdl = (name: string, attrs: Record<string, string> = {}, children: XmlElement[] = []) => el(WSDL, name, children, unqualified(attrs));
const soap = (name: string, attrs: Record<string, string>) => el(WSDL_SOAP11, name, [], unqualified(attrs));

/** Inline, an import names only its namespace: the schema it means sits beside it in <types>. */
const inlined = (schema: XmlElement): XmlElement => ({
  ...schema,
  children: schema.children.map((c) => (isElement(c) && c.ns === XS && c.name === 'import'
    ? { ...c, attrs: c.attrs.filter((a) => a.name !== 'schemaLocation') }
    : c)),
});

/** The request element, of the request shape's type, in the request namespace. */
const requestDeclarations = (prefix: string): XmlElement[] => [
  xs('element', { name: impersonateLogout.name, type: `${prefix}:${impersonateLogout.request.name}` }),
  shapeType(impersonateLogout.request),
];

const DOCUMENTATION = `${impersonateLogout.name} of interface.md ${impersonateLogout.clause}: SOAP 1.1, document/literal, `
  + `POST {base_url}${impersonateLogout.route} with SOAPAction ${impersonateLogout.soapAction}. The endpoint below is a `
  + `placeholder: point clients at the deployment. The namespaces are the configured service namespaces. `
  + `The JSON operations are described by fixtures/${OPENAPI_FILE}.`;

/** WSDL text for the given namespaces; the endpoint is a placeholder that clients override. */
export function serviceWsdl(ns: ServiceNamespaces = DEFAULT_NAMESPACES): string {
  const records = recordSchemas(ns);
  // The two service namespaces are configuration and may coincide: then one prefix serves both.
  const requestPrefix = ns.request === ns.login ? PREFIX.login : SVC;
  const op = impersonateLogout.name;
  const own = (local: string) => `${requestPrefix}:${local}`; // a name in the WSDL's target namespace

  // One schema per target namespace: consumers (node-soap among them) index schemas by it.
  const [login, arrays, system] = [records.login, records.arrays, records.system].map(inlined) as [XmlElement, XmlElement, XmlElement];
  const schemas = ns.request === ns.login
    ? [{ ...login, children: [...login.children, ...requestDeclarations(requestPrefix)] }]
    : [xs('schema', { targetNamespace: ns.request, elementFormDefault: 'qualified' }, requestDeclarations(requestPrefix)), login];
  const types = wsdl('types', {}, [...schemas, arrays, system]);
  const messages = [
    wsdl('message', { name: NAMES.input(op) }, [wsdl('part', { name: NAMES.part, element: own(impersonateLogout.name) })]),
    wsdl('message', { name: NAMES.output(op) }, [wsdl('part', { name: NAMES.part, element: `${PREFIX.login}:${impersonateLogout.responseElement}` })]),
  ];
  const portType = wsdl('portType', { name: NAMES.portType }, [
    wsdl('operation', { name: op }, [wsdl('input', { message: own(NAMES.input(op)) }), wsdl('output', { message: own(NAMES.output(op)) })]),
  ]);
  const literal = () => [soap('body', { use: 'literal' })];
  const binding = wsdl('binding', { name: NAMES.binding, type: own(NAMES.portType) }, [
    soap('binding', { style: 'document', transport: SOAP_HTTP_TRANSPORT }),
    wsdl('operation', { name: op }, [
      soap('operation', { soapAction: impersonateLogout.soapAction, style: 'document' }),
      wsdl('input', {}, literal()),
      wsdl('output', {}, literal()),
    ]),
  ]);
  const service = wsdl('service', { name: NAMES.service }, [
    wsdl('port', { name: NAMES.port, binding: own(NAMES.binding) }, [
      soap('address', { location: `${PLACEHOLDER_BASE_URL}${impersonateLogout.route}` }),
    ]),
  ]);
  const definitions: XmlElement = {
    ...wsdl('definitions', { name: NAMES.definitions, targetNamespace: ns.request }, [
      el(WSDL, 'documentation', [text(DOCUMENTATION)]),
      types, ...messages, portType, binding, service,
    ]),
    // QNames in attribute values use these prefixes: declare them all on the root.
    declare: [ns.request, ns.login, ARRAYS, SYSTEM, XS],
  };

  const style = {
    ...XML_COMPACT, declaration: true, indent: 2, hoist: true,
    prefixes: {
      [WSDL]: 'wsdl', [WSDL_SOAP11]: 'soap', [XS]: 'xs',
      [ns.login]: PREFIX.login, [ARRAYS]: PREFIX.arrays, [SYSTEM]: PREFIX.system,
      ...(requestPrefix === SVC ? { [ns.request]: SVC } : {}),
    },
  };
  const header = '<!-- Generated from lib/contract by `npm run contract:export`; do not edit. -->\n';
  return writeXml(definitions, style).replace('?>\n', `?>\n${header}`) + '\n';
}

// XML namespaces. The two service namespaces are placeholders in the spec
// ({service_request_namespace}, {service_login_namespace}); the values here are the reference
// implementation's, and the harness's defaults (override with SERVICE_*_NAMESPACE).
import type { XmlNamespaceRole } from './types.js';

export const SOAP11_ENVELOPE = 'http://schemas.xmlsoap.org/soap/envelope/';
/** SOAP 1.1's element names (section 4 of the SOAP 1.1 note). */
export const SOAP = { envelope: 'Envelope', header: 'Header', body: 'Body', fault: 'Fault', faultcode: 'faultcode', faultstring: 'faultstring', mustUnderstand: 'mustUnderstand' } as const;
/** Whether an element is SOAP 1.1's Fault: by its namespace, resolved through the declarations in
 *  scope (a Fault in any other namespace is an element like any other). */
export const isSoap11Fault = (e: { readonly ns: string | null; readonly name: string }): boolean => e.name === SOAP.fault && e.ns === SOAP11_ENVELOPE;
/** Only to say "this is SOAP 1.2" when a target answers with it. */
export const SOAP12_ENVELOPE = 'http://www.w3.org/2003/05/soap-envelope';
export const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
/** DataContractSerializer's namespace for primitive collection items and dictionary entries. */
export const ARRAYS = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';
/** Data-contract namespace of System.DayOfWeek. */
export const SYSTEM = 'http://schemas.datacontract.org/2004/07/System';

export interface ServiceNamespaces {
  /** {service_request_namespace}: the namespace of ImpersonateLogoutRequest. */
  readonly request: string;
  /** {service_login_namespace}: the namespace of UserDetailsResponse and its members. */
  readonly login: string;
}

export const DEFAULT_NAMESPACES: ServiceNamespaces = {
  request: 'http://schemas.datacontract.org/2004/07/SupportState.ServiceModel.Impersonation',
  login: 'http://schemas.datacontract.org/2004/07/SupportState.ServiceModel.Login',
};

export const namespaceOf = (role: XmlNamespaceRole, ns: ServiceNamespaces): string =>
  role === 'login' ? ns.login : role === 'arrays' ? ARRAYS : SYSTEM;

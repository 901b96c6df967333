// POST /soap11 (4.2): a SOAP 1.1 envelope whose Body holds the request element. Anything else
// is answered with a SOAP 1.1 Fault that names the problem.
import { impersonateLogout } from '../contract/operations.js';
import { SOAP, SOAP11_ENVELOPE, SOAP12_ENVELOPE, type ServiceNamespaces } from '../contract/namespaces.js';
import { elementChildren, type XmlElement } from '../xml/model.js';
import { parseXml } from '../xml/parse.js';
import { decodeUtf8, header, mediaTypeOf, type RequestContext } from './reply.js';
import type { FaultCode } from './soap-record.js';

export type SoapOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: number; readonly code: FaultCode; readonly message: string };

const clientFault = (message: string, status = 500): SoapOutcome => ({ ok: false, status, code: 'Client', message });

/** SOAPAction may be quoted, and may be a URI ending in the operation name. */
function actionMatches(action: string | undefined, name: string): boolean {
  if (action === undefined) return true; // optional in practice; ServiceStack dispatches on the Body
  const bare = action.trim().replace(/^"(.*)"$/, '$1');
  return bare === '' || bare === name || bare.endsWith(`/${name}`);
}

const qname = (e: XmlElement) => (e.ns ? `{${e.ns}}${e.name}` : e.name);

export function checkSoapRequest(ctx: RequestContext, ns: ServiceNamespaces): SoapOutcome {
  const type = mediaTypeOf(header(ctx, 'content-type'));
  if (type !== 'text/xml') {
    const hint = type === 'application/soap+xml' ? ' (that is SOAP 1.2; this endpoint speaks SOAP 1.1)' : '';
    return clientFault(`Content-Type ${JSON.stringify(header(ctx, 'content-type') ?? '')} is not supported; send text/xml${hint}`, 415);
  }
  const text = decodeUtf8(ctx.body);
  if (text === undefined) return clientFault('The request body is not valid UTF-8');
  const doc = parseXml(text);
  if (!doc.ok) return clientFault(`The request is not well-formed XML: ${doc.error}`);
  const env = doc.root;
  if (env.name !== SOAP.envelope || env.ns !== SOAP11_ENVELOPE) {
    return env.ns === SOAP12_ENVELOPE
      ? { ok: false, status: 500, code: 'VersionMismatch', message: 'SOAP 1.2 envelope received; this endpoint speaks SOAP 1.1' }
      : clientFault(`The root element must be {${SOAP11_ENVELOPE}}Envelope, not ${qname(env)}`);
  }
  const body = elementChildren(env).find((c) => c.ns === SOAP11_ENVELOPE && c.name === SOAP.body);
  if (!body) return clientFault('The envelope has no Body');
  const [request, ...extra] = elementChildren(body);
  if (!request) return clientFault('The Body is empty; it must hold ImpersonateLogoutRequest');
  if (extra.length) return clientFault(`The Body must hold one element; it holds ${extra.length + 1}`);
  if (request.name !== impersonateLogout.name) return clientFault(`Unknown operation ${qname(request)}`);
  if (request.ns !== ns.request) {
    return clientFault(`${impersonateLogout.name} must be in namespace ${ns.request}, not ${request.ns ?? '(none)'}`);
  }
  if (!actionMatches(header(ctx, 'soapaction'), impersonateLogout.soapAction)) {
    return clientFault(`SOAPAction ${JSON.stringify(header(ctx, 'soapaction'))} does not name ${impersonateLogout.soapAction}`);
  }
  return { ok: true };
}

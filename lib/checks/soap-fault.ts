// A SOAP 1.1 Fault's faultcode, and whether it blames the request (SOAP 1.1 section 4.4.1): what the
// robustness checks and the route checks read of a Fault answer.
import { isSoap11Fault, SOAP, SOAP11_ENVELOPE } from '../contract/namespaces.js';
import { contentQName, elementChildren, textContent } from '../xml/model.js';
import { show } from './check.js';
import type { ExchangeView } from './exchange-view.js';

/** SOAP 1.1 fault codes that blame the request, not the server (SOAP 1.1 section 4.4.1); dotted
 *  refinements (Client.Authentication) count as their class. */
const REQUEST_FAULTS = new Set(['Client', 'VersionMismatch', 'MustUnderstand']);

/** A SOAP 1.1 Fault's faultcode: its text as received; the QName it names, resolved through the
 *  declarations in scope (SOAP 1.1 4.4: a QName, so a prefix means only what it is bound to), absent
 *  when it names none; and the faultcode element's namespace when it has one. */
interface Faultcode {
  readonly text: string;
  readonly code?: { readonly ns: string | null; readonly name: string };
  readonly qualified?: string;
}

/** The faultcode of a SOAP 1.1 Fault answer, or undefined when the body is no Fault. */
export function soapFaultCode(ex: ExchangeView): Faultcode | undefined {
  const doc = ex.xml();
  if (!doc.ok || doc.value.name !== SOAP.envelope || doc.value.ns !== SOAP11_ENVELOPE) return undefined;
  const body = elementChildren(doc.value).find((e) => e.name === SOAP.body && e.ns === SOAP11_ENVELOPE);
  const fault = body && elementChildren(body).find(isSoap11Fault);
  const element = fault && elementChildren(fault).find((e) => e.name === SOAP.faultcode);
  if (!body || !fault || !element) return undefined;
  const text = textContent(element);
  const code = contentQName(text, [doc.value, body, fault, element]);
  return { text, ...(code ? { code } : {}), ...(element.ns !== null ? { qualified: element.ns } : {}) };
}

/** Why a Fault's faultcode does not blame the request, or undefined when it does. */
export function faultcodeProblem(f: Faultcode): string | undefined {
  // WS-I Basic Profile 1.1 R1001: a Fault's children are unqualified (SOAP 1.1's schema declares them locally).
  if (f.qualified !== undefined) return `${SOAP.faultcode} element is in ${show(f.qualified)}; SOAP 1.1's is unqualified`;
  const shown = `${SOAP.faultcode} is ${show(f.text)}`;
  if (!f.code) return `${shown}, not a QName whose prefix is declared where it is written`;
  if (f.code.ns !== SOAP11_ENVELOPE) return `${shown}, which names ${show(f.code.name)} in ${f.code.ns ? show(f.code.ns) : 'no namespace'}, not in ${SOAP11_ENVELOPE}`;
  return REQUEST_FAULTS.has(f.code.name.split('.')[0]!) ? undefined : `${shown}: the server's own failure`;
}

// Every distinct request the harness may send, derived from the operations of section 4 and the
// configured request values. Checks name the exchanges they read; the engine sends each needed
// one exactly once.
import type { ServiceNamespaces } from '../contract/namespaces.js';
import {
  FORMATS, impersonateLogout, JSON_MEDIA_TYPE, JSON_OPERATIONS, replyRoute, SOAP_REQUEST_MEDIA_TYPE,
  type JsonOperation,
} from '../contract/operations.js';
import { SOAP11_ENVELOPE } from '../contract/namespaces.js';
import type { JsonObject } from '../json/node.js';
import type { ExchangeSpec } from '../http/exchange.js';
import { el } from '../xml/model.js';
import { writeXml } from '../xml/write.js';

/** The callback name the harness asks for (a plain identifier: nothing to sanitise). */
export const CALLBACK_NAME = 'conformanceCallback';
/** A callback name no JavaScript-safe server may echo verbatim (a SHOULD check). */
export const UNSAFE_CALLBACK = 'alert(document.domain)//';

/** Exchange ids, per operation. */
export const X = {
  post: (op: JsonOperation) => `${op.key}.post`,
  reply: (op: JsonOperation) => `${op.key}.reply`,
  options: (op: JsonOperation) => `${op.key}.options`,
  jsonExtension: (op: JsonOperation) => `${op.key}.json-extension`,
  formatJson: (op: JsonOperation) => `${op.key}.format-json`,
  callback: (op: JsonOperation) => `${op.key}.callback`,
  unsafeCallback: (op: JsonOperation) => `${op.key}.callback-unsafe`,
  acceptXml: (op: JsonOperation) => `${op.key}.accept-xml`,
  soapExtension: (op: JsonOperation) => `${op.key}.soap-extension`,
  soap: `${impersonateLogout.key}.soap`,
  soapFormatQuery: `${impersonateLogout.key}.format-soap11`,
} as const;

export interface RequestSettings {
  readonly namespaces: ServiceNamespaces;
  /** Request record values per JSON operation key. */
  readonly values: Readonly<Record<string, JsonObject>>;
  /** Sent with every request (e.g. Authorization); values are secrets. */
  readonly extraHeaders: Readonly<Record<string, string>>;
}

const XML_ACCEPT = 'application/xml';

/** The SOAP 1.1 request of 4.2: one empty ImpersonateLogoutRequest in the request namespace. */
export const soapRequestBody = (ns: ServiceNamespaces): string =>
  writeXml(el(SOAP11_ENVELOPE, 'Envelope', [el(SOAP11_ENVELOPE, 'Body', [el(ns.request, impersonateLogout.name)])]),
    { declaration: false, bom: false, indent: 0, prefixes: { [SOAP11_ENVELOPE]: 's', [ns.request]: '' }, hoist: false, cdata: false, charRefs: false, selfClose: true });

export function planExchanges(settings: RequestSettings): ReadonlyMap<string, ExchangeSpec> {
  const specs: ExchangeSpec[] = [];
  const extra = settings.extraHeaders;
  for (const op of JSON_OPERATIONS) {
    const body = JSON.stringify(settings.values[op.key] ?? {});
    const post = (id: string, title: string, path: string, headers: Record<string, string> = {}): ExchangeSpec =>
      ({ id, title, method: 'POST', path, headers: { ...extra, 'content-type': JSON_MEDIA_TYPE, ...headers }, body });
    specs.push(
      post(X.post(op), `POST ${op.route} (${op.clause})`, op.route),
      post(X.reply(op), `POST ${replyRoute(op)} (${op.clause}, also reachable at)`, replyRoute(op)),
      { id: X.options(op), title: `OPTIONS ${op.route} (${op.clause})`, method: 'OPTIONS', path: op.route, headers: { ...extra } },
      post(X.jsonExtension(op), `POST ${op.route}${FORMATS.jsonSuffix} with Accept: ${XML_ACCEPT} (4)`, op.route + FORMATS.jsonSuffix, { accept: XML_ACCEPT }),
      post(X.formatJson(op), `POST ${op.route}?${FORMATS.jsonQuery} with Accept: ${XML_ACCEPT} (4)`, `${op.route}?${FORMATS.jsonQuery}`, { accept: XML_ACCEPT }),
      post(X.callback(op), `POST ${op.route}?${FORMATS.callbackParam}=${CALLBACK_NAME} (4)`, `${op.route}?${FORMATS.callbackParam}=${CALLBACK_NAME}`),
      post(X.unsafeCallback(op), `POST ${op.route} with an unsafe callback name (4, advisory)`, `${op.route}?${FORMATS.callbackParam}=${encodeURIComponent(UNSAFE_CALLBACK)}`),
      post(X.acceptXml(op), `POST ${op.route} with Accept: ${XML_ACCEPT} and no override (4, advisory)`, op.route, { accept: XML_ACCEPT }),
      post(X.soapExtension(op), `POST ${op.route}${FORMATS.soapSuffix} (4, interpretation)`, op.route + FORMATS.soapSuffix),
    );
  }
  const soapHeaders = { ...extra, 'content-type': SOAP_REQUEST_MEDIA_TYPE, soapaction: impersonateLogout.soapAction };
  const soapBody = soapRequestBody(settings.namespaces);
  specs.push(
    { id: X.soap, title: `POST ${impersonateLogout.route} ImpersonateLogoutRequest (4.2)`, method: 'POST', path: impersonateLogout.route, headers: soapHeaders, body: soapBody },
    { id: X.soapFormatQuery, title: `POST ${impersonateLogout.route}?${FORMATS.soapQuery} (4)`, method: 'POST', path: `${impersonateLogout.route}?${FORMATS.soapQuery}`, headers: soapHeaders, body: soapBody },
  );
  return new Map(specs.map((s) => [s.id, s]));
}

// The probes: the distinct requests the harness sends to exercise every check once, derived from the
// operations of section 4 and the configured request values. Checks do not name them: each probe is
// classified like any other exchange, and the engine sends those whose kind some selected check judges.
import { SOAP, SOAP11_ENVELOPE, type ServiceNamespaces } from '../contract/namespaces.js';
import {
  FORMATS, impersonateLogout, JSON_MEDIA_TYPE, JSON_OPERATIONS, login, replyRoute, SOAP_REQUEST_MEDIA_TYPE,
  type JsonOperation, type Operation,
} from '../contract/operations.js';
import type { JsonObject } from '../json/value.js';
import { CALLBACK_NAME, UNSAFE_CALLBACK } from '../checks/harness-words.js';
import { ACCEPT_ENCODING } from '../http/content-coding.js';
import type { ExchangeSpec, Origin } from '../http/exchange.js';
import { el } from '../xml/model.js';
import { writeXml } from '../xml/write.js';

// Named with the harness's other words (harness-words.ts: never masked), used here.
export { CALLBACK_NAME, UNSAFE_CALLBACK };

/** Probe ids, per operation: stable names in reports ("login.post"). */
export const PROBE = {
  post: (op: JsonOperation) => `${op.key}.post`,
  reply: (op: JsonOperation) => `${op.key}.reply`,
  options: (op: JsonOperation) => `${op.key}.options`,
  jsonExtension: (op: JsonOperation) => `${op.key}.json-extension`,
  formatJson: (op: JsonOperation) => `${op.key}.format-json`,
  callback: (op: JsonOperation) => `${op.key}.callback`,
  unsafeCallback: (op: JsonOperation) => `${op.key}.callback-unsafe`,
  acceptXml: (op: JsonOperation) => `${op.key}.accept-xml`,
  soapExtension: (op: JsonOperation) => `${op.key}.soap-extension`,
  /** The operation asked for with Accept-Encoding, as a client with automatic decompression asks. */
  compressed: (op: Operation) => `${op.key}.compressed`,
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
  writeXml(el(SOAP11_ENVELOPE, SOAP.envelope, [el(SOAP11_ENVELOPE, SOAP.body, [el(ns.request, impersonateLogout.name)])]),
    { declaration: false, bom: false, indent: 0, prefixes: { [SOAP11_ENVELOPE]: 's', [ns.request]: '' }, hoist: false, cdata: false, charRefs: false, selfClose: true });

const PROBE_ORIGIN: Origin = { source: 'probe', vouched: true };

/** The OPTIONS probes ask as a browser does before a cross-origin POST of JSON: a CORS preflight
 *  (Fetch standard, CORS protocol). The route exists for such clients, and a CORS layer answers only
 *  preflights (ASP.NET Core's UseCors answers a bare OPTIONS 405): a bare OPTIONS had failed a
 *  deployment serving every browser right. */
export const PREFLIGHT: Readonly<Record<string, string>> = { origin: 'https://client.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };

/** The headers of a JSON operation's POST: the run's extra ones, its media type, the request's own. */
export const jsonPostHeaders = (extra: Readonly<Record<string, string>>, headers: Readonly<Record<string, string>> = {}): Record<string, string> =>
  ({ ...extra, 'content-type': JSON_MEDIA_TYPE, ...headers });

/** A POST of a JSON body with its headers made (jsonPostHeaders), which requests may share. */
export const jsonRequest = (id: string, title: string, path: string, body: string, origin: Origin, headers: Readonly<Record<string, string>>): ExchangeSpec =>
  ({ id, title, origin, method: 'POST', path, headers, body });

/** A request record's JSON text: JSON.stringify's, but -0 (CONFIRM_OWNER_ID=-0) written as it was
 *  given, where JSON.stringify writes 0. A record's members are scalars (2.2). */
const recordText = (record: JsonObject): string => {
  const text = JSON.stringify(record);
  if (!Object.values(record).some((v) => Object.is(v, -0))) return text;
  return `{${Object.entries(record).map(([k, v]) => `${JSON.stringify(k)}:${Object.is(v, -0) ? '-0' : JSON.stringify(v)}`).join(',')}}`;
};

/** A POST of a JSON operation's request record, as the harness sends it (the probes). */
export const jsonPost = (id: string, title: string, path: string, record: JsonObject, origin: Origin, extra: Readonly<Record<string, string>>, headers: Record<string, string> = {}): ExchangeSpec =>
  jsonRequest(id, title, path, recordText(record), origin, jsonPostHeaders(extra, headers));

export function planProbes(settings: RequestSettings): readonly ExchangeSpec[] {
  const specs: ExchangeSpec[] = [];
  const extra = settings.extraHeaders;
  for (const op of JSON_OPERATIONS) {
    const record = settings.values[op.key] ?? {};
    const post = (id: string, title: string, path: string, headers: Record<string, string> = {}): ExchangeSpec =>
      jsonPost(id, title, path, record, PROBE_ORIGIN, extra, headers);
    specs.push(
      post(PROBE.post(op), `POST ${op.route} (${op.clause})`, op.route),
      post(PROBE.reply(op), `POST ${replyRoute(op)} (${op.clause}, also reachable at)`, replyRoute(op)),
      { id: PROBE.options(op), title: `OPTIONS ${op.route} as a CORS preflight (${op.clause})`, origin: PROBE_ORIGIN, method: 'OPTIONS', path: op.route, headers: { ...extra, ...PREFLIGHT } },
      post(PROBE.jsonExtension(op), `POST ${op.route}${FORMATS.jsonSuffix} with Accept: ${XML_ACCEPT} (4)`, op.route + FORMATS.jsonSuffix, { accept: XML_ACCEPT }),
      post(PROBE.formatJson(op), `POST ${op.route}?${FORMATS.jsonQuery} with Accept: ${XML_ACCEPT} (4)`, `${op.route}?${FORMATS.jsonQuery}`, { accept: XML_ACCEPT }),
      post(PROBE.callback(op), `POST ${op.route}?${FORMATS.callbackParam}=${CALLBACK_NAME} (4)`, `${op.route}?${FORMATS.callbackParam}=${CALLBACK_NAME}`),
      post(PROBE.compressed(op), `POST ${op.route} with Accept-Encoding: ${ACCEPT_ENCODING} (${op.clause})`, op.route, { 'accept-encoding': ACCEPT_ENCODING }),
    );
    // The advisory probes ask the same question of either operation: one operation answers it.
    if (op === login) {
      specs.push(
        post(PROBE.unsafeCallback(op), `POST ${op.route} with an unsafe callback name (4, advisory)`, `${op.route}?${FORMATS.callbackParam}=${encodeURIComponent(UNSAFE_CALLBACK)}`),
        post(PROBE.acceptXml(op), `POST ${op.route} with Accept: ${XML_ACCEPT} and no override (4, advisory)`, op.route, { accept: XML_ACCEPT }),
        post(PROBE.soapExtension(op), `POST ${op.route}${FORMATS.soapSuffix} (4, interpretation)`, op.route + FORMATS.soapSuffix),
      );
    }
  }
  const soapHeaders = { ...extra, 'content-type': SOAP_REQUEST_MEDIA_TYPE, soapaction: impersonateLogout.soapAction };
  const soapBody = soapRequestBody(settings.namespaces);
  specs.push(
    { id: PROBE.soap, title: `POST ${impersonateLogout.route} ImpersonateLogoutRequest (4.2)`, origin: PROBE_ORIGIN, method: 'POST', path: impersonateLogout.route, headers: soapHeaders, body: soapBody },
    { id: PROBE.compressed(impersonateLogout), title: `POST ${impersonateLogout.route} with Accept-Encoding: ${ACCEPT_ENCODING} (4.2)`, origin: PROBE_ORIGIN, method: 'POST', path: impersonateLogout.route, headers: { ...soapHeaders, 'accept-encoding': ACCEPT_ENCODING }, body: soapBody },
    { id: PROBE.soapFormatQuery, title: `POST ${impersonateLogout.route}?${FORMATS.soapQuery} (4)`, origin: PROBE_ORIGIN, method: 'POST', path: `${impersonateLogout.route}?${FORMATS.soapQuery}`, headers: soapHeaders, body: soapBody },
  );
  return specs;
}

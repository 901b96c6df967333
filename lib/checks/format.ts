// Format selection of section 4: .json and ?format=json override content negotiation,
// ?callback wraps JSON in a call, ?format=soap11 on the SOAP route answers the same SOAP, and the
// ambiguous .soap11 suffix under a documented reading.
import type { Format, RequestKind, Selector } from '../contract/classify.js';
import { SOAP, SOAP11_ENVELOPE } from '../contract/namespaces.js';
import { FORMATS, impersonateLogout, JAVASCRIPT_MEDIA_TYPES, JSON_OPERATIONS, login } from '../contract/operations.js';
import { mediaType } from '../http/media-type.js';
import { ROOT } from '../json/path.js';
import { isJsonObject } from '../json/value.js';
import { finding, show, type Check } from './check.js';
import type { ExchangeView } from './exchange-view.js';
import { jsonpKind, kindRule, type KindRule } from './kinds.js';
import { charsetNotUtf8, jsonAnswer, PATHS, soapAnswer, statusAndType, statusTypeAndBody } from './whole-answer.js';

const JSON_OPS = JSON_OPERATIONS.map((op) => op.name).join(', ');
const format = { area: 'Format selection', operation: JSON_OPS, clause: '4' } as const;

/** POST on a custom route whose selector names `selected` (and no callback). */
const selects = (wire: 'json' | 'soap', selector: Selector, selected: Format) => (k: RequestKind): boolean =>
  k.operation?.wire === wire && k.route === (wire === 'json' ? 'custom' : 'soap11') && k.method === 'POST'
    && k.selector === selector && k.selected === selected && k.callback === undefined;
const selecting = (wire: 'json' | 'soap', selector: Selector, selected: Format, words: string): KindRule => kindRule(selects(wire, selector, selected), words);

const jsonExtension = selecting('json', 'extension', 'json', `every POST {route}${FORMATS.jsonSuffix} with no callback`);
const jsonQuery = selecting('json', 'query', 'json', `every POST {route}?${FORMATS.jsonQuery} with no callback`);
const soapQuery = selecting('soap', 'query', 'soap11', `every POST ${impersonateLogout.route}?${FORMATS.soapQuery}`);
const soapSelected = selects('json', 'extension', 'soap11');
const soapExtension = kindRule((k) => k.operation === login && soapSelected(k), `every POST ${login.route}${FORMATS.soapSuffix}`);
const safeJsonp = jsonpKind(true);
const unsafeJsonp = jsonpKind(false);
const negotiatedXml = kindRule(
  (k) => k.operation?.wire === 'json' && k.route === 'custom' && k.method === 'POST' && k.selector === 'none' && k.callback === undefined && k.negotiated === 'xml',
  'every JSON-operation POST with an Accept that prefers XML and no selector',
);

/** The script text before the JSON it wraps: where a callback name would act. */
const scriptPrefix = (text: string): string => {
  const start = text.search(/[{[]/);
  return start < 0 ? text : text.slice(0, start);
};

export const FORMAT_CHECKS: readonly Check[] = [
  {
    ...format, level: 'MUST',
    id: 'FORMAT-JSON-EXTENSION',
    title: `${FORMATS.jsonSuffix} selects JSON over Accept: application/xml`,
    requirement: `POST {route}${FORMATS.jsonSuffix} answers 200 with a JSON object as application/json, whatever Accept says (the probe sends Accept: application/xml).`,
    interpretation: 'Applied to the custom route of each JSON operation (4.1, 4.3); the spec says the suffix overrides content negotiation. A charset, when sent, must be UTF-8 (RFC 8259 8.1).',
    judges: jsonExtension.judges,
    appliesTo: jsonExtension.applies,
    judge: jsonAnswer,
  },
  {
    ...format, level: 'MUST',
    id: 'FORMAT-JSON-QUERY',
    title: `?${FORMATS.jsonQuery} selects JSON over Accept: application/xml`,
    requirement: `POST {route}?${FORMATS.jsonQuery} answers 200 with a JSON object as application/json, whatever Accept says (the probe sends Accept: application/xml).`,
    interpretation: 'Applied to the custom route of each JSON operation (4.1, 4.3). A charset, when sent, must be UTF-8 (RFC 8259 8.1).',
    judges: jsonQuery.judges,
    appliesTo: jsonQuery.applies,
    judge: jsonAnswer,
  },
  {
    ...format, level: 'MUST',
    id: 'JSONP-CALLBACK',
    title: `?${FORMATS.callbackParam}=name wraps the JSON as name(json)`,
    requirement: `POST {route}?${FORMATS.callbackParam}=name answers 200 with name(<JSON object>), the name as sent.`,
    interpretation: 'A trailing ";", whitespace, comments before or after the call and Express\'s typeof guard are valid JSONP and accepted (code after the call is not); the JSON inside is held to every JSON record check. Names with characters outside [A-Za-z0-9._] are JSONP-SAFE-CALLBACK\'s. A charset on the answer, when sent, must be UTF-8: a browser decodes the script by it.',
    judges: safeJsonp.judges,
    appliesTo: safeJsonp.applies,
    judge: (ex) => {
      const status = statusTypeAndBody(ex, 200);
      if (!Array.isArray(status) || status.length) return status;
      // A browser decodes the script by its charset (the JSON inside is UTF-8: RFC 8259 8.1).
      const labelled = charsetNotUtf8(ex);
      if (labelled.length) return labelled;
      const jsonp = ex.jsonp();
      if (!jsonp.ok) return [finding(jsonp.reason, { path: PATHS.callback })]; // the whole (redacted) body is in the exchange's record
      const asked = ex.kind.callback!;
      if (jsonp.value.callback !== asked) return [finding(`calls ${show(jsonp.value.callback)}, expected ${asked}`, { path: PATHS.callback, actual: jsonp.value.callback })];
      return isJsonObject(jsonp.value.json.value) ? [] : [finding('the callback argument is not a JSON object', { path: ROOT })];
    },
  },
  {
    ...format, level: 'SHOULD',
    id: 'JSONP-MEDIA-TYPE',
    title: 'A JSONP answer has a JavaScript media type',
    requirement: `A JSONP answer's Content-Type is a JavaScript type (${JAVASCRIPT_MEDIA_TYPES.slice(0, 2).join(', ')}, …).`,
    interpretation: 'Not stated by the spec; ServiceStack sends text/javascript (application/javascript in old versions), and browsers with nosniff refuse a script served as JSON.',
    judges: safeJsonp.judges,
    side: 'head',
    appliesTo: safeJsonp.applies,
    judge: (ex) => {
      const r = ex.head();
      if (!r.ok) return { skip: r.reason };
      if (r.value.status !== 200) return { skip: `status ${r.value.status}` };
      return statusAndType(ex, 200, JAVASCRIPT_MEDIA_TYPES);
    },
  },
  {
    ...format, level: 'SHOULD', operation: login.name,
    id: 'JSONP-SAFE-CALLBACK',
    title: 'An unsafe callback name is not echoed as script',
    requirement: `A ?${FORMATS.callbackParam}= name holding characters outside [A-Za-z0-9._] is sanitised or refused, never written verbatim into the script.`,
    interpretation: 'Not stated by the spec; ServiceStack replaces every character outside [A-Za-z0-9._] with "_". Echoing the name is a cross-site scripting hole.',
    judges: unsafeJsonp.judges,
    probe: 'a callback name that is not a plain identifier, e.g. ?callback=alert(document.domain)//',
    appliesTo: unsafeJsonp.applies,
    judge: (ex: ExchangeView) => {
      const t = ex.text();
      if (!t.ok) return { skip: t.reason };
      // Before the JSON, after a comment or inside a guard alike, the raw name is script.
      return scriptPrefix(t.value).includes(ex.kind.callback!) ? [finding('the unsafe name is written verbatim into the script', { path: PATHS.callback })] : [];
    },
  },
  {
    ...format, level: 'SHOULD', operation: login.name,
    id: 'FORMAT-NEGOTIATION-OBSERVABLE',
    title: 'Accept: application/xml is honoured when nothing overrides it',
    requirement: 'Without .json or ?format=json, Accept: application/xml is answered with XML, so the override checks observe a real override.',
    interpretation: 'The spec speaks of overriding content negotiation; if a target answers JSON whatever Accept says, FORMAT-JSON-EXTENSION and FORMAT-JSON-QUERY pass without proving the override.',
    judges: negotiatedXml.judges,
    probe: 'a POST with Accept: application/xml and no .json or ?format=json',
    side: 'head',
    appliesTo: negotiatedXml.applies,
    judge: (ex) => {
      const r = ex.head();
      if (!r.ok) return { skip: r.reason };
      const type = mediaType(r.value.headers['content-type']);
      return type?.endsWith('xml') ? [] : [finding(`answered ${type === undefined ? 'no media type' : show(type)}; the override checks cannot tell an override from no negotiation`, { path: PATHS.contentType, actual: type ?? '' })];
    },
  },
  {
    ...format, level: 'MUST', operation: impersonateLogout.name, clause: '4, 4.2',
    id: 'FORMAT-SOAP11-QUERY',
    title: `POST ${impersonateLogout.route}?${FORMATS.soapQuery} answers the SOAP response`,
    requirement: `POST ${impersonateLogout.route}?${FORMATS.soapQuery} with the request of 4.2 answers 200, application/xml, an Envelope whose Body holds UserDetailsResponse.`,
    interpretation: 'Every SOAP envelope and record check is applied to this answer too.',
    judges: soapQuery.judges,
    appliesTo: soapQuery.applies,
    judge: (ex) => soapAnswer(ex, impersonateLogout.responseElement),
  },
  {
    ...format, level: 'SHOULD', operation: login.name,
    id: 'FORMAT-SOAP11-EXTENSION',
    title: `${FORMATS.soapSuffix} on the login route answers SOAP 1.1`,
    requirement: `POST ${login.route}${FORMATS.soapSuffix} with the JSON request of 4.1 answers 200 with a SOAP 1.1 Envelope whose Body holds UserDetailsResponse in the login namespace.`,
    interpretation: `Interpretation: the spec says "append ${FORMATS.soapSuffix}" without saying to what. Read as ServiceStack's format extension on an operation's route, the way .json is (ServiceStack then writes the response with its SOAP 1.1 serialiser). The /soap11 endpoint itself is tested by ROUTE-SOAP-POST; the SOAP record checks judge /soap11 answers only, so their verdict never rests on this reading.`,
    judges: soapExtension.judges,
    probe: `POST ${login.route}${FORMATS.soapSuffix}`,
    appliesTo: soapExtension.applies,
    judge: (ex) => {
      const out = soapAnswer(ex, impersonateLogout.responseElement);
      if (!Array.isArray(out) || out.length) return out;
      const soap = ex.soap(impersonateLogout.responseElement);
      const parts = soap.ok ? soap.value : undefined;
      if (parts?.envelope.ns !== SOAP11_ENVELOPE) return [finding(`the Envelope is in ${show(parts?.envelope.ns ?? '(no namespace)')}, not SOAP 1.1`, { path: `/${SOAP.envelope}` })];
      return parts.record?.ns === ex.settings.namespaces.login ? [] : [finding(`UserDetailsResponse is in ${show(parts.record?.ns ?? '(no namespace)')}`, { path: `/${SOAP.envelope}/${SOAP.body}/${impersonateLogout.responseElement}` })];
    },
  },
];

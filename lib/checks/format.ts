// Format selection of section 4: .json and ?format=json override content negotiation,
// ?callback wraps JSON in a call, ?format=soap11 on the SOAP route answers the same SOAP, and the
// ambiguous .soap11 suffix under a documented reading.
import { SOAP11_ENVELOPE } from '../contract/namespaces.js';
import { FORMATS, impersonateLogout, JSON_OPERATIONS, login } from '../contract/operations.js';
import { mediaType } from '../http/media-type.js';
import { isJsonObject } from '../json/node.js';
import { CALLBACK_NAME, UNSAFE_CALLBACK, X } from '../engine/exchanges.js';
import { acrossExchanges, finding, show, type Check } from './check.js';
import { JAVASCRIPT_TYPES, jsonAnswer, soapAnswer, statusAndType } from './answers.js';

const JSON_OPS = JSON_OPERATIONS.map((op) => op.name).join(', ');
const each = (f: (op: (typeof JSON_OPERATIONS)[number]) => string) => JSON_OPERATIONS.map(f);

const format = { area: 'Format selection', operation: JSON_OPS, clause: '4' } as const;

export const FORMAT_CHECKS: readonly Check[] = [
  {
    ...format, level: 'MUST',
    id: 'FORMAT-JSON-EXTENSION',
    title: `${FORMATS.jsonSuffix} selects JSON over Accept: application/xml`,
    requirement: `POST {route}${FORMATS.jsonSuffix} with Accept: application/xml answers 200 with a JSON object as application/json.`,
    interpretation: 'Applied to the custom route of each JSON operation (4.1, 4.3); the spec says the suffix overrides content negotiation.',
    exchanges: each(X.jsonExtension),
    run: (ctx) => acrossExchanges(ctx, each(X.jsonExtension), (id) => jsonAnswer(ctx, id)),
  },
  {
    ...format, level: 'MUST',
    id: 'FORMAT-JSON-QUERY',
    title: `?${FORMATS.jsonQuery} selects JSON over Accept: application/xml`,
    requirement: `POST {route}?${FORMATS.jsonQuery} with Accept: application/xml answers 200 with a JSON object as application/json.`,
    interpretation: 'Applied to the custom route of each JSON operation (4.1, 4.3).',
    exchanges: each(X.formatJson),
    run: (ctx) => acrossExchanges(ctx, each(X.formatJson), (id) => jsonAnswer(ctx, id)),
  },
  {
    ...format, level: 'MUST',
    id: 'JSONP-CALLBACK',
    title: `?${FORMATS.callbackParam}=name wraps the JSON as name(json)`,
    requirement: `POST {route}?${FORMATS.callbackParam}=${CALLBACK_NAME} answers 200 with ${CALLBACK_NAME}(<JSON object>).`,
    interpretation: 'A trailing ";" and whitespace around the call are valid JSONP and accepted; the JSON inside is held to every JSON record check.',
    exchanges: each(X.callback),
    run: (ctx) => acrossExchanges(ctx, each(X.callback), (id) => {
      const out = statusAndType(ctx, id, 200);
      if (out.length) return out;
      const jsonp = ctx.jsonp(id);
      if (!jsonp.ok) return [finding(id, jsonp.reason)]; // the whole (redacted) body is in the exchange's record
      if (jsonp.value.callback !== CALLBACK_NAME) {
        return [finding(id, `calls ${show(jsonp.value.callback)}, expected ${CALLBACK_NAME}`, { actual: jsonp.value.callback })];
      }
      return isJsonObject(jsonp.value.json.value) ? [] : [finding(id, 'the callback argument is not a JSON object')];
    }),
  },
  {
    ...format, level: 'SHOULD',
    id: 'JSONP-MEDIA-TYPE',
    title: 'A JSONP answer has a JavaScript media type',
    requirement: `A JSONP answer's Content-Type is a JavaScript type (${JAVASCRIPT_TYPES.slice(0, 2).join(', ')}, …).`,
    interpretation: 'Not stated by the spec; ServiceStack sends text/javascript (application/javascript in old versions), and browsers with nosniff refuse a script served as JSON.',
    exchanges: each(X.callback),
    run: (ctx) => acrossExchanges(ctx, each(X.callback), (id) => {
      const r = ctx.response(id);
      if (!r.ok) return { skip: r.reason };
      if (r.value.status !== 200) return { skip: `status ${r.value.status}` };
      return statusAndType(ctx, id, 200, JAVASCRIPT_TYPES);
    }),
  },
  {
    ...format, level: 'SHOULD', operation: login.name,
    id: 'JSONP-SAFE-CALLBACK',
    title: 'An unsafe callback name is not echoed as script',
    requirement: `?${FORMATS.callbackParam}=${UNSAFE_CALLBACK} is sanitised or refused, never written verbatim into the script.`,
    interpretation: 'Not stated by the spec; ServiceStack replaces every character outside [A-Za-z0-9._] with "_". Echoing the name is a cross-site scripting hole.',
    exchanges: [X.unsafeCallback(login)],
    run: (ctx) => acrossExchanges(ctx, [X.unsafeCallback(login)], (id) => {
      const t = ctx.text(id);
      if (!t.ok) return { skip: t.reason };
      // Anywhere in the body, after a comment or inside a guard alike, the raw name is script.
      return t.value.includes(UNSAFE_CALLBACK) ? [finding(id, 'the unsafe name is written verbatim into the script')] : [];
    }),
  },
  {
    ...format, level: 'SHOULD', operation: login.name,
    id: 'FORMAT-NEGOTIATION-OBSERVABLE',
    title: 'Accept: application/xml is honoured when nothing overrides it',
    requirement: 'Without .json or ?format=json, Accept: application/xml is answered with XML, so the override checks observe a real override.',
    interpretation: 'The spec speaks of overriding content negotiation; if a target answers JSON whatever Accept says, FORMAT-JSON-EXTENSION and FORMAT-JSON-QUERY pass without proving the override.',
    exchanges: [X.acceptXml(login)],
    run: (ctx) => acrossExchanges(ctx, [X.acceptXml(login)], (id) => {
      const r = ctx.response(id);
      if (!r.ok) return { skip: r.reason };
      const type = mediaType(r.value.headers['content-type']);
      return type?.endsWith('xml') ? [] : [finding(id, `answered ${type ?? 'no media type'}; the override checks cannot tell an override from no negotiation`, { actual: type ?? '' })];
    }),
  },
  {
    ...format, level: 'MUST', operation: impersonateLogout.name, clause: '4, 4.2',
    id: 'FORMAT-SOAP11-QUERY',
    title: `POST ${impersonateLogout.route}?${FORMATS.soapQuery} answers the SOAP response`,
    requirement: `POST ${impersonateLogout.route}?${FORMATS.soapQuery} with the request of 4.2 answers 200, application/xml, an Envelope whose Body holds UserDetailsResponse.`,
    interpretation: 'Every SOAP envelope and record check is applied to this answer too.',
    exchanges: [X.soapFormatQuery],
    run: (ctx) => acrossExchanges(ctx, [X.soapFormatQuery], (id) => soapAnswer(ctx, id, impersonateLogout.responseElement)),
  },
  {
    ...format, level: 'SHOULD', operation: login.name,
    id: 'FORMAT-SOAP11-EXTENSION',
    title: `${FORMATS.soapSuffix} on the login route answers SOAP 1.1`,
    requirement: `POST ${login.route}${FORMATS.soapSuffix} with the JSON request of 4.1 answers 200 with a SOAP 1.1 Envelope whose Body holds UserDetailsResponse in the login namespace.`,
    interpretation: `Interpretation: the spec says "append ${FORMATS.soapSuffix}" without saying to what. Read as ServiceStack's format extension on an operation's route, the way .json is (ServiceStack then writes the response with its SOAP 1.1 serialiser). The /soap11 endpoint itself is tested by ROUTE-SOAP-POST.`,
    exchanges: [X.soapExtension(login)],
    run: (ctx) => acrossExchanges(ctx, [X.soapExtension(login)], (id) => {
      const out = soapAnswer(ctx, id, impersonateLogout.responseElement);
      if (out.length) return out;
      const soap = ctx.soap(id, impersonateLogout.responseElement);
      const parts = soap.ok ? soap.value : undefined;
      if (parts?.envelope.ns !== SOAP11_ENVELOPE) return [finding(id, `the Envelope is in ${show(parts?.envelope.ns ?? '(no namespace)')}, not SOAP 1.1`)];
      return parts.record?.ns === ctx.settings.namespaces.login ? [] : [finding(id, `UserDetailsResponse is in ${show(parts.record?.ns ?? '(no namespace)')}`)];
    }),
  },
];

// Routes of 4.1-4.3: each route and each /json/reply alternate answers 200 with JSON, each OPTIONS
// route answers 2xx, and POST /soap11 answers 200 with XML.
import { impersonateLogout, JSON_OPERATIONS, replyRoute, type JsonOperation } from '../contract/operations.js';
import { finding, type Check } from './check.js';
import { kindRule, onKind, optionsOn, postOn } from './kinds.js';
import { jsonAnswer, soapAnswer, statusAndType } from './whole-answer.js';

const NAME: Record<string, string> = { login: 'LOGIN', confirm: 'CONFIRM' };

function jsonRouteChecks(op: JsonOperation): Check[] {
  const route = {
    area: 'Routes', operation: op.name, clause: op.clause, level: 'MUST',
    interpretation: 'Parameters of the media type are allowed; a charset, when sent, must be UTF-8 (RFC 8259 8.1: a label naming another makes clients that honour it misread the record). One Content-Type field only (RFC 9110 8.3).',
  } as const;
  const custom = postOn(op, 'custom', `every POST ${op.route} with no callback`);
  const reply = postOn(op, 'reply', `every POST ${replyRoute(op)} with no callback`);
  const options = optionsOn([op], `every OPTIONS ${op.route}`);
  return [
    {
      ...route,
      id: `ROUTE-${NAME[op.key]}-POST`,
      title: `POST ${op.route} answers 200 with a JSON object`,
      requirement: `POST ${op.route} with the request of ${op.clause} answers 200, Content-Type application/json, and a JSON object.`,
      interpretation: `${route.interpretation} Judged where nothing but the route decides the answer: no selector and an Accept that does not prefer XML (.json and ?format=json are the format checks').`,
      judges: `${custom.judges}, no selector, negotiated to JSON`,
      appliesTo: onKind((k) => custom.of(k) && k.selector === 'none' && k.format === 'json'),
      judge: jsonAnswer,
    },
    {
      ...route,
      id: `ROUTE-${NAME[op.key]}-REPLY`,
      title: `POST ${replyRoute(op)} answers 200 with a JSON object`,
      requirement: `The alternate route POST ${replyRoute(op)} answers 200, Content-Type application/json, and a JSON object.`,
      judges: reply.judges,
      appliesTo: reply.applies,
      judge: jsonAnswer,
    },
    {
      ...route,
      id: `ROUTE-${NAME[op.key]}-OPTIONS`,
      title: `OPTIONS ${op.route} answers 2xx`,
      requirement: `OPTIONS ${op.route} answers with a success status.`,
      interpretation: 'The spec lists the OPTIONS route but not what it returns (4.4): any 2xx passes; headers are advisory (OPTIONS-ALLOWS-POST). The probe asks as a browser does, a CORS preflight (Origin, Access-Control-Request-Method: POST): the route is for such clients, and a CORS layer answers only those (ASP.NET Core\'s UseCors answers a bare OPTIONS 405).',
      judges: options.judges,
      side: 'head',
      appliesTo: options.applies,
      judge: (ex) => statusAndType(ex, 'success'),
    },
  ];
}

const soapPostOn = postOn(impersonateLogout, 'soap11', '');
/** ?format=soap11 on /soap11 is FORMAT-SOAP11-QUERY's. */
const soapPost = kindRule((k) => soapPostOn.of(k) && k.selector === 'none', `every POST ${impersonateLogout.route} with no selector`);
const jsonOptions = optionsOn(JSON_OPERATIONS, 'every OPTIONS on the routes of 4.1 and 4.3');

export const ROUTE_CHECKS: readonly Check[] = [
  ...JSON_OPERATIONS.flatMap(jsonRouteChecks),
  {
    id: 'ROUTE-SOAP-POST',
    title: `POST ${impersonateLogout.route} answers 200 with a SOAP response`,
    area: 'Routes', operation: impersonateLogout.name, clause: impersonateLogout.clause, level: 'MUST',
    requirement: `POST ${impersonateLogout.route} with the request of 4.2 answers 200, Content-Type application/xml, and a well-formed XML Envelope whose Body holds UserDetailsResponse.`,
    interpretation: 'Namespaces and structure beyond locating the record are judged by the SOAP envelope checks. The media type is the spec\'s, kept although a stock WCF client (BasicHttpBinding) refuses a SOAP 1.1 answer labelled application/xml (fixtures/dotnet/golden/wcf.json). '
      + 'The body is read as XML 1.0 whatever version its declaration names (XML 1.0 5th edition, 2.8: a 1.x document is processed as 1.0; SOAP 1.1 is defined over XML 1.0), so version="1.1" admits none of XML 1.1\'s control-character references (&#x1;).',
    judges: soapPost.judges,
    appliesTo: soapPost.applies,
    judge: (ex) => soapAnswer(ex, impersonateLogout.responseElement),
  },
  {
    id: 'OPTIONS-ALLOWS-POST',
    title: 'OPTIONS names POST among the allowed methods',
    area: 'Routes', operation: JSON_OPERATIONS.map((op) => op.name).join(', '), clause: '4.4', level: 'SHOULD',
    requirement: 'An OPTIONS answer names POST in Allow or Access-Control-Allow-Methods.',
    interpretation: 'Not stated by the spec (4.4 says what OPTIONS returns is not shown); CORS preflight and RFC 9110 Allow both make it useful.',
    judges: jsonOptions.judges,
    side: 'head',
    appliesTo: jsonOptions.applies,
    judge: (ex) => {
      const r = ex.head();
      if (!r.ok) return { skip: r.reason };
      const h = r.value.headers;
      const named = [h.allow, h['access-control-allow-methods']].some((v) => v?.split(',').some((m) => m.trim().toUpperCase() === 'POST'));
      return named ? [] : [finding('neither Allow nor Access-Control-Allow-Methods names POST', { path: 'headers.access-control-allow-methods' })];
    },
  },
];

// Routes of 4.1-4.3: each route and each /json/reply alternate answers 200 with JSON, each OPTIONS
// route answers 2xx, and POST /soap11 answers 200 with XML.
import { impersonateLogout, JSON_OPERATIONS, login, replyRoute, type JsonOperation } from '../contract/operations.js';
import { X } from '../engine/exchanges.js';
import { acrossExchanges, finding, type Check } from './check.js';
import { jsonAnswer, soapAnswer, statusAndType } from './answers.js';

const NAME: Record<string, string> = { login: 'LOGIN', confirm: 'CONFIRM' };

function jsonRouteChecks(op: JsonOperation): Check[] {
  const route = {
    area: 'Routes', operation: op.name, clause: op.clause, level: 'MUST',
    interpretation: 'Parameters of the media type (charset=utf-8) are allowed.',
  } as const;
  return [
    {
      ...route,
      id: `ROUTE-${NAME[op.key]}-POST`,
      title: `POST ${op.route} answers 200 with a JSON object`,
      requirement: `POST ${op.route} with the request of ${op.clause} answers 200, Content-Type application/json, and a JSON object.`,
      exchanges: [X.post(op)],
      run: (ctx) => acrossExchanges(ctx, [X.post(op)], (id) => jsonAnswer(ctx, id)),
    },
    {
      ...route,
      id: `ROUTE-${NAME[op.key]}-REPLY`,
      title: `POST ${replyRoute(op)} answers 200 with a JSON object`,
      requirement: `The alternate route POST ${replyRoute(op)} answers 200, Content-Type application/json, and a JSON object.`,
      exchanges: [X.reply(op)],
      run: (ctx) => acrossExchanges(ctx, [X.reply(op)], (id) => jsonAnswer(ctx, id)),
    },
    {
      ...route,
      id: `ROUTE-${NAME[op.key]}-OPTIONS`,
      title: `OPTIONS ${op.route} answers 2xx`,
      requirement: `OPTIONS ${op.route} answers with a success status.`,
      interpretation: 'The spec lists the OPTIONS route but not what it returns (4.4): any 2xx passes; headers are advisory (OPTIONS-ALLOWS-POST).',
      exchanges: [X.options(op)],
      run: (ctx) => acrossExchanges(ctx, [X.options(op)], (id) => statusAndType(ctx, id, 'success')),
    },
  ];
}

const optionsIds = JSON_OPERATIONS.map(X.options);

export const ROUTE_CHECKS: readonly Check[] = [
  ...JSON_OPERATIONS.flatMap(jsonRouteChecks),
  {
    id: 'ROUTE-SOAP-POST',
    title: `POST ${impersonateLogout.route} answers 200 with a SOAP response`,
    area: 'Routes', operation: impersonateLogout.name, clause: impersonateLogout.clause, level: 'MUST',
    requirement: `POST ${impersonateLogout.route} with the request of 4.2 answers 200, Content-Type application/xml, and a well-formed XML Envelope whose Body holds UserDetailsResponse.`,
    interpretation: 'Namespaces and structure beyond locating the record are judged by the SOAP envelope checks. The media type is the spec\'s, kept although a stock WCF client (BasicHttpBinding) refuses a SOAP 1.1 answer labelled application/xml (fixtures/dotnet/golden/wcf.json).',
    exchanges: [X.soap],
    run: (ctx) => acrossExchanges(ctx, [X.soap], (id) => soapAnswer(ctx, id, impersonateLogout.responseElement)),
  },
  {
    id: 'OPTIONS-ALLOWS-POST',
    title: 'OPTIONS names POST among the allowed methods',
    area: 'Routes', operation: `${login.name}, ConfirmEmailRequest`, clause: '4.4', level: 'SHOULD',
    requirement: 'An OPTIONS answer names POST in Allow or Access-Control-Allow-Methods.',
    interpretation: 'Not stated by the spec (4.4 says what OPTIONS returns is not shown); CORS preflight and RFC 9110 Allow both make it useful.',
    exchanges: optionsIds,
    run: (ctx) => acrossExchanges(ctx, optionsIds, (id) => {
      const r = ctx.response(id);
      if (!r.ok) return { skip: r.reason };
      const h = r.value.headers;
      const named = [h.allow, h['access-control-allow-methods']].some((v) => v?.split(',').some((m) => m.trim().toUpperCase() === 'POST'));
      return named ? [] : [finding(id, 'neither Allow nor Access-Control-Allow-Methods names POST')];
    }),
  },
];

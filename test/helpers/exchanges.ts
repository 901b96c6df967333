// Hand-built exchanges for check tests: a conforming set, one per probe, made from the golden
// recordings in fixtures/golden/ (each probe's request as the harness sends it, so it classifies as
// the probe it is); one-line ways to break one of them; and the engine's judge run over them.
import { readFileSync } from 'node:fs';
import type { Check } from '../../lib/checks/check.js';
import { CATALOGUE } from '../../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES, SOAP11_ENVELOPE, SOAP12_ENVELOPE } from '../../lib/contract/namespaces.js';
import { impersonateLogout, JSON_OPERATIONS, login } from '../../lib/contract/operations.js';
import { exampleRecord } from '../../lib/contract/examples.js';
import { CALLBACK_NAME, PROBE, planProbes } from '../../lib/engine/probes.js';
import { Judge, resultOf, type CheckResult } from '../../lib/engine/run.js';
import { recordedResponse, type Exchange, type Origin, type RecordedResponse } from '../../lib/http/exchange.js';

function golden(name: string): { type: string; body: string } {
  const text = readFileSync(new URL(`../../fixtures/golden/${name}`, import.meta.url), 'utf8');
  const [head, ...rest] = text.split('\n\n');
  return { type: head!.replace('Content-Type: ', ''), body: rest.join('\n\n') };
}

const answer = (status: number, type: string | undefined, body: string, headers: Record<string, string> = {}): RecordedResponse =>
  recordedResponse(status, { ...(type ? { 'content-type': type } : {}), ...headers }, Buffer.from(body, 'utf8'));

const PROBES = new Map(planProbes({
  namespaces: DEFAULT_NAMESPACES, extraHeaders: {},
  values: Object.fromEntries(JSON_OPERATIONS.map((op) => [op.key, exampleRecord(op.request)])),
}).map((s) => [s.id, s]));

const exchange = (id: string, response: RecordedResponse): Exchange => {
  const spec = PROBES.get(id);
  if (!spec) throw new Error(`no probe ${id}`);
  return {
    id, title: spec.title, origin: spec.origin, response, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1,
    request: { method: spec.method, url: `http://target.test${spec.path}`, headers: spec.headers, ...(spec.body !== undefined ? { body: spec.body } : {}) },
  };
};

/** Generated requests (--generate): a few of each intent, with the request as the generator sends it. */
const generated = (id: string, intent: Origin['intent'], path: string, headers: Record<string, string>, body: string, response: RecordedResponse): Exchange => ({
  id, title: `generated ${intent} request`, origin: { source: 'generated', vouched: false, intent }, response, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1,
  request: { method: 'POST', url: `http://target.test${path}`, headers, body },
});
const JSON_REQUEST = { 'content-type': 'application/json' };
const SOAP_REQUEST = { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ImpersonateLogoutRequest' };
const serviceStackError = (errorCode: string) => JSON.stringify({ responseStatus: { errorCode, message: `${errorCode} (generated request)`, errors: [] } });
export const soapFault = (code: string) =>
  `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"><s:Body><s:Fault><faultcode>s:${code}</faultcode><faultstring>refused</faultstring></s:Fault></s:Body></s:Envelope>`;

/** Every probe, and a few generated requests, as a conforming target answers them. */
export function goodExchanges(): Map<string, Exchange> {
  const out = new Map<string, Exchange>();
  const put = (id: string, r: RecordedResponse) => out.set(id, exchange(id, r));
  const soap = golden('logout.soap.xml');
  for (const op of JSON_OPERATIONS) {
    const json = golden(`${op.key}.json`);
    const jsonp = golden(`${op.key}.jsonp`);
    for (const id of [PROBE.post(op), PROBE.reply(op), PROBE.jsonExtension(op), PROBE.formatJson(op)]) put(id, answer(200, json.type, json.body));
    put(PROBE.callback(op), answer(200, jsonp.type, `${CALLBACK_NAME}(${json.body})`));
    // Offered gzip, answered plain: a server may always answer in identity.
    put(PROBE.compressed(op), answer(200, json.type, json.body));
    put(PROBE.options(op), answer(200, undefined, '', { 'access-control-allow-methods': 'GET, POST, OPTIONS' }));
  }
  put(PROBE.acceptXml(login), answer(200, 'application/xml', golden('login.xml').body));
  put(PROBE.soapExtension(login), answer(200, soap.type, soap.body));
  put(PROBE.unsafeCallback(login), answer(200, golden('login.jsonp').type, `alert_document.domain___(${golden('login.json').body})`));
  put(PROBE.soap, answer(200, soap.type, soap.body));
  put(PROBE.compressed(impersonateLogout), answer(200, soap.type, soap.body));
  put(PROBE.soapFormatQuery, answer(200, soap.type, soap.body));
  const json = golden('login.json');
  const gen = (ex: Exchange) => out.set(ex.id, ex);
  gen(generated('gen.login.0', 'valid', '/supportstateuser', JSON_REQUEST, '{"userName":"O\'Brien"}', answer(200, json.type, json.body)));
  gen(generated('gen.login.1', 'invalid', '/supportstateuser', JSON_REQUEST, '{"userName"', answer(400, 'application/json; charset=utf-8', serviceStackError('SerializationException'))));
  // A valid request the target refuses (an unknown user, say): a client error, never the success contract's to judge.
  gen(generated('gen.confirm.0', 'valid', '/user/confirmemail', JSON_REQUEST, '{"verifyEmail":""}', answer(404, 'application/json', serviceStackError('NotFound'))));
  gen(generated('gen.logout.0', 'invalid', '/soap11', SOAP_REQUEST,
    `<e:Envelope xmlns:e="${SOAP12_ENVELOPE}"><e:Body><ImpersonateLogoutRequest xmlns="${DEFAULT_NAMESPACES.request}"/></e:Body></e:Envelope>`, answer(500, 'application/xml', soapFault('VersionMismatch'))));
  gen(generated('gen.logout.1', 'valid', '/soap11?format=soap11', SOAP_REQUEST,
    `<soap:Envelope xmlns:soap="${SOAP11_ENVELOPE}"><soap:Header/><soap:Body><ImpersonateLogoutRequest xmlns="${DEFAULT_NAMESPACES.request}"/></soap:Body></soap:Envelope>`, answer(200, soap.type, soap.body)));
  return out;
}

export interface Change {
  status?: number;
  headers?: Record<string, string | undefined>;
  /** New body text, or an edit of the old one (which must change it). */
  body?: string | ((old: string) => string);
  /** Replace the response with a transport failure. */
  error?: string;
}

/** A copy of `exchanges` with one exchange changed. */
export function changed(exchanges: Map<string, Exchange>, id: string, change: Change): Map<string, Exchange> {
  const out = new Map(exchanges);
  const ex = out.get(id);
  if (!ex?.response) throw new Error(`no exchange ${id}`);
  if (change.error) {
    const { response: _r, ...rest } = ex;
    out.set(id, { ...rest, error: { kind: 'reset', message: change.error } });
    return out;
  }
  const old = ex.response.body.toString('utf8');
  const body = typeof change.body === 'function' ? change.body(old) : change.body ?? old;
  if (typeof change.body === 'function' && body === old) throw new Error(`edit of ${id} changed nothing`);
  const headers = Object.fromEntries(Object.entries({ ...ex.response.headers, ...change.headers }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  out.set(id, { ...ex, response: recordedResponse(change.status ?? ex.response.status, headers, Buffer.from(body, 'utf8')) });
  return out;
}

/** The engine's judge over the given exchanges: every check's aggregated result, by id. */
export function judged(exchanges: Iterable<Exchange>, checks: readonly Check[] = CATALOGUE): Map<string, CheckResult> {
  const judge = new Judge(checks, { namespaces: DEFAULT_NAMESPACES });
  for (const ex of exchanges) judge.judge(ex);
  return new Map(judge.tallies.map((t) => [t.check.id, resultOf(t, 'probe')]));
}

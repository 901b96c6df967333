// Rules about a whole answer (status, media type, decodable body) that route and format checks
// share. A transport failure is a finding here: these checks own the exchanges they judge.
import { SOAP } from '../contract/namespaces.js';
import { JSON_MEDIA_TYPE, SOAP_RESPONSE_MEDIA_TYPE } from '../contract/operations.js';
import { fieldsOf } from '../http/exchange.js';
import { charsetOf, mediaType } from '../http/media-type.js';
import { finding, show, type Finding, type Look } from './check.js';
import type { ExchangeView } from './exchange-view.js';
import { provenRecord } from './fast-record.js';
import { faultcodeProblem, soapFaultCode } from './soap-fault.js';

/** Where a finding about the answer as a whole sits (every finding names where it sits). */
export const PATHS = { response: 'response', status: 'status', contentType: 'headers.content-type', body: 'body', callback: 'callback' } as const;

/** Statuses that say a route or method is not served, whoever sent the request. */
const NOT_SERVED = new Set([404, 405, 501]);

/**
 * Status `expected` (or any 2xx when 'success') and a media type among `types`. An exchange the
 * harness did not build (recorded or live traffic) may meet a legitimate client error: a 4xx other
 * than "not served" is not judged against the success contract. A generated request is judged here
 * only on a 2xx answer. Reads the answer's head alone (a check of side 'head' may use it).
 */
export function statusAndType(ex: ExchangeView, expected: number | 'success', types?: readonly string[]): Look {
  const r = ex.head();
  // A request generated to explore inputs is held to the success contract only when it succeeded:
  // no answer, an error status or a 5xx is the Robustness checks' to judge (robustness.ts).
  const exploring = ex.origin.intent !== undefined;
  if (!r.ok) return exploring ? { skip: `${r.reason} (a generated request: judged by the Robustness checks)` } : [finding(r.reason, { path: PATHS.response })];
  const { status, headers } = r.value;
  if (exploring && (status < 200 || status >= 300)) return { skip: `status ${status} to a generated request: judged by the Robustness checks, not against the success contract` };
  const success = expected === 'success' ? status >= 200 && status < 300 : status === expected;
  if (!success && !ex.origin.vouched && status >= 400 && status < 500 && !NOT_SERVED.has(status)) {
    return { skip: `status ${status}: a client error; the success contract does not apply to this request` };
  }
  const out: Finding[] = [];
  // A 429 or 503 the transport stopped retrying says so: the status alone would hide the retries.
  const got = ex.exchange.gaveUp ?? `status ${status}`;
  if (!success) out.push(finding(`${got}, expected ${expected === 'success' ? '2xx' : expected}`, { path: PATHS.status, actual: String(status) }));
  if (types) {
    const type = mediaType(headers['content-type']);
    if (!type || !types.includes(type)) {
      // Fields received apart are quoted apart: their joined value is no field anyone sent.
      const fields = r.value.rawHeaders ? fieldsOf(r.value.rawHeaders).filter(([name]) => name.toLowerCase() === 'content-type').map(([, v]) => v) : [];
      const got = fields.length > 1 ? `${fields.length} Content-Type fields (${fields.map(show).join(', ')}); one is allowed (RFC 9110 8.3)`
        : `Content-Type ${headers['content-type'] === undefined ? 'missing' : show(headers['content-type'])}`;
      out.push(finding(`${got}, expected ${types.join(' or ')}`, { path: PATHS.contentType, actual: headers['content-type'] ?? '' }));
    }
  }
  return out;
}

/** statusAndType of a check that reads the body too: an answer whose head alone came (its body past
 *  the cap or not whole, Exchange.answerHead) is judged as no answer is, its head's findings beside. */
export function statusTypeAndBody(ex: ExchangeView, expected: number | 'success', types?: readonly string[]): Look {
  const out = statusAndType(ex, expected, types);
  const r = ex.response();
  // No head either: statusAndType said so already.
  if (!Array.isArray(out) || r.ok || !ex.exchange.answerHead) return out;
  return ex.origin.intent !== undefined ? { skip: `${r.reason} (a generated request: judged by the Robustness checks)` } : [...out, finding(r.reason, { path: PATHS.response })];
}

const isOk = (ex: ExchangeView): boolean => {
  const r = ex.response();
  return r.ok && r.value.status === 200;
};

/** A finding when a 200 answer's Content-Type labels its JSON (or the script around it) with a charset
 *  other than UTF-8. Interpretation: RFC 8259 8.1 requires UTF-8 and defines no charset (11), yet
 *  clients that honour the label (.NET's ReadAsStringAsync, Python's requests, a browser reading a
 *  JSONP script) decode the record's every non-ASCII character wrongly; a charset, when sent, is UTF-8. */
export function charsetNotUtf8(ex: ExchangeView): Finding[] {
  const r = ex.response();
  if (!r.ok || r.value.status !== 200) return [];
  const header = r.value.headers['content-type'];
  const charset = charsetOf(header);
  return charset === undefined || charset === 'utf-8' || charset === 'utf8'
    ? [] : [finding(`Content-Type ${show(header)} labels the body ${show(charset)}; JSON is UTF-8 (RFC 8259 8.1)`, { path: PATHS.contentType, actual: header ?? '' })];
}

/** 200, application/json (any parameters but a charset other than UTF-8), and a body that is a JSON
 *  object (what the record checks read). */
export function jsonAnswer(ex: ExchangeView): Look {
  const out = statusTypeAndBody(ex, 200, [JSON_MEDIA_TYPE]);
  if (!Array.isArray(out) || !isOk(ex)) return out; // the body of a non-200 answer is not the record
  const labelled = [...out, ...charsetNotUtf8(ex)];
  // A proven record is a JSON object (fast-record.ts): not parsed only to say so.
  if (provenRecord(ex) !== undefined) return labelled;
  const record = ex.jsonRecord();
  return record.ok ? labelled : [...labelled, finding(record.reason, { path: PATHS.body })];
}

/** 200, application/xml, and a well-formed XML body holding Envelope > Body > `record` (by local name). */
export function soapAnswer(ex: ExchangeView, record: string): Look {
  // SOAP 1.1 refuses a request with a 500 Fault whose faultcode blames it (Client, VersionMismatch,
  // MustUnderstand: sections 4.4.1, 6.2), as HTTP does with a 4xx: to a request the harness did not
  // build (recorded, proxied, replayed to a candidate) the success contract does not apply, as it
  // does not after a 4xx (statusAndType). A client's bad request had failed the server's route check.
  if (!ex.origin.vouched && ex.origin.intent === undefined) {
    const r = ex.response();
    const fault = r.ok && r.value.status === 500 ? soapFaultCode(ex) : undefined;
    if (fault && !faultcodeProblem(fault)) return { skip: `status 500 with a SOAP Fault whose faultcode ${show(fault.text)} blames the request: a client error; the success contract does not apply to this request` };
  }
  const out = statusTypeAndBody(ex, 200, [SOAP_RESPONSE_MEDIA_TYPE]);
  if (!Array.isArray(out) || !isOk(ex)) return out;
  const soap = ex.soap(record);
  if (!soap.ok) return [...out, finding(soap.reason, { path: PATHS.body })];
  if (!soap.value.record) return [...out, finding(`the body holds no ${SOAP.envelope}/${SOAP.body}/${record} (root element: ${show(soap.value.envelope.name)})`, { path: `/${SOAP.envelope}/${SOAP.body}` })];
  return out;
}

// Robustness: how a deployment answers requests generated from the request records of 2.2 (valid
// ones, with every kind of value a field of its type may hold, and deliberately invalid ones). The
// spec gives only the 200 answer of each operation and shows no error (section 7), so every check
// here is SHOULD: a convention of HTTP and of the platform, reported, never part of the verdict. What
// a 200 answer carries is not judged here: it is a record, and every route, format and record check
// judges it as it judges any other (a record is a record, MUST). Each check judges only exchanges
// whose origin carries an intent (the generated ones); probes, accounts and traffic are untouched.
import { isJsonOperation } from '../contract/classify.js';
import { impersonateLogout, JAVASCRIPT_MEDIA_TYPES, JSON_MEDIA_TYPE, OPERATIONS } from '../contract/operations.js';
import { mediaType } from '../http/media-type.js';
import { member, ROOT } from '../json/path.js';
import type { ParsedJson } from '../json/parse.js';
import { isJsonObject, type JsonValue } from '../json/value.js';
import { finding, show, type Check, type Finding, type Look } from './check.js';
import type { Decoded, ExchangeView } from './exchange-view.js';
import type { KindRule } from './kinds.js';
import { faultcodeProblem, soapFaultCode } from './soap-fault.js';
import { PATHS } from './whole-answer.js';

/** What generated requests are, in the catalogue's words ("needs"). */
export const GENERATED_EVIDENCE = 'generated requests (--generate N)';

/** Every request generated to explore inputs, valid or invalid. */
const generated: KindRule = {
  applies: (ex) => ex.origin.intent !== undefined,
  judges: 'every generated request, valid or invalid, to any route of the interface',
};

/** Generated requests to a JSON operation whose answer must be JSON (any route, any JSON selector). */
const generatedJson: KindRule = {
  applies: (ex) => ex.origin.intent !== undefined && isJsonOperation(ex.kind.operation) && ex.kind.format === 'json',
  judges: 'every generated request to a JSON route (4.1, 4.3) answered with an error status',
};

const invalid: KindRule = {
  applies: (ex) => ex.origin.intent === 'invalid',
  judges: 'every generated request built invalid: malformed JSON or XML, a member of the wrong type, SOAP 1.2, a wrong namespace or SOAPAction, a wrong media type, an oversized body',
};

/** The answer's JSON (JSONP unwrapped when the request asked for a callback), whatever its status. */
const answerJson = (ex: ExchangeView): Decoded<ParsedJson> => {
  if (ex.kind.jsonp) {
    const wrapped = ex.jsonp();
    if (wrapped.ok) return { ok: true, value: wrapped.value.json };
  }
  return ex.json();
};

/** The ServiceStack errorCode of a JSON error body, to name a 5xx in one word. */
const errorCodeOf = (ex: ExchangeView): string | undefined => {
  const type = mediaType(ex.exchange.response?.headers['content-type']);
  if (type !== JSON_MEDIA_TYPE) return undefined;
  const json = ex.json();
  const status = json.ok && isJsonObject(json.value.value) ? json.value.value.responseStatus : undefined;
  const code = isJsonObject(status ?? null) ? (status as Record<string, JsonValue>).errorCode : undefined;
  return typeof code === 'string' ? code : undefined;
};

/** An error answer (4xx or 5xx), or why this exchange is not one. */
function errorAnswer(ex: ExchangeView): { status: number; type?: string } | { skip: string } {
  const r = ex.response();
  if (!r.ok) return { skip: 'no answer (ROBUST-ANSWERED judges it)' };
  if (r.value.status < 400) return { skip: 'not an error answer' };
  const type = mediaType(r.value.headers['content-type']);
  return { status: r.value.status, ...(type ? { type } : {}) };
}

/** Whether a 2xx answer holds the operation's record (JSON or JSONP object with a member of the
 *  record, an XML or SOAP answer holding the record's element). */
function carriesRecord(ex: ExchangeView): boolean {
  const op = ex.kind.operation;
  if (!op) return false;
  if (ex.kind.format === 'json') {
    const json = answerJson(ex);
    if (!json.ok || !isJsonObject(json.value.value)) return false;
    const names = new Set(op.response.fields.map((f) => f.json.toLowerCase()));
    return Object.keys(json.value.value).some((k) => names.has(k.toLowerCase()));
  }
  if (ex.kind.format === 'soap11') {
    const soap = ex.soap(impersonateLogout.responseElement);
    return soap.ok && soap.value.record !== undefined;
  }
  const doc = ex.xml();
  return doc.ok && doc.value.name === op.response.name;
}

const robust = {
  area: 'Robustness', operation: OPERATIONS.map((op) => op.name).join(', '), clause: '2.2', level: 'SHOULD', probe: GENERATED_EVIDENCE, sources: ['generated'],
} as const;

export const ROBUSTNESS_CHECKS: readonly Check[] = [
  {
    ...robust,
    id: 'ROBUST-ANSWERED',
    title: 'Every generated request is answered within the time limit',
    requirement: 'Every generated request, valid or invalid, gets a complete answer: the connection is not dropped, and headers and body each arrive within the time limit.',
    interpretation: 'The spec states no time limit (8 Limits): the limit is the harness\'s --timeout per phase. A connection closed before a complete answer (a crash) fails too. An answer cut at --max-body-mib is the harness\'s cap, not judged here.',
    judges: generated.judges,
    appliesTo: generated.applies,
    judge: (ex): Look => {
      const r = ex.response();
      if (r.ok) return [];
      if (ex.exchange.error?.kind === 'too-large') return { skip: 'the answer exceeded the body cap (--max-body-mib)' };
      return [finding(r.reason, { path: PATHS.response })];
    },
  },
  {
    ...robust,
    id: 'ROBUST-NO-5XX',
    title: 'No generated request is answered with a server error',
    requirement: 'No generated request, valid or invalid, is answered with a 5xx status: a value the record\'s type allows, or a request the service cannot use, is answered with success or a client error.',
    interpretation: 'The spec shows no errors (7), so this is advisory. On /soap11 a 500 carrying a SOAP 1.1 Fault whose faultcode blames the request (Client, VersionMismatch, MustUnderstand) is how SOAP 1.1 refuses a request (SOAP 1.1 section 6.2) and passes; a Server fault or any other 5xx fails. '
      + 'Interpretation: the faultcode is a QName (SOAP 1.1 4.4), read through the namespace declarations in scope where it is written (Namespaces in XML 1.0, 6): SOAP\'s Client under any prefix bound to the envelope namespace passes; "x:Client" with x bound elsewhere, or undeclared, is no SOAP fault code and fails. '
      + 'The faultcode element is unqualified, as SOAP 1.1\'s schema declares it (WS-I Basic Profile 1.1 R1001).',
    judges: generated.judges,
    appliesTo: generated.applies,
    judge: (ex): Look => {
      const r = ex.response();
      if (!r.ok) return { skip: 'no answer (ROBUST-ANSWERED judges it)' };
      const { status } = r.value;
      if (status < 500) return [];
      if (ex.kind.route === 'soap11' && status === 500) {
        const fault = soapFaultCode(ex);
        const problem = fault && faultcodeProblem(fault);
        if (fault && !problem) return [];
        if (problem) return [finding(`status 500 with a SOAP Fault whose ${problem}`, { path: PATHS.status, actual: String(status) })];
      }
      const code = errorCodeOf(ex);
      return [finding(`status ${status}${code ? ` (${code})` : ''}: a server error`, { path: PATHS.status, actual: String(status) })];
    },
  },
  {
    ...robust,
    id: 'ROBUST-ERROR-JSON',
    title: 'An error answer on a JSON route is JSON',
    requirement: 'A 4xx or 5xx answer to a generated request on a JSON route is application/json with a body that parses as JSON.',
    interpretation: 'The spec shows no error body (7); a client of a JSON route reads JSON, and ServiceStack answers errors in the request\'s format. A request with ?callback= may have its error wrapped as JSONP too (a JavaScript media type).',
    judges: generatedJson.judges,
    appliesTo: generatedJson.applies,
    judge: (ex): Look => {
      const err = errorAnswer(ex);
      if ('skip' in err) return err;
      const allowed: readonly string[] = ex.kind.jsonp ? [JSON_MEDIA_TYPE, ...JAVASCRIPT_MEDIA_TYPES] : [JSON_MEDIA_TYPE];
      const out: Finding[] = [];
      if (!err.type || !allowed.includes(err.type)) {
        out.push(finding(`status ${err.status} answered as ${err.type === undefined ? 'no media type' : show(err.type)}, expected ${JSON_MEDIA_TYPE}`, { path: PATHS.contentType, actual: err.type ?? '' }));
      }
      const json = answerJson(ex);
      if (!json.ok) out.push(finding(`status ${err.status}: ${json.reason}`, { path: PATHS.body }));
      return out;
    },
  },
  {
    ...robust,
    id: 'ROBUST-ERROR-SHAPE',
    title: 'A JSON error answer carries ServiceStack\'s responseStatus',
    requirement: 'A JSON error answer to a generated request is an object whose responseStatus holds an errorCode and a message, both strings.',
    interpretation: 'The platform\'s error shape (servicestack-notes.md, Errors), which ServiceStack\'s own clients read; the spec shows no error body (7), so this is advisory. Error answers that are not JSON at all are ROBUST-ERROR-JSON\'s.',
    judges: generatedJson.judges,
    appliesTo: generatedJson.applies,
    judge: (ex): Look => {
      const err = errorAnswer(ex);
      if ('skip' in err) return err;
      const json = answerJson(ex);
      if (!json.ok) return { skip: 'the error answer is not JSON (ROBUST-ERROR-JSON judges it)' };
      const root = json.value.value;
      const at = member(ROOT, 'responseStatus');
      if (!isJsonObject(root)) return [finding('the error body is not a JSON object', { path: ROOT })];
      const status = root.responseStatus;
      if (!isJsonObject(status ?? null)) return [finding(`responseStatus is ${status === undefined ? 'missing' : show(status)}, expected an object`, { path: at })];
      const s = status as Record<string, JsonValue>;
      return (['errorCode', 'message'] as const).filter((k) => typeof s[k] !== 'string')
        .map((k) => finding(`${k} is ${s[k] === undefined ? 'missing' : show(s[k])}, expected a string`, { path: member(at, k) }));
    },
  },
  {
    ...robust,
    id: 'ROBUST-INVALID-REFUSED',
    title: 'An invalid request is not answered with the record',
    requirement: 'A generated request that is not a valid request of 2.2 and 4 (malformed, mistyped, SOAP 1.2, wrong namespace, SOAPAction or media type, oversized) is not answered 2xx with the operation\'s record.',
    interpretation: 'Invalid as the spec describes requests: a JSON object of 2.2\'s types as application/json (4.1, 4.3); a SOAP 1.1 envelope as text/xml with SOAPAction ImpersonateLogoutRequest and the request element in the request namespace (4.2). Oversized means over 1 MiB, a thousand times a real request: the spec states no limit (8), so that one is the harness\'s choice. A 2xx that carries no record (an error reported in the body) is not this check\'s concern.',
    judges: invalid.judges,
    appliesTo: invalid.applies,
    judge: (ex): Look => {
      const r = ex.response();
      if (!r.ok) return { skip: 'no answer (ROBUST-ANSWERED judges it)' };
      const { status } = r.value;
      if (status < 200 || status >= 300 || !carriesRecord(ex)) return [];
      return [finding(`status ${status} with the ${ex.kind.operation!.response.name} record, to a request built invalid`, { path: PATHS.status, actual: String(status) })];
    },
  },
];

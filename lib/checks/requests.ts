// Requests: what a client sends, judged against 2.2 and 4 (the request records and how each
// operation is called). These judge only requests a client sent (a recording, the proxy, a client
// talking to the judging reference): the harness's own requests are built from the same contract.
// A request the service would refuse is the client's fault, whatever the service answered.
import { isJsonOperation } from '../contract/classify.js';
import { SOAP, SOAP11_ENVELOPE, SOAP12_ENVELOPE } from '../contract/namespaces.js';
import { impersonateLogout, JSON_MEDIA_TYPE, type JsonOperation } from '../contract/operations.js';
import { jsonValueProblem } from '../contract/values.js';
import { mediaType } from '../http/media-type.js';
import { member, ROOT } from '../json/path.js';
import { isJsonObject } from '../json/value.js';
import { declaredEncoding, encodingName } from '../xml/decode.js';
import { elementChildren, textContent, type XmlElement } from '../xml/model.js';
import { finding, show, type Check, type Finding, type Look } from './check.js';
import type { ExchangeView } from './exchange-view.js';
import type { KindRule } from './kinds.js';
import { ENUM_CASE_SOURCE, enumCaseProblem } from './json-types.js';
import { misshapenEnvelope, qname } from './soap-envelope.js';

const CLIENT_SOURCES = ['har', 'proxy', 'client'] as const;
/** A request a client sent (the harness's own are built from the contract: nothing to judge there). */
const fromClient = (ex: ExchangeView) => (CLIENT_SOURCES as readonly string[]).includes(ex.origin.source);
const PATHS = { contentType: 'request.headers.content-type', soapAction: 'request.headers.soapaction', body: 'request.body' } as const;

/** A POST of a JSON operation carrying a body, by either route and any selector (a body left out
 *  past the cap was carried all the same). */
const jsonRequest: KindRule = {
  applies: (ex) => fromClient(ex) && ex.kind.method === 'POST' && isJsonOperation(ex.kind.operation) && ((ex.exchange.request.body ?? '') !== '' || ex.exchange.request.bodyLeftOut === true || ex.exchange.request.bodyNotRecorded === true || ex.exchange.request.bodyUnfinished === true),
  judges: 'every POST with a body to a route of SupportStateUserLoginRequest or ConfirmEmailRequest a client sent',
};
const soapRequest: KindRule = {
  applies: (ex) => fromClient(ex) && ex.kind.method === 'POST' && ex.kind.operation?.wire === 'soap' && ex.kind.route === 'soap11',
  judges: 'every POST to /soap11 a client sent',
};

/** A check that reads the request's body: on a body left out past the cap, or not recorded (or not whole, or not as sent), it skips,
 *  saying so (the body was sent; judging the request as one without a body would be a finding about nothing). */
const readsBody = (judge: (ex: ExchangeView) => Look) => (ex: ExchangeView): Look =>
  (ex.exchange.request.bodyLeftOut ? { skip: 'the request body went past the body cap and was left out' }
    : ex.exchange.request.bodyNotRecorded ? { skip: 'the request body was not recorded' }
    : ex.exchange.request.bodyUnfinished ? { skip: 'the request body was still coming when its answer was whole: not recorded' }
    : ex.exchange.request.loneSurrogateAt !== undefined ? { skip: `the request body recorded holds a lone surrogate at character ${ex.exchange.request.loneSurrogateAt}, which names no bytes: what was sent is not known` } : judge(ex));

const base = { area: 'Requests', clause: '2.2', level: 'MUST', sources: CLIENT_SOURCES, side: 'request' } as const;
const charsetProblem = (header: string): string | undefined => {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(header)?.[1];
  return charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8' ? `charset ${show(charset)}, expected utf-8` : undefined;
};

interface RequestRecord {
  readonly op: JsonOperation;
  readonly object: Record<string, unknown>;
  /** Numbers not written as plain integer literals, as written, by path. */
  readonly numbers: ReadonlyMap<string, string>;
  readonly duplicateKeys: readonly string[];
}

/** The request record's members as the client wrote them: by exact name, and by name in any case. */
function members(ex: ExchangeView): RequestRecord | Look {
  const j = ex.requestJson();
  if (!j.ok) return { skip: j.reason };
  if (!isJsonObject(j.value.value)) return { skip: 'the request body is not a JSON object (REQ-JSON-BODY judges it)' };
  return { op: ex.kind.operation as JsonOperation, object: j.value.value, numbers: j.value.numbers, duplicateKeys: j.value.duplicateKeys };
}

/** The SOAP request's Body children, or why there are none to look at. */
function soapBody(ex: ExchangeView): readonly ReturnType<typeof elementChildren>[number][] | Look {
  const doc = ex.requestXml();
  if (!doc.ok) return { skip: doc.reason };
  if (doc.value.name !== SOAP.envelope || doc.value.ns !== SOAP11_ENVELOPE) return { skip: 'not a SOAP 1.1 envelope (REQ-SOAP-ENVELOPE judges it)' };
  const body = elementChildren(doc.value).find((e) => e.name === SOAP.body && e.ns === SOAP11_ENVELOPE);
  return body ? elementChildren(body) : { skip: 'the envelope has no Body (REQ-SOAP-ENVELOPE judges it)' };
}

/** Any request a client sent to a route of the interface, whatever its method. */
const anyRequest: KindRule = {
  applies: (ex) => fromClient(ex) && ex.kind.operation !== undefined,
  judges: 'every request a client sent to a route of the interface, whatever its method',
};
/** The methods a client may use on a route: POST calls the operation; OPTIONS is a browser's CORS
 *  preflight on any route (not the client's choice); GET /soap11 fetches the platform's WSDL. */
const allowedMethods = (ex: ExchangeView): readonly string[] => (ex.kind.route === 'soap11' ? ['POST', 'OPTIONS', 'GET'] : ['POST', 'OPTIONS']);

export const REQUEST_CHECKS: readonly Check[] = [
  {
    ...base, id: 'REQ-METHOD', clause: '4.1, 4.2, 4.3', operation: 'SupportStateUserLoginRequest, ImpersonateLogoutRequest, ConfirmEmailRequest',
    title: 'A client calls an operation with POST',
    requirement: 'A client calls every operation with POST (4.1, 4.2, 4.3 give no other method; OPTIONS is answered on the JSON routes).',
    interpretation: 'OPTIONS is accepted on any route: a browser sends it as a CORS preflight, which is not the client\'s choice. GET /soap11 fetches the platform\'s service description (WSDL) and calls nothing, so it is accepted too. The method is compared as sent: a method token is case-sensitive (RFC 9110 9.1), so `post` is not POST, whatever a server that ignores case answers.',
    judges: anyRequest.judges, appliesTo: anyRequest.applies,
    judge: (ex): Look => {
      const allowed = allowedMethods(ex);
      const sent = ex.kind.methodAsSent;
      return allowed.includes(sent) ? [] : [finding(`${show(sent)} on a route of ${ex.kind.operation!.name}, expected ${allowed.join(' or ')}`, { path: 'request.method', actual: sent })];
    },
  },
  {
    ...base, id: 'REQ-JSON-CONTENT-TYPE', clause: '4.1, 4.3', operation: 'SupportStateUserLoginRequest, ConfirmEmailRequest',
    title: 'A JSON request says it is JSON',
    requirement: 'A client POSTing a request record to a JSON route sends Content-Type application/json.',
    interpretation: 'Parameters are allowed; a charset, when given, must be UTF-8 (RFC 8259 8.1).',
    judges: jsonRequest.judges, appliesTo: jsonRequest.applies,
    judge: (ex): Look => {
      const header = ex.exchange.request.headers['content-type'];
      const type = mediaType(header);
      if (type !== JSON_MEDIA_TYPE) return [finding(`Content-Type ${header === undefined ? 'missing' : show(header)}, expected ${JSON_MEDIA_TYPE}`, { path: PATHS.contentType, actual: header ?? '' })];
      const charset = charsetProblem(header!);
      return charset ? [finding(charset, { path: PATHS.contentType, actual: header! })] : [];
    },
  },
  {
    ...base, id: 'REQ-JSON-BODY', clause: '4.1, 4.3', operation: 'SupportStateUserLoginRequest, ConfirmEmailRequest',
    title: 'A JSON request body is one JSON object',
    requirement: 'The body of a JSON request is a JSON object in UTF-8 (RFC 8259 8.1): the request record of 2.2.',
    judges: jsonRequest.judges, appliesTo: jsonRequest.applies,
    judge: readsBody((ex): Look => {
      const j = ex.requestJson();
      if (!j.ok) return [finding(j.reason, { path: PATHS.body })];
      return isJsonObject(j.value.value) ? [] : [finding(`the body is ${Array.isArray(j.value.value) ? 'an array' : show(j.value.value)}, expected an object`, { path: ROOT })];
    }),
  },
  {
    ...base, id: 'REQ-JSON-MEMBER-NAMES', operation: 'SupportStateUserLoginRequest, ConfirmEmailRequest',
    title: 'A JSON request names its members as 2.2 does',
    requirement: 'Members of a JSON request record are named exactly as 2.2 names them (camelCase).',
    interpretation: 'ServiceStack binds names in any letter case, so a deployment may accept them; the interface names one spelling, and a client that relies on the platform\'s leniency breaks on another implementation.',
    judges: jsonRequest.judges, appliesTo: jsonRequest.applies,
    judge: readsBody((ex): Look => {
      const m = members(ex);
      if (!('op' in m)) return m;
      const byLower = new Map(m.op.request.fields.map((f) => [f.json.toLowerCase(), f.json]));
      return Object.keys(m.object).filter((k) => byLower.has(k.toLowerCase()) && byLower.get(k.toLowerCase()) !== k)
        .map((k) => finding(`${show(k)} should be ${byLower.get(k.toLowerCase())}`, { path: member(ROOT, k), actual: k }));
    }),
  },
  {
    ...base, id: 'REQ-JSON-TYPES', operation: 'SupportStateUserLoginRequest, ConfirmEmailRequest',
    title: 'A JSON request\'s members hold values of their types',
    requirement: 'Each member of a JSON request record holds a value of its type in 2.2 (an integer within .NET\'s 32 bits written as an integer, a boolean, a string, an enum name spelled as 2.2 shows it), or null.',
    interpretation: 'No member is assumed required (2.4 shows none), and null is "no value" for any member. A member written in another letter case is judged as the member it names. '
      + `An enum name the spec shows, in another letter case (systemCode "unspecified"), fails as it does in an answer (JSON-ENUM-CASE). ${ENUM_CASE_SOURCE}`,
    judges: jsonRequest.judges, appliesTo: jsonRequest.applies,
    judge: readsBody((ex): Look => {
      const m = members(ex);
      if (!('op' in m)) return m;
      const out: Finding[] = [];
      for (const [k, v] of Object.entries(m.object)) {
        const f = m.op.request.fields.find((x) => x.json.toLowerCase() === k.toLowerCase());
        if (!f || v === null) continue;
        // A number as the client wrote it (1.0, 4.2e1, 1E400): judged, and quoted, as written.
        const lexeme = m.numbers.get(member(ROOT, k));
        const problem = jsonValueProblem(f.type, v as never, { int32: true, ...(lexeme !== undefined ? { lexeme } : {}) })
          // The platform reads it ignoring case; the spec spells it one way (the interpretation above).
          ?? enumCaseProblem(f.type, v as never);
        if (problem) out.push(finding(`${lexeme ?? show(v)}: ${problem}`, { path: member(ROOT, k), actual: lexeme ?? (typeof v === 'string' ? v : JSON.stringify(v)), ...(f.sensitivity ? { sensitivity: f.sensitivity } : {}) }));
      }
      return out;
    }),
  },
  {
    ...base, id: 'REQ-JSON-UNKNOWN-MEMBERS', level: 'SHOULD', operation: 'SupportStateUserLoginRequest, ConfirmEmailRequest',
    title: 'A JSON request holds no member 2.2 does not name',
    requirement: 'A JSON request record holds only the members 2.2 names for it.',
    interpretation: 'ServiceStack ignores members it does not know, so this is advisory: such a member is a client\'s mistake that the service does not see.',
    judges: jsonRequest.judges, appliesTo: jsonRequest.applies,
    judge: readsBody((ex): Look => {
      const m = members(ex);
      if (!('op' in m)) return m;
      const known = new Set(m.op.request.fields.map((f) => f.json.toLowerCase()));
      return Object.keys(m.object).filter((k) => !known.has(k.toLowerCase()))
        .map((k) => finding(`${show(k)} is not a member of ${m.op.request.name}`, { path: member(ROOT, k), actual: k }));
    }),
  },
  {
    ...base, id: 'REQ-JSON-DUPLICATE-KEYS', level: 'SHOULD', operation: 'SupportStateUserLoginRequest, ConfirmEmailRequest',
    title: 'A JSON request names no member twice',
    requirement: 'No object of a JSON request record repeats a member name.',
    interpretation: 'RFC 8259 4: names SHOULD be unique, and readers disagree on which duplicate wins (this one, as JSON.parse and ServiceStack, keeps the last: the other checks judge that one).',
    judges: jsonRequest.judges, appliesTo: jsonRequest.applies,
    judge: readsBody((ex): Look => {
      const m = members(ex);
      if (!('op' in m)) return m;
      return m.duplicateKeys.map((p) => finding('this member appears more than once', { path: p }));
    }),
  },
  {
    ...base, id: 'REQ-SOAP-CONTENT-TYPE', clause: '4.2', operation: impersonateLogout.name,
    title: 'A SOAP request is SOAP 1.1: text/xml',
    requirement: 'A client POSTing to /soap11 sends Content-Type text/xml, SOAP 1.1\'s media type.',
    interpretation: 'A charset is not required (RFC 7303: UTF-8 by default); one that is given must be UTF-8. application/soap+xml is SOAP 1.2\'s.',
    judges: soapRequest.judges, appliesTo: soapRequest.applies,
    judge: (ex): Look => {
      const header = ex.exchange.request.headers['content-type'];
      const type = mediaType(header);
      if (type === 'application/soap+xml') return [finding(`Content-Type ${show(header)} is SOAP 1.2's; /soap11 speaks SOAP 1.1 (text/xml)`, { path: PATHS.contentType, actual: header! })];
      if (type !== 'text/xml') return [finding(`Content-Type ${header === undefined ? 'missing' : show(header)}, expected text/xml`, { path: PATHS.contentType, actual: header ?? '' })];
      const charset = charsetProblem(header!);
      return charset ? [finding(charset, { path: PATHS.contentType, actual: header! })] : [];
    },
  },
  {
    ...base, id: 'REQ-SOAP-ACTION', clause: '4.2', operation: impersonateLogout.name,
    title: 'A SOAP request names its action',
    requirement: `A SOAP request carries the SOAPAction header ${impersonateLogout.soapAction}.`,
    interpretation: `Quoted or not (SOAP 1.1 section 6.1.1 quotes it), and an absolute URI ending in /${impersonateLogout.soapAction} names the same action; missing or empty fails.`,
    judges: soapRequest.judges, appliesTo: soapRequest.applies,
    judge: (ex): Look => {
      const header = ex.exchange.request.headers.soapaction;
      const action = header?.trim().replace(/^"(.*)"$/, '$1');
      const ok = action === impersonateLogout.soapAction || (action !== undefined && /^[a-z][a-z0-9+.-]*:/i.test(action) && action.endsWith(`/${impersonateLogout.soapAction}`));
      return ok ? [] : [finding(`SOAPAction ${header === undefined ? 'missing' : show(header)}, expected ${impersonateLogout.soapAction}`, { path: PATHS.soapAction, actual: header ?? '' })];
    },
  },
  {
    ...base, id: 'REQ-SOAP-ENVELOPE', clause: '4.2', operation: impersonateLogout.name,
    title: 'A SOAP request is a SOAP 1.1 envelope',
    requirement: 'The body of a SOAP request is well-formed XML in UTF-8 (the charset 4.2 gives), and an XML declaration, where present, names UTF-8: a SOAP 1.1 Envelope holding [Header,] Body.',
    interpretation: 'Interpretation: 4.2 gives the request\'s charset as utf-8, so its bytes are UTF-8 and every label of them names UTF-8 (the Content-Type charset is REQ-SOAP-CONTENT-TYPE\'s). '
      + 'A declaration naming another encoding (encoding="ISO-8859-1" over UTF-8 bytes) fails, as SOAP-ENCODING fails it in an answer: a reader without the header goes by the declaration (RFC 7303 3.2, XML 1.0 appendix F) and misreads every non-ASCII character, and XML 1.0 4.3.3 makes a declaration that misnames the encoding a fatal error. '
      + 'Labels are compared by their WHATWG encoding ("utf8" is UTF-8).',
    judges: soapRequest.judges, appliesTo: soapRequest.applies,
    judge: readsBody((ex): Look => {
      const doc = ex.requestXml();
      if (!doc.ok) return [finding(doc.reason, { path: PATHS.body })];
      const declared = declaredEncoding(ex.exchange.request.body!);
      const out: Finding[] = declared !== undefined && encodingName(declared) !== 'utf-8'
        ? [finding(`the XML declaration names ${show(declared)}; a SOAP request is UTF-8 (4.2: charset=utf-8)`, { path: PATHS.body, actual: declared })] : [];
      const env = doc.value;
      if (env.name !== SOAP.envelope || env.ns !== SOAP11_ENVELOPE) {
        const why = env.ns === SOAP12_ENVELOPE ? 'a SOAP 1.2 envelope' : qname(env);
        return [...out, finding(`the root element is ${why}, expected {${SOAP11_ENVELOPE}}Envelope`, { path: `/${env.name}`, actual: env.ns ?? '' })];
      }
      // Header and Body are SOAP's own elements: in the envelope namespace, not merely so named.
      const held = misshapenEnvelope(env, SOAP11_ENVELOPE);
      if (held !== undefined) return [...out, finding(`the Envelope holds ${held}, expected [Header,] Body in ${SOAP11_ENVELOPE}`, { path: `/${SOAP.envelope}` })];
      const kids = elementChildren(env);
      // SOAP 1.1's schema gives Envelope and Body element content only: text between their elements is no envelope.
      const places: [XmlElement, string][] = [[env, `/${SOAP.envelope}`], [kids.at(-1)!, `/${SOAP.envelope}/${SOAP.body}`]];
      return [...out, ...places.filter(([e]) => textContent(e).trim() !== '')
        .map(([e, path]) => finding(`${e.name} holds text beside its elements; SOAP 1.1 allows elements only there`, { path }))];
    }),
  },
  {
    ...base, id: 'REQ-SOAP-BODY', clause: '4.2, 2.2', operation: impersonateLogout.name,
    title: 'A SOAP request\'s Body holds one ImpersonateLogoutRequest',
    requirement: 'The Body of a SOAP request holds exactly one ImpersonateLogoutRequest element in {service_request_namespace}.',
    judges: soapRequest.judges, appliesTo: soapRequest.applies,
    judge: readsBody((ex): Look => {
      const kids = soapBody(ex);
      if (!Array.isArray(kids)) return kids as Look;
      const want = ex.settings.namespaces.request;
      const path = `/${SOAP.envelope}/${SOAP.body}`;
      if (kids.length !== 1) return [finding(`the Body holds ${kids.length} elements, expected one ${impersonateLogout.name}`, { path })];
      const [only] = kids;
      return only!.name === impersonateLogout.name && only!.ns === want ? []
        : [finding(`the Body holds ${qname(only!)}, expected {${want}}${impersonateLogout.name}`, { path: `${path}/${only!.name}`, actual: only!.ns ?? '' })];
    }),
  },
  {
    ...base, id: 'REQ-SOAP-EMPTY', clause: '2.2, 4.2', level: 'SHOULD', operation: impersonateLogout.name,
    title: 'ImpersonateLogoutRequest is sent empty',
    requirement: 'ImpersonateLogoutRequest has no members (2.2): the element is sent empty.',
    interpretation: 'DataContractSerializer ignores elements it does not know, so content is advisory, as unknown JSON members are.',
    judges: soapRequest.judges, appliesTo: soapRequest.applies,
    judge: readsBody((ex): Look => {
      const kids = soapBody(ex);
      if (!Array.isArray(kids)) return kids as Look;
      const req = kids.find((k) => k.name === impersonateLogout.name);
      if (!req) return { skip: `no ${impersonateLogout.name} (REQ-SOAP-BODY judges it)` };
      const inside = elementChildren(req).map((e) => show(e.name));
      return inside.length || textContent(req).trim() ? [finding(`${impersonateLogout.name} holds ${inside.join(', ') || 'text'}`, { path: `/${SOAP.envelope}/${SOAP.body}/${impersonateLogout.name}` })] : [];
    }),
  },
];

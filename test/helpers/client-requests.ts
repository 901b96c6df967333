// Requests a client might send, for the request checks: wrong ones, each with the checks its rule
// belongs to, and legitimate variations, which must fail none. Judged in memory over a recorded
// exchange (test/requests.test.ts) and sent over HTTP to the judging reference
// (test/judging-reference.test.ts, and its part of docs/sensitivity-matrix.md).
import { request as httpRequest } from 'node:http';
import { startJudgingReference } from '../../lib/cli/judging-reference.js';
import { DEFAULT_NAMESPACES, SOAP11_ENVELOPE, SOAP12_ENVELOPE } from '../../lib/contract/namespaces.js';

export interface ClientRequest {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Text is sent as UTF-8; bytes as they are. */
  readonly body: string | Buffer;
}

const NS = DEFAULT_NAMESPACES.request;
const JSON_TYPE = { 'content-type': 'application/json' };
const SOAP_HEADERS = { 'content-type': 'text/xml; charset=utf-8', soapaction: '"ImpersonateLogoutRequest"' };
const envelope = (inner: string, env = SOAP11_ENVELOPE) => `<s:Envelope xmlns:s="${env}"><s:Body>${inner}</s:Body></s:Envelope>`;
const logout = `<ImpersonateLogoutRequest xmlns="${NS}"/>`;
const request = (path: string, headers: Record<string, string>, body: string | Buffer): ClientRequest => ({ method: 'POST', path, headers, body });

/** A wrong client's request, and the request checks it must fail (no other). */
export const WRONG_CLIENTS: [string, ClientRequest, string[]][] = [
  ['no Content-Type', request('/supportstateuser', {}, '{"userName":"a"}'), ['REQ-JSON-CONTENT-TYPE']],
  ['form-encoded', request('/supportstateuser', { 'content-type': 'application/x-www-form-urlencoded' }, 'userName=a'), ['REQ-JSON-CONTENT-TYPE', 'REQ-JSON-BODY']],
  ['JSON in latin-1', request('/supportstateuser', { 'content-type': 'application/json; charset=iso-8859-1' }, '{"userName":"a"}'), ['REQ-JSON-CONTENT-TYPE']],
  ['not JSON', request('/supportstateuser', JSON_TYPE, '{"userName":'), ['REQ-JSON-BODY']],
  ['an array', request('/user/confirmemail', JSON_TYPE, '[{"ownerId":1}]'), ['REQ-JSON-BODY']],
  ['PascalCase names', request('/supportstateuser', JSON_TYPE, '{"UserName":"a"}'), ['REQ-JSON-MEMBER-NAMES']],
  ['an integer as a string', request('/user/confirmemail', JSON_TYPE, '{"ownerId":"7"}'), ['REQ-JSON-TYPES']],
  ['an integer past 32 bits', request('/user/confirmemail', JSON_TYPE, '{"ownerId":4294967296}'), ['REQ-JSON-TYPES']],
  ['a boolean as a string', request('/json/reply/ConfirmEmailRequest', JSON_TYPE, '{"isForMM":"true"}'), ['REQ-JSON-TYPES']],
  ['a wrong type in another case', request('/user/confirmemail', JSON_TYPE, '{"OwnerId":true}'), ['REQ-JSON-MEMBER-NAMES', 'REQ-JSON-TYPES']],
  ['an unknown member', request('/supportstateuser', JSON_TYPE, '{"userName":"a","password":"p"}'), ['REQ-JSON-UNKNOWN-MEMBERS']],
  ['SOAP 1.2 media type', request('/soap11', { ...SOAP_HEADERS, 'content-type': 'application/soap+xml' }, envelope(logout)), ['REQ-SOAP-CONTENT-TYPE']],
  ['SOAP as JSON', request('/soap11', { ...SOAP_HEADERS, 'content-type': 'application/json' }, envelope(logout)), ['REQ-SOAP-CONTENT-TYPE']],
  ['no SOAPAction', request('/soap11', { 'content-type': 'text/xml' }, envelope(logout)), ['REQ-SOAP-ACTION']],
  ['another SOAPAction', request('/soap11', { ...SOAP_HEADERS, soapaction: '"Logout"' }, envelope(logout)), ['REQ-SOAP-ACTION']],
  ['a SOAP 1.2 envelope', request('/soap11', SOAP_HEADERS, envelope(logout, SOAP12_ENVELOPE)), ['REQ-SOAP-ENVELOPE']],
  ['not XML', request('/soap11', SOAP_HEADERS, '<s:Envelope'), ['REQ-SOAP-ENVELOPE']],
  ['a Body before a Header', request('/soap11', SOAP_HEADERS, `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"><s:Body>${logout}</s:Body><s:Header/></s:Envelope>`), ['REQ-SOAP-ENVELOPE']],
  ['the request in no namespace', request('/soap11', SOAP_HEADERS, envelope('<ImpersonateLogoutRequest/>')), ['REQ-SOAP-BODY']],
  ['two requests', request('/soap11', SOAP_HEADERS, envelope(logout + logout)), ['REQ-SOAP-BODY']],
  ['an empty Body', request('/soap11', SOAP_HEADERS, envelope('')), ['REQ-SOAP-BODY']],
  ['a GET with the record in the query', { method: 'GET', path: '/supportstateuser?userName=a', headers: {}, body: '' }, ['REQ-METHOD']],
  ['a PUT', { method: 'PUT', path: '/user/confirmemail', headers: JSON_TYPE, body: '{"ownerId":1}' }, ['REQ-METHOD']],
  ['an integer written with a fraction', request('/user/confirmemail', JSON_TYPE, '{"ownerId":1.0}'), ['REQ-JSON-TYPES']],
  ['an integer written with an exponent', request('/user/confirmemail', JSON_TYPE, '{"ownerId":4.2e1}'), ['REQ-JSON-TYPES']],
  ['a member twice', request('/user/confirmemail', JSON_TYPE, '{"ownerId":"7","ownerId":7}'), ['REQ-JSON-DUPLICATE-KEYS']],
  // The spec spells it Unspecified (2.2), as an answer must (JSON-ENUM-CASE); the platform would read it, an exact reader not.
  ['an enum name in another letter case', request('/user/confirmemail', JSON_TYPE, '{"systemCode":"unspecified"}'), ['REQ-JSON-TYPES']],
  ['a Body in another namespace', request('/soap11', SOAP_HEADERS, `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"><b:Body xmlns:b="urn:wrong">${logout}</b:Body></s:Envelope>`), ['REQ-SOAP-ENVELOPE']],
  ['a Header in another namespace', request('/soap11', SOAP_HEADERS, `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"><h:Header xmlns:h="urn:wrong"/><s:Body>${logout}</s:Body></s:Envelope>`), ['REQ-SOAP-ENVELOPE']],
  ['text inside the Body', request('/soap11', SOAP_HEADERS, envelope(`junk${logout}`)), ['REQ-SOAP-ENVELOPE']],
  // Latin-1 bytes (é as 0xE9) under a UTF-8 label: the bytes are not UTF-8, whatever they parse to.
  ['JSON bytes not UTF-8', request('/supportstateuser', JSON_TYPE, Buffer.from('{"userName":"Ren\u00e9"}', 'latin1')), ['REQ-JSON-BODY']],
  ['SOAP bytes not UTF-8', request('/soap11', SOAP_HEADERS, Buffer.from(envelope(`<!-- r\u00e9sum\u00e9 -->${logout}`), 'latin1')), ['REQ-SOAP-ENVELOPE']],
  // A declaration naming Latin-1 over UTF-8 bytes (4.2: charset=utf-8): a reader going by it reads "rÃ©sumÃ©".
  ['a Latin-1 declaration over UTF-8 bytes', request('/soap11', SOAP_HEADERS, `<?xml version="1.0" encoding="ISO-8859-1"?>${envelope(`<!-- r\u00e9sum\u00e9 -->${logout}`)}`), ['REQ-SOAP-ENVELOPE']],
  ['members in the request', request('/soap11', SOAP_HEADERS, envelope(`<ImpersonateLogoutRequest xmlns="${NS}"><UserId>1</UserId></ImpersonateLogoutRequest>`)), ['REQ-SOAP-EMPTY']],
];

/** Legitimate ways of writing a request: each must fail no request check. */
export const LEGITIMATE_CLIENTS: [string, ClientRequest][] = [
  ['the login', request('/supportstateuser', JSON_TYPE, '{"userName":"a","searchValues":"x"}')],
  ['with a UTF-8 charset', request('/supportstateuser', { 'content-type': 'application/json; charset=UTF-8' }, '{"userName":"a"}')],
  ['nulls and no members', request('/user/confirmemail', JSON_TYPE, '{"recoveryToken":null}')],
  ['an empty object', request('/json/reply/ConfirmEmailRequest', JSON_TYPE, '{}')],
  ['a confirm with every member', request('/user/confirmemail', JSON_TYPE, '{"recoveryToken":"t","ownerId":-2147483648,"isForMM":false}')],
  ['with ?format=json and a callback', request('/supportstateuser.json?callback=cb', JSON_TYPE, '{"userName":"a"}')],
  ['no body at all', request('/supportstateuser', {}, '')],
  ['a CORS preflight', { method: 'OPTIONS', path: '/json/reply/SupportStateUserLoginRequest', headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' }, body: '' }],
  ['the WSDL fetched from /soap11', { method: 'GET', path: '/soap11', headers: {}, body: '' }],
  ['an integer at int32\'s edge', request('/user/confirmemail', JSON_TYPE, '{"ownerId":2147483647}')],
  ['the enum name as 2.2 spells it', request('/user/confirmemail', JSON_TYPE, '{"systemCode":"Unspecified"}')],
  ['a U+FFFD the client meant (its UTF-8 bytes)', request('/supportstateuser', JSON_TYPE, '{"userName":"\uFFFD","searchValues":"\u00e9"}')],
  ['the SOAP request', request('/soap11', SOAP_HEADERS, envelope(logout))],
  ['a pretty-printed envelope with a comment', request('/soap11', SOAP_HEADERS, `<?xml version="1.0"?>\n<s:Envelope xmlns:s="${SOAP11_ENVELOPE}">\n  <s:Body>\n    <!-- logout -->\n    ${logout}\n  </s:Body>\n</s:Envelope>\n`)],
  ['an unquoted SOAPAction, no charset', request('/soap11', { 'content-type': 'text/xml', soapaction: 'ImpersonateLogoutRequest' }, envelope(logout))],
  ['a SOAPAction URI', request('/soap11', { ...SOAP_HEADERS, soapaction: '"http://tempuri.org/ImpersonateLogoutRequest"' }, envelope(logout))],
  ['a Header, a declaration, other prefixes', request('/soap11', SOAP_HEADERS, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11_ENVELOPE}"><soap:Header/><soap:Body><r:ImpersonateLogoutRequest xmlns:r="${NS}"></r:ImpersonateLogoutRequest></soap:Body></soap:Envelope>`)],
  ['a declaration naming UTF-8 as "UTF8"', request('/soap11', SOAP_HEADERS, `<?xml version="1.0" encoding="UTF8"?>${envelope(logout)}`)],
  ['?format=soap11', request('/soap11?format=soap11', SOAP_HEADERS, envelope(logout))],
];

/** Sends exactly these headers and bytes (fetch would add a Content-Type of its own). */
export function sendRaw(base: string, r: ClientRequest): Promise<{ status: number; body: string }> {
  const body = Buffer.from(r.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${r.path}`, { method: r.method, headers: { ...r.headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The check IDs of a judging reference's ✗ lines. */
export const failedIn = (lines: readonly string[]): string[] => [...new Set(lines.flatMap((l) => /^✗ (\S+) \[/.exec(l)?.[1] ?? []))].sort();

export interface ClientOutcome {
  /** The checks whose finding lines the judging reference printed for it. */
  readonly failed: string[];
  readonly lines: string[];
  readonly status: number;
  /** The answer's body (an error names the checks the request fails). */
  readonly answer: string;
}

/** Each request sent, one after another, to a judging reference; what it printed for each. */
export async function judgedOverHttp(requests: readonly ClientRequest[]): Promise<ClientOutcome[]> {
  const lines: string[] = [];
  const judging = await startJudgingReference({ reportDir: '/nonexistent-never-written', print: (l) => lines.push(l) });
  try {
    const out: ClientOutcome[] = [];
    for (const r of requests) {
      const from = lines.length;
      const { status, body } = await sendRaw(judging.url, r);
      // The lines of a request are printed once its answer is written, before the client reads it whole.
      const mine = lines.slice(from);
      out.push({ failed: failedIn(mine), lines: mine, status, answer: body });
    }
    return out;
  } finally {
    await judging.close();
  }
}

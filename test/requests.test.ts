// The request checks: every wrong client fails exactly the checks for its rule, with a path; every
// legitimate way of writing a request fails none; and they judge only requests a client sent.
import { describe, expect, it } from 'vitest';
import { CATALOGUE, checksFor } from '../lib/checks/catalogue.js';
import { isSkip } from '../lib/checks/check.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { DEFAULT_NAMESPACES, SOAP11_ENVELOPE, SOAP12_ENVELOPE } from '../lib/contract/namespaces.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';

const REQUEST_CHECKS = CATALOGUE.filter((c) => c.area === 'Requests');
const NS = DEFAULT_NAMESPACES.request;
const JSON_TYPE = { 'content-type': 'application/json' };
const SOAP_HEADERS = { 'content-type': 'text/xml; charset=utf-8', soapaction: '"ImpersonateLogoutRequest"' };
const envelope = (inner: string, env = SOAP11_ENVELOPE) => `<s:Envelope xmlns:s="${env}"><s:Body>${inner}</s:Body></s:Envelope>`;
const logout = `<ImpersonateLogoutRequest xmlns="${NS}"/>`;

function exchange(path: string, headers: Record<string, string>, body: string, source: Exchange['origin']['source'] = 'har'): Exchange {
  return {
    id: 'x', title: 'x', origin: { source, vouched: false }, startedAt: '', durationMs: 0,
    request: { method: 'POST', url: `http://svc.test${path}`, headers, body },
    response: recordedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{}')),
  };
}

/** The request checks that found something on this request, with each finding's path. */
function failing(ex: Exchange): string[] {
  const view = new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
  return REQUEST_CHECKS.filter((c) => c.appliesTo(view)).flatMap((c) => {
    const look = c.judge(view);
    if (isSkip(look)) return [];
    for (const f of look) expect(f.path, `${c.id}: ${f.message}`).toBeTruthy();
    return look.length ? [c.id] : [];
  });
}

const WRONG: [string, Exchange, string[]][] = [
  ['no Content-Type', exchange('/supportstateuser', {}, '{"userName":"a"}'), ['REQ-JSON-CONTENT-TYPE']],
  ['form-encoded', exchange('/supportstateuser', { 'content-type': 'application/x-www-form-urlencoded' }, 'userName=a'), ['REQ-JSON-CONTENT-TYPE', 'REQ-JSON-BODY']],
  ['JSON in latin-1', exchange('/supportstateuser', { 'content-type': 'application/json; charset=iso-8859-1' }, '{"userName":"a"}'), ['REQ-JSON-CONTENT-TYPE']],
  ['not JSON', exchange('/supportstateuser', JSON_TYPE, '{"userName":'), ['REQ-JSON-BODY']],
  ['an array', exchange('/user/confirmemail', JSON_TYPE, '[{"ownerId":1}]'), ['REQ-JSON-BODY']],
  ['PascalCase names', exchange('/supportstateuser', JSON_TYPE, '{"UserName":"a"}'), ['REQ-JSON-MEMBER-NAMES']],
  ['an integer as a string', exchange('/user/confirmemail', JSON_TYPE, '{"ownerId":"7"}'), ['REQ-JSON-TYPES']],
  ['an integer past 32 bits', exchange('/user/confirmemail', JSON_TYPE, '{"ownerId":4294967296}'), ['REQ-JSON-TYPES']],
  ['a boolean as a string', exchange('/json/reply/ConfirmEmailRequest', JSON_TYPE, '{"isForMM":"true"}'), ['REQ-JSON-TYPES']],
  ['a wrong type in another case', exchange('/user/confirmemail', JSON_TYPE, '{"OwnerId":true}'), ['REQ-JSON-MEMBER-NAMES', 'REQ-JSON-TYPES']],
  ['an unknown member', exchange('/supportstateuser', JSON_TYPE, '{"userName":"a","password":"p"}'), ['REQ-JSON-UNKNOWN-MEMBERS']],
  ['SOAP 1.2 media type', exchange('/soap11', { ...SOAP_HEADERS, 'content-type': 'application/soap+xml' }, envelope(logout)), ['REQ-SOAP-CONTENT-TYPE']],
  ['SOAP as JSON', exchange('/soap11', { ...SOAP_HEADERS, 'content-type': 'application/json' }, envelope(logout)), ['REQ-SOAP-CONTENT-TYPE']],
  ['no SOAPAction', exchange('/soap11', { 'content-type': 'text/xml' }, envelope(logout)), ['REQ-SOAP-ACTION']],
  ['another SOAPAction', exchange('/soap11', { ...SOAP_HEADERS, soapaction: '"Logout"' }, envelope(logout)), ['REQ-SOAP-ACTION']],
  ['a SOAP 1.2 envelope', exchange('/soap11', SOAP_HEADERS, envelope(logout, SOAP12_ENVELOPE)), ['REQ-SOAP-ENVELOPE']],
  ['not XML', exchange('/soap11', SOAP_HEADERS, '<s:Envelope'), ['REQ-SOAP-ENVELOPE']],
  ['a Body before a Header', exchange('/soap11', SOAP_HEADERS, `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"><s:Body>${logout}</s:Body><s:Header/></s:Envelope>`), ['REQ-SOAP-ENVELOPE']],
  ['the request in no namespace', exchange('/soap11', SOAP_HEADERS, envelope('<ImpersonateLogoutRequest/>')), ['REQ-SOAP-BODY']],
  ['two requests', exchange('/soap11', SOAP_HEADERS, envelope(logout + logout)), ['REQ-SOAP-BODY']],
  ['an empty Body', exchange('/soap11', SOAP_HEADERS, envelope('')), ['REQ-SOAP-BODY']],
  ['members in the request', exchange('/soap11', SOAP_HEADERS, envelope(`<ImpersonateLogoutRequest xmlns="${NS}"><UserId>1</UserId></ImpersonateLogoutRequest>`)), ['REQ-SOAP-EMPTY']],
];

const LEGITIMATE: [string, Exchange][] = [
  ['the login', exchange('/supportstateuser', JSON_TYPE, '{"userName":"a","searchValues":"x"}')],
  ['with a UTF-8 charset', exchange('/supportstateuser', { 'content-type': 'application/json; charset=UTF-8' }, '{"userName":"a"}')],
  ['nulls and no members', exchange('/user/confirmemail', JSON_TYPE, '{"recoveryToken":null}')],
  ['an empty object', exchange('/json/reply/ConfirmEmailRequest', JSON_TYPE, '{}')],
  ['a confirm with every member', exchange('/user/confirmemail', JSON_TYPE, '{"recoveryToken":"t","ownerId":-2147483648,"isForMM":false}')],
  ['with ?format=json and a callback', exchange('/supportstateuser.json?callback=cb', JSON_TYPE, '{"userName":"a"}')],
  ['no body at all', exchange('/supportstateuser', {}, '')],
  ['the SOAP request', exchange('/soap11', SOAP_HEADERS, envelope(logout))],
  ['an unquoted SOAPAction, no charset', exchange('/soap11', { 'content-type': 'text/xml', soapaction: 'ImpersonateLogoutRequest' }, envelope(logout))],
  ['a SOAPAction URI', exchange('/soap11', { ...SOAP_HEADERS, soapaction: '"http://tempuri.org/ImpersonateLogoutRequest"' }, envelope(logout))],
  ['a Header, a declaration, other prefixes', exchange('/soap11', SOAP_HEADERS, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11_ENVELOPE}"><soap:Header/><soap:Body><r:ImpersonateLogoutRequest xmlns:r="${NS}"></r:ImpersonateLogoutRequest></soap:Body></soap:Envelope>`)],
  ['?format=soap11', exchange('/soap11?format=soap11', SOAP_HEADERS, envelope(logout))],
];

describe('request checks', () => {
  it.each(WRONG)('a wrong client (%s) fails exactly its checks', (_why, ex, expected) => {
    expect(failing(ex).sort()).toEqual([...expected].sort());
  });

  it.each(LEGITIMATE)('a legitimate request (%s) fails none', (_why, ex) => {
    expect(failing(ex)).toEqual([]);
  });

  it('names what a client got wrong: SOAP 1.2 as SOAP 1.2, a value by its path', () => {
    const view = (ex: Exchange) => new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
    const soap12 = view(exchange('/soap11', { ...SOAP_HEADERS, 'content-type': 'application/soap+xml; charset=utf-8' }, envelope(logout)));
    expect(CATALOGUE.find((c) => c.id === 'REQ-SOAP-CONTENT-TYPE')!.judge(soap12)).toEqual([expect.objectContaining({ message: expect.stringMatching(/is SOAP 1\.2's; \/soap11 speaks SOAP 1\.1/) })]);
    const typed = view(exchange('/user/confirmemail', JSON_TYPE, '{"ownerId":"7"}'));
    expect(CATALOGUE.find((c) => c.id === 'REQ-JSON-TYPES')!.judge(typed)).toEqual([expect.objectContaining({ path: '$.ownerId' })]);
  });

  it('every MUST request check is failed by some wrong client', () => {
    const caught = new Set(WRONG.flatMap(([, , ids]) => ids));
    for (const c of REQUEST_CHECKS) expect(caught.has(c.id), c.id).toBe(true);
  });

  it('judge only requests a client sent: never in a probe run, always over recorded traffic', () => {
    expect(checksFor(new Set(['probe', 'case', 'generated'])).some((c) => c.area === 'Requests')).toBe(false);
    expect(checksFor(new Set(['har'])).filter((c) => c.area === 'Requests')).toHaveLength(REQUEST_CHECKS.length);
    for (const c of REQUEST_CHECKS) expect(c.sources).toEqual(['har', 'proxy', 'client']);
  });
});

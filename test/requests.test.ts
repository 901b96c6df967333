// The request checks: every wrong client fails exactly the checks for its rule, with a path; every
// legitimate way of writing a request fails none; and they judge only requests a client sent.
import { describe, expect, it } from 'vitest';
import { CATALOGUE, checksFor } from '../lib/checks/catalogue.js';
import { isSkip } from '../lib/checks/check.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { recordedResponse, requestBodyOf, type Exchange } from '../lib/http/exchange.js';
import { LEGITIMATE_CLIENTS, WRONG_CLIENTS, type ClientRequest } from './helpers/client-requests.js';

const REQUEST_CHECKS = CATALOGUE.filter((c) => c.area === 'Requests');

/** The request as a recording holds it, with an answer of 200. */
function exchange(r: ClientRequest, source: Exchange['origin']['source'] = 'har'): Exchange {
  return {
    id: 'x', title: 'x', origin: { source, vouched: false }, startedAt: '', durationMs: 0,
    request: { method: r.method, url: `http://svc.test${r.path}`, headers: r.headers, ...(typeof r.body === 'string' ? { body: r.body } : requestBodyOf(r.body)) },
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

describe('request checks', () => {
  it.each(WRONG_CLIENTS)('a wrong client (%s) fails exactly its checks', (_why, r, expected) => {
    expect(failing(exchange(r)).sort()).toEqual([...expected].sort());
  });

  it.each(LEGITIMATE_CLIENTS)('a legitimate request (%s) fails none', (_why, r) => {
    expect(failing(exchange(r))).toEqual([]);
  });

  it('names what a client got wrong: SOAP 1.2 as SOAP 1.2, a value by its path', () => {
    const view = (ex: Exchange) => new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
    const client = (name: string) => exchange(WRONG_CLIENTS.find(([why]) => why === name)![1]);
    const soap12 = view(client('SOAP 1.2 media type'));
    expect(CATALOGUE.find((c) => c.id === 'REQ-SOAP-CONTENT-TYPE')!.judge(soap12)).toEqual([expect.objectContaining({ message: expect.stringMatching(/is SOAP 1\.2's; \/soap11 speaks SOAP 1\.1/) })]);
    const typed = view(client('an integer as a string'));
    expect(CATALOGUE.find((c) => c.id === 'REQ-JSON-TYPES')!.judge(typed)).toEqual([expect.objectContaining({ path: '$.ownerId' })]);
  });

  it('names a declaration that misnames a SOAP request\'s UTF-8, as the answer\'s SOAP-ENCODING does', () => {
    const latin1 = new ExchangeView(exchange(WRONG_CLIENTS.find(([why]) => why === 'a Latin-1 declaration over UTF-8 bytes')![1]), { namespaces: DEFAULT_NAMESPACES });
    expect(CATALOGUE.find((c) => c.id === 'REQ-SOAP-ENVELOPE')!.judge(latin1))
      .toEqual([{ message: 'the XML declaration names "ISO-8859-1"; a SOAP request is UTF-8 (4.2: charset=utf-8)', path: 'request.body', actual: 'ISO-8859-1' }]);
  });

  it('every MUST request check is failed by some wrong client', () => {
    const caught = new Set(WRONG_CLIENTS.flatMap(([, , ids]) => ids));
    for (const c of REQUEST_CHECKS) expect(caught.has(c.id), c.id).toBe(true);
  });

  it('judge only requests a client sent: never in a probe run, always over recorded traffic', () => {
    expect(checksFor(new Set(['probe', 'case', 'generated'])).some((c) => c.area === 'Requests')).toBe(false);
    expect(checksFor(new Set(['har'])).filter((c) => c.area === 'Requests')).toHaveLength(REQUEST_CHECKS.length);
    for (const c of REQUEST_CHECKS) expect(c.sources).toEqual(['har', 'proxy', 'client']);
    // A wrong request the harness itself sent (a generated invalid one) is not a client's to answer for.
    for (const [, r] of WRONG_CLIENTS) expect(failing(exchange(r, 'generated'))).toEqual([]);
    for (const [, r, ids] of WRONG_CLIENTS.slice(0, 3)) expect(failing(exchange(r, 'client')).sort()).toEqual([...ids].sort());
  });
});

describe('a request body received as bytes', () => {
  it('names the first byte that is not UTF-8, past any U+FFFD the client meant', () => {
    expect(requestBodyOf(Buffer.from('{"a":"é\uFFFD"}'))).toEqual({ body: '{"a":"é\uFFFD"}' });
    const bad = Buffer.concat([Buffer.from('ab\uFFFDc'), Buffer.from([0xff]), Buffer.from('d')]);
    expect(requestBodyOf(bad)).toEqual({ body: 'ab\uFFFDc\uFFFDd', notUtf8At: 6 });
    expect(requestBodyOf(Buffer.from([0x61, 0xe2, 0x82])).notUtf8At).toBe(1); // a sequence cut short
    expect(requestBodyOf(Buffer.from([0xc0, 0xaf])).notUtf8At).toBe(0); // an overlong form of "/"
  });
});

// A finding quotes what the target sent, and a marker names what it replaced: the number as written
// (not the double it parses to), each of two header fields apart (not a joined value nobody sent), and
// a number masked for equalling a learned text as a number.
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { login } from '../lib/contract/operations.js';
import { PROBE } from '../lib/engine/probes.js';
import { recordedResponse } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { changed, goodExchanges, judged } from './helpers/exchanges.js';

const L = PROBE.post(login);

describe('evidence as received', () => {
  it('JSON-INTEGER-RANGE quotes an integer past 2^53 as written, not as the double it reads as', () => {
    const exchanges = changed(goodExchanges(), L, { body: (b) => b.replace('"ownerId":2147483647,', '"ownerId":12345678901234567,') });
    const [f] = judged(exchanges.values(), [checkById.get('JSON-INTEGER-RANGE')!]).get('JSON-INTEGER-RANGE')!.examples;
    expect(f?.message).toBe('12345678901234567 is outside the 32-bit range');
    expect(f?.actual).toBe('12345678901234567');
  });

  it('JSON-INTEGER-RANGE quotes a safe integer as written too', () => {
    const exchanges = changed(goodExchanges(), L, { body: (b) => b.replace('"ownerId":2147483647,', '"ownerId":-2147483649,') });
    const [f] = judged(exchanges.values(), [checkById.get('JSON-INTEGER-RANGE')!]).get('JSON-INTEGER-RANGE')!.examples;
    expect(f?.message).toBe('-2147483649 is outside the 32-bit range');
  });

  it('two Content-Type fields received apart are quoted apart and counted, the repeat named', () => {
    const ex = goodExchanges().get(L)!;
    const raw = ['Content-Type', 'text/plain', 'content-type', 'application/json; charset=utf-8'];
    const headers = { ...ex.response!.headers, 'content-type': 'text/plain, application/json; charset=utf-8' };
    const twice = { ...ex, response: recordedResponse(200, headers, ex.response!.body, 'OK', raw) };
    const [f] = judged([twice], [checkById.get('ROUTE-LOGIN-POST')!]).get('ROUTE-LOGIN-POST')!.examples;
    expect(f?.message).toBe('2 Content-Type fields ("text/plain", "application/json; charset=utf-8"); one is allowed (RFC 9110 8.3), expected application/json');
    expect(f?.path).toBe('headers.content-type');
  });

  it('one Content-Type field holding a comma is quoted as the one field it is', () => {
    const ex = goodExchanges().get(L)!;
    const headers = { ...ex.response!.headers, 'content-type': 'text/plain, application/json' };
    const once = { ...ex, response: recordedResponse(200, headers, ex.response!.body, 'OK', ['Content-Type', 'text/plain, application/json']) };
    const [f] = judged([once], [checkById.get('ROUTE-LOGIN-POST')!]).get('ROUTE-LOGIN-POST')!.examples;
    expect(f?.message).toBe('Content-Type "text/plain, application/json", expected application/json');
  });

  it('a number masked for equalling a learned personal text is marked as a number, in a member and in an array', () => {
    const r = new Redactor({ showPersonalData: false, secrets: [] });
    r.learn('{"postalCode":"2026","city":"Qarth"}');
    expect(r.text('{"postalCode":"2026","currentClaimYear":2026,"years":[2025,2026],"isX":true}'))
      .toBe('{"postalCode":"«personal: string, 4 chars»","currentClaimYear":"«personal: number»","years":[2025,"«personal: number»"],"isX":true}');
  });
});

describe('a recorded SOAP request a Fault blames', () => {
  const fault = (code: string) => `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>${code}</faultcode><faultstring>refused</faultstring></s:Fault></s:Body></s:Envelope>`;
  const recorded = (code: string) => {
    const ex = goodExchanges().get(PROBE.soap)!;
    return { ...ex, id: 'har.1', origin: { source: 'har' as const, vouched: false }, response: recordedResponse(500, { 'content-type': 'application/xml' }, Buffer.from(fault(code))) };
  };
  // SOAP 1.1 4.4.1 and 6.2: a request at fault is answered 500 with faultcode Client, as HTTP answers 4xx.
  it('is not held to the success contract when the faultcode blames the request (s:Client), and is when it blames the server (s:Server)', () => {
    const result = (code: string) => judged([recorded(code)], [checkById.get('ROUTE-SOAP-POST')!]).get('ROUTE-SOAP-POST')!;
    expect(result('s:Client').status).toBe('skip');
    expect(result('s:Server')).toMatchObject({ status: 'fail' });
  });
});

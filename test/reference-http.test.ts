// The reference over real HTTP: every route and selector of section 4, and a clear answer to
// every kind of bad input (ServiceStack-shaped JSON errors, SOAP 1.1 Faults).
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { SOAP12_ENVELOPE } from '../lib/contract/namespaces.js';
import { expectingExchange } from './helpers/raw-target.js';
import { call, postSoap, SOAP_REQUEST, useReference } from './helpers/reference.js';

const ref = useReference();
const errorOf = (body: string) => (JSON.parse(body) as { responseStatus: { errorCode: string; message: string; errors: unknown[] } }).responseStatus;

describe('routes of 4.1 and 4.3', () => {
  for (const path of ['/supportstateuser', '/json/reply/SupportStateUserLoginRequest']) {
    it(`POST ${path} answers the sample account's user-details record as JSON`, async () => {
      const r = await call(ref.url + path, { json: { userName: 'jdoe.support', searchValues: 's' } });
      expect([r.status, r.type]).toEqual([200, 'application/json; charset=utf-8']);
      expect(JSON.parse(r.body)).toMatchObject({ userName: 'jdoe.support', hxUserTypeCode: 7, siteId: '3f2504e04f8911d39a0c0305e82c3301' });
    });
  }
  for (const path of ['/user/confirmemail', '/json/reply/ConfirmEmailRequest']) {
    it(`POST ${path} answers the sample account's confirmation record as JSON`, async () => {
      const r = await call(ref.url + path, { json: { recoveryToken: 'sample-recoveryToken', systemCode: 'Unspecified' } });
      expect([r.status, r.type]).toEqual([200, 'application/json; charset=utf-8']);
      expect(JSON.parse(r.body)).toEqual({ userName: 'jdoe.support', firstName: 'Jane', lastName: "O'Connor-Müller" });
    });
  }
  it('answers every other account with its own record: the same for the same request, different for another', async () => {
    const ask = async (userName: string) => JSON.parse((await call(`${ref.url}/supportstateuser`, { json: { userName, searchValues: 's' } })).body) as Record<string, unknown>;
    const [a, again, b] = [await ask('user.a'), await ask('user.a'), await ask('user.b')];
    expect(again).toEqual(a);
    expect(b).not.toEqual(a);
    expect([a.userName, b.userName]).toEqual(['user.a', 'user.b']);
    expect(a.siteId).not.toBe('3f2504e04f8911d39a0c0305e82c3301');
  });
  it('serves a route only at its root: the same route under another path is not one', async () => {
    expect((await call(`${ref.url}/api/supportstateuser`, { json: {} })).status).toBe(404);
  });
  it('matches routes without regard to case, as ServiceStack does', async () => {
    expect((await call(`${ref.url}/SupportStateUser`, { json: {} })).status).toBe(200);
  });
  it('accepts an empty body as an empty request', async () => {
    expect((await call(`${ref.url}/supportstateuser`, { headers: { 'content-type': 'application/json' } })).status).toBe(200);
  });
});

describe('OPTIONS', () => {
  for (const path of ['/supportstateuser', '/user/confirmemail']) {
    it(`OPTIONS ${path} answers 200, empty, with CorsFeature's headers`, async () => {
      const r = await call(ref.url + path, { method: 'OPTIONS' });
      expect([r.status, r.body]).toEqual([200, '']);
      expect(r.headers.get('access-control-allow-methods')).toContain('POST');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    });
  }
});

describe('format selection (4)', () => {
  const xmlAccept = { accept: 'application/xml' };
  it('answers Accept: application/xml with plain XML when nothing overrides it', async () => {
    const r = await call(`${ref.url}/supportstateuser`, { json: {}, headers: xmlAccept });
    expect(r.type).toBe('application/xml');
    expect(r.body).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><UserDetailsResponse /);
  });
  for (const [name, path] of [['.json', '/supportstateuser.json'], ['?format=json', '/supportstateuser?format=json'], ['.json', '/user/confirmemail.json'], ['?format=json', '/user/confirmemail?format=json']]) {
    it(`${name} wins over Accept: application/xml on ${path}`, async () => {
      const r = await call(ref.url + path, { json: {}, headers: xmlAccept });
      expect(r.type).toBe('application/json; charset=utf-8');
      expect(() => JSON.parse(r.body)).not.toThrow();
    });
  }
  it('wraps JSON in the callback, exactly name(json), as text/javascript', async () => {
    const plain = await call(`${ref.url}/supportstateuser`, { json: {} });
    const r = await call(`${ref.url}/supportstateuser?callback=handle`, { json: {} });
    expect(r.type).toBe('text/javascript');
    expect(r.body).toBe(`handle(${plain.body})`);
  });
  it('sanitises the callback name as ServiceStack does', async () => {
    const r = await call(`${ref.url}/user/confirmemail?callback=${encodeURIComponent('a.b-c(</script>)')}`, { json: {} });
    expect(r.body.startsWith('a.b_c___script__(')).toBe(true);
  });
  it('answers .soap11 and ?format=soap11 on the login route with a SOAP envelope', async () => {
    for (const path of ['/supportstateuser.soap11', '/supportstateuser?format=soap11']) {
      const r = await call(ref.url + path, { json: {} });
      expect(r.type).toBe('application/xml');
      expect(r.body).toMatch(/^<s:Envelope xmlns:s="http:\/\/schemas.xmlsoap.org\/soap\/envelope\/"><s:Body><UserDetailsResponse /);
    }
  });
});

describe('SOAP 1.1 (4.2)', () => {
  it('answers ImpersonateLogoutRequest with UserDetailsResponse, application/xml', async () => {
    const r = await postSoap(`${ref.url}/soap11`);
    expect([r.status, r.type]).toEqual([200, 'application/xml']);
    expect(r.body).toContain('<UserDetailsResponse xmlns="http://schemas.datacontract.org/2004/07/SupportState.ServiceModel.Login"');
  });
  it('answers the same with ?format=soap11 and with a quoted SOAPAction', async () => {
    const plain = await postSoap(`${ref.url}/soap11`);
    expect((await postSoap(`${ref.url}/soap11?format=soap11`)).body).toBe(plain.body);
    expect((await postSoap(`${ref.url}/soap11`, SOAP_REQUEST, { soapaction: '"ImpersonateLogoutRequest"' })).body).toBe(plain.body);
  });
});

describe('bad input gets a clear answer', () => {
  it('malformed JSON: 400 SerializationException', async () => {
    const r = await call(`${ref.url}/supportstateuser`, { body: '{"userName":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(errorOf(r.body)).toMatchObject({ errorCode: 'SerializationException', errors: [] });
    expect(errorOf(r.body).message).toMatch(/not valid JSON/);
  });
  it('malformed JSON nested past the depth limit, never closed (7 000 × "[", 10 000 × {"a":): 400 SerializationException, not a 500', async () => {
    for (const [route, body] of [['supportstateuser', '['.repeat(7000)], ['user/confirmemail', '{"a":'.repeat(10_000)]] as const) {
      const r = await call(`${ref.url}/${route}`, { body, headers: { 'content-type': 'application/json' } });
      expect([route, r.status, errorOf(r.body).errorCode]).toEqual([route, 400, 'SerializationException']);
      expect(errorOf(r.body).message).toMatch(/^The request body is not valid JSON: /);
    }
  });
  it('a JSON body that is not an object, or a member of the wrong type: 400', async () => {
    for (const body of ['[1,2]', '"x"', '{"ownerId":"seven"}', '{"isForMM":"yes"}', '{"ownerId":1.5}', '{"ownerId":4294967296}']) {
      const r = await call(`${ref.url}/user/confirmemail`, { body, headers: { 'content-type': 'application/json' } });
      expect([body, r.status, errorOf(r.body).errorCode]).toEqual([body, 400, 'SerializationException']);
    }
  });
  it('invalid UTF-8: 400', async () => {
    const r = await call(`${ref.url}/supportstateuser`, { body: Buffer.from([0x7b, 0xff, 0x7d]), headers: { 'content-type': 'application/json' } });
    expect([r.status, errorOf(r.body).errorCode]).toEqual([400, 'SerializationException']);
  });
  it('wrong Content-Type: 415', async () => {
    const r = await call(`${ref.url}/supportstateuser`, { body: 'userName=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect([r.status, errorOf(r.body).errorCode]).toEqual([415, 'NotSupportedException']);
  });
  it('unknown route: 404 in one plain line', async () => {
    const r = await call(`${ref.url}/nope`, { json: {} });
    expect([r.status, r.type, r.body]).toEqual([404, 'text/plain; charset=utf-8', 'Handler for Request not found: POST /nope']);
    expect((await call(`${ref.url}/json/reply/ImpersonateLogoutRequest.json`, { json: {} })).status).toBe(404);
  });
  it('wrong method: 405 with Allow', async () => {
    const r = await call(`${ref.url}/supportstateuser`, { method: 'GET' });
    expect([r.status, r.headers.get('allow'), errorOf(r.body).errorCode]).toEqual([405, 'POST, OPTIONS', 'NotImplementedException']);
    expect((await call(`${ref.url}/soap11`, { method: 'PUT', body: 'x' })).status).toBe(405);
  });
  it('a body over 1 MiB: 413, whether declared or streamed', async () => {
    const big = Buffer.alloc(1024 * 1024 + 1, 0x20);
    const r = await call(`${ref.url}/supportstateuser`, { body: big, headers: { 'content-type': 'application/json' } });
    expect([r.status, errorOf(r.body).errorCode]).toEqual([413, 'RequestEntityTooLargeException']);
    // Chunked, no Content-Length: the reference must count and stop.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${ref.url}/soap11`, { method: 'POST', headers: { 'content-type': 'text/xml' } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      for (let i = 0; i < 20; i++) req.write(Buffer.alloc(64 * 1024, 0x20));
      req.end();
    });
    expect(status).toBe(413);
  });
  it('Expect: 100-continue: a body declared over 1 MiB gets 413 at once and no 100 (never asked for); one within it gets 100, then 200', async () => {
    const head = (length: number) => `POST /supportstateuser HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${length}\r\n\r\n`;
    const big = await expectingExchange(ref.url, head(1024 * 1024 + 1), ' '.repeat(1024 * 1024 + 1));
    expect(big).toMatch(/^HTTP\/1\.1 413 /);
    expect(big).not.toContain('HTTP/1.1 100');
    const body = '{"userName":"jdoe.support"}';
    const small = await expectingExchange(ref.url, head(body.length), body);
    expect(small).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  const fault = (body: string) => {
    const code = /<faultcode>([^<]*)<\/faultcode>/.exec(body)?.[1];
    const message = /<faultstring>([^<]*)<\/faultstring>/.exec(body)?.[1];
    return { code, message };
  };
  const soapCases: [string, string, Record<string, string>, RegExp, string?][] = [
    ['malformed XML', '<s:Envelope', {}, /not well-formed XML/],
    ['a DOCTYPE', `<!DOCTYPE x [<!ENTITY a "aaaa">]>${SOAP_REQUEST}`, {}, /DOCTYPE/],
    ['an unknown operation', SOAP_REQUEST.replaceAll('ImpersonateLogoutRequest', 'DeleteEverythingRequest'), {}, /Unknown operation/],
    ['the wrong request namespace', SOAP_REQUEST.replace('Impersonation', 'Other'), {}, /must be in namespace/],
    ['an empty Body', SOAP_REQUEST.replace(/<ImpersonateLogoutRequest[^>]*\/>/, ''), {}, /Body is empty/],
    ['a SOAPAction naming another operation', SOAP_REQUEST, { soapaction: 'DeleteEverythingRequest' }, /SOAPAction/],
    ['a SOAP 1.2 envelope', SOAP_REQUEST.replace('http://schemas.xmlsoap.org/soap/envelope/', SOAP12_ENVELOPE), {}, /SOAP 1.2/, 's:VersionMismatch'],
  ];
  for (const [name, body, headers, message, code = 's:Client'] of soapCases) {
    it(`SOAP with ${name}: a 500 SOAP 1.1 Fault that names the problem`, async () => {
      const r = await postSoap(`${ref.url}/soap11`, body, headers);
      expect(r.status).toBe(500);
      expect(fault(r.body).code).toBe(code);
      expect(fault(r.body).message).toMatch(message);
    });
  }
  it('SOAP with a non-XML media type: 415 Fault', async () => {
    const r = await postSoap(`${ref.url}/soap11`, SOAP_REQUEST, { 'content-type': 'application/soap+xml' });
    expect(r.status).toBe(415);
    expect(fault(r.body).message).toMatch(/SOAP 1.2/);
  });
  it('malformed HTTP: 400, and the server keeps serving', async () => {
    const { connect } = await import('node:net');
    const u = new URL(ref.url);
    const answer = await new Promise<string>((resolve) => {
      const s = connect(Number(u.port), u.hostname, () => s.write('NOT HTTP\r\n\r\n'));
      let got = '';
      s.on('data', (d) => { got += d; });
      s.on('close', () => resolve(got));
    });
    expect(answer).toMatch(/^HTTP\/1.1 400 Bad Request\r\n[\s\S]*\r\n\r\nBad Request: (malformed HTTP request|unknown HTTP method)$/);
    expect((await call(`${ref.url}/supportstateuser`, { json: {} })).status).toBe(200);
  });
});

// The reference under abuse: 10 000 generated requests (random methods, paths, headers, bodies)
// each answered in bounded time with a well-formed success or error; then 200 concurrent
// connections for 10 s with no error. It must never crash, hang or answer garbage.
import autocannon from 'autocannon';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { SOAP_REQUEST, useReference } from './helpers/reference.js';
import { text } from './helpers/arbitraries.js';

const ref = useReference();

const method = fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'X-CUSTOM');
const path = fc.oneof(
  fc.constantFrom('/supportstateuser', '/SupportStateUser.json', '/supportstateuser.soap11', '/json/reply/SupportStateUserLoginRequest',
    '/user/confirmemail', '/json/reply/ConfirmEmailRequest', '/soap11', '/json/reply/', '/', '/soap11.json', '/..%2f..%2fetc/passwd'),
  fc.webPath(),
  fc.string({ maxLength: 40 }).map((s) => `/${encodeURIComponent(s)}`),
);
const query = fc.oneof(fc.constant(''), fc.constantFrom('?format=json', '?format=xml', '?format=soap11', '?format=csv', '?callback=cb', '?callback=%3Cscript%3E'), fc.webQueryParameters().map((q) => `?${q}`));
const contentType = fc.constantFrom(undefined, 'application/json', 'application/json; charset=utf-8', 'text/xml; charset=utf-8', 'application/soap+xml', 'text/plain', 'multipart/form-data; boundary=x', ';;;', 'application/json; charset=latin1');
const body = fc.oneof(
  fc.constant(undefined),
  fc.json().map((j) => Buffer.from(j)),
  text.map((t) => Buffer.from(t)),
  fc.uint8Array({ maxLength: 512 }).map((u) => Buffer.from(u)),
  fc.constantFrom(SOAP_REQUEST, SOAP_REQUEST.replace('Impersonation', 'Other'), '<x', '{"ownerId":"a"}', '{"userName":').map((s) => Buffer.from(s)),
);
const requests = fc.record({
  method, path, query, contentType, body,
  accept: fc.constantFrom(undefined, 'application/xml', '*/*', 'text/html;q=0.1, application/xml;q=0.9', 'garbage'),
  soapAction: fc.constantFrom(undefined, 'ImpersonateLogoutRequest', '"ImpersonateLogoutRequest"', 'x'),
});

describe('the reference under abuse', () => {
  it('answers 10 000 generated requests, each with a well-formed success or error', async () => {
    const cases = fc.sample(requests, { numRuns: 10_000, seed: 20261121 });
    const agent = new Agent({ connections: 32, headersTimeout: 5_000, bodyTimeout: 5_000 });
    const problems: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const headers: Record<string, string> = {};
        if (c.contentType) headers['content-type'] = c.contentType;
        if (c.accept) headers.accept = c.accept;
        if (c.soapAction) headers.soapaction = c.soapAction;
        const sendsBody = !['GET', 'HEAD'].includes(c.method) && c.body !== undefined;
        try {
          const res = await request(`${ref.url}${c.path}${c.query}`, { method: c.method as 'GET', headers, body: sendsBody ? c.body : undefined, dispatcher: agent });
          const got = await res.body.text();
          const type = String(res.headers['content-type'] ?? '');
          // HEAD answers carry headers only; OPTIONS answers are empty by design.
          const bodyless = c.method === 'HEAD' || c.method === 'OPTIONS' || res.statusCode === 204;
          const ok = res.statusCode >= 200 && res.statusCode < 600
            && (bodyless || got.length > 0)
            && (bodyless || !type.startsWith('application/json') || res.statusCode === 200 || 'responseStatus' in JSON.parse(got))
            && (res.statusCode < 500 || got.includes('<faultcode>'));
          if (!ok) problems.push(`${c.method} ${c.path}${c.query} -> ${res.statusCode} ${type} ${got.slice(0, 80)}`);
        } catch (e) {
          problems.push(`${c.method} ${c.path}${c.query} -> ${(e as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    await agent.close();
    expect(problems.slice(0, 10)).toEqual([]);
  }, 120_000);

  it('serves 200 concurrent connections for 10 s with no error', async () => {
    const result = await autocannon({
      url: `${ref.url}/supportstateuser`, method: 'POST', connections: 200, duration: 10,
      headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}',
    });
    expect({ errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx, resets: result.resets }).toEqual({ errors: 0, timeouts: 0, non2xx: 0, resets: 0 });
    expect(result.requests.total).toBeGreaterThan(0);
  }, 60_000);
});

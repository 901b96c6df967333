// The reference's kept answers (lib/reference/request-forms.ts): without an observer, a form of
// request (method, path and query, Accept, Content-Type, SOAPAction) keeps the last body it
// answered with the sample account's record. They are invisible on the wire: every answer is byte
// for byte (status line, headers in order and case, Date aside, body) what a reference that reads
// every request afresh (one with an observer) writes, asked in an order where a kept answer given
// to the wrong form or body would show.
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES, SOAP11_ENVELOPE } from '../lib/contract/namespaces.js';
import { FORMS_KEPT, KNOWN_BODY_BYTES, keepAnswer, knownAnswer, RequestForms } from '../lib/reference/request-forms.js';
import { startReference, type ReferenceOptions, type RunningReference } from '../lib/reference/server.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { VALUE_FAULTS } from '../lib/reference/value-faults.js';

describe('RequestForms', () => {
  const json = { 'content-type': 'application/json' };

  it('gives one form per method, path and query, Accept, Content-Type and SOAPAction, classified as the classifier does', () => {
    const forms = new RequestForms<string>();
    const a = forms.formOf('POST', '/supportstateuser', { ...json, host: 'a' });
    expect(forms.formOf('POST', '/supportstateuser', { ...json, host: 'b', 'user-agent': 'x' })).toBe(a);
    const others = [
      forms.formOf('GET', '/supportstateuser', json),
      forms.formOf('POST', '/supportstateuser?format=xml', json),
      forms.formOf('POST', '/supportstateuser', { ...json, accept: 'application/xml' }),
      forms.formOf('POST', '/supportstateuser', { 'content-type': 'text/plain' }),
      forms.formOf('POST', '/supportstateuser', {}),
      forms.formOf('POST', '/supportstateuser', { ...json, soapaction: '' }),
    ];
    expect(new Set([a, ...others]).size).toBe(7);
    expect(forms.size).toBe(7);
    expect([a.kind.format, others[1]!.kind.format, others[2]!.kind.format, a.kind.operation?.key]).toEqual(['json', 'xml', 'xml', 'login']);
  });

  it(`holds at most ${FORMS_KEPT} forms however many distinct requests come`, () => {
    const forms = new RequestForms<string>();
    let most = 0;
    for (let i = 0; i < 10_000; i++) {
      forms.formOf('POST', `/supportstateuser?i=${i}`, json);
      most = Math.max(most, forms.size);
    }
    expect(most).toBe(FORMS_KEPT);
  });

  it('keeps a copy of a body up to the bound, and answers only exactly those bytes', () => {
    const form = new RequestForms<string>().formOf('POST', '/supportstateuser', json);
    const body = Buffer.from('{"userName":"jdoe.support"}');
    keepAnswer(form, body, 'kept');
    expect(knownAnswer(form, Buffer.from('{"userName":"jdoe.support"}'))).toBe('kept');
    expect(knownAnswer(form, Buffer.from('{"userName":"jdoe.supporT"}'))).toBeUndefined();
    body[2] = 0x55; // the parser's buffer, reused: the kept copy is not
    expect(knownAnswer(form, Buffer.from('{"userName":"jdoe.support"}'))).toBe('kept');
    keepAnswer(form, Buffer.alloc(KNOWN_BODY_BYTES + 1, 0x20), 'too large');
    expect(knownAnswer(form, Buffer.alloc(KNOWN_BODY_BYTES + 1, 0x20))).toBeUndefined();
    expect(knownAnswer(form, Buffer.from('{"userName":"jdoe.support"}'))).toBe('kept');
  });
});

const SOAP = `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"><s:Body><ImpersonateLogoutRequest xmlns="${DEFAULT_NAMESPACES.request}"/></s:Body></s:Envelope>`;
const JSON_TYPE = { 'content-type': 'application/json' };
const SOAP_TYPE = { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ImpersonateLogoutRequest' };
const SAMPLE = '{"userName":"jdoe.support"}';

interface Ask { readonly method: string; readonly path: string; readonly headers: Record<string, string>; readonly body?: string }

/** The same bodies through forms that differ in one thing each, one after another, then other
 *  bodies on a form that has one kept. */
const ASKS: readonly Ask[] = [
  ...['/supportstateuser', '/supportstateuser?format=xml', '/supportstateuser.xml', '/supportstateuser?callback=cb', '/supportstateuser?callback=a%20b',
    '/json/reply/SupportStateUserLoginRequest', '/user/confirmemail', '/user/confirmemail?callback=onConfirm'].flatMap((path): Ask[] => [
    { method: 'POST', path, headers: JSON_TYPE, body: SAMPLE },
    { method: 'POST', path, headers: { ...JSON_TYPE, accept: 'application/xml' }, body: SAMPLE },
    { method: 'POST', path, headers: { ...JSON_TYPE, accept: 'application/json' }, body: SAMPLE },
    { method: 'POST', path, headers: { 'content-type': 'text/plain' }, body: SAMPLE },
    { method: 'POST', path, headers: {}, body: SAMPLE },
    { method: 'POST', path, headers: JSON_TYPE, body: '{}' },
  ]),
  { method: 'GET', path: '/supportstateuser', headers: JSON_TYPE },
  { method: 'OPTIONS', path: '/supportstateuser', headers: {} },
  { method: 'POST', path: '/supportstateuser', headers: JSON_TYPE, body: '{"userName":"user7"}' },
  { method: 'POST', path: '/supportstateuser', headers: JSON_TYPE, body: '{"userName":"jdoe.supporT"}' },
  { method: 'POST', path: '/supportstateuser', headers: JSON_TYPE, body: ` ${SAMPLE}` },
  { method: 'POST', path: '/supportstateuser', headers: JSON_TYPE, body: '{"userName":1}' },
  { method: 'POST', path: '/supportstateuser', headers: JSON_TYPE, body: SAMPLE },
  { method: 'POST', path: '/soap11', headers: SOAP_TYPE, body: SOAP },
  { method: 'POST', path: '/soap11', headers: { ...SOAP_TYPE, soapaction: '"urn:x/Other"' }, body: SOAP },
  { method: 'POST', path: '/soap11', headers: { 'content-type': 'application/soap+xml' }, body: SOAP },
  { method: 'POST', path: '/soap11', headers: { 'content-type': 'text/xml' }, body: SOAP },
  { method: 'POST', path: '/soap11', headers: SOAP_TYPE, body: SOAP.replace('ImpersonateLogoutRequest x', 'Other x') },
  { method: 'POST', path: '/soap11?format=xml', headers: SOAP_TYPE, body: SOAP },
];

/** Status line, headers as sent (Date aside) and body. */
function ask(url: string, a: Ask): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(a.path, url);
    const req = request({ host: u.hostname, port: u.port, path: a.path, method: a.method, headers: a.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const head: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]!.toLowerCase() !== 'date') head.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve(`${a.method} ${a.path} ${JSON.stringify(a.headers)} ${a.body ?? ''}\n${res.statusCode} ${res.statusMessage}\n${head.join('\n')}\n\n${Buffer.concat(chunks).toString('latin1')}`);
      });
    });
    req.on('error', reject);
    req.end(a.body);
  });
}

const byName = (names: readonly string[]) => [...STYLES, ...FAULTS, ...VALUE_FAULTS].filter((v) => names.includes(v.name));

describe('kept answers on the wire', () => {
  const started: RunningReference[] = [];
  afterAll(async () => { await Promise.all(started.map((r) => r.close())); });

  const cases: [string, ReferenceOptions][] = [
    ['the plain reference', {}],
    ['styles and faults at a fault rate of 0.5', { faultRate: 0.5, variants: byName(['json-keys-sorted', 'indented-xml', 'jsonp-semicolon', 'envelope-prefix-soap', 'json-string-as-number', 'soap-boolean-missing', 'boolean-flipped']) }],
    ['records given (every account the sample)', { userDetails: { userName: 'given', userId: 1 }, confirmation: {} }],
  ];
  for (const [name, options] of cases) {
    it(`${name}: every answer, asked twice over, is byte for byte what a reference reading each request afresh writes`, async () => {
      const plain = await startReference(options);
      started.push(plain);
      const afresh = await startReference({ ...options, observer: {} });
      started.push(afresh);
      const expected: string[] = [];
      for (const a of ASKS) expected.push(await ask(afresh.url, a));
      const got: string[] = [];
      for (let round = 0; round < 2; round++) for (const a of ASKS) got.push(await ask(plain.url, a));
      expect(got).toEqual([...expected, ...expected]);
      expect(expected.filter((e) => e.includes('\n200 OK\n')).length).toBeGreaterThan(20);
    }, 60_000);
  }
});

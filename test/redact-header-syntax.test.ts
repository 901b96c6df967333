// A secret header's value is learned for its credential only: the authentication scheme ("Bearer",
// "Basic"), a cookie's name and a Set-Cookie attribute are words a report says anyway (the harness's
// own text, a body that says "bearer"), never masked; the credential stays masked in every output.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../lib/http/exchange.js';
import { credentialText, credentialWords, MIN_PART, Redactor } from '../lib/reporting/redact.js';

const TEXT = 'send a Bearer token or Basic auth (Negotiate too); the session cookie, its Path, HttpOnly and Secure';
const withHeaders = (headers: Record<string, string>): Exchange => ({
  id: 'p.1', title: 'p', origin: { source: 'probe', vouched: true }, startedAt: '', durationMs: 0,
  request: { method: 'GET', url: 'http://svc.test/x', headers },
});

/** A run-wide redactor that learned the exchange as the judging does, and a scope as the report does. */
function learned(headers: Record<string, string>): Redactor[] {
  const ex = withHeaders(headers);
  const r = new Redactor({ showPersonalData: false, secrets: [] });
  r.learnFingerprints(ex);
  const scope = r.scope();
  scope.learnExchange(ex);
  return [r, scope];
}

describe('a secret header\'s syntax', () => {
  it.each([
    ['Bearer a short token', { authorization: 'Bearer t0k' }],
    ['Bearer a long token', { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.Zq9' }],
    ['Basic', { authorization: 'Basic dXNlcjpwYXNzd29yZA==' }],
    ['Negotiate', { authorization: 'Negotiate YIIBhwYGKwYBBQUCoIIB' }],
    ['a cookie\'s name, a Set-Cookie\'s attributes', { cookie: 'session=c00kie-Zq9xw7', 'set-cookie': 'session=c00kie-Zq9xw7; Path=/; HttpOnly; Secure' }],
  ])('%s: the words are shown as written, run-wide and in the exchange\'s scope', (_what, headers) => {
    for (const red of learned(headers)) expect(red.line(TEXT)).toBe(TEXT);
  });

  it('the credential itself stays masked wherever it stands', () => {
    const [r, scope] = learned({ authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.Zq9', cookie: 'session=c00kie-Zq9xw7' });
    for (const red of [r!, scope!]) {
      const out = red.line('token eyJhbGciOiJIUzI1NiJ9.e30.Zq9 and cookie c00kie-Zq9xw7');
      expect(out).not.toContain('eyJhbGciOiJIUzI1NiJ9');
      expect(out).not.toContain('c00kie');
    }
  });

  // README: "parts of a header value shorter than 8 characters" are not searched for. A cookie of a
  // culture or of ServiceStack's ss-opt (perm or temp) had its word masked in every answer and record.
  it.each([
    ['a culture cookie', { cookie: 'culture=en-US' }, '"culture":"en-US", Content-Language: en-US'],
    ['ServiceStack\'s ss-opt cookie', { 'set-cookie': 'ss-opt=temp; path=/; httponly' }, 'X-Info: temp; now temp or perm'],
    ['Bearer and a short token', { authorization: 'Bearer t0k3n' }, 'the t0k3n was sent'],
  ])('%s: a part shorter than MIN_PART is shown as written elsewhere, run-wide and in the exchange\'s scope', (_what, headers, text) => {
    for (const red of learned(headers)) expect(red.line(text)).toBe(text);
  });

  it('a short value standing whole as the header\'s credential (an API key) stays masked', () => {
    for (const red of learned({ 'x-api-key': 'k3y-77' })) expect(red.line('key k3y-77 echoed')).not.toContain('k3y-77');
  });

  it('credentialWords keeps a whole-value credential and the parts of MIN_PART characters or more', () => {
    expect(MIN_PART).toBe(8);
    expect(credentialWords('culture=en-US')).toBe('');
    expect(credentialWords('ss-id=Zq9xw7Kp2m; culture=en-US')).toBe('Zq9xw7Kp2m');
    expect(credentialWords('Bearer eyJhbGciOiJIUzI1NiJ9')).toBe('eyJhbGciOiJIUzI1NiJ9');
    expect(credentialWords('k3y-77')).toBe('k3y-77');
  });

  it('credentialText keeps the credential and drops the syntax', () => {
    expect(credentialText('Bearer t0k')).toBe('t0k');
    expect(credentialText('Basic dXNlcjpwYXNz=')).toBe('dXNlcjpwYXNz=');
    expect(credentialText('sid=abc123; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly')).toBe('abc123');
    expect(credentialText('a=1; b=two')).toBe('1; two');
    expect(credentialText('Zorblax-0099')).toBe('Zorblax-0099');
  });
});

// The redactor on its own: every shape a secret can hide in.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../lib/reporting/redact.js';

const r = () => new Redactor({ showPersonalData: false, secrets: ['header-secret-1'] });

describe('Redactor', () => {
  it('replaces credential and personal members in JSON, keeping the JSON valid and the rest exact', () => {
    const out = r().text('{"apiKey":"k-123456","email":"a@b.org","userId":7,"jToken":{"nested":["t-999999"]}}');
    expect(JSON.parse(out)).toEqual({ apiKey: '«credential: string, 8 chars»', email: '«personal: string, 7 chars»', userId: 7, jToken: '«credential: object»' });
  });

  it('replaces members of truncated JSON and inside JSONP', () => {
    expect(r().text('{"apiKey":"k-123456","userNa')).not.toContain('k-123456');
    expect(r().text('cb({"hxToken":"hx-abcdef"})')).toBe('cb({"hxToken":"«credential: string, 9 chars»"})');
  });

  it('replaces sensitive XML elements under any prefix, whatever they hold, and leaves the rest', () => {
    const out = r().text('<s:Envelope><s:Body><a:R><a:ApiKey>k-1</a:ApiKey><a:ApiKeyStatus>1</a:ApiKeyStatus><a:JToken><x>t-2</x></a:JToken><Email><![CDATA[e@x.org]]></Email></a:R></s:Body></s:Envelope>');
    expect(out).toBe('<s:Envelope><s:Body><a:R><a:ApiKey>«credential: string, 3 chars»</a:ApiKey><a:ApiKeyStatus>1</a:ApiKeyStatus><a:JToken>«credential: string, 3 chars»</a:JToken><Email>«personal: string, 7 chars»</Email></a:R></s:Body></s:Envelope>');
  });

  it('hides every learned secret wherever else it appears, escaped forms included', () => {
    const red = r();
    red.learn('{"apiKey":"quote\\"d-secret"}');
    expect(red.text('seen: quote"d-secret and quote\\"d-secret')).toBe('seen: «credential: string, 14 chars» and «credential: string, 14 chars»');
  });

  it('hides secret header values and user-supplied headers by name', () => {
    const red = r();
    red.secretHeader('X-Tenant');
    expect(red.header('Authorization', 'Bearer abc')).toBe('«secret header: string, 10 chars»');
    expect(red.header('x-tenant', 'acme')).toBe('«secret header: string, 4 chars»');
    expect(red.header('accept', 'application/json')).toBe('application/json');
    expect(red.text('echo header-secret-1')).toBe('echo «secret header: string, 15 chars»');
  });

  it('hides the parts of a secret header a target may echo alone: the token, the cookie value', () => {
    const red = new Redactor({ showPersonalData: false, secrets: ['Bearer tok-0123456789', 'session=cookie-abcdefgh; theme=dark'] });
    expect(red.text('token tok-0123456789 expired; session cookie-abcdefgh')).toBe('token «secret header: string, 14 chars» expired; session «secret header: string, 15 chars»');
    expect(red.header('x-debug', 'Bearer seen')).toBe('Bearer seen'); // the scheme word alone is no secret
  });

  it('shows personal data when asked, never credentials', () => {
    const red = new Redactor({ showPersonalData: true, secrets: [] });
    expect(JSON.parse(red.text('{"email":"a@b.org","apiKey":"k"}'))).toEqual({ email: 'a@b.org', apiKey: '«credential: string, 1 chars»' });
  });
});

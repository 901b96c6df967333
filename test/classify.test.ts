// The shared classifier: what a request is, from its method, path, query and headers alone. The
// reference routes with it and every exchange is judged by what it says, so its answers are pinned
// here one by one, against section 4 and ServiceStack's conventions.
import { describe, expect, it } from 'vitest';
import { classify, kindLabel } from '../lib/contract/classify.js';
import { confirmEmail, impersonateLogout, login } from '../lib/contract/operations.js';

const post = (url: string, headers: Record<string, string> = {}) => classify({ method: 'POST', url, headers });

describe('routes of section 4', () => {
  it.each([
    ['/supportstateuser', login, 'custom'],
    ['/json/reply/SupportStateUserLoginRequest', login, 'reply'],
    ['/user/confirmemail', confirmEmail, 'custom'],
    ['/json/reply/ConfirmEmailRequest', confirmEmail, 'reply'],
    ['/soap11', impersonateLogout, 'soap11'],
    ['/SupportStateUser', login, 'custom'], // ServiceStack matches paths without regard to case
    ['https://svc.example.com/api/v2/user/confirmemail', confirmEmail, 'custom'], // an absolute URL under a base path
  ] as const)('%s is %s by its %s route', (url, op, route) => {
    const k = post(url);
    expect([k.operation, k.route]).toEqual([op, route]);
  });

  it('names the base path a route sits under (the reference serves only at its root)', () => {
    expect(post('/api/v2/supportstateuser').basePath).toBe('/api/v2');
    expect(post('/supportstateuser').basePath).toBe('');
    expect(post('/api/v2//supportstateuser/').basePath).toBe('/api/v2');
    expect(post('//supportstateuser').basePath).toBe('');
    expect(post('/api%2Fv2/%73upportstateuser').basePath).toBe('/api%2Fv2');
  });

  // A target on ASP.NET Core serves these as the route (Kestrel decodes %XX but %2F, seen on .NET 10;
  // ServiceStack's RestPath drops empty segments): judged as the operation, not as another service.
  it.each([
    ['/%73upportstateuser', login, 'custom'],
    ['/supportstateuser/', login, 'custom'],
    ['//supportstateuser', login, 'custom'],
    ['/User//ConfirmEmail/', confirmEmail, 'custom'],
    ['/%75ser/%43onfirm%65mail', confirmEmail, 'custom'],
    ['/soap11/', impersonateLogout, 'soap11'],
    ['/json/reply/%53upportStateUserLoginRequest', login, 'reply'],
    ['/supportstateuser%2Ejson', login, 'custom'],
  ] as const)('%s, spelled otherwise, is %s by its %s route', (url, op, route) => {
    const k = post(url);
    expect([k.operation, k.route]).toEqual([op, route]);
  });

  it('reads an extension spelled with %2E, and none after a trailing slash (ServiceStack reads it off the path\'s end)', () => {
    expect([post('/supportstateuser%2Ejson', { accept: 'application/xml' }).selected, post('/supportstateuser%2ejson').format]).toEqual(['json', 'json']);
    expect(post('/supportstateuser.json/').operation).toBeUndefined();
  });

  it.each(['/', '/supportstateusers', '/xsupportstateuser', '/json/reply/Unknown', '/soap12', '/json/reply/SupportStateUserLoginRequest.json', '/soap11.json', '/supportstateuser.csv', '/user%2Fconfirmemail', '/%E2%82%ACsupportstateuser', '/supportstateuser%00'])(
    '%s is not this interface', (url) => {
      expect(post(url).operation).toBeUndefined();
    });
});

describe('format selection', () => {
  const xml = { accept: 'application/xml' };
  it.each([
    ['/supportstateuser', {}, 'none', undefined, 'json'],
    ['/supportstateuser', xml, 'none', undefined, 'xml'],
    ['/supportstateuser.json', xml, 'extension', 'json', 'json'],
    ['/supportstateuser?format=json', xml, 'query', 'json', 'json'],
    ['/supportstateuser.soap11', {}, 'extension', 'soap11', 'soap11'],
    ['/supportstateuser?format=xml', {}, 'query', 'xml', 'xml'],
    ['/supportstateuser?format=nonsense', xml, 'none', undefined, 'xml'], // unknown formats fall back to negotiation
    ['/json/reply/SupportStateUserLoginRequest', xml, 'none', undefined, 'json'], // the reply route always answers JSON
    ['/soap11?format=soap11', {}, 'query', 'soap11', 'soap11'],
    ['/soap11', { accept: 'application/json' }, 'none', undefined, 'soap11'], // /soap11 always answers SOAP
  ] as const)('%s with %j: selector %s (%s), answered as %s', (url, headers, selector, selected, format) => {
    const k = post(url, headers);
    expect([k.selector, k.selected, k.format]).toEqual([selector, selected, format]);
  });

  it('negotiates as ServiceStack does: XML only when Accept prefers it', () => {
    expect(post('/supportstateuser', { accept: 'application/json, application/xml;q=0.9' }).negotiated).toBe('json');
    expect(post('/supportstateuser', { accept: 'text/xml' }).negotiated).toBe('xml');
    expect(post('/supportstateuser', { accept: '*/*' }).negotiated).toBe('json');
    expect(post('/supportstateuser', { Accept: 'application/xml' }).negotiated).toBe('xml'); // header names in any case
  });
});

// ServiceStack reads the query through ASP.NET Core's Request.Query (observed on .NET 10): names in any
// case, percent-decoded; a name given twice is its values joined by commas, empty ones left out.
describe('query parameters as ASP.NET Core reads them', () => {
  const xml = { accept: 'application/xml' };
  it.each([
    ['/supportstateuser?FORMAT=xml', {}, 'query', 'xml', 'xml'],
    ['/supportstateuser?Format=json', xml, 'query', 'json', 'json'],
    ['/supportstateuser?%66ormat=xml', {}, 'query', 'xml', 'xml'],
    ['/supportstateuser?format=&format=xml', {}, 'query', 'xml', 'xml'],
    ['/supportstateuser?format=xml&format=json', xml, 'none', undefined, 'xml'], // "xml,json" names no format: Accept decides
  ] as const)('%s with %j: selector %s (%s), answered as %s', (url, headers, selector, selected, format) => {
    const k = post(url, headers);
    expect([k.selector, k.selected, k.format]).toEqual([selector, selected, format]);
  });
  it('?CallBack=cb is JSONP; a name with the Kelvin sign for its k is no callback (ASP.NET folds ASCII letters only)', () => {
    expect(post('/supportstateuser?CallBack=cb')).toMatchObject({ callback: 'cb', jsonp: true });
    expect(post(`/supportstateuser?callbac${encodeURIComponent('\u212A')}=cb`).callback).toBeUndefined();
    expect(post(`/supportstateuser?CALLBACK=${encodeURIComponent('alert(1)//')}`)).toMatchObject({ callback: 'alert(1)//', jsonp: true, unsafeCallback: true });
  });
});

describe('JSONP', () => {
  it('a callback on a JSON answer is JSONP; on an XML or SOAP answer it is not', () => {
    expect(post('/supportstateuser?callback=cb')).toMatchObject({ callback: 'cb', jsonp: true, unsafeCallback: false });
    expect(post('/supportstateuser?callback=cb', { accept: 'application/xml' }).jsonp).toBe(false);
    expect(post('/soap11?callback=cb').jsonp).toBe(false);
    expect(post('/supportstateuser?callback=').jsonp).toBe(false);
  });
  it('tells a script-safe name from one ServiceStack would sanitise', () => {
    expect(post('/supportstateuser?callback=a.b_c9').unsafeCallback).toBe(false);
    expect(post(`/supportstateuser?callback=${encodeURIComponent('alert(1)//')}`)).toMatchObject({ callback: 'alert(1)//', unsafeCallback: true });
  });
});

describe('labels', () => {
  it('names a kind in one line for coverage tables', () => {
    expect(kindLabel(post('/supportstateuser.json?callback=cb'))).toBe('SupportStateUserLoginRequest POST route .json ?callback -> JSONP');
    expect(kindLabel(classify({ method: 'OPTIONS', url: '/user/confirmemail', headers: {} }))).toBe('ConfirmEmailRequest OPTIONS route');
    expect(kindLabel(post('/elsewhere'))).toBe('POST (not this interface)');
  });
});
